"""No silent pass (issue 23, item 4): an answer that cites nothing never passes with nothing checked.

``assert_citations_supported`` given no citation, or an answer whose text cites nothing (a Claude
``Message`` without citations, LangChain content blocks read as none), fails: "the answer cites
nothing". ``min_citations`` (default 1; 0 opts out) is set by flag, ini key, marker and call keyword;
``require_cited_sentences`` lists the sentences of the answer that cite nothing.
"""

from __future__ import annotations

import pytest

from pytest_citecheck import CitationsNotSupported, OptionError
from pytest_citecheck.testing import JevServer

POLICY = "# Refunds\n\nRefunds are granted within 30 days of purchase.\n\n# Gifts\n\nGift cards are final.\n"
CITED = {
    "type": "text",
    "text": "Refunds are granted within 30 days.",
    "citations": [
        {
            "type": "char_location",
            "cited_text": "Refunds are granted within 30 days of purchase.",
            "document_index": 0,
            "start_char_index": 11,
            "end_char_index": 59,
        }
    ],
}
UNCITED = {"type": "text", "text": "Gift cards can be refunded too. Ask support for details."}


def message(*blocks: dict) -> dict:
    return {"type": "message", "role": "assistant", "content": list(blocks)}


@pytest.mark.parametrize(
    "citations",
    [pytest.param([], id="empty-list"), pytest.param(message(UNCITED), id="claude-message-without-citations")],
)
def test_an_answer_that_cites_nothing_fails(direct_checker, citations) -> None:
    with pytest.raises(CitationsNotSupported, match="the answer cites nothing") as failure:
        direct_checker().assert_supported(citations, POLICY, format="markdown")
    assert "min_citations=0" in str(failure.value)  # the remedy, for a test where that is right
    # check() reports and never fails: it returns no result.
    assert direct_checker().check(citations, POLICY, format="markdown") == []


def test_min_citations_zero_opts_out_and_a_higher_count_is_enforced(direct_checker) -> None:
    assert direct_checker().assert_supported([], POLICY, format="markdown", min_citations=0) == []
    server = JevServer().start()
    try:
        with pytest.raises(CitationsNotSupported, match="1 citation, fewer than min_citations=2"):
            direct_checker(server).assert_supported(message(CITED), POLICY, format="markdown", min_citations=2)
    finally:
        server.stop()


@pytest.mark.parametrize("bad", [-1, 1.5, "many", True])
def test_min_citations_is_a_whole_number_of_zero_or_more(direct_checker, bad) -> None:
    with pytest.raises(OptionError, match="min_citations: expected a whole number of 0 or more"):
        direct_checker().assert_supported([], POLICY, format="markdown", min_citations=bad)


def test_require_cited_sentences_lists_the_sentences_that_cite_nothing(direct_checker) -> None:
    server = JevServer().start()
    try:
        answer = message(CITED, UNCITED)
        assert len(direct_checker(server).assert_supported(answer, POLICY, format="markdown")) == 1
        with pytest.raises(CitationsNotSupported) as failure:
            direct_checker(server).assert_supported(answer, POLICY, format="markdown", require_cited_sentences=True)
    finally:
        server.stop()
    text = str(failure.value)
    assert "2 sentences of the answer cite nothing (require_cited_sentences)" in text
    assert "'Gift cards can be refunded too.'" in text and "'Ask support for details.'" in text
    assert "Refunds are granted" not in text


EMPTY = """
import pytest
from pytest_citecheck import assert_citations_supported

POLICY = "# Refunds\\n\\nRefunds are granted within 30 days of purchase.\\n"

def test_no_citations():
    assert_citations_supported([], POLICY, format="markdown")

@pytest.mark.citecheck(min_citations=0)
def test_marked():
    assert_citations_supported([], POLICY, format="markdown")

def test_call():
    assert_citations_supported([], POLICY, format="markdown", min_citations=0)

@pytest.mark.citecheck(min_citations=0)
def test_call_over_marker():
    assert_citations_supported([], POLICY, format="markdown", min_citations=1)
"""


@pytest.mark.parametrize(
    ("args", "ini", "outcome"),
    [
        pytest.param((), "", {"passed": 2, "failed": 2}, id="default"),
        pytest.param(("--citecheck-min-citations=0",), "", {"passed": 3, "failed": 1}, id="flag"),
        pytest.param((), "citecheck_min_citations = 0\n", {"passed": 3, "failed": 1}, id="ini"),
    ],
)
def test_min_citations_through_all_four_channels(
    pytester: pytest.Pytester, inner_ini: str, args: tuple[str, ...], ini: str, outcome: dict[str, int]
) -> None:
    pytester.makeini(inner_ini + ini)
    pytester.makepyfile(test_empty=EMPTY)
    result = pytester.runpytest_inprocess("-p", "no:randomly", *args)
    result.assert_outcomes(**outcome)
    result.stdout.fnmatch_lines(["*the answer cites nothing*"])
    failed = {line.split("::")[1].split(" ")[0] for line in result.stdout.lines if line.startswith("FAILED")}
    assert "test_call_over_marker" in failed and "test_marked" not in failed and "test_call" not in failed
