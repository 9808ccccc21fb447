"""Amazon Bedrock Converse answers: ``citationsContent`` blocks read as the Claude citations they carry.

``tests/data/payloads/bedrock_converse_pdf_page.json`` is a Converse response recorded by another
project's tests (the payloads README says where): a Claude model over a PDF, one ``documentPage``
citation of ``start 1, end 2`` for a passage on the first page, which is how the exclusive end is read.
The other answers are built here in the same shape over the real pages of ``tests/data/apache-2.0.pdf``.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from support import converse_pdf_pages, located_places, pdf_pages, refused_with_one_invalid

from pytest_citecheck import CitecheckError, Corpus, Source, Status
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck.testing import JevServer

RECORDED = Path(__file__).resolve().parent.parent / "data" / "payloads" / "bedrock_converse_pdf_page.json"


def recorded() -> dict[str, Any]:
    return json.loads(RECORDED.read_text(encoding="utf-8"))


def converse(*citations: dict[str, Any], text: str = "The licence says so.") -> dict[str, Any]:
    """A Converse response: an uncited text block, then one ``citationsContent`` block citing ``citations``."""
    return {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {"reasoningContent": {"reasoningText": {"text": "Let me look.", "signature": "sig"}}},
                    {"text": "Here is the answer. "},
                    {"citationsContent": {"content": [{"text": text}], "citations": list(citations)}},
                ],
            }
        },
        "stopReason": "end_turn",
    }


def page_citation(quote: str, start: int, end: int) -> dict[str, Any]:
    return {
        "title": "apache-2.0.pdf",
        "sourceContent": [{"text": quote}],
        "location": {"documentPage": {"documentIndex": 0, "start": start, "end": end}},
    }


@pytest.fixture(scope="module")
def apache_pages() -> tuple[Corpus, str]:
    """The real PDF's four pages as a Corpus, and a line of its third page."""
    documents = pdf_pages("apache-2.0.pdf")
    return Corpus.from_documents(documents), documents[2].page_content.split("\n")[3].strip()


def test_the_recorded_answer_cites_page_one_and_its_aside_cites_nothing() -> None:
    adapted = adapt_answer(recorded(), source=converse_pdf_pages())
    [citation] = adapted.citations
    assert citation.claim.startswith("It is a sample PDF file") and citation.section == "page 1"
    assert citation.quote is not None and "made the PDF specification available" in citation.quote
    assert adapted.uncited == ["No, this is not a paper on Large Language Models."]
    assert located_places(recorded(), converse_pdf_pages()) == [(Status.FOUND, "page 1")]


def test_the_recorded_citation_moved_to_page_two_is_found_elsewhere_never_found() -> None:
    """``end`` is exclusive: ``start 2, end 3`` cites page 2 alone, and the quote is on page 1."""
    answer = recorded()
    place = answer["output"]["message"]["content"][1]["citationsContent"]["citations"][0]["location"]
    place["documentPage"] |= {"start": 2, "end": 3}
    assert located_places(answer, converse_pdf_pages()) == [(Status.FOUND_ELSEWHERE, "page 1")]


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [(3, 4, (Status.FOUND, "page 3")), (3, 3, (Status.FOUND, "page 3")), (2, 3, (Status.FOUND_ELSEWHERE, "page 3"))],
    ids=["page-3", "end-equal-to-start-is-that-page", "page-2"],
)
def test_a_page_citation_over_a_real_pdf(apache_pages: tuple[Corpus, str], start: int, end: int, expected: Any) -> None:
    corpus, quote = apache_pages
    assert located_places(converse(page_citation(quote, start, end)), corpus) == [expected]


def test_a_message_or_a_list_of_its_blocks_reads_as_the_whole_response(apache_pages: tuple[Corpus, str]) -> None:
    corpus, quote = apache_pages
    answer = converse(page_citation(quote, 3, 4))
    message = answer["output"]["message"]
    # Parts that cite nothing (the reasoning) are left out of the numbering, as in a Claude Message.
    by_shape = [adapt_answer(shape, source=corpus) for shape in (answer, message, message["content"])]
    assert [[(c.id, c.section) for c in adapted.citations] for adapted in by_shape] == [[("#1.1", "page 3")]] * 3


def test_char_and_chunk_locations_read_as_claudes() -> None:
    text = "1. Grass\n\nThe grass is green.\n\n2. Sky\n\nThe sky is blue.\n"
    source = Source.from_text(text)
    start = text.index("The sky")
    answer = converse(
        {
            "sourceContent": [{"text": "The sky is blue."}],
            "location": {"documentChar": {"documentIndex": 0, "start": start, "end": start + 16}},
        },
        {
            "sourceContent": [{"text": "The grass is green."}],
            "location": {"documentChunk": {"documentIndex": 0, "start": 0, "end": 1}},
        },
    )
    assert located_places(answer, source) == [(Status.FOUND, "2"), (Status.FOUND, "1")]


def test_a_bad_citation_is_named_in_bedrocks_terms_and_hides_no_other(apache_pages: tuple[Corpus, str]) -> None:
    corpus, quote = apache_pages
    unknown_place = {"sourceContent": [{"text": quote}], "location": {"documentSpan": {"start": 1}}}
    page_zero = page_citation(quote, 0, 1)
    adapted = adapt_answer(converse(page_citation(quote, 3, 4), unknown_place, page_zero), source=corpus)
    assert [citation.id for citation in adapted.citations] == ["#1.1", "#1.2", "#1.3"]
    assert set(adapted.invalid) == {"#1.2", "#1.3"}
    unknown, zero = adapted.invalid["#1.2"], adapted.invalid["#1.3"]
    assert unknown.field == "location" and "documentSpan" in unknown.message and "documentPage" in unknown.message
    assert zero.field == "location.documentPage.start"
    assert "location.documentPage.start 0" in zero.message and "start_page_number" not in zero.message


