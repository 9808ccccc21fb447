"""A reStructuredText document that ``auto`` reads as Markdown loses its ``..`` comments too (sources-leftovers-3).

Sphinx ships each page's source as ``_sources/<page>.rst.txt``; ``auto`` (the ``.txt`` extension names no
format) reads 321 of Debian's 629 such files as Markdown, whose setext titles look like reStructuredText's
underlined ones, and Markdown has no ``..`` comments: 25 of them kept comments as text. CPython 3.11's
``getpass.rst.txt`` (python3.11-doc 3.11.2) keeps ``.. Windows (& Mac?) support by Guido van Rossum.``,
which python.org's page does not show; ``reference/datamodel.rst.txt`` keeps ``.. XXX it *is* now possible
in some cases to change an object's type``, next to the text saying a type is unchangeable. A quote of one
was ``found``. ``auto`` still splits such a document as Markdown (its section ids stay), but when the text
holds reStructuredText's directives or targets (``.. module::``, ``.. _label:``), which no Markdown document
writes, its ``..`` comments are cut as the ``rst`` layout cuts them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import quotes_of_a_page

from pytest_citecheck import Source
from pytest_citecheck.testing import JevServer

DATA = Path(__file__).parent.parent / "data"
GETPASS = DATA / "python-getpass.rst.txt"


def test_auto_reads_it_as_markdown_without_its_comments() -> None:
    source = Source.from_file(GETPASS)
    assert source.format == "markdown"
    assert list(source.sections) == [":mod:getpass --- Portable password input"]
    assert "support by Guido van Rossum" not in source.text
    assert ".. moduleauthor:: Piers Lauder" in source.text  # a directive is not a comment
    at = GETPASS.read_text().index("The :mod:`getpass` module provides")
    placed = source.place(at, at + 3)
    assert placed is not None and source.sections[placed.section][placed.start : placed.end] == "The"


def test_markdown_keeps_a_line_that_starts_with_two_dots() -> None:
    text = "# Notes\n\n.. and so on, as before.\n\nMore text.\n"
    assert ".. and so on, as before." in Source.from_text(text, format="auto").text


@pytest.mark.parametrize(
    ("quotes", "expected"),
    [
        ({"comment": "Windows (& Mac?) support by Guido van Rossum."}, ("missing", "fabricated")),
        ({"text": "Prompt the user for a password without echoing."}, ("found", "verified")),
    ],
    ids=["comment", "text"],
)
def test_the_commented_note_quoted_fails(
    pytester: pytest.Pytester, jev_server: JevServer, quotes: dict[str, str], expected: tuple[str, str]
) -> None:
    outcome = "failed" if expected[1] == "fabricated" else "passed"
    rows = quotes_of_a_page(pytester, GETPASS.read_text(), quotes, outcome, name="getpass.rst.txt")
    assert [(row["status"], row["verdict"]) for row in rows] == [expected]
