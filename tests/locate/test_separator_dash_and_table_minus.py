"""A separator dash before an amount, a minus opening a table's cell, a scale read small, a spaced plus (step1-edges-11).

Left by step1-edges-10: a spaced dash between a word and a number with a unit was always read as the number's sign, so
"7% speedup" was not found in libtry-tiny-perl's changelog ("excise superfluous local($@) call - 7% speedup"), nor
"2.000€;" in GnuCash's Portuguese guide ("Capital - 2.000€;"): false failures. A minus that opens its line was read as a
list's bullet even where the line is a table's cell (menageremag.com's table "Aliments congelés |⏎- 12° C |"), so "12°
C |" was found; and with ``--citecheck-casefold`` "°c" was no temperature's unit, so "18 °C. Les emballages" was found in
studylib's "n'excède pas - 18 °C. Les emballages". Those quotes drop a minus: fabricated now.
"""

from __future__ import annotations

import pytest
from support import assert_quotes_fabricated

from pytest_citecheck import Source
from pytest_citecheck._locate.locator import QuoteLocator

SECTIONS = {
    # libtry-tiny-perl's changelog (/usr/share/doc/libtry-tiny-perl/changelog.gz), as written.
    "try": "0.13  2013-07-04\n  - fix tests failing on 5.6.x due to differing DESTROY semantics\n"
    "  - excise superfluous local($@) call - 7% speedup\n  - fix (fsvo) broken URLs (RT#55659)",
    # GnuCash's Portuguese guide (gnucash-docs, loans_personalLoanToSomeOne.html), as displayed.
    "gnucash": "Capital - 2.000€;\nTermo - 18 meses com 12 pagamentos por ano\nTaxa de juro anual: 5%",
    # studylib.fr's page on frozen food, as written.
    "freezer": "vérifier que la température n’excède pas - 18 °C. Les\nemballages des produits sont impeccables",
    # menageremag.com's and solupharma.fr's tables of storage temperatures, copied as text (a cell a line, or a row).
    "table": "Margarine |\n+ 8° C maximum |\nAliments congelés |\n- 12° C |\nAliments surgelés |\n- 18° C |\nGlaces |",
    "row": "Denrées alimentaires très périssables d’origine végétale | + 4° C maximum |\n"
    "Produits de la pêche congelés | – 18°C maximum |",
    # The sign where the unit is written against the number: after a word a number follows, or a minus sign U+2212.
    "signs": "Une baisse de - 5% par an, et le solde \u2212 7% ce mois. Le chiffre est en croissance de + 3,6% à 130,0 ME.",
}


@pytest.mark.parametrize(
    ("section", "quote"),
    [
        ("try", "7% speedup"),  # a separator between a word and an amount written English-style
        ("try", "call - 7% speedup"),
        ("gnucash", "2.000€; Termo"),
        ("table", "8° C maximum |"),  # a plus drops nothing: the same temperature
        ("row", "4° C maximum |"),
        ("signs", "3,6% à 130,0 ME"),
        ("table", "- 12° C |"),  # the whole temperature, its minus opening a table's cell
    ],
)
def test_a_separator_is_no_sign_and_the_whole_number_is_found(section: str, quote: str) -> None:
    assert QuoteLocator(Source(sections={section: SECTIONS[section]})).find(quote) is not None


def test_a_quote_that_drops_a_minus_opening_a_table_cell_or_written_as_a_sign_is_fabricated(pytester, jev_server):
    cases = [
        ("table-cell", "table", "12° C |\nAliments surgelés"),
        ("table-row", "table", "18° C |\nGlaces"),
        ("after-de", "signs", "5% par an, et le solde"),  # "de" takes a number: its dash is the sign
        ("minus-sign", "signs", "7% ce mois. Le chiffre"),  # U+2212 is a sign wherever it stands
    ]
    assert_quotes_fabricated(pytester, jev_server, SECTIONS, cases)


def test_with_casefold_a_quote_that_drops_a_minus_before_a_temperature_is_fabricated(pytester, jev_server):
    cases = [
        ("spaced", "freezer", "18 °C. Les emballages des produits"),
        ("cell", "table", "12° C |\nAliments surgelés"),
        ("ends-at-number", "freezer", "la température n’excède pas - 18"),  # nor one that drops the degree sign
    ]
    assert_quotes_fabricated(pytester, jev_server, SECTIONS, cases, casefold=True)


def test_a_near_match_that_flips_or_drops_a_sign_is_not_accepted(pytester, jev_server):
    cases = [
        ("minus-for-plus", "row", "Denrées alimentaires très périssables d’origine végétale | - 4° C maximum |"),
        ("drops-minus", "row", "Produits de la pêche congelés | 18°C maximum |"),
        ("table-cell", "table", "Aliments congelés | 12° C | Aliments surgelés"),
    ]
    assert_quotes_fabricated(pytester, jev_server, SECTIONS, cases, fuzzy=0.9)


def test_a_near_match_that_drops_a_minus_opening_a_table_cell_with_windows_line_ends_is_not_accepted(
    pytester, jev_server
):
    # The table alone (the same table with "\n" would be the closest passage otherwise), with CR LF line ends as a file
    # written on Windows and given as text keeps them: its cell was read as a bullet by the near match, which passed.
    crlf = {"table": SECTIONS["table"].replace("\n", "\r\n")}
    cases = [("table-cell-crlf", "table", "Aliments congelés | 12° C | Aliments surgelés")]
    assert_quotes_fabricated(pytester, jev_server, crlf, cases, fuzzy=0.9)
