"""An elision that puts one number in another's place a word or two from the gap (hunt-wrong-passes-6).

hunt-wrong-passes-5 made "Refunds are granted within … 90 days of delivery" ``altered``: the word next
to the gap is a number, so the quote reads 90 in the removed 30's place. Cut one word earlier, the same
swap passed on main (recorded against the loopback Jev, which supports the claim):
"Refunds are granted … within 90 days of delivery" drops "within 30 days of purchase; exchanges are
accepted" and reads "within 90 days" for refunds. The words between the gap and the quote's number
("within") stood before the removed number too ("within 30"): the quote reads its number where the
section had the other. The same from the other side ("30 days for … purchases made in store" over
"30 days for purchases made online, and 90 days for purchases made in store"), and for numbers written
with their letters ("The cache holds … 64k entries" over "32k entries and the index holds 64k").

A gap whose number stood in other words ("The fee is 30 euros, … paid within 14 days" over "or 45 euros
for late members, paid within 14 days") is still found: no number takes another's place.
"""

from __future__ import annotations

import json

import pytest
from support import policy_suite

from pytest_citecheck import Source
from pytest_citecheck._locate.locator import QuoteLocator

SECTIONS = {
    "terms": "Refunds are granted within 30 days of purchase; exchanges are accepted within 90 days of delivery.",
    "stores": "Refunds take 30 days for purchases made online, and 90 days for purchases made in store.",
    "granted": "Refunds for orders are granted within 30 days of purchase; exchanges are granted within 90 days of delivery.",
    "cache": "The cache holds 32k entries and the index holds 64k entries at most.",
    "fee": "The fee is 30 euros, or 45 euros for late members, paid within 14 days of the invoice.",
}

CASES = [
    ("context-after", "terms", "Refunds are granted \u2026 within 90 days of delivery"),
    ("two-words-after", "granted", "Refunds for orders are \u2026 granted within 90 days of delivery"),
    ("context-before", "stores", "Refunds take 30 days for \u2026 purchases made in store"),
    ("letters-after", "cache", "The cache holds \u2026 64k entries at most"),
]


def test_an_elision_that_reads_a_number_in_another_numbers_words_is_altered(pytester, jev_server):
    pytester.makepyfile(test_policy=policy_suite(pytester, SECTIONS, CASES))
    result = pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once", "--citecheck-json=report.json")
    result.assert_outcomes(failed=len(CASES))
    assert jev_server.requests == [], "an altered quote is decided in code: nothing is sent to Jev"
    result.stdout.fnmatch_lines(["*c: the quote is altered: its elision removes 'within 30 days of purchase*"])
    rows = json.loads((pytester.path / "report.json").read_text())["results"]
    assert [(row["status"], row["verdict"]) for row in rows] == [("altered", "fabricated")] * len(CASES)


@pytest.mark.parametrize(
    ("section", "quote", "turning"),
    [
        ("terms", "Refunds are granted \u2026 within 90 days of delivery", ["30"]),
        ("stores", "Refunds take 30 days for \u2026 purchases made in store", ["90"]),
        ("granted", "Refunds for orders are \u2026 granted within 90 days of delivery", ["30"]),
        ("cache", "The cache holds \u2026 64k entries at most", ["32k"]),
        ("fee", "The fee is 30 euros, \u2026 paid within 14 days of the invoice", []),
        ("terms", "Refunds are granted within 30 days \u2026 within 90 days of delivery", []),
    ],
)
def test_what_the_gap_removes_that_turns_the_quote(section: str, quote: str, turning: list[str]) -> None:
    match = QuoteLocator(Source(sections=SECTIONS)).find(quote)
    assert match is not None and match.section == section
    assert match.turning_words == turning


def test_elisions_around_numbers_in_other_words_pass(pytester, jev_server):
    kept = [("fee", "fee", "The fee is 30 euros, \u2026 paid within 14 days of the invoice")]
    pytester.makepyfile(test_policy=policy_suite(pytester, SECTIONS, kept))
    pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once").assert_outcomes(passed=1)
