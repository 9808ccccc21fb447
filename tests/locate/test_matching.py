"""Step 1 on real documents: the cookbook's RFC 7519 table, each rule of the normalisation contract
(docs/matching.md), offsets back into the original section text, fuzzy matching, the closest-passage
diagnostic, the minimum quote length, and Jev's size limits with the window option."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_citecheck import CitationInputError, Source, Status, Verdict
from pytest_citecheck._locate.locator import QuoteLocator
from pytest_citecheck._locate.normalize import JOINED_AT_BREAK, JOINED_INLINE, normalize, normalize_marked
from pytest_citecheck._locate.passages import window_around
from pytest_citecheck.testing import JevServer

REPO = Path(__file__).resolve().parents[2]
RFC7519 = REPO / "examples" / "rfc7519" / "rfc7519.txt"
CITATIONS = REPO / "examples" / "rfc7519" / "citations.json"

DATA = Path(__file__).parent.parent / "data"

# The sections the cookbook's recorded answers were keyed on (sha256 of the section text): they
# must stay byte for byte what they were, or the recorded answers no longer apply.
COOKBOOK_SECTION_LENGTHS = {"2": 3122, "4.1.3": 761, "4.1.4": 529, "3": 1653, "4.1.6": 270, "4": 918}
COOKBOOK_STEP_ONE = {
    "epoch_seconds": ("found", "2"),
    "aud_reject": ("found", "4.1.3"),
    "sig_reporting": ("missing", None),
    "clock_skew": ("found", "4.1.4"),
    "exp_required": ("found", "4.1.4"),
    "pii_encryption": ("found", "3"),
    "iat_future": ("section-only", "4.1.6"),
    "duplicate_names": ("found", "4"),
}


@pytest.fixture(scope="module")
def rfc7519() -> Source:
    return Source.from_text(RFC7519.read_text(), format="rfc")


@pytest.fixture(scope="module")
def locator(rfc7519: Source) -> QuoteLocator:
    return QuoteLocator(rfc7519)


# --- the cookbook's case must not change ------------------------------------------------------


def test_rfc7519_splits_like_the_cookbook(rfc7519: Source) -> None:
    assert len(rfc7519.text) == 58_365
    assert len(rfc7519.sections) == 45
    for section_id, length in COOKBOOK_SECTION_LENGTHS.items():
        assert len(rfc7519.sections[section_id]) == length, section_id


def test_cookbook_recorded_answers_still_key_on_the_same_section_texts(rfc7519: Source, locator: QuoteLocator) -> None:
    cache = json.loads((RFC7519.parent / "json_cache.json").read_text())
    for citation in json.loads(CITATIONS.read_text()):
        if citation["quote"] is None:
            section = citation["section"]
        else:
            match = locator.find(citation["quote"])
            if match is None:
                continue
            section = match.section
        key = hashlib.sha256(("ask|" + citation["claim"] + "|" + rfc7519.sections[section]).encode()).hexdigest()
        assert key in cache, citation["id"]


def test_cookbook_step_one_table(rfc7519: Source, locator: QuoteLocator) -> None:
    table = {}
    for citation in json.loads(CITATIONS.read_text()):
        if citation["quote"] is None:
            table[citation["id"]] = ("section-only", citation["section"])
            continue
        match = locator.find(citation["quote"])
        table[citation["id"]] = ("found", match.section) if match else ("missing", None)
        if match:
            passage = rfc7519.sections[match.section][match.start : match.end]
            assert normalize(passage) == normalize(citation["quote"])
    assert table == COOKBOOK_STEP_ONE


# --- the contract, rule by rule, on real documents -------------------------------------------


def _with_invisible_characters() -> Source:
    # The source itself carries invisible characters (as text copied from a web page does).
    text = (DATA / "apache-2.0.txt").read_text()
    perturbed = text.replace("Contribution", "Contri\u00adbu\u200btion").replace("Licensor", "Li\u200dcensor\ufeff")
    return Source.from_text(perturbed, format="numbered")


def _hyphenated_by_a_typesetter() -> Source:
    # A word hyphenated by a typesetter, as PDF extraction leaves it.
    text = (DATA / "gpl-3.0.txt").read_text().replace("modification follow", "modi-\n    fication follow")
    return Source.from_text(text, format="numbered")


# The documents the rules are checked on, by name: real ones, and real ones perturbed.
DOCUMENTS: dict[str, Callable[[], Source]] = {
    "rfc7519": lambda: Source.from_text(RFC7519.read_text(), format="rfc"),
    "rfc6749": lambda: Source.from_file(DATA / "rfc6749.txt"),
    "rfc6749 as rfc": lambda: Source.from_text((DATA / "rfc6749.txt").read_text(), format="rfc"),
    "gpl-3.0": lambda: Source.from_file(DATA / "gpl-3.0.txt"),
    "apache-2.0": lambda: Source.from_file(DATA / "apache-2.0.txt"),
    "apache-2.0 with invisible characters": _with_invisible_characters,
    "gpl-3.0 hyphenated by a typesetter": _hyphenated_by_a_typesetter,
    # A line broken at a hyphen before a digit, or after one.
    "hyphens at digits": lambda: Source.from_text(
        "1.  Intro\n\n   The key words are as in RFC-\n   2119, and tokens of the 2000-\n   era are refused.\n",
        format="rfc",
    ),
}


@dataclass(frozen=True)
class Rule:
    """A quote, and the passage of ``document`` it must be found as (``section`` None: not found)."""

    document: str
    quote: str
    section: str | None
    passage: str | None = None
    casefold: bool = False


RULES = {
    "whitespace runs and line breaks collapse": Rule(
        "rfc7519",
        "If the principal processing the claim does not identify itself",
        "4.1.3",
        "If the principal\n   processing the claim does not identify itself",
    ),
    "curly quotes fold to straight": Rule(
        "rfc7519",
        "The \u201cexp\u201d (expiration time) claim identifies the expiration time",
        "4.1.4",
        'The "exp" (expiration time) claim identifies the expiration time',
    ),
    "dashes fold to hyphen-minus": Rule(
        "rfc7519",
        "the number of seconds from 1970\u201301\u201301T00:00:00Z UTC",
        "2",
        "the number of seconds from\n      1970-01-01T00:00:00Z UTC",
    ),
    "primes fold to apostrophes": Rule(
        "gpl-3.0", "a work \u2033based on\u2033 the earlier work", "0", 'a work "based on" the earlier work'
    ),
    "NFKC expands full-width forms": Rule(
        "rfc7519",
        "a JSON object that is encoded in a \uff2a\uff37\uff33 and/or JWE structure",
        "3",
        "a JSON object that is encoded in a\n   JWS and/or JWE structure",
    ),
    "NFKC expands ligatures": Rule(
        "apache-2.0",
        "documentation source, and con\ufb01guration \ufb01les",
        "1",
        "documentation\n      source, and configuration files",
    ),
    "ligatures NFKC leaves alone are spelled out": Rule(
        "rfc6749",
        "The authorization server d\u0153s not support obtaining",
        "4.1.2.1",
        "The authorization server does not support obtaining",
    ),
    "soft hyphens and zero-width characters are removed in the source": Rule(
        "apache-2.0 with invisible characters",
        "any Contribution intentionally submitted for inclusion",
        "5",
        "any Contri\u00adbu\u200btion intentionally submitted for inclusion",
    ),
    "soft hyphens and zero-width characters are removed on both sides": Rule(
        "apache-2.0 with invisible characters",
        "submitted to Licensor for inclusion in the Work by the copy\u00adright owner",
        "1",
        "submitted to Li\u200dcensor\ufeff for inclusion in the Work by the copyright owner",
    ),
    # RFC 7519 breaks "case-sensitive" across a line at its hyphen.
    "a word broken across a line at its hyphen is joined": Rule(
        "rfc7519",
        'the "aud" value is an array of case-sensitive strings',
        "4.1.3",
        'the "aud" value is an array of case-\n   sensitive strings',
    ),
    "a word hyphenated by a typesetter is joined": Rule(
        "gpl-3.0 hyphenated by a typesetter",
        "terms and conditions for copying, distribution and modification follow",
        "preamble",
        "terms and conditions for copying, distribution and\nmodi-\n    fication follow",
    ),
    # Cut from the middle of a line: a hyphenated word quoted from its hyphen on, or up to it.
    "a quote may start inside a hyphenated word": Rule(
        "rfc6749",
        "-user authentication by the client (e.g., third-party sign-in service)",
        "3.1.2.1",
        "user authentication by the client (e.g., third-party\n   sign-in service)",
    ),
    "a quote may end inside a hyphenated word": Rule(
        "gpl-3.0", "provided that you also convey the machine-", "6", "provided that you also convey the\nmachine"
    ),
    "a quote may start with a dash": Rule(
        "gpl-3.0",
        "\u2014 readable Corresponding Source under the terms of this License",
        "6",
        "readable Corresponding Source under the terms of this License",
    ),
    "a hyphen and a space read as the hyphenated word": Rule(
        "rfc6749", "delegated end- user authentication", "3.1.2.1", "delegated end-user authentication"
    ),
    "a hyphen and a line break read as the hyphenated word": Rule(
        "rfc6749", "delegated end-\nuser authentication", "3.1.2.1", "delegated end-user authentication"
    ),
    "a line broken at a hyphen before or after a digit is read without the break": Rule(
        "hyphens at digits",
        "as in RFC\u20132119, and tokens of the 2000-era are refused",
        "1",
        "as in RFC-\n   2119, and tokens of the 2000-\n   era are refused",
    ),
    "case folding is off by default": Rule("rfc7519", "IMPLEMENTERS MAY PROVIDE FOR SOME SMALL LEEWAY", None),
    "case folding is an option": Rule(
        "rfc7519",
        "IMPLEMENTERS MAY PROVIDE FOR SOME SMALL LEEWAY",
        "4.1.4",
        "Implementers MAY provide for some small leeway",
        casefold=True,
    ),
    "an elision matches ordered fragments within one section": Rule(
        "rfc7519",
        "The \u201cexp\u201d (expiration time) claim identifies \u2026 MUST NOT be accepted for processing",
        "4.1.4",
        'The "exp" (expiration time) claim identifies the expiration time on\n   or after which the JWT MUST NOT be'
        " accepted for processing",
    ),
    "an elision written as three dots": Rule(
        "rfc7519",
        "The processing of the ... claim requires that the current date/time",
        "4.1.4",
        'The\n   processing of the "exp" claim requires that the current date/time',
    ),
    "an elision's fragments out of order are not found": Rule(
        "rfc7519", 'MUST NOT be accepted for processing ... The "exp" (expiration time) claim identifies', None
    ),
    "an elision's fragments in two sections are not found": Rule(
        "rfc7519", 'Implementers MAY provide for some small leeway ... The "nbf" (not before) claim identifies', None
    ),
    # RFC 6749 shortens an example with "[...omitted for brevity...]": that is text, not an elision.
    "a literal ellipsis in the source matches as is": Rule(
        "rfc6749 as rfc",
        "[...omitted for brevity...]aG5TdGF0ZW1lbnQ",
        "4.5",
        "[...omitted for brevity...]aG5TdGF0ZW1lbnQ",
    ),
}


@pytest.fixture(scope="module")
def locators() -> Callable[[str], QuoteLocator]:
    """``locators(name)``: a locator over one of ``DOCUMENTS``, built once per module."""
    return functools.cache(lambda name: QuoteLocator(DOCUMENTS[name]()))


@pytest.mark.parametrize("rule", RULES.values(), ids=RULES.keys())
def test_each_rule_of_the_contract_finds_the_passage_it_should(
    rule: Rule, locators: Callable[[str], QuoteLocator]
) -> None:
    locator = locators(rule.document)
    match = locator.find(rule.quote, casefold=rule.casefold)
    if rule.section is None:
        assert match is None, match
        return
    assert match is not None, f"not found: {rule.quote!r}"
    assert (match.section, locator.source.sections[match.section][match.start : match.end]) == (
        rule.section,
        rule.passage,
    )


def test_ligatures_nfkc_leaves_alone_are_spelled_out_in_both_cases() -> None:
    assert normalize("\u00c6gis \u0152uvre") == "AEgis OEuvre"


def test_offsets_point_into_the_original_section_text(rfc7519: Source, locator: QuoteLocator) -> None:
    for citation in json.loads(CITATIONS.read_text()):
        if citation["quote"] is None:
            continue
        match = locator.find(citation["quote"])
        if match is None:
            continue
        passage = rfc7519.sections[match.section][match.start : match.end]
        assert passage[0] == citation["quote"][0] and passage[-1] == citation["quote"][-1]
        assert normalize(passage) == normalize(citation["quote"])


# --- through the checker ----------------------------------------------------------------------


def test_a_quote_too_short_to_identify_a_passage_is_an_error(direct_checker, rfc7519: Source) -> None:
    citations = [
        {"id": "short", "claim": "JWTs have claims.", "quote": "\u201cJWT\u201d \u2026 claims", "section": None}
    ]
    with pytest.raises(
        CitationInputError,
        match=r"citation 'short', field 'quote': is 11 characters after normalisation, too short .*min_quote_length is 12",
    ):
        direct_checker().check(citations, rfc7519)
    # Lowered on purpose, the same quote is looked up (and, not being found, never sent to Jev).
    [result] = direct_checker().check([{**citations[0], "quote": "JWT zzz"}], rfc7519, min_quote_length=5)
    assert result.verdict is Verdict.FABRICATED


def test_a_wide_character_counts_twice_toward_the_shortest_quote(direct_checker) -> None:
    """Microsoft's C++ docs in Chinese (``class (C++)``, zh-CN): "可选模板规范" ("optional template
    specification") was "6 characters after normalisation, too short to identify a passage": a Chinese,
    Japanese or Korean character is a syllable or a morpheme, written without spaces. Each wide character
    counts twice, as a terminal gives it two columns; fullwidth Latin letters fold to narrow ones first."""
    source = Source(sections={"参数": "*template-规范*\n可选模板规范。 有关详细信息，请参阅 模板。"})
    elsewhere = {"id": "c", "claim": "The template spec is optional.", "section": None}
    # Six wide characters not in the section: long enough, so looked up (and, not found, never sent to Jev).
    [result] = direct_checker().check([{**elsewhere, "quote": "可选类型规范"}], source)
    assert result.verdict is Verdict.FABRICATED
    with pytest.raises(
        CitationInputError,
        match=r"citation 'c', field 'quote': counts as 10 characters \(5 wide ones, each counted twice\) after "
        r"normalisation, too short to identify a passage \(min_quote_length is 12\)",
    ):
        direct_checker().check([{**elsewhere, "quote": "可选类型规"}], source)
    with pytest.raises(CitationInputError, match=r"field 'quote': is 6 characters after normalisation, too short"):
        direct_checker().check([{**elsewhere, "quote": "ＡＢＣＤＥＦ"}], source)  # NFKC: ABCDEF, narrow


def test_an_elided_quote_whose_pieces_stand_everywhere_is_an_error_not_a_hang(direct_checker) -> None:
    """Found by a hostile quote: 200 pieces of "a b a b a b" between "…" over 8 KB of "a b" ran for hours: every
    path through the places each piece stands at was walked again to the same dead ends. Dead ends are remembered
    now, and a search that tries more than ``MAX_TRIES`` places is the citation's input error, never fabricated."""
    source = Source(sections={"s": "a b " * 2000 + "end"})
    quote = " … ".join(["a b a b a b"] * 200) + " … a b end"
    with pytest.raises(
        CitationInputError,
        match=r"citation 'c', field 'quote': elides text 200 times, and its pieces stand at so many places in the "
        r"source .* more than 10,000 tries: .* quote the passage whole, or with fewer '\.\.\.'",
    ):
        direct_checker().check([{"id": "c", "claim": "X", "quote": quote, "section": "s"}], source)
    # Fewer pieces over a shorter such text are placed, from the first place the quote can start at, as before.
    shorter = Source(sections={"s": "a b " * 100 + "end"})
    match = QuoteLocator(shorter).find(" … ".join(["a b a b a b"] * 8) + " … a b end")
    assert match is not None and match.start == 0 and shorter.sections["s"][match.end - 3 : match.end] == "end"


