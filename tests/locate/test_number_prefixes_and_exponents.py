"""A number's leading decimal point, its named currency, and the letters normalisation folded (number-edges-7).

Found and left by hunt-wrong-passes-6: "5 seconds per request" was found in ".5 seconds per request" (a point
before a word's first digit was not part of the number); "5 per month" and "$5 per month" in "US$5 per month"
or "A$5" / "HK$5" / "R$5" (a currency sign after letters was not read as one: "$5" of "A$5" is another amount);
"costs 5" in "costs 5€" (a currency after the digits). And NFKC folded letters into ones that say something
else: "2ˣ" (an exponent) read "2x", so "The cost grows 2x" was found in "The cost grows 2ˣ"; "1º" read "1o";
"№ 5" read "No 5", which the elision check then took for a negation (a false 'altered'). Each quote was found
and the loopback Jev supported its claim: the test passed.
"""

from __future__ import annotations

import pytest
from support import assert_quotes_fabricated, run_policy_suite

from pytest_citecheck import Source
from pytest_citecheck._locate.locator import QuoteLocator

SECTIONS = {
    "delay": "The delay is .5 seconds per request, and -.25 seconds per retry.",
    "fees": "The fee is US$5 per month for members, A$7 per year in Sydney, HK$9 per day, R$3 in Brazil and 4€ in Paris.",
    "growth": "The cost grows 2\u02e3 with each new node, the store grows 2\u1d4f per tier, and the team ranked 1\u00ba.",
    "form": "Apply with the form \u2116 5 to receive the refund within 30 days of the purchase.",
}

CUT = [
    ("point", "delay", "5 seconds per request"),
    ("signed-point", "delay", "25 seconds per retry"),
    ("us-amount", "fees", "5 per month for members"),
    ("us-dollar", "fees", "$5 per month for members"),
    ("aud", "fees", "$7 per year in Sydney"),
    ("hkd", "fees", "K$9 per day, R$3"),
    ("brl", "fees", "$3 in Brazil and"),
    ("euro-after", "fees", "R$3 in Brazil and 4"),
    ("exponent", "growth", "The cost grows 2x with each new node"),
    ("exponent-k", "growth", "the store grows 2k per tier"),
    ("exponent-cut", "growth", "The cost grows 2"),
    ("ordinal", "growth", "and the team ranked 1o"),
    ("numero", "form", "Apply with the form No 5 to receive the refund"),
]


def test_a_quote_that_drops_a_numbers_point_currency_or_exponent_is_fabricated(pytester, jev_server):
    assert_quotes_fabricated(pytester, jev_server, SECTIONS, CUT)


def test_a_near_match_that_drops_them_is_not_accepted(pytester, jev_server):
    """With ``fuzzy``, the number is compared whole: ".5" is not "5", nor "US$5" "5"."""
    cases = [
        ("point", "delay", "The delay is 5 seconds per request"),
        ("us-amount", "fees", "The fee is 5 per month for members"),
    ]
    assert_quotes_fabricated(pytester, jev_server, SECTIONS, cases, fuzzy=0.9)


def test_an_elision_over_the_numero_sign_is_not_a_negation(pytester, jev_server):
    """The numero sign "№ 5" stays as written: the elision check no longer reads "No" in the gap (a false 'altered' on main)."""
    cases = [("numero", "form", "Apply with the form ... to receive the refund within 30 days")]
    _, rows = run_policy_suite(pytester, SECTIONS, cases, passed=1)
    assert [row["status"] for row in rows] == ["found"]


@pytest.mark.parametrize(
    ("section", "quote"),
    [
        ("delay", "The delay is .5 seconds per request"),
        ("delay", "and -.25 seconds per retry"),
        ("fees", "The fee is US$5 per month"),
        ("fees", "A$7 per year in Sydney"),
        ("fees", "HK$9 per day, R$3 in Brazil and 4\u20ac in Paris"),
        ("growth", "The cost grows 2\u02e3 with each new node"),
        ("growth", "the team ranked 1\u00ba"),
        ("form", "Apply with the form \u2116 5 to receive the refund"),
    ],
)
def test_the_whole_number_is_found(section: str, quote: str) -> None:
    assert QuoteLocator(Source(sections={section: SECTIONS[section]})).find(quote) is not None


