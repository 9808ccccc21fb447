"""Markdown's code blocks as CommonMark reads them, for the rules that must not apply inside code (a comment,
struck text): fenced code (``FENCE``, ``fence_after``) and indented code blocks (``indented_code``).

An indented code block is a line indented four columns or more that starts after a blank line, a heading, a
thematic break or a closed HTML block (not a paragraph's next line, nor inside an HTML block), and the indented
or blank lines after it. Under a list item an indented line may be the item's content (whose comment a
renderer hides): it is not counted as code, so a comment there is cut and a quote of it fails closed. Checked
against markdown-it-py on random documents: no line it reads as a comment's is read as code here.
"""

from __future__ import annotations

import re

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# A list item's marker ("- ", "* ", "+ ", "1. ", "2) "): indented lines after it may be its content, not code.
_LIST_ITEM = re.compile(r" {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
# After such a line an indented code block may start without a blank line: an ATX heading or a thematic break.
_CODE_MAY_FOLLOW = re.compile(r" {0,3}(?:#{1,6}(?:[ \t].*)?|(?:[-*_][ \t]*){3,})")
# An HTML block (or a paragraph) that opens with a tag: no code starts in it before a blank line. Those that
# CommonMark ends at a marker instead (blank lines included), with the marker: ``<pre>``, ``<script>``,
# ``<style>``, ``<textarea>`` (their end tag), a comment (``-->``), ``<?`` (``?>``), ``<![CDATA[`` (``]]>``), ``<!X`` (``>``).
_HTML_OPENS = re.compile(r" {0,3}<[A-Za-z/!?]")
_RAW_OPENS = re.compile(
    r" {0,3}(?:<(pre|script|style|textarea)(?:[\s>]|$)|(<!--)|(<\?)|(<!\[CDATA\[)|(<![A-Za-z]))", re.I
)
_RAW_ENDS = {2: "-->", 3: "?>", 4: "]]>", 5: ">"}


def line_starts(text: str) -> list[int]:
    return [0] + [found.end() for found in re.finditer("\n", text)]


def fence_after(fence: str | None, opened: str | None) -> str | None:
    """The open code fence after a line that opens (or closes) one with ``opened``, when ``fence`` was open."""
    if fence is None:
        return opened
    if opened is not None and opened[0] == fence[0] and len(opened) >= len(fence):
        return None
    return fence


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


class _Blocks:
    """The block structure read line by line, as far as telling indented code apart needs it."""

    def __init__(self) -> None:
        self.in_list = self.in_code = self.html = False
        self.may_start = self.blank = True  # a code block may start here; the line before was blank
        self.fence: str | None = None
        self.raw: str | None = None  # what ends the open <pre>, <script>, ..., comment block

    def is_code(self, line: str) -> bool:
        """Whether ``line`` (tabs expanded) is a line of an indented code block; the state moved past it."""
        if self.raw is not None:  # a block ended by its marker: any block may follow it
            self.raw = None if self.raw in line.lower() else self.raw
            self.may_start = self.raw is None
            return False
        if self.fence is not None:
            closing = FENCE.match(line)
            self.fence = fence_after(self.fence, closing.group(1) if closing else None)
            self.may_start = self.fence is None
            return False
        if not line.strip():
            self.may_start, self.html, self.blank = True, False, True
            return False
        was_blank, self.blank = self.blank, False
        if self.html:
            self._in_html(line)
            return False
        if _indent(line) >= 4 and (self.in_code or (self.may_start and not self.in_list)):
            self.in_code = True
            return True
        self.in_code = False
        opened = FENCE.match(line)
        if opened:
            self.fence, self.may_start = opened.group(1), False
        elif _indent(line) >= 4 or not self._at_margin(line, was_blank):
            self.may_start = not self.html and _CODE_MAY_FOLLOW.fullmatch(line) is not None
        return False

    def _in_html(self, line: str) -> None:
        """A line of an HTML block: a list item or a <pre> here may be one (the tag was a paragraph's text):
        counted, to stay on the safe side."""
        self.in_list = self.in_list or _LIST_ITEM.match(line) is not None
        tag = _RAW_OPENS.match(line)
        if tag is not None and tag.group(1):
            end = f"</{tag.group(1).lower()}>"
            self.raw = None if end in line[tag.end() :].lower() else end

    def _at_margin(self, line: str, was_blank: bool) -> bool:
        """A line indented less than four columns: lists, HTML blocks. True when a raw block opened and closed
        on it (a block of its own: code may follow)."""
        if _LIST_ITEM.match(line):
            self.in_list = True
        elif _indent(line) == 0 and was_blank:  # a block at the margin after a blank line ends any list
            self.in_list = False
        self.html = _HTML_OPENS.match(line) is not None
        tag = _RAW_OPENS.match(line)
        if tag is None:
            return False
        self.raw = f"</{tag.group(1).lower()}>" if tag.group(1) else _RAW_ENDS[tag.lastindex or 2]
        self.html = False  # until its end marker, then a block of its own (no paragraph after it)
        if self.raw in line[tag.end() :].lower():
            self.raw, self.may_start = None, True
            return True
        return False


def indented_code(text: str) -> set[int]:
    """Where the lines of indented code blocks start (see the module's docstring)."""
    blocks = _Blocks()
    code: set[int] = set()
    for start in line_starts(text):
        end = text.find("\n", start)
        if blocks.is_code(text[start : len(text) if end < 0 else end].expandtabs(4)):
            code.add(start)
    return code


def without_indented_code(text: str) -> str:
    """``text`` with each line of an indented code block blanked (spaces, offsets kept): what a rule that must
    not apply inside code reads. Text with no indented line is returned as it is."""
    if not ("\n    " in text or "\n\t" in text or text[:1] in " \t"):
        return text
    code = indented_code(text)
    if not code:
        return text
    pieces, last = [], 0
    for start in sorted(code):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        pieces += [text[last:start], " " * (end - start)]
        last = end
    return "".join([*pieces, text[last:]])
