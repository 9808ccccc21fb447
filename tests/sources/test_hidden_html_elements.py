"""Elements a browser never draws are not the page's text (hunt-wrong-passes-4 F4).

After hunt-wrong-passes F5 (text CSS hides), the HTML reader still read the text of elements HTML's own
rendering rules never draw: what is written inside an ``<iframe>`` (the frame shows its ``src``; its
contents are raw text no browser shows), ``<noembed>`` and ``<noframes>`` (fallbacks for browsers
without embeds or frames: every browser has them), a ``<datalist>``'s options (suggestions, not text),
``<rp>`` (ruby's fallback parentheses) and MathML's ``<annotation>`` (a formula's TeX or other source,
under ``<semantics>``). On main a quote taken from them was ``found``, the section Jev read held it, the
loopback Jev supported the claim and the test passed. Each is ``fabricated`` now; text a reader does see
(a ``<textarea>``, a ``<select>``'s options, a closed ``<details>``' summary and body, an
``<object>``'s fallback, shown when the object cannot be) is still found.
"""

from __future__ import annotations

import pytest
from support import assert_each_quote_ends

from pytest_citecheck import Source
from pytest_citecheck.testing import JevServer

PAGE = """<!doctype html>
<html><head><title>Refunds</title></head>
<body>
<h1>Refund policy</h1>
<p>Refunds are granted within 30 days of purchase.</p>
<iframe src="terms.html"><p>Refunds are granted for 365 days on every order.</p></iframe>
<embed src="terms.pdf"><noembed>Store credit is refundable in cash at any time.</noembed>
<noframes>Opened software may be returned for a full refund.</noframes>
<input list="reasons"><datalist id="reasons"><option>Shipping costs are refunded on every return.</option></datalist>
<p><ruby>返金<rp>(Gift cards are refundable in cash on request.)</rp><rt>henkin</rt></ruby></p>
<p><math><semantics><mi>x</mi><annotation encoding="text/plain">Sale items are refundable without a receipt.</annotation></semantics></math></p>
<p><textarea>Textarea text about exchanges is shown.</textarea></p>
<p><select><option>Store credit is issued within five working days.</option></select></p>
<details><summary>Receipts</summary><p>Details show this sentence about receipts.</p></details>
<object data="policy.swf">Fallback text of objects is shown when they fail.</object>
<h2>Exceptions</h2>
<p>Digital downloads are final once opened.</p>
</body></html>
"""

HIDDEN = {
    "iframe": "Refunds are granted for 365 days on every order.",
    "noembed": "Store credit is refundable in cash at any time.",
    "noframes": "Opened software may be returned for a full refund.",
    "datalist": "Shipping costs are refunded on every return.",
    "rp": "Gift cards are refundable in cash on request.",
    "annotation": "Sale items are refundable without a receipt.",
}
VISIBLE = {
    "textarea": "Textarea text about exchanges is shown.",
    "select": "Store credit is issued within five working days.",
    "details": "Details show this sentence about receipts.",
    "object": "Fallback text of objects is shown when they fail.",
}


def test_the_text_a_browser_never_draws_is_not_read() -> None:
    text = Source.from_text(PAGE, format="html").text
    assert [kind for kind, sentence in HIDDEN.items() if sentence in text] == []
    assert [kind for kind, sentence in VISIBLE.items() if sentence not in text] == []
    assert "Digital downloads are final once opened." in text  # what follows an iframe is read


@pytest.mark.parametrize(("quotes", "outcome"), [(HIDDEN, "failed"), (VISIBLE, "passed")], ids=["hidden", "visible"])
def test_a_quote_from_an_element_never_drawn_is_fabricated(
    pytester: pytest.Pytester, jev_server: JevServer, quotes: dict[str, str], outcome: str
) -> None:
    assert_each_quote_ends(pytester, PAGE, quotes, outcome)
