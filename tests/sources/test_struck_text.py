"""Text a page strikes out is not what it says (hunt-wrong-passes-5).

HTML defines ``<del>`` as "a removal from the document" and ``<s>`` (``<strike>``, its obsolete
spelling) as "contents that are no longer accurate or no longer relevant". Underscore.js's change log
(Debian's ``libjs-underscore`` 1.13.4, ``/usr/share/doc/libjs-underscore/index.html``) strikes out a
1.4.0 item that did not hold: "Underscore iteration functions no longer accept null values as a no-op
argument." On main the HTML reader read struck text as the page's text: a quote of it was ``found``,
the section Jev read held it with nothing to say it was struck, the loopback Jev supported the claim
and the test passed. Struck text is not read now, so such a quote is ``fabricated``; the text around it
is found as before. The same holds for a Markdown source: GitHub renders ``~~text~~`` as ``<del>``,
and an inline ``<del>``, ``<s>`` or ``<strike>`` is HTML in it (code spans and fenced code keep theirs).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import assert_each_quote_ends, quotes_of_a_page

from pytest_citecheck import Source
from pytest_citecheck.testing import JevServer

UNDERSCORE = (Path(__file__).parent.parent / "data" / "underscore-changelog-excerpt.html").read_text()

PAGE = """<!doctype html>
<html><body>
<h1>Refund policy</h1>
<p>Refunds are granted within <del>365</del><ins>30</ins> days of purchase.</p>
<p><s>Opened software may be returned for a full refund.</s></p>
<p><strike>Store credit is refundable in cash at any time.</strike></p>
<p>Gift cards are <del>not </del>refundable at the counter.</p>
<h2>Exceptions</h2>
<p>Digital downloads are final once opened.</p>
</body></html>
"""

STRUCK = {
    "del-number": "Refunds are granted within 365 days",
    "s": "Opened software may be returned for a full refund.",
    "strike": "Store credit is refundable in cash at any time.",
    "del-negation": "Gift cards are not refundable at the counter.",
}
SHOWN = {
    "ins": "Refunds are granted within 30 days of purchase.",
    "around": "Gift cards are refundable at the counter.",
    "after": "Digital downloads are final once opened.",
}

MARKDOWN = """# Refund policy

Refunds are granted within ~~365~~ 30 days of purchase.

~~Opened software may be returned
for a full refund.~~

<s>Store credit is refundable in cash at any time.</s>

Gift cards are <del>not </del>refundable at the counter.

Write `~~struck in code~~` to strike text out.

```
~~Fenced tildes are shown as written.~~
```

# Exceptions

Digital downloads are final once opened.
"""

MARKDOWN_STRUCK = {
    "tildes-number": "Refunds are granted within 365 days",
    "tildes-lines": "Opened software may be returned for a full refund.",
    "s": "Store credit is refundable in cash at any time.",
    "del-negation": "Gift cards are not refundable at the counter.",
}
MARKDOWN_SHOWN = {
    "after": "Refunds are granted within 30 days of purchase.",
    "around": "Gift cards are refundable at the counter.",
    "code-span": "~~struck in code~~",
    "fence": "~~Fenced tildes are shown as written.~~",
}


def test_struck_text_is_not_read() -> None:
    text = Source.from_text(PAGE, format="html").text
    assert [kind for kind, quote in STRUCK.items() if quote in text] == []
    assert [kind for kind, quote in SHOWN.items() if quote not in text] == []
    markdown = Source.from_text(MARKDOWN, format="markdown")
    assert [kind for kind, quote in MARKDOWN_STRUCK.items() if quote in " ".join(markdown.text.split())] == []
    assert list(markdown.sections) == ["Refund policy", "Exceptions"]
    underscore = Source.from_text(UNDERSCORE, format="html")
    assert "no-op argument" not in underscore.text
    assert "Interpolation in templates now represents null and undefined as the empty string." in " ".join(
        underscore.text.split()
    )


@pytest.mark.parametrize(
    ("name", "page", "quotes", "outcome"),
    [
        ("refunds.html", PAGE, STRUCK, "failed"),
        ("refunds.html", PAGE, SHOWN, "passed"),
        ("refunds.md", MARKDOWN, MARKDOWN_STRUCK, "failed"),
        ("refunds.md", MARKDOWN, MARKDOWN_SHOWN, "passed"),
    ],
    ids=["html-struck", "html-shown", "markdown-struck", "markdown-shown"],
)
def test_a_quote_of_struck_text_is_fabricated(
    pytester: pytest.Pytester, jev_server: JevServer, name: str, page: str, quotes: dict[str, str], outcome: str
) -> None:
    assert_each_quote_ends(pytester, page, quotes, outcome, name=name)


def test_underscore_s_withdrawn_change_quoted_fails(pytester: pytest.Pytester, jev_server: JevServer) -> None:
    quotes = {"withdrawn": "Underscore iteration functions no longer accept null values as a no-op argument."}
    rows = quotes_of_a_page(pytester, UNDERSCORE, quotes, "failed")
    assert [row["verdict"] for row in rows] == ["fabricated"]
    shown = {"kept": "The sortBy function now runs a stable sort algorithm."}
    assert [row["status"] for row in quotes_of_a_page(pytester, UNDERSCORE, shown, "passed")] == ["found"]
