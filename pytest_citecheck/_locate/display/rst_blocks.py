"""reStructuredText's blocks: which lines are scopes of inline markup (``rst.Inline``), which are literal, and
which are a grid table's (``rst_grid``) or a simple table's (``rst_simple``), read row by row."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from pytest_citecheck._locate.display.edits import Edit
from pytest_citecheck._locate.display.rst_grid import DEEPEST_TABLE, GRID_TOP, grid_cells
from pytest_citecheck._locate.display.rst_simple import SIMPLE_BORDER, SIMPLE_TOP, simple_rows

if TYPE_CHECKING:
    from pytest_citecheck._locate.display.rst import Inline

# An explicit markup block (a directive, comment, target, footnote, substitution) and a directive's name.
_EXPLICIT = re.compile(r"[ \t]*\.\.(?:[ \t]|$)")
_DIRECTIVE = re.compile(r"[ \t]*\.\.[ \t]+([A-Za-z0-9][\w.+-]*(?::[\w.+-]+)*)::")
_FOOTNOTE = re.compile(r"[ \t]*\.\.[ \t]+\[(#[\w.-]*|\*|\d+|[A-Za-z][\w.-]*)\](?=[ \t]|$)")
# Directives whose body is prose (``note``, ``function`` ...) are read; these bodies are code or data.
_LITERAL_DIRECTIVES = frozenset(
    "code-block code sourcecode literalinclude highlight math productionlist doctest testcode testoutput "
    "testsetup testcleanup raw graphviz digraph graph ipython jupyter-execute mermaid plantuml".split()
)
_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1{2,}[ \t]*")
_ITEM = re.compile(r"[ \t]*(?:[-*+\u2022\u2023\u2043]|\(?(?:\d+|#|[A-Za-z]|[ivxlcdmIVXLCDM]+)[.)])[ \t]")
_DOCTEST = re.compile(r"[ \t]*>>>")


class Blocks:
    """The lines of a reStructuredText text, read one by one: each scope of inline markup goes to ``Inline``."""

    def __init__(self, inline: Inline, edits: list[Edit], shown: Callable[..., str], depth: int = 0) -> None:
        self.inline = inline
        self.edits = edits
        self.shown = shown  # a table cell's text as a reader sees it (``rst.rst_shown``)
        self.depth = depth  # how many grid tables' cells this text is in
        self.table: list[tuple[int, str]] | None = None  # the lines of a grid table being read: (start, line)
        self.table_indent = 0
        self.simple: list[tuple[int, str]] | None = None  # the lines of a simple table being read
        self.borders = 0  # the simple table's borders after its top one
        self.replaying = False  # reading again, as before, the lines of what was not a simple table
        self.literal: int | None = None  # in a literal block: the indentation its lines go deeper than
        self.pending: int | None = None  # a literal block may follow, deeper than this indentation
        self.doctest = False
        self.scope: list[int] | None = None  # [start, end, indentation of its last line] of the scope being read

    def line(self, start: int, line: str) -> None:
        if self.simple is not None and self._in_simple(start, line):
            return
        if not line.strip():
            self.close()
            self.doctest = False
            return
        indent = len(line) - len(line.lstrip())
        if self._in_table(start, line, indent) or self._literal(indent) or self._table_starts(start, line, indent):
            return
        if _EXPLICIT.match(line) or _DOCTEST.match(line) or _ADORNMENT.fullmatch(line.strip()):
            self.close()
            self._not_prose(start, line, indent)
            return
        item = _ITEM.match(line)
        if item is not None:
            self.close()
            # A literal block after the item's "::" is indented deeper than the item's text, not its bullet.
            indent = len(line) - len(line[item.end() :].lstrip())
        if self.scope is None:
            self.scope = [start, start + len(line), indent]
        else:  # a literal block after "::" goes deeper than the line that says it (a definition's, not its term's)
            self.scope[1:] = [start + len(line), indent]

    def _literal(self, indent: int) -> bool:
        """Whether a line so indented is in a literal block (or opens one after ``::``) or a doctest block."""
        if self.literal is not None:
            if indent > self.literal:
                return True
            self.literal = None
        pending, self.pending = self.pending, None
        if pending is not None and indent > pending:
            self.literal = pending
            return True
        return self.doctest

    def _table_starts(self, start: int, line: str, indent: int) -> bool:
        """Whether a grid or simple table starts at the line (its top border, where no paragraph goes on)."""
        if self.scope is not None:
            return False
        if GRID_TOP.fullmatch(line):
            self.table, self.table_indent = [(start, line)], indent
            return True
        if not self.replaying and self.depth < DEEPEST_TABLE and SIMPLE_TOP.fullmatch(line):
            self.simple, self.table_indent, self.borders = [(start, line)], indent, 0
            return True
        return False

    def _not_prose(self, start: int, line: str, indent: int) -> None:
        """An explicit markup line, a doctest line or an adornment: what may follow it that is not prose.

        The text after a prose directive (``.. note:: Text``) or a footnote's label (``.. [#] Text``) on
        its line is prose: a scope starts there."""
        if _DOCTEST.match(line):
            self.doctest = True
        elif _EXPLICIT.match(line):
            directive = _DIRECTIVE.match(line) or _FOOTNOTE.match(line)
            if directive is None or directive.group(1).rpartition(":")[2].lower() in _LITERAL_DIRECTIVES:
                self.pending = indent
            elif line[directive.end() :].strip():
                self.scope = [start + directive.end(), start + len(line), indent + 3]

    def _in_table(self, start: int, line: str, indent: int) -> bool:
        """Whether the line is one of the grid table being read (else that table ends here)."""
        if self.table is None:
            return False
        if indent == self.table_indent and line[indent] in "+|":
            self.table.append((start, line))
            return True
        self._table_ends()
        return False

    def _table_ends(self) -> None:
        """A grid table ends: each row is read as its cells, one after the other, each cell's lines joined as
        its paragraph (rows joined by a cell spanning them, as one); a table that is not a grid is read as
        before, as a paragraph."""
        lines, self.table = self.table or [], None
        rows = None
        if self.depth < DEEPEST_TABLE:
            rows = grid_cells([line[self.table_indent :].rstrip() for _, line in lines])
        if rows is None:
            self.scope = [lines[0][0], lines[-1][0] + len(lines[-1][1]), self.table_indent]
            self.close()
            return
        for first, last, cells in rows:
            start, end = lines[first][0], lines[last][0] + len(lines[last][1])
            shown = [self.shown(cell, self.inline.substitutions, self.depth + 1) for cell in cells]
            self.edits.append((start, end, "\n".join(cell for cell in shown if cell)))
        for number in (0, *(last + 1 for _, last, _ in rows)):  # the borders: above each row, and the last
            start, line = lines[number]
            self.edits.append((start, start + len(line), ""))

    def _in_simple(self, start: int, line: str) -> bool:
        """Whether the line is one of the simple table being read (docutils' ``isolate_simple_table``: the table
        ends at its second border after the top one, or at a border a blank line follows)."""
        lines = self.simple or []
        if not line.strip():
            if self._after_border():
                self._simple_ends()
                return False
            lines.append((start, line))
            return True
        if len(line) - len(line.lstrip()) < self.table_indent:
            self._simple_ends(complete=False)
            return False
        lines.append((start, line))
        if SIMPLE_BORDER.fullmatch(line[self.table_indent :]):
            self.borders += 1
            if len(line.strip()) != len(lines[0][1].strip()):
                self._simple_ends(complete=False)
            elif self.borders == 2:
                self._simple_ends()
        return True

    def _after_border(self) -> bool:
        """Whether the simple table's last line is a border after its top one."""
        last = (self.simple or [(0, "")])[-1][1]
        return self.borders > 0 and SIMPLE_BORDER.fullmatch(last[self.table_indent :]) is not None

    def _simple_ends(self, complete: bool = True) -> None:
        """A simple table ends: each row is read as its cells, as a grid table's are; what is not a table docutils
        reads (no bottom border, text between columns, ...) is read again line by line, as before."""
        lines, self.simple = self.simple or [], None
        while lines and not lines[-1][1].strip():
            lines.pop()
        found = simple_rows([line[self.table_indent :] for _, line in lines]) if complete else None
        if found is None:
            self.replaying = True
            for start, line in lines:
                self.line(start, line)
            self.replaying = False
            return
        rows, borders = found
        for first, last, cells in rows:
            start, end = lines[first][0], lines[last][0] + len(lines[last][1])
            shown = [self.shown(cell, self.inline.substitutions, self.depth + 1) for cell in cells]
            self.edits.append((start, end, "\n".join(cell for cell in shown if cell)))
        for number in borders:
            start, line = lines[number]
            self.edits.append((start, start + len(line), ""))

    def close(self) -> None:
        if self.simple is not None:
            self._simple_ends(complete=self._after_border())
        if self.table is not None:
            self._table_ends()
        if self.scope is None:
            return
        start, end, indent = self.scope
        self.scope = None
        self.inline.scan(start, end)
        text = self.inline.text
        last = len(text[start:end].rstrip()) + start
        if text.startswith("::", last - 2) and last - 2 >= start:
            # "Example::" shows "Example:", "Example ::" shows "Example"; a literal block follows.
            kept = len(text[start : last - 2].rstrip()) + start
            self.edits.append((kept if kept == start or kept < last - 2 else last - 1, last, ""))
            self.pending = indent
