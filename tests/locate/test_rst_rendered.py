"""reStructuredText read as rendered: ``replace`` substitutions and grid tables whose cells wrap (docs/matching.md, *Markup*).

On main a section of reStructuredText was searched as written and with its inline markup taken out, but a
substitution reference stayed ``|tzdata|`` (CPython's whatsnew/3.9.rst: "the |tzdata|_ module was released",
which Sphinx shows as "the tzdata module was released") and a grid table was read line by line across its
cells (CPython's stdtypes.rst: "if *x* is false, then *y*, else" beside "``x or y``", then "*x*" on the next
line), so a quote of what a reader sees was not found: the test failed on a true quote. Now a reference to
a substitution the document defines with ``replace`` shows its text, and a grid table is read row by row,
each cell's lines joined as its paragraph. Both documents are as Debian ships them (tests/data/README.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import assert_each_quote_ends

from pytest_citecheck import Source
from pytest_citecheck._locate.display import Markup, markup_of
from pytest_citecheck._locate.locator import QuoteLocator
from pytest_citecheck.testing import JevServer

DATA = Path(__file__).parent.parent / "data"
ZONEINFO = Source.from_file(DATA / "python-whatsnew-3.9-zoneinfo-excerpt.rst")
BOOLEANS = Source.from_file(DATA / "python-stdtypes-boolean-excerpt.rst")


def found(source: Source, quote: str) -> str | None:
    """The passage as written that ``quote`` is found at, or None."""
    match = QuoteLocator(source).find(quote)
    return None if match is None else source.sections[match.section][match.start : match.end]


def shown(text: str) -> str:
    """``text``, a whole reStructuredText document, as a reader sees it."""
    markup = markup_of(Source.from_text("Title\n=====\n\n" + text, format="rst"))
    assert markup is not None
    displayed = markup.displayed(text)
    return text if displayed is None else displayed[0]


# --- the defect, on the documents it was found on ---------------------------------------------------


ROW_1 = "| ``x or y``  | if *x* is false, then *y*, else | \\(1)  |\n|             | *x*                             |       |"
ROW_3 = "| ``not x``   | if *x* is false, then ``True``, | \\(3)  |\n|             | else ``False``                  |       |"


@pytest.mark.parametrize(
    ("source", "quote", "written"),
    [
        (
            ZONEINFO,
            "the tzdata module was released as a first-party package",
            "the |tzdata|_ module was released as a first-party package",
        ),
        # A row's cells are interleaved line by line as written: the passage is the whole row.
        (BOOLEANS, "if x is false, then y, else x", ROW_1),
        (BOOLEANS, "if x is false, then True, else False", ROW_3),
    ],
    ids=["substitution-and-reference", "wrapped-cell", "wrapped-cell-with-literals"],
)
def test_a_quote_of_the_rendered_text_is_found_where_it_is_written(source: Source, quote: str, written: str) -> None:
    assert found(source, quote) == written


def test_a_row_is_read_cell_by_cell_and_a_quote_across_two_rows_is_not_found() -> None:
    assert found(BOOLEANS, "x or y if x is false, then y, else x (1)") is not None  # one row, as a reader reads it
    assert found(BOOLEANS, "else x x and y") is None  # the end of a row and the start of the next: no sentence
    assert found(BOOLEANS, "if x is false, then y, else y") is None


# --- what is read, and what is left as written ------------------------------------------------------

DEFINITIONS = """
.. |tool| replace:: pytest-citecheck
.. |the tool| replace:: pytest-citecheck
.. |Docs| replace:: the **full**
   documentation
