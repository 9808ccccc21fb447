"""The shapes a citation may come in (dicts, objects, dataclasses, pydantic models, Anthropic
Messages API citation blocks, anything through ``pytest_citecheck_adapt_citation``), the errors a
malformed one gets, and the two hooks (adapt and split) driven from a real ``conftest.py``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pydantic
import pytest

from pytest_citecheck import Citation, CitationInputError, Source, Status
from pytest_citecheck._check.checker import Checker
from pytest_citecheck._citations.adapt import adapt_citations
from pytest_citecheck.testing import JevServer

DATA = Path(__file__).parent.parent / "data"
EXPECTED = Citation(
    id="grant", claim="Contributors grant a patent licence.", quote="grant to You a perpetual, worldwide", section="3"
)


@dataclass
class DataclassCitation:
    id: str
    claim: str
    quote: str | None
    section: str | None


class PydanticCitation(pydantic.BaseModel):
    id: str
    claim: str
    quote: str | None = None
    section: str | None = None


class PlainCitation:
    def __init__(self) -> None:
        self.id, self.claim, self.quote, self.section = EXPECTED.id, EXPECTED.claim, EXPECTED.quote, EXPECTED.section


# Shaped like the anthropic SDK's TextBlock and CitationCharLocation (pydantic models there too).
class CharLocation(pydantic.BaseModel):
    type: str = "char_location"
    cited_text: str
    document_index: int = 0
    document_title: str | None = None
    start_char_index: int
    end_char_index: int


class TextBlock(pydantic.BaseModel):
    type: str = "text"
    text: str
    citations: list[CharLocation] | None = None


@pytest.mark.parametrize(
    "raw",
    [
        {"id": "grant", "claim": EXPECTED.claim, "quote": EXPECTED.quote, "section": "3"},
        DataclassCitation("grant", EXPECTED.claim, EXPECTED.quote, "3"),
        PydanticCitation(id="grant", claim=EXPECTED.claim, quote=EXPECTED.quote, section="3"),
        SimpleNamespace(id="grant", claim=EXPECTED.claim, quote=EXPECTED.quote, section=3),
        PlainCitation(),
    ],
    ids=["dict", "dataclass", "pydantic", "namespace-with-int-section", "object"],
)
def test_built_in_shapes_adapt_to_the_same_citation(raw) -> None:
    assert adapt_citations([raw]) == [EXPECTED]


@pytest.fixture(scope="module")
def apache() -> Source:
    return Source.from_file(DATA / "apache-2.0.txt")


def anthropic_block(source: Source, *quotes: str) -> dict:
    citations = []
    for quote in quotes:
        start = source.text.index(quote)
        citations.append(
            {
                "type": "char_location",
                "cited_text": quote,
                "document_index": 0,
                "document_title": "Apache-2.0",
                "start_char_index": start,
                "end_char_index": start + len(quote),
            }
        )
    return {"type": "text", "text": "Contributors grant patent and copyright licences.", "citations": citations}


def test_an_anthropic_text_block_gives_one_citation_per_cited_passage(apache: Source) -> None:
    block = anthropic_block(apache, "Grant of Copyright License", "Grant of Patent License")
    uncited = {"type": "text", "text": "Here is what I found:"}
    adapted = adapt_citations([uncited, block])
    assert [c.id for c in adapted] == ["#1.1", "#1.2"]
    assert [c.quote for c in adapted] == ["Grant of Copyright License", "Grant of Patent License"]
    assert {c.claim for c in adapted} == {block["text"]}
    start = apache.text.index("Grant of Patent License")
    assert adapted[1].location == (start, start + len("Grant of Patent License"))
    # The SDK's objects work the same way.
    typed = TextBlock(text=block["text"], citations=[CharLocation(**c) for c in block["citations"]])
    assert adapt_citations([typed]) == adapt_citations([block])


def test_anthropic_character_offsets_choose_the_section(direct_checker, jev_server: JevServer) -> None:
    sentence = "This obligation applies to every copy of the Work that You distribute."
    text = f"1. Scope\n\n{sentence}\n\n2. Distribution\n\nWhen You distribute: {sentence}\n"
    source = Source.from_text(text, format="numbered")
    second = text.rindex(sentence)
    block = {
        "type": "text",
        "text": "Distributors must follow the obligation.",
        "citations": [
            {
                "type": "char_location",
                "cited_text": sentence,
                "document_index": 0,
                "start_char_index": second,
                "end_char_index": second + len(sentence),
            }
        ],
    }
    [located] = direct_checker(jev_server).check([block], source)
    assert located.status is Status.FOUND and located.section == "2"
    assert source.sections["2"][located.span[0] : located.span[1]] == sentence
    # Without offsets the cookbook's rule applies: the first section that contains the quote.
    [first] = direct_checker(jev_server).check([{"id": "plain", "claim": block["text"], "quote": sentence}], source)
    assert first.section == "1"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"id": "c1", "quote": "grant to You a perpetual"}, r"citation 'c1', field 'claim': is missing"),
        (
            {"id": "c2", "claim": "A claim.", "quote": 42},
            r"citation 'c2', field 'quote': must be a string, or None .* got int",
        ),
        ({"id": "c3", "claim": "  ", "quote": "grant to You a perpetual"}, r"citation 'c3', field 'claim': is empty"),
        ({"id": "c4", "claim": "A claim.", "quote": None}, r"citation 'c4', field 'section': is missing"),
        (
            {"type": "text", "text": "A claim.", "citations": [{"cited_text": 7}]},
            r"citation '#0.1', field 'cited_text': must be a string",
        ),
        (
            {
                "type": "text",
                "text": "A claim.",
                "citations": [{"cited_text": "grant to You", "start_char_index": 9, "end_char_index": 2}],
            },
            r"citation '#0.1', field 'start_char_index': .* 0 <= start <= end",
        ),
        (
            {"type": "text", "text": "A claim.", "citations": "grant"},
            r"citation '#0', field 'citations': must be a list",
        ),
    ],
)
def test_a_malformed_citation_names_the_citation_and_the_field(raw, message: str) -> None:
    with pytest.raises(CitationInputError, match=message):
        adapt_citations([raw])


def test_a_section_the_source_does_not_have_names_the_citation_and_field(apache: Source) -> None:
    citation = {"id": "ghost", "claim": "There is a section 12.", "quote": None, "section": "12"}
    with pytest.raises(
        CitationInputError,
        match=r"citation 'ghost', field 'section': names section '12', which the source does not have",
    ):
        Checker().check([citation], apache)


# --- the hooks, from a conftest.py ------------------------------------------------------------

HOOK_CONFTEST = """
import re