# step1-edges-8: a currency a space apart from its amount ("US$ 5", "$ 5", "5 €": French writes the sign after the
# amount, with a space), and a decimal comma a number opens with (",5 Sekunden"). On main each quote below was found
# and the loopback Jev supported its claim. The price (docs/matching.md): a shell prompt or an RCS keyword's "$" after
# a number is not a currency ("size=0 $ for", "$Revision: 9082 $"), nor is a comma written against a brace or a
# bracket a number's ("d{,1,2,4,8}").
SPACED = {
    "spaced": "The fee is US$ 5 per month for members, A$ 7 per year in Sydney, HK$ 9 per day, 4 € in Paris and $ 3 in Ohio as well.",
    "comma": "Warten Sie ,5 Sekunden zwischen den Versuchen; SuS d{,1,2,4,8} sind erlaubt.",
    "prompt": "Try this: size=0 $ for i in $(seq 3); done. Then $ 2to3 -w example.py converts it. $Revision: 9082 $",
    # percent-space: French and German typography and the SI write a space before "%" (Debian's French and German
    # manuals: "sécurisé à 99 %", "80 % davon"); on main "startup time fell by 10" was found here and judged.
    "percent": "Startup time fell by 10 % on Linux, by 3 \u2030 on macOS and by 7\u00a0% on Windows; 16 %: dh $@ runs.",
}

SPACED_CUT = [
    ("spaced-us-dollar", "spaced", "$ 5 per month for members"),
    ("spaced-us-amount", "spaced", "5 per month for members"),
    ("spaced-aud", "spaced", "$ 7 per year in Sydney"),
    ("spaced-hkd", "spaced", "K$ 9 per day"),
    ("spaced-euro-after", "spaced", "HK$ 9 per day, 4"),
    ("spaced-euro-alone", "spaced", "\u20ac in Paris and"),
    ("spaced-dollar", "spaced", "3 in Ohio as well"),
    ("percent", "percent", "Startup time fell by 10"),
    ("per-mille", "percent", "on Linux, by 3"),
    ("percent-no-break", "percent", "on macOS and by 7"),
    ("percent-alone", "percent", "% on Linux, by 3"),
    ("comma", "comma", "5 Sekunden zwischen den Versuchen"),
]


def test_a_quote_that_drops_a_sign_a_space_apart_or_a_leading_decimal_comma_is_fabricated(pytester, jev_server):
    assert_quotes_fabricated(pytester, jev_server, SPACED, SPACED_CUT)


def test_a_near_match_that_drops_a_spaced_currency_or_leading_comma_is_not_accepted(pytester, jev_server):
    cases = [
        ("spaced-us-amount", "spaced", "The fee is 5 per month for members"),
        ("spaced-euro-after", "spaced", "HK$ 9 per day, 4 in Paris and"),
        ("comma", "comma", "Warten Sie 5 Sekunden zwischen den Versuchen"),
        ("percent", "percent", "Startup time fell by 10 on Linux, by 3"),
    ]
    assert_quotes_fabricated(pytester, jev_server, SPACED, cases, fuzzy=0.9)


@pytest.mark.parametrize(
    ("section", "quote"),
    [
        ("spaced", "The fee is US$ 5 per month for members"),
        ("spaced", "A$ 7 per year in Sydney, HK$ 9 per day"),
        ("spaced", "4 \u20ac in Paris and $ 3 in Ohio"),
        ("comma", "Warten Sie ,5 Sekunden zwischen den Versuchen"),
        ("comma", "1,2,4,8} sind erlaubt"),
        ("prompt", "Try this: size=0"),
        ("prompt", "2to3 -w example.py converts it"),
        ("prompt", "$Revision: 9082"),
        ("percent", "Startup time fell by 10 % on Linux"),
        ("percent", "by 7 % on Windows"),
        ("percent", "on Linux, by 3 \u2030 on macOS"),
    ],
)
def test_the_spaced_amount_is_found_and_a_prompt_is_no_currency(section: str, quote: str) -> None:
    assert QuoteLocator(Source(sections={section: SPACED[section]})).find(quote) is not None


