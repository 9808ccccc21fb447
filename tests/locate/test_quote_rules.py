"""The rule for quotes (issue 24, items 1-3, 5 and 6): a quote step 1 accepts says what the source says.

Each case ran through a real pytest run (``pytester``) and passed before the rule: an elision that
removes "not", pieces of two words, a gap over a paragraph break, a number cut short or folded from
a superscript, a sign dropped, "resign" for "re-sign", an ellipsis in a retrieved chunk read as an
elision, and a quote of several sections found in none of those it names. A fabricated or altered
quote is decided before any request, so those runs need no Jev; the misattributed assembly is
judged, on the sync and the async path.
"""

from __future__ import annotations

import json

import pytest

POLICY = {
    "1": "1. Accounts\n\nAll users must not share passwords with anyone, including the support team.",
    "2": (
        "2. Fees\n\nThe fee is 500 euros a year. Storage is billed per 10\u2076 bytes. The freezer holds "
        "-40 degrees at most. Tenants re-sign the lease each year.\n\nA new paragraph starts here and "
        "says that refunds are granted within thirty days of the purchase."
    ),
    "3": "3. Deletion\n\nPersonal data is deleted within 30 days after the contract ends, on request.",
}

SUITE = """
import pytest
from pytest_citecheck import CitationInputError, CitationsNotSupported, Source, assert_citations_supported

POLICY = Source(sections=POLICY_SECTIONS)


def check(quote, section="1"):
    citation = {"id": "c", "claim": "The policy says so.", "quote": quote, "section": section}
    with pytest.raises(CitationsNotSupported) as caught:
        assert_citations_supported([citation], POLICY)
    [result] = caught.value.results
    print("RESULT", result.status.value, result.verdict.value, result.removed)
    print(str(caught.value))


def test_case():
    check(QUOTE, SECTION)
"""


def run_case(pytester: pytest.Pytester, quote: str, section: str = "1") -> pytest.RunResult:
    pytester.makepyfile(
        test_case=SUITE.replace("POLICY_SECTIONS", repr(POLICY))
        .replace("QUOTE", repr(quote))
        .replace("SECTION", repr(section))
    )
    result = pytester.runpytest("-p", "no:randomly", "-s", "--citecheck-json=report.json")
    result.assert_outcomes(passed=1)
    return result


def test_an_elision_that_removes_a_negation_is_altered_and_fails_with_the_words_it_removed(pytester):
    result = run_case(pytester, "All users must \u2026 share passwords with anyone, including the support team")
    result.stdout.fnmatch_lines(
        [
            "*RESULT altered fabricated ('not',)",
            "*c *altered*fabricated*",
            "*c: the quote is altered: its elision removes 'not', which turns the meaning; the passage \u00a71 *says:",
            '*"All users must not share passwords with anyone, including the support team"',
            "*What next: an altered quote leaves out a word that turns the meaning*",
        ]
    )
    row = json.loads((pytester.path / "report.json").read_text())["results"][0]
    assert (row["status"], row["verdict"]) == ("altered", "fabricated")


@pytest.mark.parametrize(
    ("quote", "pieces"),
    [
        ("Users must \u2026 share passwords", "'Users must', 'share passwords'"),
        ("The \u2026 and \u2026 of the \u2026 to", "'The', 'and', 'of the', 'to'"),
    ],
    ids=["negation-gap", "rfc7519-words"],
)
def test_an_elided_quote_with_pieces_under_three_words_is_an_input_error(pytester, quote, pieces):
    pytester.makepyfile(
        test_case=f"""
        from pytest_citecheck import Source, assert_citations_supported

        def test_case():
            assert_citations_supported([{{"id": "c", "claim": "x", "quote": {quote!r}}}], Source(sections={POLICY!r}))
        """
    )
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [f"*citation 'c', field 'quote': elides text, and its pieces {pieces} are under 3 words*"]
    )


