"""reStructuredText's grid tables: the cells of each row, for ``rst`` to read row by row.

A grid table is drawn with ``+---+---+`` borders (``=`` under the header rows) and ``|`` between cells.
Only a clean grid is read: every row bounded by whole borders, every line as long as the top border
(so a cell spanning rows, a ragged edge, tabs or East Asian wide characters leave the table as written).
A cell spanning columns has no ``|`` between them: it is one cell.
"""

from __future__ import annotations

import re

# A grid table's top border, and a border between its rows (``=`` under the header rows).
GRID_TOP = re.compile(r"[ \t]*\+(?:-+\+)+[ \t]*")
_GRID_BORDER = re.compile(r"\+(?:[-=]+\+)+")
# A grid table nested this deep in others' cells is read as a paragraph (no recursion without end).
DEEPEST_TABLE = 8


def grid_rows(lines: list[str]) -> list[tuple[int, int, list[str]]] | None:
    """A grid table's rows: (first line, last line, each cell's text, its lines dedented), or None when the
    lines are not a grid whose every row is bounded by whole borders (a cell spanning rows, a ragged edge)."""
    columns = [at for at, ch in enumerate(lines[0]) if ch == "+"]
    if len(lines) < 3 or not _GRID_BORDER.fullmatch(lines[-1]) or not all(_drawn(line, columns) for line in lines):
        return None
    rows: list[tuple[int, int, list[str]]] = []
    first = 1
    for number in range(1, len(lines)):
        if lines[number][0] == "|":
            continue
        cells = _cells(lines[first:number], columns) if number > first else None
        if cells is None:
            return None  # two borders with no row between them, or a column line drawn on some lines only
        rows.append((first, number - 1, cells))
        first = number + 1
    return rows


def _drawn(line: str, columns: list[int]) -> bool:
    """Whether a line of a grid is as wide as its top border and is a border at its columns, or a row's line."""
    if len(line) != columns[-1] + 1:
        return False
    if _GRID_BORDER.fullmatch(line):
        return [at for at, ch in enumerate(line) if ch == "+"] == columns
    return line[0] == "|" and line[-1] == "|"


def _cells(band: list[str], columns: list[int]) -> list[str] | None:
    """A row's cells (its lines between two borders), or None when a column line is drawn on some lines only."""
    # The cells' edges: the column lines every line of the row draws (a cell spanning columns draws none).
    edges = [at for at in columns if all(row[at] == "|" for row in band)]
    inner = set(columns).difference(edges)
    if any(row[at] == "|" for row in band for at in inner):
        return None
    return [_dedented([row[left + 1 : right] for row in band]) for left, right in zip(edges, edges[1:])]


def _dedented(lines: list[str]) -> str:
    """A cell's lines, their common indentation taken off, trailing spaces and blank lines at its edges too."""
    lines = [line.rstrip() for line in lines]
    indent = min((len(line) - len(line.lstrip()) for line in lines if line), default=0)
    return "\n".join(line[indent:] for line in lines).strip("\n")
