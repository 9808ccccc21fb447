"""Text a page hides with CSS is not the page's text either (hunt-wrong-passes F5).

The HTML reader dropped elements hidden by ``hidden``, ``aria-hidden`` and an inline ``display: none``
or ``visibility: hidden``, but not text hidden the other common ways: an inline ``font-size: 0`` or
``opacity: 0`` (how hidden instructions and SEO text are planted), a rule of the page's own
``<style>`` (``.legal { display: none }`` with ``class="legal"``), or a ``<dialog>`` that is not
``open``. On main a quote taken from such text was ``found``, the section Jev read held it, the
loopback Jev supported the claim and the test passed: a claim no reader of the page can check. Each is
``fabricated`` now; the visible text is still found, and a rule inside ``@media`` (hidden only on some
screens) hides nothing.
"""

from __future__ import annotations

import pytest
from support import quotes_of_a_page

from pytest_citecheck.testing import JevServer

PAGE = """<!doctype html>
<html><head><title>Refunds</title>
<style>
/* the page's own rules */
.legal, #fine-print { display: none }
p.ghost { visibility: hidden; }
@media (max-width: 600px) { .wide { display: none } }
.note { color: #333 }
</style></head>
<body>
<h1>Refund policy</h1>
<p>Refunds are granted within 30 days of purchase.</p>
<p style="font-size: 0">Refunds are granted for 365 days on every order.</p>
<span style="opacity:0">Store credit is refundable in cash at any time.</span>
<p class="small legal">Opened software may be returned for a full refund.</p>
<div id="fine-print"><p>Shipping costs are refunded on every return.</p></div>
<p class="ghost">Gift cards are refundable in cash on request.</p>
<dialog><p>Sale items are refundable without a receipt.</p></dialog>
<p class="wide">Wide screens show this sentence about exchanges.</p>
<p class="note">Store credit is issued within five working days.</p>
<dialog open><p>Open dialogs show this sentence about receipts.</p></dialog>
<p style="opacity: 0.5; font-size: 0.9em">Faded text is still read by everyone.</p>
<h2>Exceptions</h2>
<p>Digital downloads are final once opened.</p>
</body></html>
"""

HIDDEN = {
    "font-size-0": "Refunds are granted for 365 days on every order.",
    "opacity-0": "Store credit is refundable in cash at any time.",
    "style-class": "Opened software may be returned for a full refund.",
    "style-id": "Shipping costs are refunded on every return.",
    "style-tag-class": "Gift cards are refundable in cash on request.",
    "closed-dialog": "Sale items are refundable without a receipt.",
}
VISIBLE = {
    "media-rule": "Wide screens show this sentence about exchanges.",
    "styled-class": "Store credit is issued within five working days.",
    "open-dialog": "Open dialogs show this sentence about receipts.",
    "faded": "Faded text is still read by everyone.",
}


@pytest.mark.parametrize(("quotes", "outcome"), [(HIDDEN, "failed"), (VISIBLE, "passed")], ids=["hidden", "visible"])
def test_a_quote_from_text_hidden_by_css_is_fabricated(
    pytester: pytest.Pytester, jev_server: JevServer, quotes: dict[str, str], outcome: str
) -> None:
    rows = quotes_of_a_page(pytester, PAGE, quotes, outcome)
    if outcome == "failed":
        assert {row["id"]: (row["status"], row["verdict"]) for row in rows} == dict.fromkeys(
            quotes, ("missing", "fabricated")
        )
        assert jev_server.systemone_requests == []  # a fabricated quote never reaches Jev
    else:
        assert {row["status"] for row in rows} == {"found"}
