"""Markdown: sections start at ATX (``## Title``) and setext headings, never inside code fences."""

from __future__ import annotations

import re

from pytest_citecheck._errors import SourceError
from pytest_citecheck._sources.formats.headings import heading_ids, plain_title, sections_from_starts

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def split_markdown(text: str) -> tuple[str, dict[str, str]]:
    """Markdown: ATX (``## Title``) and setext (``Title`` over ``===`` or ``---``) headings; none inside code fences."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    fence: str | None = None
    headings: list[tuple[int, str]] = []
    starts: list[int] = []
    for index, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        atx = _ATX.match(line)
        if atx:
            headings.append((len(atx.group(1)), plain_title(atx.group(2) or "")))
            starts.append(offsets[index])
            continue
        underline = _SETEXT.match(line)
        if underline and index > 0 and lines[index - 1].strip() and (not starts or starts[-1] != offsets[index - 1]):
            title_line = lines[index - 1]
            if (
                not _ATX.match(title_line)
                and not _SETEXT.match(title_line)
                and not title_line.startswith(("    ", "\t"))
            ):
                headings.append((1 if underline.group(1)[0] == "=" else 2, plain_title(title_line)))
                starts.append(offsets[index - 1])
    if not headings:
        raise SourceError(
            "no Markdown headings ('# Title', or a title underlined with === or ---) were found", field="source"
        )
    return text, sections_from_starts(text, starts, heading_ids(headings))
