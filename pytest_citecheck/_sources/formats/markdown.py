"""Markdown: sections start at ATX (``## Title``) and setext headings, never inside code fences,
YAML front matter or HTML comments (the front matter is in the preamble). HTML comments are not the
document's text (``comments.py``): they are cut, with offsets kept; a ``<!-- YAML`` comment stays."""

from __future__ import annotations

import re

from pytest_citecheck._errors import NoSectionsError
from pytest_citecheck._sources.formats.comments import markdown_comments, markdown_struck, rst_comments
from pytest_citecheck._sources.formats.headings import heading_ids, plain_title, sections_from_starts
from pytest_citecheck._sources.offsets import OffsetMap, cut, merged_spans

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


# A reStructuredText directive or hyperlink target at a line's start (".. note::", ".. _label:"): no Markdown
# document writes one outside code, and a reStructuredText document whose titles Markdown reads as well has them.
RST_MARKUP = re.compile(r"^\.\. (?:[A-Za-z][\w.+:-]*::(?:[ \t]|$)|_[^\s:][^:\n]*:(?:[ \t]|$))", re.M)


def split_markdown(text: str, *, rst_markup: bool = False) -> tuple[str, dict[str, str], OffsetMap | None]:
    """Markdown: ATX (``## Title``) and setext (``Title`` over ``===`` or ``---``) headings; none inside code
    fences. The text split is the document without its HTML comments and its struck-out text (``comments``).

    ``rst_markup``: ``auto`` chose this layout for a reStructuredText document (``RST_MARKUP``; its underlined
    titles read alike in both): its ``..`` comments are cut too, as the ``rst`` layout cuts them."""
    comments = markdown_comments(text)
    hidden = sorted([*comments, *markdown_struck(text, comments)])
    if rst_markup:
        hidden = merged_spans([*hidden, *rst_comments(text)])
    offsets: OffsetMap | None = None
    if hidden:
        text, offsets = cut(text, hidden)
    lines = text.split("\n")
    line_offsets = [0]
    for line in lines:
        line_offsets.append(line_offsets[-1] + len(line) + 1)
    headings: list[tuple[int, str]] = []
    starts: list[int] = []
    for index, level, title in _headings(lines):
        if starts and index <= starts[-1]:  # a setext underline under a line that is already a heading
            continue
        headings.append((level, title))
        starts.append(index)
    if not headings:
        raise NoSectionsError(
            "no Markdown headings ('# Title', or a title underlined with === or ---) were found", field="source"
        )
    sections = sections_from_starts(text, [line_offsets[index] for index in starts], heading_ids(headings))
    return text, sections, offsets


def _hidden_lines(lines: list[str]) -> set[int]:
    """Lines that hold no heading: YAML front matter (``---`` first, to ``---`` or ``...``) and HTML comments
    (those left in the text: ``<!-- YAML``)."""
    hidden: set[int] = set()
    if lines and lines[0].rstrip() == "---":
        end = next((index for index in range(1, len(lines)) if lines[index].rstrip() in ("---", "...")), None)
        if end is not None:
            hidden.update(range(end + 1))
    in_comment = False
    for index, line in enumerate(lines):
        if in_comment or "<!--" in line:
            hidden.add(index)
        if "<!--" in line:
            in_comment = "-->" not in line[line.rindex("<!--") :]
        elif in_comment and "-->" in line:
            in_comment = False
    return hidden


def _headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """``(line index, level, title)`` of every heading outside code fences, front matter and HTML comments."""
    found: list[tuple[int, int, str]] = []
    fence: str | None = None
    hidden = _hidden_lines(lines)
    for index, line in enumerate(lines):
        if index in hidden or (index + 1 in hidden and _SETEXT.match(lines[index + 1])):
            continue
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        heading = _atx(lines, index) or _setext(lines, index)
        if heading is not None:
            found.append(heading)
    return found


def _atx(lines: list[str], index: int) -> tuple[int, int, str] | None:
    atx = _ATX.match(lines[index])
    if not atx:
        return None
    title = plain_title(atx.group(2) or "")
    # A heading with no title (a lone "#": an empty line of a shell or readline comment block) names
    # no section: it stays in the section around it rather than making a section without an id.
    return (index, len(atx.group(1)), title) if title else None


def _setext(lines: list[str], index: int) -> tuple[int, int, str] | None:
    """The heading ``lines[index]`` underlines, as ``(title line index, level, title)``."""
    underline = _SETEXT.match(lines[index])
    if not underline or index == 0 or not lines[index - 1].strip():
        return None
    title_line = lines[index - 1]
    if _ATX.match(title_line) or _SETEXT.match(title_line) or title_line.startswith(("    ", "\t")):
        return None
    if not _starts_block(lines, index - 1):
        return None
    title = plain_title(title_line)
    return (index - 1, 1 if underline.group(1)[0] == "=" else 2, title) if title else None


def _starts_block(lines: list[str], index: int) -> bool:
    """Whether ``lines[index]`` can be a setext heading's one line: nothing, a blank line or a line that
    ends a block (a heading, an underline or rule, a code fence, front matter, an HTML comment) is above it.

    Under a line of running text, CommonMark makes the whole paragraph the heading, which one title
    line cannot say; and text that is not Markdown (a PDF's formulas: "(v - u) ... mod P =" over a
    lone "=") is paragraphs of such lines. Taking their last line as a heading made a section per
    formula ("mod P (x) =", ")").
    """
    if index == 0:
        return True
    above = lines[index - 1]
    return (
        not above.strip()
        or bool(_ATX.match(above) or _SETEXT.match(above) or _FENCE.match(above))
        or (above.rstrip().endswith("-->") or above.rstrip() in ("---", "..."))
    )
