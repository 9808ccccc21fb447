"""A number grouped by a no-break or thin space is one number (sources-leftovers-3).

Debian's French Debian Edu manual (debian-edu-doc-fr 2.12.23) says "Debian Bullseye contient plus de
59 000 paquets", the thousands set off by a no-break space, as French (and the SI) write them. NFKC makes
that space an ordinary one, so the quote "Debian Bullseye contient plus de 59" ended at a "whole number"
of the section, was ``found``, the loopback Jev supported the claim and the test passed, though the
section says fifty-nine thousand. "1,000" was already one number (a comma between digits).

A space that the source wrote as a no-break space (U+00A0), a figure space (U+2007), a thin space
(U+2009) or a narrow no-break space (U+202F), or as their HTML entities, between a digit and a group of
exactly three digits, is inside the number now. An ordinary space is not: in Debian's documents it
separates the numbers of a list ("port 443 563", "55 89 144 233"), and a quote of part of such a list
is still found.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_citecheck import Source
from pytest_citecheck._locate.locator import QuoteLocator

DATA = Path(__file__).parent.parent / "data"
MANUAL = DATA / "debian-edu-fr-grouped-excerpt.html"

SUITE = """
import pytest
from pytest_citecheck import Source, assert_citations_supported

MANUAL = Source.from_file(PATH_HERE)
QUOTES = QUOTES_HERE


@pytest.mark.parametrize("kind", list(QUOTES))
def test_quote(kind):
    citation = {"id": kind, "claim": "The manual says what the quote says.", "quote": QUOTES[kind]}
    assert_citations_supported([citation], MANUAL)
"""


@pytest.mark.parametrize(
    ("quotes", "outcome"),
    [
        (
            {"fifty-nine": "Debian Bullseye contient plus de 59", "zero": "000 paquets prêts à être installés"},
            "failed",
        ),
        ({"as-written": "Debian Bullseye contient plus de 59 000 paquets prêts"}, "passed"),
    ],
    ids=["cut", "whole"],
)
def test_a_quote_that_cuts_a_grouped_number_is_fabricated(pytester, jev_server, quotes, outcome):
    pytester.makeini("[pytest]\nfilterwarnings = default\n")
    suite = SUITE.replace("PATH_HERE", repr(str(MANUAL))).replace("QUOTES_HERE", repr(quotes))
    pytester.makepyfile(test_manual=suite)
    result = pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once", "--citecheck-json=report.json")
    result.assert_outcomes(**{outcome: len(quotes)})
    rows = json.loads((pytester.path / "report.json").read_text())["results"]
    expected = "fabricated" if outcome == "failed" else "verified"
    assert {row["id"]: row["verdict"] for row in rows} == dict.fromkeys(quotes, expected)


@pytest.mark.parametrize("space", ["\u00a0", "\u2007", "\u2009", "\u202f", "&nbsp;", "&#8239;", "&thinsp;"])
def test_a_grouping_space_keeps_the_number_whole(space: str) -> None:
    text = f"Refunds are granted within 1{space}000 days; the fee is 12{space}345{space}678 euros."
    locator = QuoteLocator(Source(sections={"refunds": text}, format="markdown"))
    assert locator.find("Refunds are granted within 1") is None
    assert locator.find("000 days; the fee is 12") is None
    assert locator.find("the fee is 12 345") is None  # a group of a longer number
    assert locator.find("345 678 euros") is None
    # The number as written is found, typed with any space.
    assert locator.find("granted within 1 000 days") is not None
    assert locator.find("the fee is 12\u00a0345\u00a0678 euros") is not None


def test_an_ordinary_space_between_numbers_separates_them() -> None:
    # Debian's harden-doc (squid.conf) and Python's tutorial (a Fibonacci series): lists, not grouped numbers.
    locator = QuoteLocator(
        Source(sections={"1": "acl SSL_ports port 443 563\n0 1 1 2 3 5 8 13 21 34 55 89 144 233 377"})
    )
    assert locator.find("acl SSL_ports port 443") is not None
    assert locator.find("21 34 55 89") is not None
    # Not three digits after the space: no group, whatever the space.
    locator = QuoteLocator(Source(sections={"1": "Chapter 12\u00a01234 and page 7\u00a045 of 9."}))
    assert locator.find("Chapter 12") is not None
    assert locator.find("and page 7") is not None


def test_a_comma_group_is_one_number_as_before() -> None:
    locator = QuoteLocator(Source(sections={"1": "Refunds are granted within 1,000 days, 2, 3 or 4 weeks."}))
    assert locator.find("granted within 1") is None
    assert locator.find("days, 2") is not None
