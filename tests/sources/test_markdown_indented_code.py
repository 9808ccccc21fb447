"""An indented code block shows ``<!--`` and ``~~`` as written (sources-leftovers-3).

The Markdown comment rule (hunt-wrong-passes-5) cut ``<!-- … -->`` wherever it stood but in fenced code
and code spans: a README that shows how to write a comment in an indented code block (four spaces, the
original Markdown's only code block) lost the example, and a quote of it was ``fabricated`` though every
renderer draws it; ``~~text~~`` in such a block was cut as struck text likewise. An indented code block
(a line indented four columns after a blank line, a heading or a thematic break, and not under a list
item) is code now, as CommonMark reads it. Under a list item an indented line may be the item's content,
whose comment a renderer hides: it is still cut (a quote of such code fails, never passes).

Checked against markdown-it-py (CommonMark): on 200,000 random documents mixing lists, code, HTML blocks,
headings and comments, no comment it hides is kept here (/tmp/sl3/fuzz_diff.py in the branch's notes).
"""

from __future__ import annotations

import pytest
from support import quotes_of_a_page

from pytest_citecheck import Source
from pytest_citecheck._sources.formats.code_blocks import indented_code
from pytest_citecheck.testing import JevServer

DOC = """# Writing notes

To keep a note from readers, wrap it in a comment:

    <!-- Refunds are never granted after 30 days. -->

To strike a word, put two tildes around it:

    Returns are ~~free~~ charged at cost.

- Notes under a list item are its content:

    <!-- Store credit expires after one year. -->

Text right under a line of a paragraph
    <!-- Gift cards are refundable in cash. -->
is one paragraph, its comment inline HTML.

# Shipping

Parcels ship within two working days.
"""

SHOWN = {
    "comment-in-code": "<!-- Refunds are never granted after 30 days. -->",
    "struck-in-code": "Returns are ~~free~~ charged at cost.",
}
HIDDEN = {
    "list-content": "Store credit expires after one year.",
    "paragraph": "Gift cards are refundable in cash.",
}


def test_an_indented_code_block_keeps_its_comment_and_tildes() -> None:
    source = Source.from_text(DOC, format="markdown")
    section = source.sections["Writing notes"]
    assert "    <!-- Refunds are never granted after 30 days. -->" in section
    assert "Returns are ~~free~~ charged at cost." in section
    assert [kind for kind, quote in HIDDEN.items() if quote in source.text] == []


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("# Title\n    <!-- a -->\n", ["    <!-- a -->"]),  # right after a heading: code
        ("Para\n    <!-- a -->\n", []),  # a paragraph's next line
        ("<div>\n\n    <!-- a -->\n", ["    <!-- a -->"]),  # the HTML block ended at the blank line
        ("<div>\n    <!-- a -->\n", []),  # inside the HTML block
        ("<pre>\n\n    <!-- a -->\n</pre>\n", []),  # <pre> runs to its end tag, blank lines included
        ("1. item\n\n    <!-- a -->\n", []),  # may be the item's content
        ("1. item\n\nback at the margin\n\n    <!-- a -->\n", ["    <!-- a -->"]),
        ("```\n\n    <!-- a -->\n```\n", []),  # fenced: the fence's rule
        ("\tcode\n\n\t<!-- a -->\n", ["\tcode", "\t<!-- a -->"]),  # a tab is four columns; blank lines inside
    ],
)
def test_which_lines_are_indented_code(text: str, code: list[str]) -> None:
    lines = {start: text[start : text.index("\n", start)] for start in indented_code(text)}
    assert [lines[start] for start in sorted(lines)] == code


@pytest.mark.parametrize(("quotes", "outcome"), [(SHOWN, "passed"), (HIDDEN, "failed")], ids=["code", "comments"])
def test_a_quote_of_indented_code_is_found(
    pytester: pytest.Pytester, jev_server: JevServer, quotes: dict[str, str], outcome: str
) -> None:
    rows = quotes_of_a_page(pytester, DOC, quotes, outcome, name="notes.md")
    expected = ("found", "verified") if outcome == "passed" else ("missing", "fabricated")
    assert {row["id"]: (row["status"], row["verdict"]) for row in rows} == dict.fromkeys(quotes, expected)
