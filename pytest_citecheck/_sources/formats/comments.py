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

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
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


def _line_starts(text: str) -> list[int]:
    return [0] + [found.end() for found in re.finditer("\n", text)]


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


def indented_code(text: str) -> set[int]:
    """Where the lines of indented code blocks start, which show ``<!--`` and ``~~`` as written: a line
    indented four columns or more that starts after a blank line, a heading or a thematic break (not a
    paragraph's next line, nor inside an HTML block), and the indented or blank lines after it.

    Under a list item an indented line may be the item's content (whose comment a renderer hides): it is
    not counted as code, so its comment is cut as before and a quote of it fails closed. A list ends at a
    line at the margin after a blank line."""
    code: set[int] = set()
    in_list, in_code, may_start, blank = False, False, True, True
    fence: str | None = None
    raw: str | None = None  # the end tag of an open <pre>, <script>, <style> or <textarea> block
    html = False
    for start in _line_starts(text):
        end = text.find("\n", start)
        line = text[start : len(text) if end < 0 else end].expandtabs(4)
        if raw is not None:  # a block ended by its marker: any block may follow it
            raw = None if raw in line.lower() else raw
            may_start = raw is None
            continue
        if fence is not None:
            closing = _FENCE.match(line)
            fence = _fence_after(fence, closing.group(1) if closing else None)
            may_start = fence is None
            continue
        if not line.strip():
            may_start, html, blank = True, False, True
            continue
        blank, was_blank = False, blank
        if html:  # a list item or a <pre> here may be one (the tag was a paragraph's text): counted, to stay safe
            in_list = in_list or _LIST_ITEM.match(line) is not None
            tag = _RAW_OPENS.match(line)
            if tag is not None and tag.group(1):
                raw = (
                    None if f"</{tag.group(1).lower()}>" in line[tag.end() :].lower() else f"</{tag.group(1).lower()}>"
                )
            continue
        indent = _indent(line)
        if indent >= 4 and (in_code or (may_start and not in_list)):
            code.add(start)
            in_code = True
            continue
        opened = _FENCE.match(line)
        if opened:
            fence, in_code, may_start = opened.group(1), False, False
            continue
        in_code = False
        if indent < 4:
            if _LIST_ITEM.match(line):
                in_list = True
            elif indent == 0 and was_blank:  # a block at the margin after a blank line ends any list
                in_list = False
            html = _HTML_OPENS.match(line) is not None
            tag = _RAW_OPENS.match(line)
            if tag is not None:
                raw = f"</{tag.group(1).lower()}>" if tag.group(1) else _RAW_ENDS[tag.lastindex or 2]
                html = False  # until its end marker, then a block of its own (no paragraph after it)
                if raw in line[tag.end() :].lower():
                    raw = None
                    may_start = True
                    continue
        may_start = not html and _CODE_MAY_FOLLOW.fullmatch(line) is not None
    return code


def markdown_comments(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` spans of the HTML comments a Markdown renderer hides (``<!-- YAML`` kept)."""
    spans: list[tuple[int, int]] = []
    fence: str | None = None
    code = indented_code(text) if "\n    " in text or "\n\t" in text or text[:1] in " \t" else set()
    position, line_start = 0, True  # line_start: ``position`` opens a line (not the rest of one after a comment)
    while position < len(text):
        line_end = text.find("\n", position)
        line_end = len(text) if line_end < 0 else line_end
        line = text[position:line_end]
        opened = _FENCE.match(line) if line_start else None
        if line_start and position in code and fence is None:
            position = line_end + 1
            continue
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
    code = indented_code(text) if "~~" in text else set()
    for start in [*_line_starts(text), len(text) + 1]:
        line = text[start : text.find("\n", start) if text.find("\n", start) >= 0 else len(text)]
        opened = _FENCE.match(line) if start <= len(text) else None
        if start in code and fence is None:
            line, opened = "", None  # indented code: ends a paragraph, and is none
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


def _fence_after(fence: str | None, opened: str | None) -> str | None:
    """The open code fence after a line that opens (or closes) one with ``opened``, when ``fence`` was open."""
    if fence is None:
        return opened
    if opened is not None and opened[0] == fence[0] and len(opened) >= len(fence):
        return None
    return fence


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
