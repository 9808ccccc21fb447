"""``fuzzy`` accepts a near match, never one that differs in a negation or a number (hunt-wrong-passes F4).

With ``fuzzy=0.9`` on main, a quote that drops the section's "not" (similarity 0.96), says "90 days"
for "30 days" (0.99) or "unavailable" for "available" (0.98) was ``found-approx`` and judged: the
loopback Jev supported the claim, and the test passed showing a quote the section contradicts; so
did "may" for "must". The
rule for quotes keeps numbers whole and never lets an elision remove a negation; a near match is
held to the same rule. A typo or a changed article is still a near match.
"""

from __future__ import annotations

import json

import pytest

SECTIONS = {
    "1": "All users must not share passwords with anyone, including the support team, under any circumstances.",
    "2": "Refunds are available within 30 days of purchase for all customers in the European Union.",
}

SUITE = """
from pytest_citecheck import Source, assert_citations_supported

POLICY = Source(sections=SECTIONS)


def test_case():
    citation = {"id": "c", "claim": "The policy says what the quote says.", "quote": QUOTE, "section": SECTION}
    assert_citations_supported([citation], POLICY, fuzzy=0.9)
"""


def _run(pytester: pytest.Pytester, quote: str, section: str) -> pytest.RunResult:
    pytester.makeini("[pytest]\nfilterwarnings = default\n")
    suite = SUITE.replace("SECTIONS", repr(SECTIONS)).replace("QUOTE", repr(quote)).replace("SECTION", repr(section))
    pytester.makepyfile(test_policy=suite)
    return pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once", "--citecheck-json=report.json")


@pytest.mark.parametrize(
    ("quote", "section"),
    [
        ("All users must share passwords with anyone, including the support team, under any circumstances", "1"),
        ("All users must never share passwords with anyone, including the support team", "1"),
        ("Refunds are available within 90 days of purchase for all customers in the European Union", "2"),
        ("Refunds are available within 300 days of purchase for all customers in the European Union", "2"),
        ("Refunds are unavailable within 30 days of purchase for all customers in the European Union", "2"),
        ("All users may not share passwords with anyone, including the support team, under any circumstances", "1"),
    ],
    ids=["not-dropped", "not-for-never", "30-to-90", "30-to-300", "un-added", "may-for-must"],
)
def test_a_near_match_that_turns_the_meaning_is_not_accepted(pytester, jev_server, quote, section):
    result = _run(pytester, quote, section)
    result.assert_outcomes(failed=1)
    assert jev_server.requests == [], "a quote the section does not say is never sent to Jev"
    [row] = json.loads((pytester.path / "report.json").read_text())["results"]
    assert (row["status"], row["verdict"]) == ("missing", "fabricated")
    result.stdout.fnmatch_lines(["*c: the quote is not in the source; closest passage *"])


@pytest.mark.parametrize(
    ("quote", "section"),
    [
        ("All users must not share passwords with anyone, including teh support team, under any circumstances", "1"),
        ("Refunds are available within 30 days of a purchase for all customers in the European Union", "2"),
    ],
    ids=["typo", "article-added"],
)
def test_a_near_match_that_keeps_the_meaning_is_still_found_approx(pytester, jev_server, quote, section):
    _run(pytester, quote, section).assert_outcomes(passed=1)
    [row] = json.loads((pytester.path / "report.json").read_text())["results"]
    assert row["status"] == "found-approx"