def test_a_fabricated_quote_reports_the_closest_passage(direct_checker, rfc7519: Source) -> None:
    [citation] = [c for c in json.loads(CITATIONS.read_text()) if c["id"] == "sig_reporting"]
    [result] = direct_checker().check([citation], rfc7519)
    assert result.status is Status.MISSING and result.verdict is Verdict.FABRICATED
    closest = result.closest
    assert closest is not None and 0.3 < closest.similarity < 0.9
    assert rfc7519.sections[closest.section][closest.start : closest.end] == closest.text
    row = result.to_json()
    assert row["closest"] == {
        "section": closest.section,
        "span": [closest.start, closest.end],
        "text": closest.text,
        "similarity": closest.similarity,
    }


def test_a_misquote_is_fabricated_without_fuzzy_and_found_approx_with_it(
    direct_checker, rfc7519: Source, jev_server: JevServer
) -> None:
    misquote = "Implementers MAY provide for a small leeway, usually no more than a couple of minutes, to account for clock skew."
    citation = {"id": "skew", "claim": "Validators may allow a few minutes of clock skew.", "quote": misquote}
    [exact] = direct_checker(jev_server).check([citation], rfc7519)
    assert exact.status is Status.MISSING and exact.closest is not None and exact.closest.section == "4.1.4"
    assert jev_server.systemone_requests == []
    [approx] = direct_checker(jev_server).check([citation], rfc7519, fuzzy=0.85)
    assert approx.status is Status.FOUND_APPROX and approx.section == "4.1.4"
    assert approx.verdict is Verdict.VERIFIED and 0.85 <= approx.similarity < 1.0
    assert rfc7519.sections["4.1.4"][approx.span[0] : approx.span[1]].startswith("Implementers MAY provide")
    assert approx.to_json()["status"] == "found-approx" and approx.to_json()["similarity"] == approx.similarity
    [strict] = direct_checker(jev_server).check([citation], rfc7519, fuzzy=0.99)
    assert strict.status is Status.MISSING
    assert len(jev_server.systemone_requests) == 1


