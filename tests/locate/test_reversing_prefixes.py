"""A quote that starts after a prefix that reverses the word ("compress" of "decompress") reads the opposite.

The rule for quotes refused a quote that starts after a negating prefix ("lawful" of "unlawful", "exclusive" of
"non-exclusive"); "de-", "mis-" and "mal-" (and "anti-", "counter-", "dys-") were not among them, so "compress the
file before use" was found in "decompress the file before use", written whole, hyphenated ("de-compress") or
broken at the hyphen at a line's end, and the loopback Jev supported the claim: the test passed
(hunt-wrong-passes-6, "Found and NOT fixed"). An elision could drop the prefix too: "Run the tool to ... compress
the file" over "de-compress" (normalisation joins the hyphen, and an elision's edge may stand at a hyphen).
"""

from __future__ import annotations

import pytest
from support import assert_quotes_fabricated, run_policy_suite

from pytest_citecheck import Source
from pytest_citecheck._locate.locator import QuoteLocator

SECTIONS = {
    "whole": "Run the tool to decompress the file before use; the clerk misfiled the report last week.",
    "hyphen": "Run the tool to de-compress the file before use; the server maladjusted the clock each night.",
    "break": "Run the tool to de-\ncompress the file before use, and the\nanti-aliasing filter is on by default.",
}

CUT = [
    ("de", "whole", "compress the file before use"),
    ("de-hyphen", "hyphen", "compress the file before use"),
    ("de-break", "break", "compress the file before use"),
    ("mis", "whole", "filed the report last week"),
    ("mal", "hyphen", "adjusted the clock each night"),
    ("anti", "break", "aliasing filter is on by default"),
    ("elided", "hyphen", "Run the tool to ... compress the file before use"),
]


def test_a_quote_that_starts_after_a_reversing_prefix_is_fabricated(pytester, jev_server):
    assert_quotes_fabricated(pytester, jev_server, SECTIONS, CUT)


@pytest.mark.parametrize(
    ("section", "quote"),
    [
        ("whole", "to decompress the file before use"),
        ("hyphen", "Run the tool to de-compress the file before use"),
        ("break", "to de-compress the file before use"),
        ("whole", "the clerk misfiled the report"),
        ("hyphen", "the server maladjusted the clock"),
        ("break", "the anti-aliasing filter is on"),
        ("hyphen", "Run the tool to ... the file before use"),
    ],
)
def test_the_whole_word_is_found(section: str, quote: str) -> None:
    assert QuoteLocator(Source(sections={section: SECTIONS[section]})).find(quote) is not None


def test_a_near_match_that_drops_a_reversing_prefix_is_not_accepted(pytester, jev_server):
    """With ``fuzzy``, one word for its reversed form is a change of meaning, as "available" for "unavailable" is."""
    cases = [("de", "whole", "Run the tool to compress the file before use")]
    assert_quotes_fabricated(pytester, jev_server, SECTIONS, cases, fuzzy=0.9)


# step1-edges-8: the prefixes above in the other languages the contract covers, and accented. On main "compresser le
# fichier" was found in "dé-compresser le fichier" (while after "de-" it was refused), and each quote below likewise.
EUROPEAN = {
    "fr": "Lancez l'outil pour dé-compresser le fichier avant usage, puis désactivez le service ; un avis contre-indiqué pour les enfants.",
    "es": "Luego descomprime el fichero antes de usarlo; el fármaco está contraindicado en niños pequeños.",
    "de": "Entsperren Sie den Bildschirm vor dem Start; der Bereich ist nichtöffentlich für alle Besucher.",
}

EUROPEAN_CUT = [
    ("de-accent", "fr", "compresser le fichier avant usage"),
    ("des-accent", "fr", "activez le service"),
    ("contre", "fr", "indiqué pour les enfants"),
    ("des", "es", "comprime el fichero antes de usarlo"),
    ("contra", "es", "indicado en niños pequeños"),
    ("ent", "de", "sperren Sie den Bildschirm vor dem Start"),
    ("nicht", "de", "öffentlich für alle Besucher"),
    ("elided", "fr", "Lancez l'outil pour ... compresser le fichier avant usage"),
]


