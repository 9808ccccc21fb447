"""reStructuredText that ``auto`` read as Markdown (or as numbered text) is read as reStructuredText.

Sphinx ships each page's source as ``_sources/<page>.rst.txt``. ``auto`` read 347 of the 814 reStructuredText files
Debian ships under /usr/share/doc (python3.11-doc, sphinx-doc, python-cryptography-doc, docutils-doc, ...) as Markdown,
whose setext titles look like reStructuredText's underlined ones, and 9 as numbered text (a list's ``1.`` lines for
sections): their roles, substitutions and tables were not read as rendered, and their sections were not the page's.
CPython 3.11's ``getpass.rst.txt`` (python3.11-doc 3.11.2) says "The :mod:`getpass` module provides two functions:",
which the page shows as "The getpass module provides two functions:"; read as Markdown, that quote was not found.

Now a file named ``.rst.txt`` is ``rst`` by its name, as ``.rst`` is, and ``auto`` reads text that holds
reStructuredText's own markup outside Markdown's code (a directive or target at a line's start, ``.. module::``,
``.. _label:``; a role, ``:func:`partial```) as ``rst`` where ``markdown`` or ``numbered`` scored as well. Before
(sources-leftovers-3) such a document kept Markdown's sections and lost only its ``..`` comments; that reading is
left for reStructuredText whose titles the ``rst`` layout cannot read (an underline shorter than its title).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from support import quotes_of_a_page

from pytest_citecheck import Source, SourceWarning
from pytest_citecheck._locate.locator import QuoteLocator
from pytest_citecheck.testing import JevServer

DATA = Path(__file__).parent.parent / "data"
GETPASS = DATA / "python-getpass.rst.txt"
TITLE = ":mod:`getpass` --- Portable password input"


def test_a_sphinx_source_is_read_as_rst_by_its_name() -> None:
    source = Source.from_file(GETPASS)
    assert source.format == "rst"
    assert list(source.sections) == [TITLE]
    assert "support by Guido van Rossum" not in source.text
    assert ".. moduleauthor:: Piers Lauder" in source.text  # a directive is not a comment
    at = GETPASS.read_text().index("The :mod:`getpass` module provides")
    placed = source.place(at, at + 3)
    assert placed is not None and source.sections[placed.section][placed.start : placed.end] == "The"


@pytest.mark.parametrize(
    ("document", "sections"),
    [
        (GETPASS, [TITLE]),
        # Read as numbered text before: sections "preamble", "0", "1", "2", "3" (a list's lines).
        (
            DATA / "python-functools.rst",
            [
                ":mod:`functools` --- Higher-order functions and operations on callable objects",
                ":mod:`functools` --- Higher-order functions and operations on callable objects > :class:`partial` Objects",
            ],
        ),
    ],
    ids=["was-markdown", "was-numbered"],
)
def test_auto_reads_text_with_rst_markup_as_rst(document: Path, sections: list[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SourceWarning)  # functools: one section holds 96% of the page, as written
        source = Source.from_text(document.read_text())
    assert (source.format, list(source.sections)) == ("rst", sections)


def test_a_quote_of_what_the_page_shows_is_found() -> None:
    quote = "The getpass module provides two functions:"
    for source in (Source.from_file(GETPASS), Source.from_text(GETPASS.read_text())):
        assert QuoteLocator(source).find(quote) is not None


@pytest.mark.parametrize(
    "text",
    [
        # MyST (pip's requirements-file-format.md): a directive inside a fence of backquotes.
        "# Requirements\n\nOptions:\n\n```{eval-rst}\n.. pip-requirements-file-options-ref-list::\n```\n\nMore.\n",
        # A role written as Markdown code.
        "Notes\n=====\n\nWrite ``:func:`partial` `` for a function.\n\nUsage\n-----\n\nText.\n",
        "# Notes\n\n.. and so on, as before.\n\nMore text.\n",
    ],
    ids=["directive-in-a-fence", "role-in-code", "two-dots"],
)
def test_markdown_stays_markdown(text: str) -> None:
    assert Source.from_text(text).format == "markdown"


def test_markdown_keeps_a_line_that_starts_with_two_dots() -> None:
    text = "# Notes\n\n.. and so on, as before.\n\nMore text.\n"
    assert ".. and so on, as before." in Source.from_text(text, format="auto").text


def test_rst_whose_titles_only_markdown_reads_loses_its_comments() -> None:
    """An underline shorter than its title: no title to the ``rst`` layout, a heading to Markdown's."""
    source = Source.from_text("Title\n===\n\n.. module:: x\n\n.. an old note\n\nText here.\n")
    assert source.format == "markdown"
    assert "an old note" not in source.text and ".. module:: x" in source.text


@pytest.mark.parametrize(
    ("quotes", "expected"),
    [
        ({"comment": "Windows (& Mac?) support by Guido van Rossum."}, ("missing", "fabricated")),
        ({"text": "Prompt the user for a password without echoing."}, ("found", "verified")),
        ({"shown": "The getpass module provides two functions:"}, ("found", "verified")),
    ],
    ids=["comment", "text", "as-shown"],
)
def test_the_commented_note_quoted_fails(
    pytester: pytest.Pytester, jev_server: JevServer, quotes: dict[str, str], expected: tuple[str, str]
) -> None:
    outcome = "failed" if expected[1] == "fabricated" else "passed"
    rows = quotes_of_a_page(pytester, GETPASS.read_text(), quotes, outcome, name="getpass.rst.txt")
    assert [(row["status"], row["verdict"]) for row in rows] == [expected]