.. |both| replace:: |tool| and |Docs|
.. |date| date::
.. |copy| unicode:: U+000A9
"""


@pytest.mark.parametrize(
    ("text", "displayed"),
    [
        ("Run |tool| on it.", "Run pytest-citecheck on it."),
        ("See |Docs|_ and |docs|__.", "See the full documentation and the full documentation."),
        ("Both: |both|.", "Both: pytest-citecheck and the full documentation."),
        ("Made |date|, |copy| 2026, |nothing|.", "Made |date|, \u00a9 2026, |nothing|."),
        ("A \\|tool| and a | b |tool|x and ``|tool|``.", "A |tool| and a | b |tool|x and |tool|."),
        ("Run |the\n tool| across a line.", "Run pytest-citecheck across a line."),
    ],
    ids=["replace", "reference", "nested", "date-and-undefined", "not-a-reference", "name-across-lines"],
)
def test_what_a_substitution_reference_shows(text: str, displayed: str) -> None:
    assert shown(text + "\n" + DEFINITIONS).removesuffix("\n" + DEFINITIONS) == displayed


# Each displayed text is what docutils 0.23 renders of the same paragraph (publish_doctree(...).astext()).
UNICODE = """
.. |copy| unicode:: 0xA9 .. copyright sign
.. |TM| unicode:: U+2122
   :ltrim:
.. |---| unicode:: U+2014 .. em dash
   :trim:
.. |bullet| unicode:: \\u2022
.. |deci| unicode:: 169
.. |codes| unicode:: 0x41 and &#x42; x43
.. |see| replace:: see |copy| here
.. |huge| unicode:: 0x110000
"""


@pytest.mark.parametrize(
    ("text", "displayed"),
    [
        ("Copyright |copy| 2026 Example |TM| here.", "Copyright \u00a9 2026 Example\u2122 here."),
        ("and |---| dashes\n|---| here", "and\u2014dashes\u2014here"),
        ("a |bullet| b, |deci| and |codes|", "a \u2022 b, \u00a9 and AandBC"),
        ("then |see| now", "then see \u00a9 here now"),
        ("no |huge| character", "no |huge| character"),
    ],
    ids=["codes-and-ltrim", "trim-across-a-line", "escapes-decimal-and-words", "in-a-replace", "not-a-character"],
)
def test_what_a_unicode_substitution_shows(text: str, displayed: str) -> None:
    assert shown(text + "\n" + UNICODE).removesuffix("\n" + UNICODE) == displayed


DASHES = Source.from_file(DATA / "docutils-faq-dashes-excerpt.rst")


def test_the_faq_dashes_it_defines_read_as_docutils_renders_them() -> None:
    """docutils' FAQ defines ``|--|`` and ``|---|`` (``:trim:``) and writes "rendered as "foo |--| bar; foo |---|
    bar"", which its page shows as "rendered as "foo – bar; foo—bar"": on main the quote was not found."""
    assert found(DASHES, 'rendered as "foo \u2013 bar; foo\u2014bar"') == 'rendered as "foo |--| bar; foo |---| bar"'
    assert found(DASHES, 'rendered as "foo \u2013 bar; foo\u2014baz"') is None


def test_the_last_definition_of_a_name_stands_and_an_undefined_document_has_none() -> None:
    assert shown("|a| here\n\n.. |a| replace:: one\n.. |a| replace:: two\n").startswith("two here")
    assert Markup("rst").displayed("Run |tool| on it.") is None


# The definition at the end of the page, in another section than its reference: Jev is sent the referring section as
# written, "is |safety| for your data", so a quote of what it shows ("is not safe") would be judged against a section
# that does not say it. On the first version of the rendering, the quote below was found there.
def _page_defining(safety_in_usage: bool) -> Source:
    definition = ".. |safety| replace:: not safe\n\n"
    return Source.from_text(
        "Guide\n=====\n\nUsage\n-----\n\nRunning the cleaner on a mounted volume is |safety| for your data.\n\n"
        + (definition if safety_in_usage else "")
        + "Notes\n-----\n\nOther text here.\n\n"
        + ("" if safety_in_usage else definition),
        format="rst",
    )


def test_a_substitution_shows_its_text_only_in_the_section_that_defines_it() -> None:
    quote = "Running the cleaner on a mounted volume is not safe for your data"
    assert found(_page_defining(safety_in_usage=True), quote) == (
        "Running the cleaner on a mounted volume is |safety| for your data"
    )
    assert found(_page_defining(safety_in_usage=False), quote) is None
    # The section as written is still quoted as written.
    assert found(_page_defining(safety_in_usage=False), "mounted volume is |safety| for your data") is not None


GRID = """\
+------------+------------------+
| Term       | Meaning          |
+============+==================+
| **refund** | money returned   |
| window     | within 14 days   |
|            | of |tool| use    |
+------------+------------------+
| spans two columns             |
| of the table                  |
+------------+------------------+

