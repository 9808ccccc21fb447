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
