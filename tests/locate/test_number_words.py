"""A number's letters are part of it: a quote does not start or end between them (hunt-wrong-passes-6).

Git 2.16's release notes (Debian's git, /usr/share/doc/git/RelNotes/2.16.0.txt) say the rename detection
"had a hardcoded limit of 32k paths"; CPython's "What's New In Python 3.3" says UTF-16 encoding "is now up
to 10x faster". A quote "had a hardcoded limit of 32" (or "is now up to 10") ended at the digits of
"32k" ("10x"), was ``found``, the loopback Jev supported the claim and the test passed, though the
section says thirty-two thousand. Likewise "The limit is 0" of "0x10", "86 machines" of "x86 machines",
"emits CO" of "emits CO₂" and "50 m" of "50 m²". A digit and a cased letter written together are one
word to a reader, so the number rule's "never starts or ends inside a number" counts such a boundary
as inside. Scripts without cased letters (Chinese, Japanese) write a counter right after a number
("30日"): a quote may still end there.

A comparison or an approximation written against a number is part of it as a sign is ("40 degrees" was
already not in "-40 degrees"): Node.js's maintaining-icu.md says "ICU typically has >1 release a year"
and git's technical/remembering-renames.txt "changes ... were <50% of the size of E:oldfile"; the quotes
"1 release a year, particularly coinciding with a major" and "50% of the size of E:oldfile" were found.
And a range, time or fraction written without spaces is one number: valgrind's manual says Memcheck makes
a program "run 10-50 times slower than natively", and "50 times slower than natively" was found; CPython's
"What's New In Python 2.7" "the more typical support period of 18–24 months", and "... period of 18".
"""

from __future__ import annotations

import json

import pytest

from pytest_citecheck import Source
from pytest_citecheck._locate.locator import QuoteLocator

# Excerpts, as Debian ships them: git 1:2.39.5 RelNotes/2.16.0.txt, python3.11-doc whatsnew/3.3.rst.txt.
GIT = (
    " * Historically, the diff machinery for rename detection had a\n"
    "   hardcoded limit of 32k paths; this is being lifted to allow users\n"
    "   trade cycles with a (possibly) easier to read result.\n"
)
# nodejs 20.19 contributing/maintaining/maintaining-icu.md; git-doc 1:2.39.5 technical/remembering-renames.txt.
ICU = "ICU typically has >1 release a year, particularly coinciding with a major\nrelease of [Unicode][].\n"
RENAMES = (
    "  G:newfile to A:oldfile.  The changes between E:oldfile and G:newfile were\n  <50% of the size of E:oldfile.\n"
)
# valgrind 1:3.19 html/manual-core.html; python3.11-doc whatsnew/2.7.html (as the HTML reader reads them).
VALGRIND = "and every value computed, making it run 10-50 times slower than natively.\n"
SUPPORT = "initial release, compared to the more typical support period of 18\u201324 months).\n"
# python3.11-doc whatsnew/3.7.html, as the HTML reader reads it.
STARTUP = "Various optimizations have reduced Python startup time by 10% on Linux and up to 30% on macOS.\n"
PYTHON = "* UTF-8 is now 2x to 4x faster.  UTF-16 encoding is now up to 10x faster.\n"

SUITE = """
import pytest
from pytest_citecheck import Source, assert_citations_supported

NOTES = Source(sections=SECTIONS)
QUOTES = QUOTES_HERE


@pytest.mark.parametrize("kind", list(QUOTES))
def test_quote(kind):
    section, quote = QUOTES[kind]
    citation = {"id": kind, "claim": "The notes say what the quote says.", "quote": quote, "section": section}
    assert_citations_supported([citation], NOTES)
"""


@pytest.mark.parametrize(
    ("quotes", "outcome"),
    [
        (
            {
                "thirty-two": ("git", "the diff machinery for rename detection had a hardcoded limit of 32"),
                "ten": ("python", "UTF-16 encoding is now up to 10"),
                "k-paths": ("git", "k paths; this is being lifted to allow users"),
                "one-release": ("icu", "1 release a year, particularly coinciding with a major"),
                "half": ("renames", "50% of the size of E:oldfile"),
                "fifty-times": ("valgrind", "50 times slower than natively"),
                "eighteen": ("support", "compared to the more typical support period of 18"),
            },
            "failed",
        ),
        (
            {
                "thirty-two-k": ("git", "had a hardcoded limit of 32k paths"),
                "ten-x": ("python", "UTF-16 encoding is now up to 10x faster"),
                "more-than-one": ("icu", "ICU typically has >1 release a year"),
                "under-half": ("renames", "were <50% of the size of E:oldfile"),
                "range": ("valgrind", "making it run 10-50 times slower than natively"),
                "range-dash": ("support", "the more typical support period of 18-24 months"),
            },
            "passed",
        ),
    ],
    ids=["cut", "whole"],
)
def test_a_quote_that_cuts_a_number_from_its_letters_is_fabricated(pytester, jev_server, quotes, outcome):
    pytester.makeini("[pytest]\nfilterwarnings = default\n")
    sections = {"git": GIT, "python": PYTHON, "icu": ICU, "renames": RENAMES, "valgrind": VALGRIND, "support": SUPPORT}
    pytester.makepyfile(test_notes=SUITE.replace("SECTIONS", repr(sections)).replace("QUOTES_HERE", repr(quotes)))
    result = pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once", "--citecheck-json=report.json")
    result.assert_outcomes(**{outcome: len(quotes)})
    rows = json.loads((pytester.path / "report.json").read_text())["results"]
    expected = "fabricated" if outcome == "failed" else "verified"
    assert {row["id"]: row["verdict"] for row in rows} == dict.fromkeys(quotes, expected)
    if outcome == "failed":
        # The closest passage shows the number whole: what the quote dropped is there to see.
        result.stdout.fnmatch_lines(
            [
                '*"the diff machinery for rename detection had a hardcoded limit of 32k"',
                '*">1 release a year, particularly coinciding with a major"',
                '*"10-50 times slower than natively"',
                '*"compared to the more typical support period of 18\u201324"',
                "*starts or ends inside a word or a number and turns it*quote whole words and whole numbers",
            ],
            consecutive=False,
        )