.. |tool| replace:: pytest-citecheck
"""


def test_a_grid_table_is_read_row_by_row_each_cell_as_its_paragraph() -> None:
    rows = [line for line in shown(GRID).split(".. |tool|")[0].split("\n") if line]
    assert rows == [
        "Term",
        "Meaning",
        "refund",
        "window",
        "money returned",
        "within 14 days",
        "of pytest-citecheck use",
        "spans two columns",
        "of the table",
    ]


@pytest.mark.parametrize(
    "table",
    [
        # A ragged right edge: not a grid docutils reads.
        "+-----+-----+\n| a   | b |\n+-----+-----+\n",
        # No border under its last row.
        "+-----+-----+\n| a   | b   |\n",
    ],
    ids=["ragged", "unclosed"],
)
def test_a_table_that_is_not_a_plain_grid_is_read_as_written(table: str) -> None:
    assert shown(table) == table


def test_a_cell_spanning_rows_is_read_in_the_first_of_them_as_docutils_reads_it() -> None:
    """docutils' own demo (docs/user/rst/demo.txt): "body row 3", then the cells spanning rows 3 and 4, then
    "body row 4"; the rows a cell spans are one block, whose cells are read top to bottom, left to right."""
    table = (
        "+------------+------------+-----------+\n"
        "| body row 3 | Cells may  | - Table   |\n"
        "+------------+ span rows. | - cells   |\n"
        "| body row 4 |            |           |\n"
        "+------------+------------+-----------+\n"
    )
    assert shown(table).strip("\n").split("\n") == [
        "body row 3",
        "Cells may",
        "span rows.",
        "- Table",
        "- cells",
        "body row 4",
    ]


def test_grid_tables_nested_deep_in_cells_end_in_a_paragraph() -> None:
    table = "x y"
    for _ in range(12):
        width = len(table.split("\n")[0]) + 2
        border = "+" + "-" * width + "+"
        table = "\n".join([border, *(f"| {line.ljust(width - 2)} |" for line in table.split("\n")), border])
    assert "x y" in shown(table + "\n")


IO_CLASSES = Source.from_file(DATA / "python-io-class-hierarchy-excerpt.rst")
IO_ROWS = (DATA / "python-io-class-hierarchy-excerpt.rst").read_text().split("\n")


@pytest.mark.parametrize(
    ("quote", "row"),
    [
        ("fileno, seek, and truncate", 49),
        ("close, closed, __enter__, __exit__, flush, isatty, __iter__, __next__, readable, readline", 49),
        ("Inherited IOBase methods, readinto, and readinto1", 56),
        ("detach, read, readline, and write", 58),
    ],
    ids=["second-line-of-a-middle-cell", "last-cell-over-five-lines", "last-cell", "middle-cell-over-three-lines"],
)
def test_a_simple_tables_wrapped_cell_is_read_as_its_paragraph(quote: str, row: int) -> None:
    """CPython's io.rst: a simple table whose cells wrap onto lines whose first column is blank. On main it was read
    line by line across the cells ("fileno, seek, close, closed"), and none of these quotes was found."""
    passage = found(IO_CLASSES, quote)
    assert passage is not None and passage.startswith(IO_ROWS[row - 1])  # the whole row, from its first line
    assert found(IO_CLASSES, "fileno, seek, and write") is None


def test_a_simple_table_is_read_as_docutils_parses_it() -> None:
    """docutils' own example (``SimpleTableParser``'s docstring): its rows and cells as docutils parses them, a
    span line ending the row above it, text past the border in the last column."""
    table = (
        "=====  =====\n"
        "col 1  col 2\n"
        "=====  =====\n"
        "1      Second column of row 1.\n"
        "2      Second column of row 2.\n"
        "       Second line of paragraph.\n"
        "3      - Second column of row 3.\n"
        "\n"
        "       - Second item in bullet\n"
        "         list (row 3, column 2).\n"
        "4 is a span\n"
        "------------\n"
        "5      runs past the border\n"
        "=====  =====\n"
        "\n"
        "After it.\n"
    )
    assert [line for line in shown(table).split("\n") if line] == [
        "col 1",
        "col 2",
        "1",
        "Second column of row 1.",
        "2",
        "Second column of row 2.",
        "Second line of paragraph.",
        "3",
        "- Second column of row 3.",
        "- Second item in bullet",
        "  list (row 3, column 2).",
        "4 is a span",
        "5",
        "runs past the border",
        "After it.",
    ]


@pytest.mark.parametrize(
    "table",
    [
        "=====  =====\na     b\n  xx  c\n=====  =====\n",  # text between the columns
        "=====  =====\na      b\n",  # no bottom border
        "=====  =====\na      b\n=====  ======\n",  # a bottom border longer than the top one
        "=====  =====\na      b\n----  ------\n=====  =====\n",  # a span line off the columns
    ],
    ids=["text-in-a-margin", "unclosed", "bottom-not-as-long", "span-off-the-columns"],
)
def test_a_simple_table_docutils_refuses_is_read_as_written(table: str) -> None:
    assert shown(table) == table


# --- what the rst layout read wrong, found when Sphinx's sources were read as rst (sources-rst) -------------
# Each text is a few lines of a page python3.11-doc or docutils-doc ships; each quote is the paragraph docutils renders.


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        # functions.rst.txt: a literal block after a list item's "::" ends where the item's text goes on (it was read
        # to the item's end, as if deeper than the bullet only).
        (
            "   * It is the same as regular :func:`zip`::\n\n        >>> list(zip('ab', (1, 2)))\n\n"
            "     Without the ``strict=True`` argument, any bug will be silenced.\n",
            "Without the strict=True argument, any bug will be silenced.",
        ),
        # c-api/arg.rst.txt: a definition's "::" under its term (no blank line between them).
        (
            "``O&`` (object) [*converter*, *anything*]\n   The *converter* function is called as follows::\n\n"
            "      status = converter(object, address);\n\n   If the *converter* returns ``Py_CLEANUP_SUPPORTED``, it "
            "may get called a\n   second time.\n",
            "If the converter returns Py_CLEANUP_SUPPORTED, it may get called a second time.",
        ),
        # docutils' PEP 287: a backslash in an inline literal is text, and the literal ends after it.
        (
            "No markup interpretation (including backslash-escape\n[``\\``] interpretation) is done.\n",
            "No markup interpretation (including backslash-escape [\\] interpretation) is done.",
        ),
        # json.rst.txt: "0--31" as docutils renders it (no smart dashes), beside a literal backslash.
        (
            "Control characters are those with character codes in the 0--31 range, including ``'\\t'`` (tab).\n",
            "Control characters are those with character codes in the 0--31 range, including '\\t' (tab).",
        ),
        # docutils' HISTORY.txt: "--" and a literal's "()" in one quote.
        (
            '- Added "--embed-stylesheet" options;\n  factored out ``HTMLTranslator.get_stylesheet_reference()``.\n',
            'Added "--embed-stylesheet" options; factored out HTMLTranslator.get_stylesheet_reference().',
        ),
    ],
    ids=[
        "literal-after-a-list-item",
        "literal-in-a-definition",
        "backslash-in-a-literal",
        "dashes-unrendered",
        "dashes-and-call",
    ],
)
def test_a_paragraph_docutils_renders_is_found(text: str, quote: str) -> None:
    assert found(Source.from_text("Title\n=====\n\n" + text, format="rst"), quote) is not None


# --- through a test run ---------------------------------------------------------------------------

PAGE = (DATA / "python-whatsnew-3.9-zoneinfo-excerpt.rst").read_text() + "\n" + GRID


@pytest.mark.parametrize(
    ("quotes", "outcome"),
    [
        (
            {
                "substitution": "the tzdata module was released as a first-party package",
                "wrapped-cell": "refund window",
                "cell-with-substitution": "within 14 days of pytest-citecheck use",
            },
            "passed",
        ),
        ({"other-package": "the pytz module was released as a first-party package"}, "failed"),
    ],
    ids=["rendered", "not-said"],
)
def test_a_quote_of_the_rendered_document_passes(
    pytester: pytest.Pytester, jev_server: JevServer, quotes: dict[str, str], outcome: str
) -> None:
    assert_each_quote_ends(pytester, PAGE, quotes, outcome, name="whatsnew.rst", format="rst")