@pytest.mark.parametrize(
    ("quote", "section", "status"),
    [
        # each gap is shorter than a paragraph
        ("Tenants re-sign the lease \u2026 refunds are granted within thirty days", "2", "missing"),
        # a number keeps every digit, its sign, and a superscript stays a superscript
        ("The fee is 50", "2", "missing"),
        ("billed per 106 bytes", "2", "missing"),
        ("freezer holds 40 degrees", "2", "missing"),
        ("holds 40 degrees at most", "2", "missing"),
        # a hyphen is dropped only at a line break: "resign" is another word
        ("Tenants resign the lease each year", "2", "missing"),
    ],
    ids=["gap-over-a-paragraph", "number-cut-short", "superscript", "sign-dropped", "sign-cut-off", "hyphen"],
)
def test_a_quote_that_changes_a_number_a_hyphen_or_spans_paragraphs_is_fabricated(pytester, quote, section, status):
    result = run_case(pytester, quote, section)
    result.stdout.fnmatch_lines([f"*RESULT {status} fabricated None", "*the quote is not in the source*"])


def test_the_same_quotes_written_as_the_source_has_them_are_found(pytester):
    pytester.makepyfile(
        test_case=f"""
        from pytest_citecheck import Source, check_citations

        POLICY = Source(sections={POLICY!r})
        QUOTES = [
            ("2", "The fee is 500 euros"),
            ("2", "billed per 10\\u2076 bytes"),
            ("2", "The freezer holds \\u221240 degrees"),
            ("2", "Tenants re-\\n  sign the lease each year"),
            ("1", "All users must not share passwords \\u2026 the support team"),
        ]

        def test_case():
            from pytest_citecheck._locate.citations import locate_all
            from pytest_citecheck._citations.adapt import adapt_citations
            from pytest_citecheck._options import Settings
            citations = adapt_citations([{{"id": str(n), "claim": "x", "quote": q, "section": s}} for n, (s, q) in enumerate(QUOTES)])
            located = locate_all(citations, POLICY, Settings())
            assert [item.status.value for item in located] == ["found"] * len(QUOTES)
        """
    )
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)


def test_check_retrieval_reads_an_ellipsis_in_a_chunk_as_text(pytester):
    pytester.makepyfile(
        test_case=f"""
        from pytest_citecheck import Corpus, Source, check_retrieval

        def test_case():
            corpus = Corpus({{"policy.md": Source(sections={POLICY!r})}})
            chunk = {{
                "page_content": "users must not share passwords with anyone ... is deleted within 30 days after the contract",
                "metadata": {{"source": "policy.md"}},
            }}
            [result] = check_retrieval([chunk], corpus)
            assert result.status == "missing", str(result)
        """
    )
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)


ASSEMBLY_SUITE = """
import pytest
from pytest_citecheck import Source, assert_citations_supported

POLICY = Source(sections=POLICY_SECTIONS)
CITATION = {
    "id": "two",
    "claim": "Personal data goes within 30 days.",
    "section": ["1", "2"],
    "quote": ["Personal data is deleted within 30 days after the contract ends"],
}

def test_sync():
    assert_citations_supported([CITATION], POLICY, misattributed="fail")

@pytest.mark.asyncio
async def test_async(citecheck):
    await citecheck.aassert_supported([CITATION], POLICY, misattributed="fail")
"""


def test_a_citation_of_several_sections_whose_quote_is_in_none_of_them_is_misattributed(pytester, jev_server):
    pytester.makeini("[pytest]\nfilterwarnings = default\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(test_case=ASSEMBLY_SUITE.replace("POLICY_SECTIONS", repr(POLICY)))
    result = pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once", "--citecheck-json=report.json")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*two *found-elsewhere*", "*two: cited \u00a71 + \u00a72, the quote is in \u00a73*"])
    rows = json.loads((pytester.path / "report.json").read_text())["results"]
    assert [(row["status"], row["cited_section"]) for row in rows] == [("found-elsewhere", "1 + 2")] * 2
