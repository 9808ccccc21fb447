"""A drop-down shows one option, and ``<bdo dir="rtl">`` draws its characters right to left.

On main the HTML reader read every ``<option>`` of a closed ``<select>`` (a drop-down shows the one
selected, or the first), and a ``<bdo dir="rtl">``'s characters in the order written, though a reader
sees them reversed ("within <bdo dir=rtl>03</bdo> days" shows "within 30 days"). A quote of an option the
page does not show, or of the written order of reversed digits, was found, the loopback Jev supported
its claim, and the test passed. Each is ``fabricated`` now; the option a drop-down shows, every option of
a list box (``multiple``, or ``size`` above one) and a ``<bdo dir="ltr">`` are still read.

An option with a ``label`` that is not empty shows its label, not its text, in a drop-down and in a list
box alike (``<option label="Invoices are sent monthly.">Invoices are sent yearly.</option>`` shows
"monthly"): on main its text was read, so a quote of what the page shows was not found, and a quote of
what it does not show was.
"""

from __future__ import annotations

import pytest
from support import assert_each_quote_ends

from pytest_citecheck import Source
from pytest_citecheck.testing import JevServer

PAGE = """<!doctype html>
<html><body>
<h1>Refund policy</h1>
<p>Plan: <select name="plan"><option>Refunds are granted within 365 days.</option>
<option selected>Refunds are granted within 14 days.</option></select></p>
<p>Default: <select><option>Store credit is issued at once.</option><option>Store credit is issued never.</option></select></p>
<p>Returns are accepted within <bdo dir="rtl">03</bdo> days of delivery.</p>
<p>Choices: <select multiple><option>Exchanges are free of charge.</option></select></p>
<p>Rows: <select size="2"><option>Gift wrapping is refunded too.</option></select></p>
<p><bdo dir="ltr">Receipts are kept for a year.</bdo></p>
<p>Billing: <select><option label="Invoices are sent monthly.">Invoices are sent yearly.</option></select></p>
<p>Channels: <select multiple><option label="Complaints go to the ombudsman.">Complaints go to the manager.</option>
<option label="">Reminders are sent by post.</option></select></p>
</body></html>
"""

NOT_SHOWN = {
    "unselected": "Refunds are granted within 365 days.",
    "second": "Store credit is issued never.",
    "reversed": "Returns are accepted within 03 days",
    "labelled-drop-down": "Invoices are sent yearly.",
    "labelled-list-box": "Complaints go to the manager.",
}
SHOWN = {
    "selected": "Refunds are granted within 14 days.",
    "first": "Store credit is issued at once.",
    "multiple": "Exchanges are free of charge.",
    "rows": "Gift wrapping is refunded too.",
    "ltr": "Receipts are kept for a year.",
    "label-drop-down": "Invoices are sent monthly.",
    "label-list-box": "Complaints go to the ombudsman.",
    "empty-label": "Reminders are sent by post.",
}


def test_a_drop_down_is_read_as_the_option_it_shows() -> None:
    text = Source.from_text(PAGE, format="html").text
    assert [kind for kind, sentence in NOT_SHOWN.items() if sentence in text] == []
    assert [kind for kind, sentence in SHOWN.items() if sentence not in text] == []
    assert "Returns are accepted within days of delivery." in text


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("<h1>T</h1><p>a <select><option>one<option selected>two<option>three</select> b</p>", "T\na two b\n"),
        ("<h1>T</h1><p>a <select><option selected>one<option selected>two</select> b</p>", "T\na two b\n"),
        ("<h1>T</h1><p>a <select></select> b</p>", "T\na b\n"),
        ("<h1>T</h1><p>a <select size=x><option>one<option>two</select> b</p>", "T\na one b\n"),
        ("<h1>T</h1><p>a <select size=²><option>one<option>two</select> b</p>", "T\na one b\n"),
        ("<h1>T</h1><p>a <select><option>one<option>two", "T\na one"),
        ("<h1>T</h1><p>a <select><option label='one'>x<option selected label=two>y</select> b</p>", "T\na two b\n"),
        ("<h1>T</h1><p>a <select><option LABEL='one &amp; two'>x</option></select> b</p>", "T\na one & two b\n"),
        ("<h1>T</h1><p>a <select><option label>one<option>two</select> b</p>", "T\na one b\n"),
        (
            "<h1>T</h1><p>a <select size=2><option label=one>x<optgroup label=G><option>two</select>",
            "T\na \none\ntwo\n",
        ),
    ],
    ids=[
        "selected",
        "last-selected",
        "empty",
        "size-not-a-number",
        "size-not-ascii",
        "never-closed",
        "labels",
        "label-with-a-reference",
        "label-with-no-value",
        "list-box-label-then-group",
    ],
)
def test_which_option_a_drop_down_shows(page: str, expected: str) -> None:
    assert Source.from_text(page, format="html").text == expected


@pytest.mark.parametrize(("quotes", "outcome"), [(NOT_SHOWN, "failed"), (SHOWN, "passed")], ids=["not-shown", "shown"])
def test_a_quote_of_text_the_page_does_not_show_is_fabricated(
    pytester: pytest.Pytester, jev_server: JevServer, quotes: dict[str, str], outcome: str
) -> None:
    assert_each_quote_ends(pytester, PAGE, quotes, outcome)


@pytest.mark.parametrize(
    "page",
    [
        "<h1>T</h1><p>a <select multiple><option>Alpha one</option><option>Beta two</option></select> b</p>",
        "<h1>T</h1><p>a <select size=3><option>Alpha one<option>Beta two</select> b</p>",
        "<h1>T</h1><p>a <select size=2><optgroup label=G><option>Alpha one<option>Beta two</optgroup></select> b</p>",
    ],
    ids=["multiple", "size-closed-by-select", "optgroup"],
)
def test_a_list_box_reads_each_option_as_its_own_line(page: str) -> None:
    # On main its options ran together ("Alpha oneBeta two b"): a row of a box, each.
    assert [line.strip() for line in Source.from_text(page, format="html").text.split("\n")] == [
        "T",
        "a",
        "Alpha one",
        "Beta two",
        "b",
        "",
    ]