def test_a_section_too_large_for_jev_fails_before_sending_and_a_window_fits_it(
    direct_checker, jev_server: JevServer
) -> None:
    gpl = (DATA / "gpl-3.0.txt").read_text()
    big = Source(sections={"1": gpl * 4, "2": "Another section, short enough to judge whole."})
    quote = "The licenses for most software and other practical works are designed"
    citation = {"id": "gpl", "claim": "Most licences take away your freedom.", "quote": quote}
    with pytest.raises(
        CitationInputError, match=r"citation 'gpl', field 'section': section '1' is too large .* set window=N"
    ):
        direct_checker(jev_server).check([citation], big)
    only = {"id": "whole", "claim": "Most licences take away your freedom.", "quote": None, "section": "1"}
    with pytest.raises(
        CitationInputError, match=r"citation 'whole', field 'section': section '1' is too large .* split the document"
    ):
        direct_checker(jev_server).check([only], big)
    assert jev_server.systemone_requests == []
    [result] = direct_checker(jev_server).check([citation], big, window=2000)
    assert result.status is Status.FOUND and result.window is not None
    start, end = result.window
    assert result.section_text == big.sections["1"][start:end]
    assert start <= result.span[0] and result.span[1] <= end and 2000 <= end - start < 2100
    [request] = jev_server.systemone_requests
    assert request.body["state"]["section"] == result.section_text


