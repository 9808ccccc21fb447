"""A vulgar fraction is part of its number (hunt-wrong-passes-5).

NFKC spells "½" as "1⁄2" (a fraction slash between digits), so normalisation read "1½ days" as
"11⁄2 days" and "2½ kg" as "21⁄2 kg": a quote "Orders over 21" ended at a whole number of the section
("21", before the fraction slash), was ``found``, the loopback Jev supported the claim and the test
passed, though the section says two and a half. Vulgar fractions (¼ ½ ¾, ⅐ to ⅟, ↉) are kept as
written now, like superscripts, and count as digits of the number they stand in: "within 1" is not in
"within 1½ days" either. The quote as written ("2½ kg") is found.
"""

from __future__ import annotations

import json

import pytest

from pytest_citecheck import Source
from pytest_citecheck._locate.locator import QuoteLocator
from pytest_citecheck._locate.normalize import normalize
from pytest_citecheck._locate.rules import meaning_changes

SECTION = "Orders over 2\u00bd kg ship in 1\u00bd working days; returns take \u00be of an hour to book."

SUITE = """
import pytest
from pytest_citecheck import Source, assert_citations_supported

POLICY = Source(sections={"shipping": SECTION})
QUOTES = QUOTES_HERE


@pytest.mark.parametrize("kind", list(QUOTES))
def test_quote(kind):
    citation = {"id": kind, "claim": "The policy says what the quote says.", "quote": QUOTES[kind]}
    assert_citations_supported([citation], POLICY)
"""


@pytest.mark.parametrize(
    ("quotes", "outcome"),
    [
        ({"twenty-one": "Orders over 21 kg", "eleven": "Orders over 21\u20442 kg ship in 11"}, "failed"),
        ({"as-written": "Orders over 2\u00bd kg ship in 1\u00bd working days"}, "passed"),
    ],
    ids=["joined", "as-written"],
)
def test_a_quote_that_reads_a_fraction_as_digits_is_fabricated(pytester, jev_server, quotes, outcome):
    pytester.makeini("[pytest]\nfilterwarnings = default\n")
    pytester.makepyfile(test_policy=SUITE.replace("SECTION", repr(SECTION)).replace("QUOTES_HERE", repr(quotes)))
    result = pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once", "--citecheck-json=report.json")
    result.assert_outcomes(**{outcome: len(quotes)})
    rows = json.loads((pytester.path / "report.json").read_text())["results"]
    expected = "fabricated" if outcome == "failed" else "verified"
    assert {row["id"]: row["verdict"] for row in rows} == dict.fromkeys(quotes, expected)


def test_a_fraction_is_kept_and_is_a_digit_of_its_number() -> None:
    assert normalize("1\u00bd days, \u2153 cup") == "1\u00bd days, \u2153 cup"
    locator = QuoteLocator(Source(sections={"shipping": SECTION}))
    assert locator.find("Orders over 2") is None  # ends inside 2½
    assert locator.find("ship in 1\u00bd working days") is not None
    assert locator.find("\u00be of an hour to book") is not None
    # A near match (fuzzy) that swaps one fraction for another changes the number.
    assert meaning_changes("returns take \u00bc of an hour to book", "returns take \u00be of an hour to book")