def test_an_unknown_block_kind_fails_closed_naming_it() -> None:
    answer = converse()
    answer["output"]["message"]["content"].append({"citationsContentV2": {"citations": []}})
    with pytest.raises(CitecheckError, match=r"content\[3\].*'citationsContentV2' block"):
        adapt_answer(answer)


def test_a_citation_of_a_later_document_against_one_source_is_invalid() -> None:
    answer = copy.deepcopy(recorded())
    citation = answer["output"]["message"]["content"][1]["citationsContent"]["citations"][0]
    citation["location"]["documentPage"]["documentIndex"] = 1
    adapted = adapt_answer(answer, source=converse_pdf_pages())
    [error] = adapted.invalid.values()
    assert error.field == "location.documentPage.documentIndex"


def test_the_recorded_answer_passes_a_whole_check(direct_checker: Any) -> None:
    server = JevServer().start()
    try:
        [result] = direct_checker(server).assert_supported(recorded(), converse_pdf_pages())
    finally:
        server.stop()
    assert (result.status, result.section, result.verdict) == (Status.FOUND, "page 1", "verified")


def langchain_content(start: int, end: int) -> list[dict[str, Any]]:
    """The recorded answer as langchain-aws 1.9.1's ``ChatBedrockConverse`` puts it in ``AIMessage.content``
    (its ``_bedrock_to_lc``, run on the recording: Bedrock's keys in snake case), citing pages ``[start, end)``."""
    [aside, cited] = recorded()["output"]["message"]["content"]
    [citation] = cited["citationsContent"]["citations"]
    return [
        {"type": "text", "text": aside["text"]},
        {
            "type": "text",
            "text": cited["citationsContent"]["content"][0]["text"],
            "citations": [
                {
                    "title": citation["title"],
                    "source_content": [{"text": citation["sourceContent"][0]["text"]}],
                    "location": {"document_page": {"document_index": 0, "start": start, "end": end}},
                }
            ],
        },
    ]


@pytest.mark.parametrize("provider", ["bedrock_converse", None], ids=["translated-content-blocks", "raw-citations"])
@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [(1, 2, (Status.FOUND, "page 1")), (2, 3, (Status.FOUND_ELSEWHERE, "page 1"))],
    ids=["page-1", "page-2"],
)
def test_a_langchain_message_of_a_converse_answer_keeps_its_page(
    provider: str | None, start: int, end: int, expected: Any
) -> None:
    """``content_blocks`` of a ``bedrock_converse`` message make each citation a standard one with the page in
    ``extras["location"]``: read as Claude's, the page was lost and a quote from page 1 cited as page 2 was
    ``found``. Without ``model_provider`` the raw snake-case citations were dropped (nothing checked)."""
    from langchain_core.messages import AIMessage

    metadata = {"model_provider": provider} if provider else {}
    message = AIMessage(content=langchain_content(start, end), response_metadata=metadata)  # type: ignore[arg-type]
    assert located_places(message, converse_pdf_pages()) == [expected]
    assert adapt_answer(message, source=converse_pdf_pages()).uncited == [
        "No, this is not a paper on Large Language Models."
    ]


def test_the_langchain_content_list_alone_reads_the_same() -> None:
    assert located_places(langchain_content(2, 3), converse_pdf_pages()) == [(Status.FOUND_ELSEWHERE, "page 1")]


@pytest.mark.parametrize(
    ("field", "broken", "cause"),
    [
        ("citations", {"location": {"documentPage": {"start": 1, "end": 2}}}, "must be a list of citations, got dict"),
        ("citations", None, "must be a list of citations, got NoneType"),
        ("content", "It is a sample PDF file.", r"must be a list of \{'text': \.\.\.\}, got str"),
        ("content", [{"image": {"format": "png"}}], r"must be a list of \{'text': <a string>\}"),
    ],
    ids=["citations-an-object", "citations-null", "content-a-string", "content-not-text-parts"],
)
def test_a_malformed_citations_content_block_is_one_invalid_citation_and_hides_no_other(
    direct_checker: Any, field: str, broken: Any, cause: str
) -> None:
    """The recording with a second ``citationsContent`` block, malformed: that block stands in as one invalid
    citation named by Bedrock's path to the field, and the recorded citation before it is still judged."""
    answer = recorded()
    content = answer["output"]["message"]["content"]
    malformed = copy.deepcopy(content[1])
    malformed["citationsContent"][field] = broken
    content.append(malformed)
    message = rf"citation '#2', field 'content\[2\]\.citationsContent\.{field}': {cause}"
    claims = refused_with_one_invalid(direct_checker, answer, converse_pdf_pages(), message)
    assert claims == [content[1]["citationsContent"]["content"][0]["text"]]
    # The malformed block meant to cite its text: the invalid citation fails it, not the answer's coverage.
    assert adapt_answer(answer, source=converse_pdf_pages()).uncited == [
        "No, this is not a paper on Large Language Models."
    ]


def test_a_citations_content_block_that_is_no_object_is_one_invalid_citation() -> None:
    answer = recorded()
    answer["output"]["message"]["content"].insert(0, {"citationsContent": ["It is a sample PDF file."]})
    adapted = adapt_answer(answer, source=converse_pdf_pages())
    assert [citation.id for citation in adapted.citations] == ["#0", "#2.1"]
    [error] = adapted.invalid.values()
    assert (error.citation, error.field) == ("#0", "content[0].citationsContent")
    assert "must be an object, got list" in error.message