def test_window_around_keeps_the_quote_and_whole_words() -> None:
    text = (DATA / "apache-2.0.txt").read_text()
    start = text.index("Grant of Patent License")
    window = window_around(text, start, start + 23, 300)
    assert window[0] <= start and window[1] >= start + 23
    assert text[window[0] - 1].isspace() and text[window[1]].isspace()
    assert window_around("short text", 0, 5, 1000) == (0, 10)


# --- the offset map and the block index, at their edges ----------------------------------------


def test_offsets_of_a_match_that_starts_or_ends_inside_an_expanded_character() -> None:
    section = "Terms of the of\ufb01ce: \u201cfinal\u201d and con\ufb01rmed by the ﬁ"
    locator = QuoteLocator(Source(sections={"1": section}))
    for quote, passage in [
        ('fice: "final" and confirmed', "\ufb01ce: \u201cfinal\u201d and con\ufb01rmed"),
        ("Terms of the off", "Terms of the of\ufb01"),  # ends inside the ligature: the whole character is in
        ("and confirmed by the fi", "and con\ufb01rmed by the \ufb01"),
        ("of the offi", "of the of\ufb01"),
    ]:
        match = locator.find(quote)
        assert match is not None, quote
        assert section[match.start : match.end] == passage, quote


CLOSEST_IN_A_PROCESS = """
import json, sys
from pathlib import Path
from pytest_citecheck import Source
from pytest_citecheck._locate import word_index
from pytest_citecheck._locate.locator import QuoteLocator

word_index._EXACT_WORDS_AT_MOST = int(sys.argv[2])
word_index._HASHED_SLOTS = 1024  # a few words to a slot: which blocks are searched depends on the slots
data = Path(sys.argv[1])
sections = dict(Source.from_text((data / "rfc6749.txt").read_text(), format="rfc").sections)
for licence in sorted(data.glob("*.txt")):
    for number, paragraph in enumerate(licence.read_text().split("\\n\\n")):
        if paragraph.strip():
            sections[f"{licence.stem}/{number}"] = paragraph
locator = QuoteLocator(Source(sections=sections))
assert locator.word_index().word_blocks.hashed == (int(sys.argv[2]) < 1000)
answers = []
for section_id in list(sections)[::5]:
    words = sections[section_id].split()
    if len(words) < 24:
        continue
    words[len(words) // 2] = "zebra"  # a misquote: no longer in the document
    found = locator.closest(" ".join(words[len(words) // 2 - 10 : len(words) // 2 + 10]))
    answers.append(None if found is None else [found.section, found.start, found.end, round(found.similarity, 6)])
print(json.dumps(answers))
"""


