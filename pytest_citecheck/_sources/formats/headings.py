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


_INLINE_MARKUP = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|[*_`]+")


def plain_title(title: str) -> str:
    return " ".join(_INLINE_MARKUP.sub(lambda m: m.group(1) or "", title).split())