def test_a_quote_that_starts_after_an_accented_or_european_reversing_prefix_is_fabricated(pytester, jev_server):
    assert_quotes_fabricated(pytester, jev_server, EUROPEAN, EUROPEAN_CUT)


def test_a_near_match_that_drops_an_accented_reversing_prefix_is_not_accepted(pytester, jev_server):
    cases = [("de-accent", "fr", "Lancez l'outil pour compresser le fichier avant usage")]
    assert_quotes_fabricated(pytester, jev_server, EUROPEAN, cases, fuzzy=0.9)


@pytest.mark.parametrize(
    ("section", "quote"),
    [
        ("fr", "pour dé-compresser le fichier avant usage"),
        ("fr", "puis désactivez le service ; un avis contre-indiqué"),
        ("es", "Luego descomprime el fichero"),
        ("es", "está contraindicado en niños"),
        ("de", "Entsperren Sie den Bildschirm"),
        ("de", "der Bereich ist nichtöffentlich"),
    ],
)
def test_the_whole_european_word_is_found(section: str, quote: str) -> None:
    assert QuoteLocator(Source(sections={section: EUROPEAN[section]})).find(quote) is not None


# step1-edges-9: an acronym in capitals before a hyphen is a name, not a prefix that reverses the word: on main
# "based ciphers" was not found in Node.js's "DES-based ciphers" (DES read as the Spanish prefix "des"), nor
# "operator optimization" in SQLite's changelog's "IN-operator optimization" (a false 'fabricated'). A prefix in
# capitals before a word in capitals ("NON-INFRINGEMENT", a licence's heading), in title case ("De-compress") or
# stressed against its word (HTML-Tree's changelog: "no longer DEcode entities") still reverses it.
ACRONYMS = {
    "node": "Clients that rely on insecure RC4 or DES-based ciphers (like Internet Explorer 6) cannot connect.",
    "sqlite": "Fix a bug in the IN-operator optimization of version 3.34.0; the UN-approved list is unchanged.",
    "licence": "FITNESS FOR A PARTICULAR PURPOSE AND NON-INFRINGEMENT. Run the tool to De-compress the file.",
    "stressed": "Changed as_text to no longer DEcode entities, as it formerly did, and was documented to.",
}


@pytest.mark.parametrize(
    ("section", "quote"),
    [
        ("node", "based ciphers (like Internet Explorer 6)"),
        ("sqlite", "operator optimization of version 3.34.0"),
        ("sqlite", "approved list is unchanged"),
    ],
)
def test_a_quote_after_an_acronym_and_a_hyphen_is_found(section: str, quote: str) -> None:
    assert QuoteLocator(Source(sections={section: ACRONYMS[section]})).find(quote) is not None


def test_a_near_match_after_an_acronym_is_accepted(pytester, jev_server):
    """With ``fuzzy``, "based" for "DES-based" is a near match, judged like any other (on main: refused as reversed)."""
    case = ("acronym", "node", "Clients that rely on insecure RC4 or based ciphers")
    _, rows = run_policy_suite(pytester, ACRONYMS, [case], passed=1, fuzzy=0.9)
    assert [row["status"] for row in rows] == ["found-approx"]
    assert len(jev_server.requests) == 1


def test_a_prefix_in_capitals_still_reverses_the_word(pytester, jev_server):
    """ "INFRINGEMENT" of "NON-INFRINGEMENT", "compress" of "De-compress" and "code" of "DEcode" are refused."""
    cases = [
        ("capitals", "licence", "INFRINGEMENT. Run the tool to"),
        ("title-case", "licence", "compress the file"),
        ("stressed", "stressed", "code entities, as it formerly did"),
    ]
    assert_quotes_fabricated(pytester, jev_server, ACRONYMS, cases)


def test_a_near_match_that_drops_a_prefix_in_capitals_is_not_accepted(pytester, jev_server):
    cases = [
        ("capitals", "licence", "FITNESS FOR A PARTICULAR PURPOSE AND INFRINGEMENT. Run"),
        ("stressed", "stressed", "Changed as_text to no longer code entities, as it formerly did"),
    ]
    assert_quotes_fabricated(pytester, jev_server, ACRONYMS, cases, fuzzy=0.9)
