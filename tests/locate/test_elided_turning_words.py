"""An elision that removes a word that turns the meaning, however the section writes it (hunt-wrong-passes).

Each quote below leaves out a negation and passed on main: recorded against the loopback Jev (which
supports the claim), replayed, green. The section writes the negation in a way the word check did not
read: a closed em dash (``not—and will never—sell``, the Chicago style of many US privacy policies;
normalisation joins ``not—and`` into one word), a modifier-letter apostrophe (``donʼt``, U+02BC, the
apostrophe Unicode recommends), a negation the word list lacked (German ``nichts``, Spanish ``nadie``,
Italian ``né``, Dutch ``niets``), Greek capitals that look like ``NOT`` in ``MUST ΝΟΤ``; or the quote's
piece ends inside a word (``must not …`` cut from ``must notify``), so the quote reads a negation the
section does not have. Each must be ``altered`` (or ``fabricated``) and fail before any request.
"""

from __future__ import annotations

import json

import pytest
from support import assert_elisions_altered, policy_suite

SECTIONS = {
    "dash": "We do not\u2014and will never\u2014sell your personal data to third parties.",
    "dashes": "Most hosted servers do not\u2014and often cannot\u2014make those authorization decisions for you.",
    "apostrophe": "Registered users of the service don\u02bct ever share their passwords with anyone.",
    "nichts": "Die Nutzer teilen nichts mit den Administratoren des Systems.",
    "nadie": "En este servicio nadie comparte las contrase\u00f1as con terceros.",
    "ne": "I dati personali n\u00e9 vengono venduti a terzi per nessun motivo.",
    "niets": "De gebruikers delen niets met de beheerders van het systeem.",
    "greek": "The server MUST \u039d\u039f\u03a4 accept the token after it has expired.",
    "notify": "Users must notify the admin before sharing data with third parties.",
    "unlawful": "It is unlawful to copy the software without permission.",
    "cant": "Registered users can\u2019t share their passwords with the support team.",
    "cannot": "The software cannot be copied without a written licence.",
}

CASES = [
    # (id, section, quote, the word the failure names among those the elision removed)
    ("dash", "dash", "We do not\u2014and will \u2026 sell your personal data to third parties", "never"),
    ("dashes", "dashes", "Most hosted servers do \u2026 make those authorization decisions for you", "cannot"),
    ("apostrophe", "apostrophe", "Registered users of \u2026 ever share their passwords", "don\u02bct"),
    ("nichts", "nichts", "Die Nutzer teilen \u2026 mit den Administratoren des Systems", "nichts"),
    ("nadie", "nadie", "En este servicio \u2026 comparte las contrase\u00f1as con terceros", "nadie"),
    ("ne", "ne", "I dati personali \u2026 vengono venduti a terzi", "n\u00e9"),
    ("niets", "niets", "De gebruikers delen \u2026 met de beheerders van het systeem", "niets"),
    ("greek", "greek", "The server MUST \u2026 accept the token after it has expired", "\u039d\u039f\u03a4"),
]


def test_an_elision_that_removes_a_negation_written_any_way_is_altered(pytester, jev_server):
    assert_elisions_altered(pytester, jev_server, SECTIONS, [(*case[:3], f"*{case[3]}*") for case in CASES])
    replayed = pytester.runpytest("-p", "no:randomly")
    replayed.assert_outcomes(failed=len(CASES))


def test_an_elided_piece_that_ends_inside_a_word_is_not_that_word(pytester, jev_server):
    """``must not …`` is not in "must notify the admin before …": the quote adds a negation."""
    quote = "Users must not \u2026 sharing data with third parties"
    pytester.makepyfile(test_policy=policy_suite(pytester, SECTIONS, [("notify", "notify", quote)]))
    result = pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once", "--citecheck-json=report.json")
    result.assert_outcomes(failed=1)
    assert jev_server.requests == []
    [row] = json.loads((pytester.path / "report.json").read_text())["results"]
    assert (row["status"], row["verdict"]) == ("missing", "fabricated")
    result.stdout.fnmatch_lines(["*c: the quote is not in the source*"])


@pytest.mark.parametrize(
    ("section", "quote"),
    [
        ("dash", "We do not\u2014and will never\u2014sell your personal data"),
        ("dash", "We do not\u2014and will never\u2014sell \u2026 data to third parties"),
        ("notify", "Users must notify the admin \u2026 sharing data with third parties"),
        ("greek", "The server MUST \u039d\u039f\u03a4 accept the token"),
    ],
)
def test_the_same_sections_quoted_whole_still_pass(pytester, jev_server, section, quote):
    pytester.makepyfile(test_policy=policy_suite(pytester, SECTIONS, [("whole", section, quote)]))
    pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once").assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("section", "quote"),
    [
        ("notify", "Users must not"),
        ("unlawful", "lawful to copy the software"),
        ("cant", "Registered users can"),
        ("dash", "We do not\u2014and will never\u2014sell your personal data to third parties"),
    ],
    ids=["not-of-notify", "lawful-of-unlawful", "can-of-cant", "control"],
)
def test_a_quote_that_starts_or_ends_inside_a_word_does_not_turn_it(pytester, jev_server, section, quote):
    """Cut from inside a word, a quote may read a negation the section lacks ("Users must not" of "Users
    must notify"), lose one ("Registered users can" of "can't") or lose a negating prefix ("lawful" of
    "unlawful"): on main each was found and passed (hunt-wrong-passes F7). Now fabricated."""
    pytester.makepyfile(test_policy=policy_suite(pytester, SECTIONS, [("edge", section, quote)]))
    result = pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once", "--citecheck-json=report.json")
    [row] = json.loads((pytester.path / "report.json").read_text())["results"]
    if section == "dash":
        result.assert_outcomes(passed=1)
        return
    result.assert_outcomes(failed=1)
    assert (row["status"], row["verdict"]) == ("missing", "fabricated")
    assert jev_server.requests == []
    result.stdout.fnmatch_lines(["*its words are there, but it starts or ends inside a word or a number and turns it*"])


@pytest.mark.parametrize(
    ("section", "quote"),
    [("notify", "must notify the admin"), ("cannot", "not be copied without a written licence")],
    ids=["whole-words", "not-of-cannot"],
)
def test_a_quote_cut_inside_a_word_that_keeps_its_meaning_is_found(pytester, jev_server, section, quote):
    pytester.makepyfile(test_policy=policy_suite(pytester, SECTIONS, [("edge", section, quote)]))
    pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once").assert_outcomes(passed=1)
