"""A citation's document is matched to a corpus id exactly (issue 24, item 7): no stretched names.

``document="https://elsewhere.example/mirror/policies/refund.md"``, ``/old/archive/refund.md`` and
``file:///srv/mirror/refund.md`` used to map to the corpus's ``policies/refund.md`` (by the path a
name ends with, or its file name), so a citation of the wrong document was never misattributed.
Now only the documented normalisation applies (POSIX separators, a leading ``./``, URL scheme and
host case), and anything looser is an explicit ``aliases=`` map. Through real pytest runs, with the
loopback Jev for the citations that are judged, sync and async.
"""

from __future__ import annotations

import shutil

import pytest

REFUND = "1. Refunds\n\nRefunds are granted within 30 days of purchase, on the original payment method."
TERMS = "1. Terms\n\nThe service may change these terms with thirty days of notice to every customer."

SUITE = """
import pytest
from pytest_citecheck import Corpus, Source, assert_citations_supported

DOCUMENTS = {
    "policies/refund.md": Source(sections={"1": REFUND}),
    "https://docs.example.com/Terms.md": Source(sections={"1": TERMS}),
}
CORPUS = Corpus(DOCUMENTS, aliases=ALIASES) if ALIASES else Corpus(DOCUMENTS)
QUOTE = QUOTE_TEXT

def citation():
    return {"id": "c", "claim": "Refunds take 30 days.", "quote": QUOTE, "section": "1", "document": NAME}

def test_sync():
    assert_citations_supported([citation()], CORPUS)

@pytest.mark.asyncio
async def test_async(citecheck):
    await citecheck.aassert_supported([citation()], CORPUS)
"""
INI = "[pytest]\nfilterwarnings = default\nasyncio_default_fixture_loop_scope = function\n"
REFUND_QUOTE = "Refunds are granted within 30 days of purchase"
TERMS_QUOTE = "may change these terms with thirty days of notice"


def run(pytester: pytest.Pytester, name: str, quote: str = REFUND_QUOTE, aliases: dict | None = None):
    shutil.rmtree(pytester.path / "cassettes", ignore_errors=True)  # each run records its own answers
    pytester.makeini(INI)
    pytester.makepyfile(
        test_names=SUITE.replace("REFUND", repr(REFUND))
        .replace("TERMS", repr(TERMS))
        .replace("ALIASES", repr(aliases))
        .replace("QUOTE_TEXT", repr(quote))
        .replace("NAME", repr(name))
    )
    return pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once")


@pytest.mark.parametrize(
    "name",
    ["https://elsewhere.example/mirror/policies/refund.md", "/old/archive/refund.md", "file:///srv/mirror/refund.md"],
)
def test_a_name_that_is_not_a_corpus_id_is_an_input_error_naming_aliases(pytester, jev_server, name):
    result = run(pytester, name)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            f"*citation 'c', field 'document': names document {name!r}, which the corpus does not have*"
            "Corpus(..., aliases={name: document_id})*"
        ]
    )
    assert jev_server.systemone_requests == []  # nothing sent


@pytest.mark.parametrize(
    ("name", "quote"),
    [
        ("./policies/refund.md", REFUND_QUOTE),
        ("policies\\refund.md", REFUND_QUOTE),
        ("HTTPS://Docs.Example.COM/Terms.md", TERMS_QUOTE),
    ],
    ids=["leading-dot-slash", "backslashes", "url-scheme-and-host-case"],
)
def test_the_documented_normalisation_still_names_the_document(pytester, jev_server, name, quote):
    run(pytester, name, quote).assert_outcomes(passed=2)


def test_a_url_path_keeps_its_case(pytester, jev_server):
    run(pytester, "https://docs.example.com/terms.md", TERMS_QUOTE).assert_outcomes(failed=2)


def test_an_alias_names_the_document_and_misattribution_still_fires(pytester, jev_server):
    aliases = {"/old/archive/refund.md": "policies/refund.md"}
    run(pytester, "/old/archive/refund.md", aliases=aliases).assert_outcomes(passed=2)
    # The alias's document does not hold this quote: it is found elsewhere, and fails as misattributed.
    result = run(pytester, "/old/archive/refund.md", TERMS_QUOTE, aliases=aliases)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*c: cited \u00a71 of 'policies/refund.md', the quote is in \u00a71 of *Terms.md*"])


def test_an_alias_to_a_document_the_corpus_lacks_is_a_source_error(pytester):
    pytester.makepyfile(
        test_names="""
        import pytest
        from pytest_citecheck import Corpus, Source, SourceError

        def test_alias():
            with pytest.raises(SourceError, match=r"alias 'refund.md' names document 'refunds.md', which the corpus does not have"):
                Corpus({"policies/refund.md": Source(sections={"1": "Text."})}, aliases={"refund.md": "refunds.md"})
        """
    )
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)
