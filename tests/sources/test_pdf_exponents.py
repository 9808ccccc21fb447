"""A power printed raised in a PDF is read raised: "2⁸" is not "28".

Pages 57 to 62 of R's language definition (Debian package r-doc-pdf 4.2.2.20221110-2,
``/usr/share/doc/r-doc-pdf/manual/R-lang.pdf``, texinfo and TeX; R is GPL-2 (the package's copyright file); the pages
copied with pypdf 7.1): "That is, 2 ^ 2 ^ 3 is 2⁸, not 4³". PDFium's text gives "2 ^ 2 ^ 3 is 28\r\n, not\r\n4\r\n3":
on main a quote "2 ^ 2 ^ 3 is 28" was found there and sent to Jev with that section. HTML's
``2<sup>8</sup>`` has read ``2⁸`` since the fourth hunt; a PDF now reads the same, from the characters'
sizes and baselines that PDFium gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import assert_each_quote_ends

from pytest_citecheck import Source
from pytest_citecheck._locate.locator import QuoteLocator
from pytest_citecheck._sources.formats import read_pdf
from pytest_citecheck.testing import JevServer

DATA = Path(__file__).parent.parent / "data"
PAGE = DATA / "r-lang-parser-pages.pdf"


def test_an_exponent_reads_raised_and_the_breaks_pdfium_made_around_it_go() -> None:
    text = Source.from_file(PAGE).text
    assert "That is, 2 ^ 2 ^ 3 is 2⁸, not\n4³, whereas 1 - 1 - 1 is −1, not 1." in text
    assert "28" not in text and "43" not in text


def test_a_plain_number_and_a_footnote_mark_after_a_word_read_as_written() -> None:
    """Only digits set smaller and raised after a digit: "1:2^3 is 1:8" (a code font, one size) is as printed."""
    text = Source.from_file(PAGE).text
    assert "1:3-1 is 012, but 1:2^3 is 1:8." in text
    locator = QuoteLocator(Source.from_file(PAGE))
    assert locator.find("but 1:2^3 is 1:8") is not None


@pytest.mark.parametrize(
    ("quotes", "outcome"),
    [
        ({"joined": "all other operators group left to right. That is, 2 ^ 2 ^ 3 is 28"}, "failed"),
        ({"raised": "That is, 2 ^ 2 ^ 3 is 2⁸, not 4³, whereas 1 - 1 - 1 is"}, "passed"),
    ],
    ids=["joined", "raised"],
)
def test_a_quote_that_reads_an_exponent_as_digits_is_fabricated(
    pytester: pytest.Pytester, jev_server: JevServer, quotes: dict[str, str], outcome: str
) -> None:
    assert_each_quote_ends(pytester, PAGE.read_bytes(), quotes, outcome, name="R-lang.pdf")


def test_a_raised_mark_before_a_word_keeps_the_word_gap() -> None:
    """Page 192 of R's "Writing R Extensions" (the same package, ``R-exts.pdf``): footnote 3 set after "C99". The
    line break PDFium made where the baseline moved goes; the page's gap before the next word stays a space (not
    "C99³interface"); on main the text read "C993\\ninterface"."""
    text = read_pdf(DATA / "r-exts-footnote-page.pdf")  # one page, no section heading on it
    assert "Because\nthat is a C99³ interface, they are only defined by" in text