@pytest.mark.parametrize("exact_words_at_most", [1 << 17, 500], ids=["exact index", "hashed index"])
def test_closest_reports_the_same_passage_in_every_process(exact_words_at_most: int) -> None:
    # xdist workers and reruns hash strings with different seeds: nothing closest() reports may
    # depend on them (the block index is keyed by the words themselves, or past a number of distinct
    # words by their crc32, never by hash()).
    reports = []
    for seed in ("1", "2", "12345"):
        done = subprocess.run(
            [sys.executable, "-c", CLOSEST_IN_A_PROCESS, str(DATA), str(exact_words_at_most)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        )
        reports.append(json.loads(done.stdout))
    assert len(reports[0]) >= 100 and sum(answer is not None for answer in reports[0]) >= 100
    assert reports[0] == reports[1] == reports[2]


def test_past_a_number_of_distinct_words_the_index_is_a_fixed_table_and_still_misses_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A text of millions of distinct tokens (hashes, numbers) must not cost an index entry per token.
    from pytest_citecheck._locate import word_index

    monkeypatch.setattr(word_index, "_EXACT_WORDS_AT_MOST", 2_000)
    sections = {f"{n}": " ".join(f"token{n:03d}x{k:04d} and common words here" for k in range(400)) for n in range(60)}
    source = Source(sections=sections)
    locator = QuoteLocator(source)
    indexed = locator.word_index()
    assert indexed.word_blocks is not None and indexed.word_blocks.hashed and len(indexed.blocks) >= 2
    assert len(indexed.word_blocks._hashed) == word_index._HASHED_SLOTS  # bounded, whatever the text
    for n in (0, 17, 59):
        quote = f"token{n:03d}x0123 and common words here token{n:03d}x0124"
        match = locator.find(quote)
        assert match is not None and match.section == f"{n}", quote
        assert sections[match.section][match.start : match.end] == quote
    assert locator.find("token999x0123 and common words here") is None


def test_the_closest_passage_may_be_a_section_shorter_than_the_quote() -> None:
    # rapidfuzz reports the alignment in the quote (src) and in the passage (dest) whichever is
    # longer; a heading shorter than the misquote was once placed by the quote's offsets (IndexError).
    sections = {"1": "11. IANA Considerations", "2": "Acknowledgements go to the many reviewers"}
    quote = (
        "then edited many of the intermediate drafts that evolved into zebra RFC. "
        "The Security Considerations section was drafted by Torsten"
    )
    closest = QuoteLocator(Source(sections=sections)).closest(quote)
    assert closest is not None and closest.section == "1"
    assert 0 <= closest.start < closest.end <= len(sections["1"])
    assert "Considerations" in sections["1"][closest.start : closest.end]


def test_the_block_index_narrows_the_search_and_misses_nothing() -> None:
    source = Source.from_text((DATA / "rfc6749.txt").read_text(), format="rfc")
    locator = QuoteLocator(source)
    indexed = locator.word_index()
    assert indexed.word_blocks is not None and len(indexed.blocks) >= 2
    narrowed = 0
    for index, section_id in enumerate(indexed.ids):
        # The section's words as normalised, with the hyphens it has inside words (docs/matching.md, "Hyphens").
        marked = normalize_marked(source.sections[section_id])
        words = marked.replace(JOINED_INLINE, "-").replace(JOINED_AT_BREAK, "").split(" ")
        if len(words) < 12:
            continue
        middle = len(words) // 2
        needle = " ".join(words[middle - 4 : middle + 4])
        candidates = list(indexed.candidate_blocks(normalize(needle)))
        assert indexed.section_block[index] in candidates, section_id
        narrowed += len(candidates) < len(indexed.blocks)
        match = locator.find(needle)
        assert match is not None and source.order.index(match.section) <= index
        # The needle's own ends are normalised too (a hyphen there is dropped: docs/matching.md).
        assert normalize(source.sections[match.section][match.start : match.end]) == normalize(needle)
    assert narrowed > 0  # the index does rule blocks out


# --- the options, end to end ----------------------------------------------------------------


def test_step_one_options_by_marker_and_flag_and_their_json_report_keys(
    pytester: pytest.Pytester, jev_server: JevServer
) -> None:
    from conftest import INNER_INI

    pytester.makeini(INNER_INI)
    pytester.path.joinpath("rfc7519.txt").write_text(RFC7519.read_text())
    pytester.makepyfile(
        test_options="""
import pathlib
import pytest
from pytest_citecheck import Source, Status, check_citations, assert_citations_supported

SOURCE = Source.from_file(pathlib.Path(__file__).parent / "rfc7519.txt")
MISQUOTE = "Implementers MAY provide for a small leeway, usually no more than a couple of minutes, to account for clock skew."


@pytest.mark.citecheck(fuzzy=0.85)
def test_fuzzy_by_marker():
    [result] = check_citations([{"id": "skew", "claim": "Some clock skew is allowed.", "quote": MISQUOTE}], SOURCE)
    assert result.status is Status.FOUND_APPROX and result.section == "4.1.4"


def test_casefold_by_flag():
    [result] = check_citations([{"id": "upper", "claim": "Leeway is allowed.", "quote": "IMPLEMENTERS MAY PROVIDE FOR SOME SMALL LEEWAY"}], SOURCE)
    assert result.status is Status.FOUND


def test_fabricated_shows_the_closest_passage():
    assert_citations_supported([{"id": "invented", "claim": "Some clock skew is allowed.", "quote": MISQUOTE}], SOURCE)
"""
    )
    result = pytester.runpytest(
        "--citecheck-casefold",
        "--citecheck-json=report.json",
        "--citecheck-record-mode=once",
        "--citecheck-model=jev-1.12",
    )
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*invented*missing*fabricated*FAIL*",
            "*invented: the quote is not in the source; closest passage \u00a74.1.4 [[]*] (similarity 0.*):",
            '*"Implementers MAY provide for some small leeway, usually no more than a few minutes, to account for *"',
            "*did the model misquote \u00a74.1.4, or invent it?",
        ]
    )
    result.stdout.fnmatch_lines(["1 quote matched approximately (fuzzy): skew (0.9*)."])
    rows = {row["id"]: row for row in json.loads((pytester.path / "report.json").read_text())["results"]}
    assert list(rows["skew"])[:8] == ["test", "id", "status", "section", "verdict", "confidence", "auto", "model"]
    assert rows["skew"]["status"] == "found-approx" and 0.85 <= rows["skew"]["similarity"] < 1
    start, end = rows["upper"]["span"]
    assert RFC7519_SECTIONS()["4.1.4"][start:end] == "Implementers MAY provide for some small leeway"
    closest = rows["invented"]["closest"]
    assert closest["section"] == "4.1.4" and rows["invented"]["status"] == "missing"
    assert RFC7519_SECTIONS()["4.1.4"][closest["span"][0] : closest["span"][1]] == closest["text"]


def RFC7519_SECTIONS() -> dict[str, str]:
    return dict(Source.from_text(RFC7519.read_text(), format="rfc").sections)
