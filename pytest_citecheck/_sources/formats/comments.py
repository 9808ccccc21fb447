"""Comments in Markdown and reStructuredText sources: text no reader sees, so not the document's text;
and Markdown's struck-out text, which the document itself marks as no longer what it says.

No renderer shows a comment, and commented-out text is often what a document no longer says (an old
policy, a licence header kept out of the page, a note to the maintainers); as with HTML's hidden
elements, a quote taken from one must not be found. The layouts cut the spans found here with an
``OffsetMap`` (offsets into the text as given still land where they point).

- **Markdown**: HTML comments, as CommonMark reads them: a comment opening a line (indented at most
  three spaces) is an HTML block and runs to its ``-->`` whatever lies between (to the end of the
  document when it never closes, as a browser reads it); one inside a paragraph is inline HTML and
  closes before the paragraph ends. Not a comment: ``<!--`` in a fenced or indented code block or a
  code span (code shows it), or escaped (``\\<!--``). Kept: a comment that opens ``<!-- YAML``, Node.js's
  documented convention for metadata its docs' build renders as text ("Added in: v0.1.99"). Also
  cut: Markdown's other comment, a link reference definition that points nowhere (``[//]: # (text)``,
  ``[comment]: <> "text"``), which defines a link no text uses, so renders nothing; it is one only
  where a definition may stand (not inside a paragraph).
- **reStructuredText**: an explicit markup block (``..`` at a line's start) that is not a directive
  (``.. note::``), a hyperlink target (``.. _name:``, ``.. __:``), a footnote or citation
  (``.. [1]``, ``.. [#note]``, ``.. [RFC2119]``) or a substitution definition (``.. |name| ...``):
  its first line and the lines indented under it. ``..`` alone with a blank line after it is an
  empty comment (only itself). Not a comment: such a line in a literal block (after a paragraph
  ending ``::``, or in the body of a code directive), where it is shown as code.
- **Markdown's struck text** (``markdown_struck``): ``~~text~~`` (GitHub's strikethrough, which renders
  as ``<del>``) and inline ``<del>``, ``<s>``, ``<strike>`` elements, within a paragraph, not in code:
  removed from the document, or no longer accurate, as HTML defines them (``html.py`` does not read them
  either).
"""

from __future__ import annotations

import re

from pytest_citecheck._sources.formats.code_blocks import FENCE as _FENCE
from pytest_citecheck._sources.formats.code_blocks import fence_after as _fence_after
from pytest_citecheck._sources.formats.code_blocks import line_starts as _line_starts
from pytest_citecheck._sources.formats.code_blocks import without_indented_code

_BLOCK_COMMENT = re.compile(r"^ {0,3}<!--")
_KEPT = re.compile(r"<!--[ \t]*YAML\b")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)")
_BLANK = re.compile(r"\n[ \t]*\n")
# A link reference definition pointing nowhere ("#", "<>"), with or without a title: the "[//]: # (text)" idiom.
_LINK_COMMENT = re.compile(r" {0,3}\[[^\]\n]+\]:[ \t]*(?:#|<>)(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*")
# A line after which a link reference definition may start a block: nothing, a blank line, an ATX heading, a
# setext underline, a comment's end, or another link reference definition.
_BEFORE_DEFINITION = re.compile(r"[ \t]*|#{1,6}(?:[ \t].*)?|=+[ \t]*|-+[ \t]*|.*-->[ \t]*| {0,3}\[[^\]\n]+\]:.*")


# Struck text: "~~text~~" (two tildes, opening before and closing after a character that is not a space), or an
# inline <del>, <s> or <strike> element.
_STRUCK = re.compile(r"(?<![~\\])~~(?=[^\s~]).+?(?<=[^\s~\\])~~(?!~)|<(del|s|strike)\b[^>]*>.*?</\1\s*>", re.S | re.I)


