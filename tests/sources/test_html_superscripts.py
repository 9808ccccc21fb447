"""A superscript right after a digit is not more digits of that number (hunt-wrong-passes-4 F2).

The HTML reader joined an element's text to what came before it, so ``2<sup>32</sup>`` (Node.js's
buffer docs: "On 64-bit architectures, this value currently is 2<sup>32</sup> (about 4 GiB).") read
``232``, and ``10<sup>6</sup>`` read ``106``. On main a quote saying "232" was ``found``, the section
Jev read said "232" too, the loopback Jev supported the claim and the test passed: a number the page
does not say. The digits and signs of a superscript that follows a digit are now read as superscripts
(``2³²``), which the matching contract keeps apart from plain digits ("10⁶" is not "106"); a quote of
what a reader sees (``2³²``) is found. A superscript after a letter (``m<sup>2</sup>``, ``1<sup>st</sup>``'s
letters, footnote marks after a word) reads as before.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import INNER_INI, NOT_A_USERS_PLUGINS

from pytest_citecheck import Source
from pytest_citecheck.testing import JevServer

EXCERPT = Path(__file__).parent.parent / "data" / "nodejs-buffer-constants-excerpt.html"
SECTION = "Buffer constants > buffer.constants.MAX_LENGTH"


def test_a_superscript_after_a_digit_reads_as_a_superscript() -> None:
    text = Source.from_file(EXCERPT).sections[SECTION]
    assert "On 64-bit architectures, this value currently is 2³² (about 4 GiB)." in text
    assert "Value is changed from 2³¹ - 1 to 2³² - 1 on 64-bit architectures." in text
    assert "232" not in text and "231" not in text


@pytest.mark.parametrize(
    ("html", "text"),
    [
        (
            "<p>up to 10<sup>6</sup> requests, 10<sup>-3</sup> s, 2<sup>(n+1)</sup> ways</p>",
            "up to 10⁶ requests, 10⁻³ s, 2⁽n⁺¹⁾ ways",
        ),
        (
            "<p>the 1<sup>st</sup> and 2<sup>nd</sup> of 3<sup>1,2</sup>, 2.4.27<sup>[14]</sup></p>",
            "the 1st and 2nd of 3¹,², 2.4.27[14]",
        ),
        (
            "<p>an area of 100 m<sup>2</sup>, water is H<sub>2</sub>O, see note<sup>3</sup></p>",
            "an area of 100 m2, water is H2O, see note3",
        ),
        ("<p>500<sup><a href='#fn1'>1</a></sup> items, 7 <sup>2</sup></p>", "500¹ items, 7 2"),
    ],
    ids=["exponents", "ordinals-and-marks", "after-a-letter", "nested-and-spaced"],
)
def test_which_superscripts_turn(html: str, text: str) -> None:
    assert Source.from_text(f"<h1>Limits</h1>{html}", format="html").sections["Limits"] == f"Limits\n{text}"


SUITE = """
import pathlib
import pytest
from pytest_citecheck import Source, assert_citations_supported

PAGE = Source.from_file(pathlib.Path(__file__).parent / "buffer.html")
QUOTES = {quotes!r}

@pytest.mark.parametrize("kind", list(QUOTES))
def test_quote(kind):
    citation = {{"id": kind, "claim": "Buffers can be that large.", "quote": QUOTES[kind], "section": {section!r}}}
    assert_citations_supported([citation], PAGE)
"""

JOINED = {
    "exponent-joined": "On 64-bit architectures, this value currently is 232 (about 4 GiB).",
    "history-joined": "Value is changed to 232 on 64-bit architectures.",
}
AS_SHOWN = {
    "exponent-shown": "On 64-bit architectures, this value currently is 2³² (about 4 GiB).",
    "history-shown": "Value is changed from 2³¹ - 1 to 2³² - 1 on 64-bit architectures.",
}


@pytest.mark.parametrize(("quotes", "outcome"), [(JOINED, "failed"), (AS_SHOWN, "passed")], ids=["joined", "shown"])
def test_a_quote_that_joins_a_power_to_its_base_is_fabricated(
    pytester: pytest.Pytester, jev_server: JevServer, quotes: dict[str, str], outcome: str
) -> None:
    pytester.makeini(INNER_INI + "citecheck_model = jev-1.12\n")
    (pytester.path / "buffer.html").write_bytes(EXCERPT.read_bytes())
    pytester.makepyfile(test_buffers=SUITE.format(quotes=quotes, section=SECTION))
    result = pytester.runpytest("--citecheck-record-mode=once", "--citecheck-json=report.json", *NOT_A_USERS_PLUGINS)
    result.assert_outcomes(**{outcome: len(quotes)})
    rows = json.loads((pytester.path / "report.json").read_text())["results"]
    statuses = {row["id"]: row["status"] for row in rows}
    assert statuses == dict.fromkeys(quotes, "missing" if outcome == "failed" else "found")
