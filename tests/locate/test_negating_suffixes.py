"""A quote that ends before a negating suffix ("lead" of "lead-free") reads the opposite (hunt-wrong-passes-6).

The rule for quotes refused a quote that starts after a negating prefix ("lawful" of "unlawful"); its end
had no such check. Debian's copyright-format 1.0 (debian-policy, copyright-format-1.0.html §6.6) speaks of
a package "forked from a version known to be DFSG-free": the quote "forked from a version known to be
DFSG" ended at the compound's hyphen and was found; so were "The solder in every board is lead" of
"lead-free", "the queue is lock" of "lock-free" and "the login is password" of "passwordless" (the
loopback Jev supported each claim: passed). A quote that ends where "free" or "less" (and "lessly",
"lessness") is all that is left of the section's word turns that word, and is not found there.
"""

from __future__ import annotations

import pytest
from support import assert_quotes_fabricated

from pytest_citecheck import Source
from pytest_citecheck._locate.locator import QuoteLocator

SECTIONS = {
    "dfsg": (
        "For example, it might quote an e-mail from upstream justifying why the license is acceptable to the "
        "main archive, or an explanation of how this version of the package has been forked from a version "
        "known to be DFSG-free, even though the current upstream version is not."
    ),
    "board": "The solder in every board is lead-free and the queue is lock-free; the login is passwordless.",
}

CUT = [
    ("dfsg", "dfsg", "has been forked from a version known to be DFSG"),
    ("lead", "board", "The solder in every board is lead"),
    ("lock", "board", "and the queue is lock"),
    ("password", "board", "the login is password"),
]


def test_a_quote_that_ends_before_a_negating_suffix_is_fabricated(pytester, jev_server):
    assert_quotes_fabricated(pytester, jev_server, SECTIONS, CUT)


@pytest.mark.parametrize(
    "quote",
    [
        "has been forked from a version known to be DFSG-free",
        "The solder in every board is lead-free and the queue is lock-free",
        "the login is passwordless",
        "in every board is lead-free",
    ],
)
def test_the_whole_word_is_found(quote: str) -> None:
    assert QuoteLocator(Source(sections=SECTIONS)).find(quote) is not None


def test_a_near_match_that_drops_a_negating_suffix_is_not_accepted(pytester, jev_server):
    """With ``fuzzy``, "the login is password" was a near match of "passwordless" at similarity 1.00."""
    cases = [("password", "board", "the login is password"), ("typo", "board", "The solder in evrey board is lead")]
    assert_quotes_fabricated(pytester, jev_server, SECTIONS, cases, fuzzy=0.9)