def markdown_comments(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` spans of the HTML comments a Markdown renderer hides (``<!-- YAML`` kept)."""
    spans: list[tuple[int, int]] = []
    fence: str | None = None
    text = without_indented_code(text)  # blanked, offsets kept: code shows its <!-- as written
    position, line_start = 0, True  # line_start: ``position`` opens a line (not the rest of one after a comment)
    while position < len(text):
        line_end = text.find("\n", position)
        line_end = len(text) if line_end < 0 else line_end
        line = text[position:line_end]
        opened = _FENCE.match(line) if line_start else None
        if fence is not None or opened:
            fence = _fence_after(fence, opened.group(1) if opened else None)
            position, line_start = line_end + 1, True
            continue
        if line_start and _LINK_COMMENT.fullmatch(line) and _BEFORE_DEFINITION.fullmatch(_line_before(text, position)):
            spans.append((position, line_end))
            position = line_end + 1
            continue
        block = line_start and _BLOCK_COMMENT.match(line) is not None
        last = _comments_on(text, position, line, block, spans)
        position, line_start = (last, False) if last > line_end else (line_end + 1, True)
    return spans


def markdown_struck(text: str, comments: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The ``[start, end)`` spans of struck-out text (see the module's docstring), none inside ``comments``."""
    spans: list[tuple[int, int]] = []
    fence: str | None = None
    paragraph: int | None = None  # where the paragraph being read starts
    text = without_indented_code(text)  # code ends a paragraph, and is none
    for start in [*_line_starts(text), len(text) + 1]:
        line = text[start : text.find("\n", start) if text.find("\n", start) >= 0 else len(text)]
        opened = _FENCE.match(line) if start <= len(text) else None
        if paragraph is not None and (start > len(text) or not line.strip() or opened or fence is not None):
            spans += _struck_in(text, paragraph, start - 1, comments)
            paragraph = None
        if fence is not None or opened:
            fence = _fence_after(fence, opened.group(1) if opened else None)
        elif paragraph is None and start <= len(text) and line.strip():
            paragraph = start
    return spans


def _struck_in(text: str, start: int, end: int, comments: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The struck spans of the paragraph ``text[start:end]`` that are not in a code span or a comment."""
    paragraph = text[start:end]
    code = [found.span() for found in _CODE_SPAN.finditer(paragraph)]
    found = []
    for struck in _STRUCK.finditer(paragraph):
        a, b = struck.start() + start, struck.end() + start
        if any(c < struck.end() and struck.start() < d for c, d in code) or any(c < b and a < d for c, d in comments):
            continue
        found.append((a, b))
    return found


def _line_before(text: str, start: int) -> str:
    """The line before the one that opens at ``start`` ("" for the first line)."""
    return "" if start == 0 else text[text.rfind("\n", 0, start - 1) + 1 : start - 1]


def _comments_on(text: str, start: int, line: str, block: bool, spans: list[tuple[int, int]]) -> int:
    """The comments that open on ``line`` (at ``start`` in ``text``; ``block``: an HTML block's first line),
    added to ``spans``; where the last of them ends (``start`` when none does)."""
    code = [found.span() for found in _CODE_SPAN.finditer(line)]
    last = start
    at = line.find("<!--")
    while at >= 0:
        if any(a <= at < b for a, b in code) or (at > 0 and line[at - 1] == "\\"):
            at = line.find("<!--", at + 4)
            continue
        opened = start + at
        close = text.find("-->", opened + 2)
        if not (block and at == line.find("<!--")):  # inline HTML: closes within its paragraph, or is text
            paragraph_end = _BLANK.search(text, opened)
            if close < 0 or (paragraph_end is not None and close > paragraph_end.start()):
                at = line.find("<!--", at + 4)
                continue
        last = len(text) if close < 0 else close + 3
        if not _KEPT.match(text, opened):
            spans.append((opened, last))
        if last - start >= len(line):
            break
        at = line.find("<!--", last - start)
    return last


_EXPLICIT = re.compile(r"^([ \t]*)\.\.(?=[ \t]|$)")
# What an explicit markup block is when it is not a comment (after ".. "): a directive ("note::", "code-block ::"),
# a hyperlink target ("_name:", "__:", "_`a b`:"), a footnote or citation ("[1]", "[#]", "[#a]", "[*]", "[RFC2119]"),
# a substitution definition ("|name| replace::").
_NOT_COMMENT = re.compile(
    r"[ \t]+(?:[A-Za-z0-9](?:[-_.+:]?[A-Za-z0-9])* ?::(?:[ \t]|$)|_|\[[^\]\s]+\](?:[ \t]|$)|\|[^|\s](?:[^|]*[^|\s])?\|)"
)
_DIRECTIVE = re.compile(r"[ \t]*\.\.[ \t]+(?:\|[^|]+\|[ \t]+)?([A-Za-z0-9][\w.+:-]*?) ?::(?:[ \t]|$)")
# Directives whose body is code or data (shown as written, comments included), not prose.
_LITERAL_DIRECTIVES = frozenset(
    "code-block code sourcecode literalinclude highlight parsed-literal math productionlist doctest testcode "
    "testoutput testsetup testcleanup raw graphviz digraph graph ipython jupyter-execute mermaid plantuml".split()
)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def rst_comments(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` spans of reStructuredText comments (see the module's docstring)."""
    lines = text.split("\n")
    starts = _line_starts(text)
    spans: list[tuple[int, int]] = []
    literal: int | None = None  # in a literal block: its lines are deeper than this indentation
    pending: int | None = None  # a literal block may follow, deeper than this indentation
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line.strip():
            continue
        indent = _indent(line)
        if literal is not None and indent > literal:
            continue
        literal = None
        if pending is not None and indent > pending:
            literal, pending = pending, None
            continue
        pending = None
        explicit = _EXPLICIT.match(line)
        if explicit is None:
            if line.rstrip().endswith("::"):
                pending = indent
            continue
        if _NOT_COMMENT.match(line, explicit.end()):
            directive = _DIRECTIVE.match(line)
            if directive is not None and directive.group(1).rpartition(":")[2].lower() in _LITERAL_DIRECTIVES:
                pending = indent
            continue
        last = _comment_end(lines, index - 1, indent)
        spans.append((starts[index - 1] + indent, starts[last] + len(lines[last])))
        index = last + 1
    return spans


def _comment_end(lines: list[str], first: int, indent: int) -> int:
    """The last line of the comment that opens at ``lines[first]``: its body is the lines indented deeper
    after it (blank lines between them included). ``..`` alone before a blank line is an empty comment."""
    last = first
    if not lines[first].strip() == ".." or (first + 1 < len(lines) and lines[first + 1].strip()):
        for index in range(first + 1, len(lines)):
            if not lines[index].strip():
                continue
            if _indent(lines[index]) <= indent:
                break
            last = index
    return last
