"""Comments are not the document's text (hunt-wrong-passes N1, hunt-wrong-passes-5).

A Markdown source kept its HTML comments in the section text, and a reStructuredText source its
``..`` comments: a quote taken from one (``<!-- Refunds are granted for 365 days on request. -->``
under "# Refund policy", an old policy commented out) was ``found``, the section Jev read held it, the
loopback Jev supported the claim and the test passed, though no renderer shows a comment. Debian's
``libcommons-cli-java`` README keeps the Apache licence header and a "generated file" notice in
comments above its first heading (``tests/data/commons-cli-README.md``), and CPython 3.11's library FAQ
keeps a whole obsolete answer ("Use the popen2 module") indented under a ``.. XXX`` comment, which
python.org's page does not show (``tests/data/python-faq-library-excerpt.rst.txt``). Each such quote is
``fabricated`` now, and so is one from Markdown's other comment, a link reference definition that
points nowhere (``[//]: # (text)``, common in READMEs). Text a reader does see is still found: a comment shown as code (in a fenced code
block, a code span, a reStructuredText literal block or code directive), and Node.js's ``<!-- YAML``
metadata, which its docs' build renders ("Added in: v0.1.99").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import assert_each_quote_ends, quotes_of_a_page

from pytest_citecheck import Source
from pytest_citecheck.testing import JevServer

DATA = Path(__file__).parent.parent / "data"

MARKDOWN = """# Refund policy

Refunds are granted for 30 days after delivery.
<!-- Refunds are granted for 365 days on request. -->

Store credit is issued <!-- in cash, within one day, --> at the counter on the day of the return.

<!--
Opened software may be returned for a full refund.
-->

Keep the code `<!-- a comment shown in code -->` as written.

```html
<!-- Fenced comments are shown as code. -->
```

<!-- YAML
added: v0.1.99
-->

[//]: # (Refunds are paid in cash to every customer who asks.)

# Shipping

Parcels ship within two working days of the order.
"""

MARKDOWN_HIDDEN = {
    "line": "Refunds are granted for 365 days on request.",
    "inline": "Store credit is issued in cash, within one day",
    "block": "Opened software may be returned for a full refund.",
    "link-comment": "Refunds are paid in cash to every customer who asks.",
}
MARKDOWN_VISIBLE = {
    "text": "Refunds are granted for 30 days after delivery.",
    "around": "Store credit is issued at the counter on the day of the return.",
    "span": "<!-- a comment shown in code -->",
    "fence": "Fenced comments are shown as code.",
    "yaml": "added: v0.1.99",
}

RST = """Refund policy
=============

Refunds are granted for 30 days after delivery.

.. Refunds are granted for 365 days on request.

..
   Opened software may be returned for a full refund,
   and so may opened music.

.. note:: Gift cards are refundable at the counter.

.. _returns: https://example.com/returns

Write a comment like this::

   .. Literal comments are shown as written.

.. code-block:: rst

   .. Code directive comments are shown too.

Shipping
========

Parcels ship within two working days of the order.
"""

RST_HIDDEN = {
    "line": "Refunds are granted for 365 days on request.",
    "body": "Opened software may be returned for a full refund",
}
RST_VISIBLE = {
    "text": "Refunds are granted for 30 days after delivery.",
    "directive": "Gift cards are refundable at the counter.",
    "literal": "Literal comments are shown as written.",
    "code": "Code directive comments are shown too.",
}


def test_comments_are_cut_from_the_sections_with_offsets_kept() -> None:
    markdown = Source.from_text(MARKDOWN, format="markdown")
    assert [kind for kind, quote in MARKDOWN_HIDDEN.items() if quote in markdown.text] == []
    assert list(markdown.sections) == ["Refund policy", "Shipping"]
    rst = Source.from_text(RST, format="rst")
    assert [kind for kind, quote in RST_HIDDEN.items() if quote in rst.text] == []
    assert "shown too." in rst.sections["Refund policy"] and "ship within" in rst.sections["Shipping"]
    # Offsets into the text as given (Claude's char_location) still find the words after a comment.
    for source, text in ((markdown, MARKDOWN), (rst, RST)):
        at = text.index("Parcels ship")
        placed = source.place(at, at + 12)
        assert placed is not None and source.sections[placed.section][placed.start : placed.end] == "Parcels ship"


def test_a_real_readme_s_commented_licence_header_is_not_its_text() -> None:
    """Debian's libcommons-cli-java 1.5.0 README.md: two comments before the first heading."""
    source = Source.from_file(DATA / "commons-cli-README.md")
    assert "preamble" not in source.sections  # only comments stood before "Apache Commons CLI"
    assert "you may not use this file except" not in source.text
    assert "THIS FILE IS GENERATED" not in source.text
    assert "Apache Commons CLI provides a simple API" in source.sections["Apache Commons CLI"]


@pytest.mark.parametrize(
    ("name", "text", "quotes", "outcome"),
    [
        ("refunds.md", MARKDOWN, MARKDOWN_HIDDEN, "failed"),
        ("refunds.md", MARKDOWN, MARKDOWN_VISIBLE, "passed"),
        ("refunds.rst", RST, RST_HIDDEN, "failed"),
        ("refunds.rst", RST, RST_VISIBLE, "passed"),
    ],
    ids=["markdown-hidden", "markdown-visible", "rst-hidden", "rst-visible"],
)
def test_a_quote_from_a_comment_is_fabricated(
    pytester: pytest.Pytester, jev_server: JevServer, name: str, text: str, quotes: dict[str, str], outcome: str
) -> None:
    assert_each_quote_ends(pytester, text, quotes, outcome, name=name)


def test_the_real_readme_s_comment_quoted_fails(pytester: pytest.Pytester, jev_server: JevServer) -> None:
    text = (DATA / "commons-cli-README.md").read_text()
    quotes = {
        "licence": "you may not use this file except in compliance with the License",
        "generated": "THIS FILE IS GENERATED BY THE COMMONS BUILD PLUGIN",
    }
    rows = quotes_of_a_page(pytester, text, quotes, "failed", name="README.md")
    assert {row["id"]: row["verdict"] for row in rows} == dict.fromkeys(quotes, "fabricated")


def test_the_python_faq_s_commented_out_answer_quoted_fails(pytester: pytest.Pytester, jev_server: JevServer) -> None:
    """Read as ``library.rst``, and as the ``.rst.txt`` file Sphinx ships, which ``auto`` reads as
    reStructuredText now (on main it chose ``markdown`` for this excerpt, the commented question's
    ``---`` underline making one more heading, and kept the comment too)."""
    text = (DATA / "python-faq-library-excerpt.rst.txt").read_text()
    quotes = {
        "commented": "How do I run a subprocess with pipes connected to both input and output? Use the popen2 module.",
        "answer": "Use the popen2 module.  For example",
        "plain": "many interactive programs (e.g. vi) don't work well with pipes substituted for standard input",
    }
    rows = quotes_of_a_page(pytester, text, quotes, "failed", name="library.rst")
    assert {row["id"]: row["verdict"] for row in rows} == dict.fromkeys(quotes, "fabricated")
    rows = quotes_of_a_page(pytester, text, quotes, "failed", name="library.rst.txt")
    assert {row["id"]: row["verdict"] for row in rows} == dict.fromkeys(quotes, "fabricated")
    visible = {"shown": "os.read is a low-level function which takes a file descriptor"}
    rows = quotes_of_a_page(pytester, text, visible, "passed", name="library.rst.txt")
    assert [row["status"] for row in rows] == ["found"]
    assert Source.from_text(text).format == "rst"