def pytest_citecheck_split_sections(text, format):
    if format != "faq":
        return None
    # "Q: ..." lines start a section whose id is the question's number.
    parts = re.split(r"(?m)^(?=Q\\d+:)", text)
    return {part.split(":", 1)[0]: part.strip() for part in parts if part.strip()}


def pytest_citecheck_adapt_citation(citation, position):
    if isinstance(citation, tuple):
        claim, quote = citation
        return {"id": f"t{position}", "claim": claim, "quote": quote}
    return None
"""

FAQ = (
    "Q1: How long do refunds take?\\nRefunds are issued within 30 days of the return being received.\\n\\n"
    "Q2: Can I return a gift?\\nGifts can be returned for store credit with the gift receipt.\\n"
)


def test_split_and_adapt_hooks_in_conftest(pytester: pytest.Pytester, jev_server: JevServer, inner_ini: str) -> None:
    pytester.makeini(inner_ini)
    pytester.makeconftest(HOOK_CONFTEST)
    pytester.makepyfile(
        test_faq=f'''
from pytest_citecheck import Source, Status, check_citations

FAQ = "{FAQ}"
SOURCE = Source.from_text(FAQ, format="faq")  # at import: the session's split hook answers


def test_the_split_hook_makes_the_sections():
    assert list(SOURCE.sections) == ["Q1", "Q2"]
    assert SOURCE.sections["Q2"].startswith("Q2: Can I return a gift?")


def test_tuples_are_adapted_and_text_is_split_by_the_hook(citecheck):
    found, invented = check_citations(
        [("Refunds take up to a month.", "Refunds are issued within 30 days"),
         ("Gifts are refunded in cash.", "Gifts can be returned for cash with the gift receipt")],
        FAQ, format="faq",
    )
    assert (found.id, found.status, found.section) == ("t0", Status.FOUND, "Q1")
    assert (invented.id, invented.status, invented.closest.section) == ("t1", Status.MISSING, "Q2")


def test_a_format_no_hook_knows_is_a_clear_error():
    import pytest
    from pytest_citecheck import SourceError
    with pytest.raises(SourceError, match="unknown format 'yaml'.*pytest_citecheck_split_sections"):
        Source.from_text(FAQ, format="yaml")
'''
    )
    result = pytester.runpytest("--citecheck-record-mode=once", "--citecheck-model=jev-1.12")
    result.assert_outcomes(passed=3)
    [request] = jev_server.systemone_requests
    assert request.body["state"]["section"].startswith("Q1: How long do refunds take?")


def test_an_unknown_format_no_hook_answers_is_an_error() -> None:
    # This session's conftest.py does not implement the split hook: every implementation declines.
    with pytest.raises(CitationInputError, match="unknown format 'faq'"):
        Source.from_text("Q1: x\nY\n", format="faq")


def test_explicit_hooks_and_a_hook_that_returns_the_wrong_type(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_citecheck import _hooks as hookcallers

    monkeypatch.setattr(hookcallers, "split_sections", None)  # as outside any pytest session
    splitter = SimpleNamespace(pytest_citecheck_split_sections=lambda text, format: {"all": text.strip()})
    assert dict(Source.from_text("Q1: x\n", format="faq", hooks=splitter).sections) == {"all": "Q1: x"}
    broken = SimpleNamespace(pytest_citecheck_split_sections=lambda text, format: ["Q1: x"])
    with pytest.raises(
        CitationInputError, match="field 'format': the pytest_citecheck_split_sections hook returned list"
    ):
        Source.from_text("Q1: x\n", format="faq", hooks=broken)
    with pytest.raises(CitationInputError, match="unknown format 'faq'"):
        Source.from_text("Q1: x\n", format="faq")
