"""reStructuredText, and what Sphinx's text builder writes: titles underlined, or over- and underlined.

An adornment is a line of one punctuation character repeated (any of ``= - ~ ^ * # " ' + : . ;``
and a few more), at least as long as the title and three characters. Levels come from the order in
which adornment styles first appear (a style is the character, and whether it also overlines), as
reStructuredText defines them. A title's id is its number ("4.1.3. Title" is ``4.1.3``) when it has
one, else its path of titles. Comments (``.. `` and text that is no directive, target, footnote,
citation or substitution definition) are not the document's text: they are cut (``comments.py``),
with offsets kept. ``written_in_rst`` says whether a text holds markup only reStructuredText writes (``auto``
then reads it as ``rst`` where Markdown's or numbered text's split scores as well).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from pytest_citecheck._errors import NoSectionsError
from pytest_citecheck._sources.formats.comments import rst_comments
from pytest_citecheck._sources.formats.outline import Heading, split_outline, title_number
from pytest_citecheck._sources.offsets import OffsetMap, cut

_ADORNMENT = re.compile(r"^([=\-~^*#\"'+:.;`_])\1{2,}[ \t]*$")
# reStructuredText's own markup, which no Markdown document writes outside code: an explicit markup line that is
# a directive or a hyperlink target at a line's start (".. note::", ".. _label:"), or interpreted text with a role
# (":func:`partial`", not after a backquote: "``:func:`x```" is Markdown's code). A role's name is bounded (a long
# "a:a:a:..." is not matched from every colon).
_WRITTEN_IN_RST = re.compile(
    r"^\.\. (?:[A-Za-z][\w.+:-]*::(?:[ \t]|$)|_[^\s:][^:\n]*:(?:[ \t]|$))"
    r"|(?<![\w`:]):[A-Za-z][\w.+-]{0,63}(?::[\w.+-]{1,64}){0,8}:`[^`\n]+`(?!`)",
    re.MULTILINE,
)
# A Markdown code fence of backquotes (MyST writes ``.. name::`` inside ```{eval-rst}); a fence of tildes is not
# counted: reStructuredText underlines titles with "~~~".
_BACKQUOTE_FENCE = re.compile(r"^ {0,3}```", re.MULTILINE)


def _adornment(line: str) -> str | None:
    found = _ADORNMENT.match(line)
    return found.group(1) if found else None


def _title_fits(title: str, adornment: str) -> bool:
    stripped = title.strip()
    return bool(stripped) and _adornment(title) is None and len(adornment.rstrip()) >= len(stripped)


def rst_headings(text: str) -> list[Heading]:
    """Every over- and underlined or underlined title, with its level by order of first appearance."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    styles: dict[tuple[str, bool], int] = {}
    headings: list[Heading] = []
    index = 0
    while index + 1 < len(lines):
        found = _at(lines, index)
        if found is None:
            index += 1
            continue
        style, title_index, height = found
        level = styles.setdefault(style, len(styles) + 1)
        title = " ".join(lines[title_index].split())
        end = min(offsets[index + height], len(text))
        headings.append(Heading(offsets[index], end, level, title, title_number(title)))
        index += height
    return headings


def _at(lines: list[str], index: int) -> tuple[tuple[str, bool], int, int] | None:
    """``(style, title line, lines used)`` of a title that starts at ``lines[index]``, else None."""
    line = lines[index]
    char = _adornment(line)
    if char is not None:  # an overline: title, then the same adornment under it
        if index + 2 < len(lines) and _adornment(lines[index + 2]) == char and _title_fits(lines[index + 1], line):
            return (char, True), index + 1, 3
        return None
    if not line.strip() or line[0].isspace() or (index > 0 and lines[index - 1].strip()):
        return None
    under = _adornment(lines[index + 1])
    if under is not None and _title_fits(line, lines[index + 1]):
        return (under, False), index, 2
    return None


def written_in_rst(text: str) -> bool:
    """Whether ``text`` holds reStructuredText's own markup (``_WRITTEN_IN_RST``) outside Markdown's code fences of
    backquotes: a document ``auto`` then reads as ``rst`` even where ``markdown`` or ``numbered`` scores as well."""
    fences = [found.start() for found in _BACKQUOTE_FENCE.finditer(text)] if "```" in text else []
    for found in _WRITTEN_IN_RST.finditer(text):
        if bisect_right(fences, found.start()) % 2 == 0:
            return True
    return False


def split_rst(text: str) -> tuple[str, dict[str, str], OffsetMap | None]:
    """reStructuredText or a Sphinx text build: sections start at adorned titles; comments are cut."""
    comments = rst_comments(text)
    offsets: OffsetMap | None = None
    if comments:
        text, offsets = cut(text, comments)
    headings = rst_headings(text)
    if not headings:
        raise NoSectionsError(
            "no reStructuredText titles (a line underlined, or over- and underlined, with = - ~ ^ * # and the "
            "like, at least as long as the title) were found",
            field="source",
        )
    return text, split_outline(text, headings), offsets
