"""A minus a space apart from its number, and "$" after an amount of five digits or more (step1-edges-10).

Left by step1-edges-9: "18 °C" was found in "ne dépassant pas - 18 °C" (French typography spaces a minus, and a PDF or
a web page writes it "−" or "–": normalisation makes each "-", and a lone "-" was no sign), and a near match of "stored
at 18 °C" for "stored at - 18 °C" was accepted. "12000 $" (five digits, no group space) was not read as an amount, so
"coûte 12000" was found in "coûte 12000 $", nor was "5 $" in a section that also held a shell prompt or an RCS keyword. On main each quote below was found and the loopback Jev supported its claim.
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest
from support import assert_quotes_fabricated

from pytest_citecheck import Source
from pytest_citecheck._locate.locator import QuoteLocator

SECTIONS = {
    # studylibfr.com's page on frozen food, as written (a spaced hyphen), and the same with U+2212 and an en dash.
    "freezer": "Un conservateur, trois (- 18 °C), garde les surgelés à - 12 °C pendant deux jours. Vérifier que la température n'excède pas - 18 °C. Les emballages.",
    "minus": "Il fait \u2212 18 °C ce matin, et le solde : \u2013 50 € reste dû. Une baisse de - 5 % par an. Suite.",
    "ranges": "Entre 10 - 18 °C la pâte lève; de 0.7% - 2.2% plus vite; voir pages 10 - 18 pour le reste.",
    "list": "Les remises :\n- 5 % sur les livres\n- 18 °C au congélateur\nFin de la liste \u2014 4 °C au frigo.",
    "code": "copy dsize - 1 limbs, and the header is 65,535 \u2212 8 bytes UDP header, Paperback - 829 pages.",
    "prices": "La voiture coûte 12000 $ et le vélo 5 $ par mois; le camion 1 250 $, la moto 1\u00a0250 $.",
    "glib": "Fixed 640489 $ and ^ do not match lines if G_REGEX_MULTILINE is set.",
    # Prices in a section that also holds a shell session (a prompt on the line after an output ending in a number)
    # and an RCS keyword: the prompt's "$" opens its line as written, the keyword's closes "$Revision: 9082 $".
    "session": "Le forfait coûte 5 $ par mois.\n$ id -u bozo\nbozo's ID is 1000\n$ ls -l\n$Revision: 9082 $ fin.",
}

CUT = [
    ("spaced-hyphen", "freezer", "12 °C pendant deux jours"),
    ("spaced-hyphen-end", "freezer", "18 °C. Les emballages."),
    ("minus-sign", "minus", "18 °C ce matin, et le solde"),
    ("en-dash", "minus", "50 € reste dû. Une baisse"),
    ("percent", "minus", "5 % par an. Suite"),
    ("five-digits", "prices", "La voiture coûte 12000"),
    ("price-by-a-prompt", "session", "Le forfait coûte 5"),
]


def test_a_quote_that_drops_a_spaced_minus_or_a_long_amounts_dollar_is_fabricated(pytester, jev_server):
    assert_quotes_fabricated(pytester, jev_server, SECTIONS, CUT)


def test_a_near_match_that_drops_a_spaced_minus_is_not_accepted(pytester, jev_server):
    cases = [
        ("inside", "freezer", "Vérifier que la température n'excède pas 18 °C. Les emballages."),
        ("at-start", "freezer", "12 °C pendant deux jours. Vérifier que la"),
    ]
    assert_quotes_fabricated(pytester, jev_server, SECTIONS, cases, fuzzy=0.9)


@pytest.mark.parametrize(
    ("section", "quote"),
    [
        ("freezer", "n'excède pas - 18 °C. Les emballages."),
        ("freezer", "- 18 °C. Les emballages."),  # a quote that opens with the sign
        ("minus", "\u2212 18 °C ce matin"),
        ("minus", "le solde : \u2013 50 € reste dû"),
        ("ranges", "18 °C la pâte lève"),  # a range's dash, after a number, is no sign
        ("ranges", "2.2% plus vite"),
        ("ranges", "voir pages 10"),
        ("ranges", "18 pour le reste"),
        ("list", "5 % sur les livres"),  # a list's bullet at a line's start is no sign
        ("list", "18 °C au congélateur"),
        ("list", "4 °C au frigo."),  # nor is an em dash
        ("code", "1 limbs, and the header"),  # a bare number after a spaced dash: a subtraction or a separator
        ("code", "8 bytes UDP header"),
        ("code", "829 pages."),
        ("prices", "La voiture coûte 12000 $"),
        ("prices", "le camion 1 250 $, la moto 1 250 $."),  # a group written with a space or a no-break space
        ("glib", "Fixed 640489"),  # five digits and "$" in a section that writes no price so: an anchor
        ("session", "Le forfait coûte 5 $ par mois."),
        ("session", "bozo's ID is 1000"),  # a "$" that opens its line is a prompt
        ("session", "$ ls -l $Revision: 9082"),
    ],
)
def test_the_whole_number_is_found_and_a_range_a_bullet_or_a_subtraction_is_no_sign(section: str, quote: str) -> None:
    assert QuoteLocator(Source(sections={section: SECTIONS[section]})).find(quote) is not None


def test_reading_the_dollars_of_a_large_text_does_not_keep_it_alive() -> None:
    """The evidence for "5 $" is read once per text and kept for the next boundaries, without the text itself."""
    gc.collect()
    tracemalloc.start()
    try:
        locator = QuoteLocator(
            Source(sections={"prices": "Le forfait coûte 5 $ par mois et 19,95 $ par an. " * 60_000})
        )
        assert locator.find("Le forfait coûte 5") is None
        del locator
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < 1_000_000, f"{held} bytes still held after the locator was dropped"