@pytest.mark.parametrize(
    ("section", "cut", "whole"),
    [
        ("The limit is 0x10 entries in the table.", "The limit is 0", "The limit is 0x10 entries"),
        ("Only x86 machines are supported.", "86 machines are supported", "x86 machines are supported"),
        ("The plant emits CO\u2082 at night.", "The plant emits CO", "The plant emits CO\u2082 at night"),
        ("Each flat measures 50 m\u00b2 in area.", "Each flat measures 50 m", "Each flat measures 50 m\u00b2"),
        ("It ran in the 1990s on every host.", "It ran in the 1990", "It ran in the 1990s on every"),
        ("Version v2 is deprecated since May.", "2 is deprecated since May", "Version v2 is deprecated"),
        ("Adults are \u226518 years old; a few are ~40% of all.", "18 years old; a few are", "are \u226518 years old"),
        ("Bars hold \u00b15 degrees and x<5 in code.", "5 degrees and x<5 in code", None),
        ("The shop opens at 10:30 and sells 1/2 cups.", "The shop opens at 10", "opens at 10:30 and sells 1/2"),
        ("Add 1/2 cup of flour to the bowl.", "2 cup of flour to the bowl", None),
        ("Various optimizations have reduced Python startup time by 10% on Linux.", "startup time by 10", "by 10% on"),
        ("The plan costs $5 per month, or 40\u00b0 warmer.", "5 per month, or 40", "costs $5 per month, or 40\u00b0"),
        ("An elision: sizes of 4GB or more are refused by the server.", "sizes of 4 … refused by the", None),
    ],
)
def test_a_number_and_its_letters_are_one_word(section: str, cut: str, whole: str | None) -> None:
    locator = QuoteLocator(Source(sections={"1": section}))
    assert locator.find(cut) is None
    if whole is not None:
        assert locator.find(whole) is not None


def test_a_counter_after_a_number_in_a_script_without_case_is_an_edge() -> None:
    locator = QuoteLocator(Source(sections={"1": "返金は購入から30日以内に受け付けます。"}))
    assert locator.find("返金は購入から30") is not None
    assert locator.find("購入から30日以内に") is not None


def test_a_comparison_inside_a_word_is_no_sign() -> None:
    """'x<5' in code: the '<' is between two words' characters, as '-' in 'pre-40', so '5' starts a quote."""
    locator = QuoteLocator(Source(sections={"1": "The loop runs while x<5 holds and stops at ten."}))
    assert locator.find("5 holds and stops at ten") is not None


FUZZY_SUITE = SUITE.replace(
    "assert_citations_supported([citation], NOTES)", "assert_citations_supported([citation], NOTES, fuzzy=0.9)"
)


def test_a_near_match_that_cuts_a_number_is_not_accepted(pytester, jev_server):
    """With ``fuzzy``, the cut quotes above were near matches at similarity 1.00 whose words differ in no
    number ("1" and ">1" are one word to a word-by-word comparison): found-approx, judged, passed. A near
    match compares numbers whole (sign, range, unit and letters included), as an exact one does."""
    quotes = {
        "one-release": ("icu", "1 release a year, particularly coinciding with a major"),
        "half": ("renames", "50% of the size of E:oldfile"),
        "fifty-times": ("valgrind", "50 times slower than natively"),
        "eighteen": ("support", "compared to the more typical support period of 18"),
        "ten-percent": ("startup", "Various optimizations have reduced Python startup time by 10"),
        "typo-kept": ("valgrind", "making it rnu 10-50 times slower than natively"),
    }
    sections = {"icu": ICU, "renames": RENAMES, "valgrind": VALGRIND, "support": SUPPORT, "startup": STARTUP}
    pytester.makeini("[pytest]\nfilterwarnings = default\n")
    suite = FUZZY_SUITE.replace("SECTIONS", repr(sections)).replace("QUOTES_HERE", repr(quotes))
    pytester.makepyfile(test_notes=suite)
    result = pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once", "--citecheck-json=report.json")
    result.assert_outcomes(failed=len(quotes) - 1, passed=1)
    rows = json.loads((pytester.path / "report.json").read_text())["results"]
    verdicts = {row["id"]: (row["status"], row["verdict"]) for row in rows}
    assert verdicts.pop("typo-kept") == ("found-approx", "verified")
    assert set(verdicts.values()) == {("missing", "fabricated")}
