"""What the layouts that find headings line by line (rst, docbook, man) share.

A layout finds ``Heading``s; this module then
- drops tables of contents: a run of headings with nothing but other contents entries between
  them (and not merely ever deeper, as "3.", "3.1.", "3.1.1." are) is a contents list, never sections (its lines stay in the section or preamble around it);
- gives appendices that restart numbering ids of their own: after chapters 1 to 12, a second
  "1." starts appendix ``A`` (``A.1``, ``A.2.3``), a third starts ``B``;
- makes ids: the heading's number where it has one, else the path of titles from the top
  ("DESCRIPTION > Options"), made unique with " (2)";
- cuts the text at the headings that are left.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from pytest_citecheck._sources.formats.headings import PREAMBLE, UniqueIds

# A title's own number: "4.1.3. Title", "4.1.3 Title", "A.1. Title", "Chapter 3. Title", "Appendix B. Title".
_TITLE_NUMBER = re.compile(
    r"^(?:(?:chapter|appendix|section|part)\s+)?(?P<number>\d+(?:\.\d+)*|[A-Z](?:\.\d+)+|[A-Z](?=\.))\.?(?=\s|$)",
    re.IGNORECASE,
)
# A line that can sit in a contents list: an entry ("  * 1.2. Title", "A.1. Title", "Chapter 2. Title")
# or a short caption with no sentence punctuation ("Preface", "List of Tables", "Table of Contents").
_ENTRY = re.compile(r"^\s*(?:[*•-]\s+)?(?:(?:chapter|appendix|part)\s+)?(?:\d+|[A-Z])(?:\.\d+)*\.\s+\S", re.I)
_CAPTION = re.compile(r"^\s*[^\W\d][\w'’-]*(?: [\w'’-]+){0,4}\s*$")
_CONTENTS_CAPTION = re.compile(r"^\s*(?:table of contents|contents|list of [\w ]+)\s*$", re.IGNORECASE)
# How many headings in a row, each with nothing of its own, make a contents list.
CONTENTS_RUN = 3


@dataclass(frozen=True)
class Heading:
    """A heading: ``[start, end)`` of its lines in the text, its level (1 is the top), title and number."""

    start: int
    end: int
    level: int
    title: str
    number: str | None = None


def title_number(title: str) -> str | None:
    found = _TITLE_NUMBER.match(title.strip().replace("\u00a0", " "))
    return found.group("number") if found else None


def is_numbered_entry(line: str) -> bool:
    """A contents entry with a number: "1.2. Title", "  * 3. Title", "Chapter 2. Title"."""
    return bool(_ENTRY.match(line))


def _is_entry(line: str) -> bool:
    return bool(_ENTRY.match(line) or _CAPTION.match(line))


def _paragraphs(text: str) -> list[tuple[int, int, list[str]]]:
    """``(start, end, lines)`` of each run of non-blank lines."""
    found: list[tuple[int, int, list[str]]] = []
    for match in re.finditer(r"[^\n]*\S[^\n]*(?:\n[^\n]*\S[^\n]*)*", text):
        found.append((match.start(), match.end(), match.group().split("\n")))
    return found


def is_listing(lines: list[str]) -> bool:
    """Whether at least half the lines of a paragraph are contents entries or captions (wrapped entries)."""
    return 2 * sum(1 for line in lines if _is_entry(line)) >= len(lines)


def _continues(lines: list[str]) -> bool:
    """Whether a paragraph goes on a contents block: several lines of entries, or another caption.

    A lone line is a heading of the body (with its text, or its first subsection, after it)."""
    return is_listing(lines) and (len(lines) > 1 or bool(_CONTENTS_CAPTION.match(lines[0])))


def contents_blocks(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of each block that a "Contents" / "Table of Contents" / "List of ..." caption opens.

    The block goes on over paragraphs of entries (``_continues``), and ends before a paragraph of body
    text or a lone heading line.
    """
    paragraphs = _paragraphs(text)
    blocks: list[tuple[int, int]] = []
    index = 0
    while index < len(paragraphs):
        start, end, lines = paragraphs[index]
        index += 1
        if not _CONTENTS_CAPTION.match(lines[0]):
            continue
        while index < len(paragraphs) and _continues(paragraphs[index][2]):
            end = paragraphs[index][1]
            index += 1
        blocks.append((start, end))
    return blocks


