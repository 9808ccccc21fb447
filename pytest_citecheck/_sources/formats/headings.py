"""What the heading-based formats (markdown, html) share: section ids from headings, cutting at them."""

from __future__ import annotations

import re

# A heading that starts with a section number: "4.1 Title", "4.1. Title", "Section 4.", "§ 4".
_HEADING_NUMBER = re.compile(r"^(?:(?:section|article|clause)\s+|§\s*)?(\d+(?:\.\d+)*)\.?(?=\s|$)", re.IGNORECASE)
PREAMBLE = "preamble"


def heading_ids(headings: list[tuple[int, str]]) -> list[str]:
    """Section ids for ``(level, title)`` headings: the heading's number when it has a unique one,
    else the path of titles from the top ("Installation > Linux"), made unique with " (2)"."""
    ids: list[str] = []
    unique = UniqueIds()
    path: list[tuple[int, str]] = []
    for level, title in headings:
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, title))
        number = _HEADING_NUMBER.match(title)
        candidate = number.group(1) if number and number.group(1) not in unique else " > ".join(t for _, t in path)
        ids.append(unique(candidate))
    return ids


class UniqueIds:
    """Section ids made unique: a taken id gets " (2)", " (3)"... (the first count not taken).

    Each id remembers the last count it reached, so a document repeating one heading n times makes
    n ids, not n * n / 2 tries (20,000 "# a" headings took 28 s).
    """

    def __init__(self, taken: tuple[str, ...] = (PREAMBLE,)) -> None:
        self._used = set(taken)
        self._counts: dict[str, int] = {}

    def __contains__(self, candidate: str) -> bool:
        return candidate in self._used

    def __call__(self, candidate: str) -> str:
        unique, count = candidate, self._counts.get(candidate, 1)
        while unique in self._used:
            count += 1
            unique = f"{candidate} ({count})"
        self._counts[candidate] = count
        self._used.add(unique)
        return unique


def sections_from_starts(text: str, starts: list[int], ids: list[str]) -> dict[str, str]:
    """Cut ``text`` at heading offsets; what precedes the first heading is the preamble (if any)."""
    sections: dict[str, str] = {}
    preamble = text[: starts[0]].strip() if starts else ""
    if preamble:
        sections[PREAMBLE] = preamble
    for index, (start, section_id) in enumerate(zip(starts, ids)):
        end = starts[index + 1] if index + 1 < len(starts) else len(text)
        sections[section_id] = text[start:end].strip()
    return sections


_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
# Emphasis marks at a word's edge ("**psmisc**", "_does..._"); a "_" or "*" inside a word is the word's own
# ("snake_case", "napi_set_instance_data"), as CommonMark reads it.
_EMPHASIS = re.compile(r"(?<![^\W_])[*_]+|[*_]+(?![^\W_])")


def plain_title(title: str) -> str:
    """A heading's words as a reader sees them: code spans' text as written, links' text, no emphasis marks."""
    parts = []
    for index, part in enumerate(_CODE_SPAN.split(title)):
        if index % 3 == 0:  # text outside code spans
            parts.append(_EMPHASIS.sub("", _LINK.sub(lambda m: m.group(1), part)))
        elif index % 3 == 2:  # a code span's text (index % 3 == 1 is its run of backticks)
            parts.append(part)
    return " ".join("".join(parts).split())