# step1-edges-9: what step1-edges-8 left. Canadian French writes "$" after the amount, a space apart ("5 $", "19,95 $",
# "1 250 $"); an amount a space after "$" may carry a multiplier ("$ 5M"); a temperature or an angle is written with
# its degree sign a space apart ("20 °C", "45 °"), and the scale letter is the temperature's ("100°C" is not "100°").
# On main each quote below was found and the loopback Jev supported its claim. A "$" after a number that is not written
# as an amount (a bug number "640489 $ and ^", a prompt "size=0 $", an RCS keyword "$Revision: 9082 $") is no currency.
EDGES_9 = {
    "cad": "Le forfait coûte 5 $ par mois, ou 19,95 $ pour un an; le serveur dédié revient à 1 250 $. Voilà.",
    "multiplier": "The plan costs $ 5M per month and US$ 2k per day of support.",
    "degree": "Keep the room at 20 °C overnight, the freezer at -4 °F, turn the knob 45 ° clockwise; it boils at 100°C.",
    "anchors": "Fixed 640489 $ and ^ do not match lines; size=0 $ for i in; $Revision: 9082 $ done.",
    # Debian Reference's shell session: a prompt on the line after an output that ends in a number.
    "session": 'done < /etc/passwd\nbozo\'s ID is 1000\n$ IFS="$oldIFS"   # restore old value\n$ ls',
}

EDGES_9_CUT = [
    ("cad-amount", "cad", "Le forfait coûte 5"),
    ("cad-sign", "cad", "$ par mois, ou 19,95"),
    ("cad-decimal", "cad", "par mois, ou 19,95"),
    ("cad-grouped", "cad", "le serveur dédié revient à 1 250"),
    ("multiplier", "multiplier", "5M per month and"),
    ("named-multiplier", "multiplier", "2k per day of support"),
    ("celsius", "degree", "Keep the room at 20"),
    ("fahrenheit", "degree", "the freezer at -4"),
    ("angle", "degree", "turn the knob 45"),
    ("degree-alone", "degree", "°C overnight, the freezer"),
    ("scale-alone", "degree", "C overnight, the freezer"),
    ("scale-dropped", "degree", "clockwise; it boils at 100°"),
]


def test_a_quote_that_drops_a_trailing_dollar_a_multiplier_or_a_spaced_degree_is_fabricated(pytester, jev_server):
    assert_quotes_fabricated(pytester, jev_server, EDGES_9, EDGES_9_CUT)


def test_a_near_match_that_drops_a_trailing_dollar_or_a_spaced_degree_is_not_accepted(pytester, jev_server):
    cases = [
        ("cad-amount", "cad", "Le forfait coûte 5 par mois, ou 19,95 $"),
        ("celsius", "degree", "Keep the room at 20 overnight, the freezer"),
        ("fahrenheit", "degree", "Keep the room at 20 °F overnight, the freezer"),
    ]
    assert_quotes_fabricated(pytester, jev_server, EDGES_9, cases, fuzzy=0.9)


@pytest.mark.parametrize(
    ("section", "quote"),
    [
        ("cad", "Le forfait coûte 5 $ par mois"),
        ("cad", "ou 19,95 $ pour un an"),
        ("cad", "le serveur dédié revient à 1 250 $."),
        ("multiplier", "The plan costs $ 5M per month"),
        ("multiplier", "and US$ 2k per day"),
        ("degree", "Keep the room at 20 °C overnight"),
        ("degree", "turn the knob 45 ° clockwise"),
        ("degree", "it boils at 100°C."),
        ("anchors", "Fixed 640489 $ and ^ do not match"),
        ("anchors", "Fixed 640489"),
        ("anchors", "$ and ^ do not match lines"),
        ("anchors", "lines; size=0"),
        ("anchors", "$ for i in; $Revision: 9082"),
        ("session", "bozo's ID is 1000"),
        ("session", '$ IFS="$oldIFS" # restore old value'),
    ],
)
def test_the_whole_amount_or_temperature_is_found_and_an_anchor_is_no_currency(section: str, quote: str) -> None:
    assert QuoteLocator(Source(sections={section: EDGES_9[section]})).find(quote) is not None
