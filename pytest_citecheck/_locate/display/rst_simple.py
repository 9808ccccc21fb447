"""reStructuredText's simple tables: the cells of each row, for ``rst`` to read row by row.

A simple table is drawn with borders of ``=`` runs, a space between columns (``=====  =====``), above the
table, under its header rows and below it. Its rows are found as docutils' ``SimpleTableParser`` finds them:
a line whose first column holds text starts a row, and a line whose first column is blank goes on with the
row above it (a cell's text wrapped onto the next line, or a blank line between its paragraphs); a line of
``-`` runs under a row (``------------  ------``) ends it and says which columns its cells span; the last
column's text may run past the border. A cell's text is each of its lines' slice between its column's edges.
A table that docutils would refuse (text between two columns, a border not as long as the top one, a span
line that does not line up with the columns), or holding tabs, East Asian wide or combining characters (which
docutils pads), is left as written.
"""

from __future__ import annotations

import re
import unicodedata

from pytest_citecheck._locate.display.rst_grid import dedented

# A simple table's top border: two or more runs of ``=``, a space between them (docutils' ``simple_table_top``).
SIMPLE_TOP = re.compile(r"[ \t]*=+(?: +=+)+ *")
# A border after the top one (under the header, at the bottom): ``=`` runs and spaces.
SIMPLE_BORDER = re.compile(r"=+[ =]* *")
_SPAN = re.compile(r"-[ -]*")
# The work reading a table's cells may take, per character of the table (columns times lines): a hostile
# border of thousands of columns over short lines is left as written rather than sliced for long.
_WORK_PER_CHARACTER = 8

Row = tuple[int, int, list[str]]  # first line, last line (within the table's lines), each cell's text


class _NotATable(Exception):
    """What docutils reports as a malformed table."""


def simple_rows(lines: list[str]) -> tuple[list[Row], list[int]] | None:
    """A simple table's rows (first line, last line, each cell's text dedented, in order) and its border and
    span lines, from its top border to its bottom one (the lines dedented by the table's indentation); None
    when docutils would not read it as a table (see the module's docstring)."""
    if any(_padded(line) for line in lines):
        return None
    top = lines[0].rstrip().replace("=", "-")
    columns = _columns(top, None)
    if len(columns) * len(lines) > _WORK_PER_CHARACTER * max(1, sum(map(len, lines))):
        return None
    block = [top, *(line.rstrip() for line in lines[1:-1]), lines[-1].rstrip().replace("=", "-")]
    separators = [0, len(block) - 1]
    for index in range(1, len(block) - 1):
        if re.fullmatch(r"=[ =]*", block[index]):
            separators.append(index)
            block[index] = block[index].replace("=", "-")
    try:
        return _rows(block, columns), sorted(set(separators) | _span_lines(block))
    except _NotATable:
        return None


def _padded(line: str) -> bool:
    return "\t" in line or any(
        unicodedata.east_asian_width(ch) in "WF" or unicodedata.combining(ch) for ch in line if ord(ch) > 0x2FF
    )


def _span_lines(block: list[str]) -> set[int]:
    return {index for index, line in enumerate(block) if _SPAN.fullmatch(line)}


def _columns(line: str, border: list[tuple[int, int]] | None) -> list[tuple[int, int]]:
    """The ``(begin, end)`` of each run of ``-`` in a border or span line; a span line must end where the top
    border does, and its last column is as unbounded as the top one's."""
    found: list[tuple[int, int]] = []
    end = 0
    while True:
        begin = line.find("-", end)
        if begin < 0:
            break
        end = line.find(" ", begin)
        end = len(line) if end < 0 else end
        found.append((begin, end))
    if border is not None:
        if not found or found[-1][1] != border[-1][1]:
            raise _NotATable
        found[-1] = (found[-1][0], border[-1][1])
    return found


def _rows(block: list[str], columns: list[tuple[int, int]]) -> list[Row]:
    """docutils' ``parse_table``: a row is complete at a span line, or where the next row starts."""
    rows: list[Row] = []
    first = columns[0]
    start, text_found = 1, False
    for offset in range(1, len(block)):
        line = block[offset]
        if _SPAN.fullmatch(line):
            _row(rows, block, start, offset, columns, _columns(line, columns))
            start, text_found = offset + 1, False
        elif line[first[0] : first[1]].strip():
            if text_found and offset != start:
                _row(rows, block, start, offset, columns, columns)
            start, text_found = offset, True
        elif not text_found:
            start = offset + 1
    return rows


def _row(
    rows: list[Row],
    block: list[str],
    start: int,
    stop: int,
    border: list[tuple[int, int]],
    spans: list[tuple[int, int]],
) -> None:
    """The row of ``block[start:stop]``, its cells as ``spans`` (columns joined) cut them."""
    lines = block[start:stop]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return
    _aligned(spans, border)
    cells = list(spans)
    for index, (begin, end) in enumerate(cells):
        following = cells[index + 1][0] if index + 1 < len(cells) else None
        for line in lines:
            if following is None:
                if line[end:].strip():
                    cells[index] = (begin, max(cells[index][1], len(line)))
            elif line[end:following].strip():
                raise _NotATable  # text in a column's margin
    rows.append((start, start + len(lines) - 1, [dedented([line[b:e] for line in lines]) for b, e in cells]))


def _aligned(spans: list[tuple[int, int]], border: list[tuple[int, int]]) -> None:
    """docutils' ``init_row``: each cell starts at a column's start and ends at a column's end."""
    starts = {begin for begin, _ in border}
    ends = {end for _, end in border}
    if any(begin not in starts or end not in ends for begin, end in spans):
        raise _NotATable