def contents_runs(text: str, headings: list[Heading]) -> set[int]:
    """Indices of the headings that are entries of a contents list, not sections.

    A heading inside a captioned contents block (``contents_blocks``) is an entry. So is each heading
    of a run with nothing but entries between them (``CONTENTS_RUN`` or more, and not merely ever
    deeper, as "3.", "3.1.", "3.1.1." are), except the last, which has text of its own: that one is
    an entry only when its number comes again later (the body's own heading).
    """
    blocks = contents_blocks(text)
    in_blocks = {
        index for index, heading in enumerate(headings) if any(start <= heading.start < end for start, end in blocks)
    }
    rest = [index for index in range(len(headings)) if index not in in_blocks]
    return in_blocks | {rest[index] for index in _bodiless_runs(text, [headings[index] for index in rest])}


def _bodiless_runs(text: str, headings: list[Heading]) -> set[int]:
    dropped: set[int] = set()
    ends = [heading.start for heading in headings[1:]] + [len(text)]
    bodiless = [
        all(_is_entry(line) for line in text[heading.end : end].split("\n") if line.strip())
        for heading, end in zip(headings, ends)
    ]
    again = _comes_again(headings)
    run_start = 0
    for index, empty in enumerate(bodiless):
        if empty and index + 1 < len(headings):
            continue
        levels = [heading.level for heading in headings[run_start : index + 1]]
        nesting = all(deeper > level for level, deeper in zip(levels, levels[1:]))
        if index - run_start >= CONTENTS_RUN and not nesting:
            dropped.update(range(run_start, index))
            if again[index]:
                dropped.add(index)
        run_start = index + 1
    return dropped


def _comes_again(headings: list[Heading]) -> list[bool]:
    """For each heading, whether a later heading has its number."""
    last = {heading.number: index for index, heading in enumerate(headings) if heading.number is not None}
    return [heading.number is not None and last[heading.number] > index for index, heading in enumerate(headings)]


def restarted(headings: list[Heading]) -> list[Heading]:
    """Headings whose numbers restart at 1 after a higher top-level number get the next appendix letter."""
    letters = iter("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    prefix = ""
    highest = 0
    out: list[Heading] = []
    for heading in headings:
        number = heading.number
        if number is not None and number.isdigit():
            if int(number) <= 1 and highest >= 2:
                prefix, highest = next(letters, "Z") + ".", 0
            highest = max(highest, int(number))
        if number is not None and number[0].isdigit() and prefix:
            heading = replace(heading, number=prefix + number)
        out.append(heading)
    return out


def outline_ids(headings: list[Heading]) -> list[str]:
    """Each heading's id: its number when it has an unused one, else its path of titles, made unique."""
    ids: list[str] = []
    unique = UniqueIds()
    path: list[tuple[int, str]] = []
    for heading in headings:
        while path and path[-1][0] >= heading.level:
            path.pop()
        path.append((heading.level, heading.title))
        candidate = heading.number
        if candidate is None or candidate in unique:
            candidate = " > ".join(title for _, title in path)
        ids.append(unique(candidate))
    return ids


def split_outline(text: str, headings: list[Heading], end: int | None = None) -> dict[str, str]:
    """Sections from ``headings`` (contents lists dropped, appendices renumbered), up to ``end`` of the text."""
    dropped = contents_runs(text, headings)
    kept = restarted([heading for index, heading in enumerate(headings) if index not in dropped])
    stop = len(text) if end is None else end
    sections: dict[str, str] = {}
    preamble = text[: kept[0].start].strip() if kept else text[:stop].strip()
    if preamble:
        sections[PREAMBLE] = preamble
    for heading, following, section_id in zip(kept, [*kept[1:], None], outline_ids(kept)):
        sections[section_id] = text[heading.start : following.start if following else stop].strip()
    return sections
