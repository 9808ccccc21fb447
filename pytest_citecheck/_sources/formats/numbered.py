"""Numbered plain text (licences, contracts, policies): sections start at ``1.``, ``1.1``, ``Section 4.``, ``§ 4``."""

from __future__ import annotations

import re

from pytest_citecheck._errors import SourceError
from pytest_citecheck._sources.formats.headings import PREAMBLE

_NUMBERED = re.compile(
    r"^(?P<indent>[ \t]{0,6})(?:(?:section|article|clause)[ \t]+|§[ \t]*)?(?P<number>\d+(?:\.\d+)*)(?:\.|\))?(?:[ \t]+(?P<title>\S.*))?$",
    re.IGNORECASE,
)
_BOX_EDGE = re.compile(r"^\*{3,}[ \t]*$")
_BOX_LINE = re.compile(r"^\*(?P<inner>.*?)\*[ \t]*$")
# How far numbering may jump (a section left out, or drawn in a box that was not recognised).
_MAX_SKIP = 3


def _unbox(text: str) -> str:
    """Paragraphs drawn in a box of asterisks (as in MPL-2.0's disclaimers) lose the box."""
    if not any(_BOX_EDGE.match(line) for line in text.split("\n")):
        return text
    out = []
    for line in text.split("\n"):
        boxed = _BOX_LINE.match(line)
        if _BOX_EDGE.match(line):
            out.append("")
        elif boxed:
            inner = boxed.group("inner")
            # "*  6. Title   *": drop the box's margin, keep the text's own indentation.
            out.append(inner[2:].rstrip() if inner.startswith("  ") else inner.strip())
        else:
            out.append(line)
    return "\n".join(out)


def follows(number: tuple[int, ...], current: tuple[int, ...]) -> bool:
    """Whether ``number`` can be the section after ``current``: its first child, or a later sibling
    of it or of one of its ancestors (skipping at most a few numbers)."""
    if number == (*current, 1) or number == (*current, 0):
        return True
    for depth in range(len(current), 0, -1):
        if (
            len(number) == depth
            and number[: depth - 1] == current[: depth - 1]
            and 0 < number[-1] - current[depth - 1] <= _MAX_SKIP
        ):
            return True
    return False


def split_numbered(text: str) -> tuple[str, dict[str, str]]:
    """Plain text whose sections start with ``1.``, ``1.1``, ``Section 4.``, ``§ 4`` at (or near) the line start.

    A numbered line only counts when its number can follow the previous section's (so a list item
    "7." inside section 5, or a wrapped line starting "2.1 of this License", is text) and it is
    indented like the first section of its depth.
    """
    clean = _unbox(text.replace("\r\n", "\n").replace("\f", "\n"))
    lines = clean.split("\n")
    starts: list[int] = []
    ids: list[str] = []
    current: tuple[int, ...] | None = None
    indents: dict[int, str] = {}
    offset = 0
    for line in lines:
        found = _NUMBERED.match(line)
        if found and (
            found.group("title") or found.group(0).strip().lower().startswith(("section", "article", "clause", "§"))
        ):
            number = tuple(int(part) for part in found.group("number").split("."))
            indent = found.group("indent")
            plausible = (number[-1] <= 1 and len(number) == 1) if current is None else follows(number, current)
            if plausible and indents.get(len(number), indent) == indent:
                indents.setdefault(len(number), indent)
                current = number
                starts.append(offset + len(indent))
                ids.append(found.group("number"))
        offset += len(line) + 1
    if not starts:
        raise SourceError(
            "no numbered sections ('1.', '1.1', 'Section 4.', '§ 4' at the start of a line) were found", field="source"
        )
    sections: dict[str, str] = {}
    preamble = clean[: starts[0]].strip()
    if preamble:
        sections[PREAMBLE] = preamble
    for index, (start, section_id) in enumerate(zip(starts, ids)):
        end = starts[index + 1] if index + 1 < len(starts) else len(clean)
        sections.setdefault(section_id, clean[start:end].strip())
    return clean, sections
