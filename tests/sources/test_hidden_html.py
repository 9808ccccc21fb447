"""Hidden HTML is not the page's text (issue 24 item 4): a quote taken from an element a reader never sees
is not found, so the citation is ``fabricated``; the same words in visible text are found."""

from __future__ import annotations

import pytest
from support import INNER_INI, NOT_A_USERS_PLUGINS

from pytest_citecheck.testing import JevServer

PAGE = """<!doctype html>
<html><head><title>Refunds</title><style>.x { content: "styled words never shown" }</style></head>
<body>
<h1>Refund policy</h1>
<p>Refunds are granted within 30 days of purchase.</p>
<p hidden>Refunds are granted at any time, for any reason.</p>
<div aria-hidden="true"><p>Store credit never expires under this policy.</p></div>
<span style="color: red; display:none">Shipping is refunded on every order.</span>
<p style="visibility: hidden">Opened software may be returned for cash.</p>
<template><p>Gift cards are refundable in cash.</p></template>
<noscript><p>Sale items are refundable without a receipt.</p></noscript>
<script>document.write("Refunds are doubled on Sundays.");</script>
<h2>Exceptions</h2>
<p>Digital downloads are final once opened.</p>
</body></html>
"""

HIDDEN = {
    "hidden": "Refunds are granted at any time, for any reason.",
    "aria-hidden": "Store credit never expires under this policy.",
    "display-none": "Shipping is refunded on every order.",
    "visibility-hidden": "Opened software may be returned for cash.",
    "template": "Gift cards are refundable in cash.",
    "noscript": "Sale items are refundable without a receipt.",
    "script": "Refunds are doubled on Sundays.",
    "style": "styled words never shown",
}

SUITE = """
import pathlib
import pytest
from pytest_citecheck import CitationsNotSupported, Source, check_citations

PAGE = Source.from_file(pathlib.Path(__file__).parent / "refunds.html")
HIDDEN = {hidden!r}

@pytest.mark.parametrize("kind", sorted(HIDDEN))
def test_a_quote_from_hidden_text_is_not_found(kind):
    citation = {{"id": kind, "claim": "The policy says so.", "quote": HIDDEN[kind]}}
    [result] = check_citations([citation], PAGE)
    assert result.status == "missing" and result.verdict == "fabricated", (kind, result.status, result.verdict)

def test_the_visible_text_is_found():
    assert "Refunds are granted within 30 days of purchase." in PAGE.sections["Refund policy"]
    assert all(quote not in PAGE.text for quote in HIDDEN.values())
"""


def test_quotes_from_hidden_html_are_fabricated_through_pytest(
    pytester: pytest.Pytester, jev_server: JevServer
) -> None:
    pytester.makeini(INNER_INI + "citecheck_model = jev-1.12\n")
    (pytester.path / "refunds.html").write_text(PAGE)
    pytester.makepyfile(test_refunds=SUITE.format(hidden=HIDDEN))
    result = pytester.runpytest("--citecheck-record-mode=once", *NOT_A_USERS_PLUGINS)
    result.assert_outcomes(passed=len(HIDDEN) + 1)
    assert jev_server.systemone_requests == []  # a fabricated quote never reaches Jev


class _CountingList(list[str]):
    """A list that counts the items read from it by index (the hidden elements an end tag looks at)."""

    reads = 0

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        type(self).reads += 1
        return super().__getitem__(index)


def test_stray_end_tags_in_deep_hidden_content_look_at_no_open_element() -> None:
    """An end tag that closes no open hidden element (``</span>`` inside nested hidden ``<div>``s) is known to
    close nothing without looking through the open elements: a hostile page of n nested elements and n stray
    end tags read n² of them (8,000 of each took over a second, 50,000 most of a minute)."""
    from pytest_citecheck._sources.formats.html import _HtmlText

    depth = 2_000
    page = (
        "<h1>Title</h1><p>Seen before.</p><div hidden>"
        + "<div>" * depth
        + "</span>" * depth
        + "<p>Never seen.</p>"
        + "</div>" * (depth + 1)
        + "<h2>After</h2><p>Seen after.</p>"
    )
    parser = _HtmlText(page)
    parser.hidden = _CountingList()
    _CountingList.reads = 0
    parser.feed(page)
    parser.close()
    text = "".join(parser.pieces)
    assert "Seen before." in text and "Seen after." in text and "Never seen." not in text
    # Each open element is looked at about once, when it closes (plus the last one, per end tag that
    # closes one): linear in the page, where a scan per stray end tag read depth² = 4,000,000.
    assert _CountingList.reads <= 4 * depth, _CountingList.reads


def test_an_end_tag_closes_the_innermost_open_hidden_element_of_its_name() -> None:
    """Hidden elements of one name nested in another's: an end tag closes the innermost of its name and what
    is open inside it; the text after the outermost's end is seen, and nothing before it."""
    from pytest_citecheck import Source

    page = (
        "<h1>Title</h1><div hidden><section><div><section><p>Hidden one.</p></div>"
        "<p>Hidden two.</p></section></section><p>Hidden three.</p></div><p>Seen.</p>"
    )
    text = Source.from_text(page, format="html").sections["Title"]
    assert "Seen." in text
    assert not any(f"Hidden {n}." in text for n in ("one", "two", "three"))
