"""reStructuredText's grid tables: the cells of each row, for ``rst`` to read row by row.

A grid table is drawn with ``+---+---+`` borders (``=`` under the header rows) and ``|`` between cells.
Its cells are found as docutils' ``GridTableParser`` finds them: from each cell's top left corner, right
along its top edge, down its right edge, left along its bottom and up its left edge, so a cell may span
columns and rows. The rows are read as blocks: a block is the run of lines between two whole borders that
no cell crosses (a plain row; rows joined by a cell spanning them), and its cells are read in order, top
to bottom, left to right. A table whose lines are not all as wide as its top border (a ragged edge, tabs,
East Asian wide characters), or whose cells do not tile it, is not a grid: it is left as written.
"""

from __future__ import annotations

import heapq
import re

# A grid table's top border, and a border between its rows (``=`` under the header rows).
GRID_TOP = re.compile(r"[ \t]*\+(?:-+\+)+[ \t]*")
# A grid table nested this deep in others' cells is read as a paragraph (no recursion without end).
DEEPEST_TABLE = 8
# The work a table's cells may take to find, per character of the table: a hostile drawing of corners
# everywhere is left as written rather than scanned for long.
_WORK_PER_CHARACTER = 8

Cell = tuple[int, int, int, int]  # top, left, bottom, right: the lines and columns of its corners


class _Grid:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.budget = _WORK_PER_CHARACTER * len(lines) * len(lines[0])

    def _spend(self, steps: int) -> bool:
        self.budget -= steps
        return self.budget >= 0

    def cell(self, top: int, left: int) -> Cell | None:
        """The cell whose top left corner is at ``(top, left)``: right along its top edge to a corner that a
        right edge goes down from, and so on round it."""
        line = self.lines[top]
        for right in range(left + 1, len(line)):
            if line[right] == "+":
                bottom = self._down(top, left, right)
                if bottom is not None:
                    return top, left, bottom, right
            elif line[right] not in "-=" or not self._spend(1):
                return None
        return None

    def _down(self, top: int, left: int, right: int) -> int | None:
        for bottom in range(top + 1, len(self.lines)):
            ch = self.lines[bottom][right]
            if ch == "+":
                if self._closed(top, left, bottom, right):
                    return bottom
            elif ch != "|" or not self._spend(1):
                return None
        return None

    def _closed(self, top: int, left: int, bottom: int, right: int) -> bool:
        """Whether the bottom edge runs left to a corner under ``left`` and the left edge up to ``top``."""
        if not self._spend(right - left + bottom - top):
            return False
        line = self.lines[bottom]
        if line[left] != "+" or any(ch not in "-=+" for ch in line[left + 1 : right]):
            return False
        return all(self.lines[row][left] in "|+" for row in range(top + 1, bottom))


def grid_cells(lines: list[str]) -> list[tuple[int, int, list[str]]] | None:
    """A grid table's blocks of rows: (first line, last line, each cell's text, its lines dedented, in
    order), or None when the lines are not a grid whose cells tile it."""
    width = len(lines[0])
    if len(lines) < 3 or any(len(line) != width or line[0] not in "+|" or line[-1] not in "+|" for line in lines):
        return None
    grid = _Grid(lines)
    cells = _tiling(grid, len(lines) - 1, width - 1)
    if cells is None:
        return None
    blocks: list[tuple[int, int, list[str]]] = []
    for top, left, bottom, right in sorted(cells):
        text = dedented([line[left + 1 : right] for line in lines[top + 1 : bottom]])
        if blocks and top < blocks[-1][1] + 1:  # a cell that starts inside the block: the block goes on
            first, last, texts = blocks[-1]
            blocks[-1] = (first, max(last, bottom - 1), texts)
            texts.append(text)
        else:
            blocks.append((top + 1, bottom - 1, [text]))
    return blocks


def _tiling(grid: _Grid, bottom: int, right: int) -> list[Cell] | None:
    """The cells of the grid, from its top left corner on (docutils' ``parse_table``), or None when they do
    not tile it to its bottom right corner."""
    done = [-1] * right  # per column: the last line inside its last cell found
    cells: list[Cell] = []
    corners = [(0, 0)]
    seen = {(0, 0)}
    while corners:
        top, left = heapq.heappop(corners)
        if top == bottom or left == right or top <= done[left]:
            continue
        cell = grid.cell(top, left)
        if cell is None:
            if grid.budget < 0:
                return None
            continue
        cells.append(cell)
        for column in range(left, cell[3]):
            done[column] = cell[2] - 1
        for corner in ((top, cell[3]), (cell[2], left)):
            if corner not in seen:
                seen.add(corner)
                heapq.heappush(corners, corner)
    return cells if all(line == bottom - 1 for line in done) else None


def dedented(lines: list[str]) -> str:
    """A cell's lines, their common indentation taken off, trailing spaces and blank lines at its edges too."""
    lines = [line.rstrip() for line in lines]
    indent = min((len(line) - len(line.lstrip()) for line in lines if line), default=0)
    return "\n".join(line[indent:] for line in lines).strip("\n")
