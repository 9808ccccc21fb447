"""Offsets between the text a user has and the cleaned text a ``Source`` splits.

A format may clean a document before splitting it: RFC page footers and headers go, boxes of
asterisks lose their edges, HTML loses its markup. Offsets into the text as given (Claude's
``char_location`` indexes the document the app sent) must still land where they point, so every
cleaning keeps an ``OffsetMap``: the cleaned text is a run of pieces, each of which starts at a known
offset of the given text. Inside a piece the two advance together (exact for text that was only
cut out, as in RFCs and boxes; close for HTML, where whitespace runs fold and character references
decode).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class OffsetMap:
    """Pieces of the cleaned text: ``clean_starts[i]`` in it is ``given_starts[i]`` in the given text.

    ``given_length`` is the length of the given text, ``clean_length`` of the cleaned one.
    """

    clean_starts: tuple[int, ...]
    given_starts: tuple[int, ...]
    clean_length: int
    given_length: int

    @classmethod
    def identity(cls, length: int) -> OffsetMap:
        return cls((0,), (0,), length, length)

    def to_given(self, clean: int) -> int:
        """The offset in the given text of offset ``clean`` of the cleaned text."""
        clean = min(max(clean, 0), self.clean_length)
        index = max(0, bisect_right(self.clean_starts, clean) - 1)
        piece_end = self._given_end(index)
        return min(self.given_starts[index] + clean - self.clean_starts[index], piece_end)

    def to_clean(self, given: int) -> int | None:
        """The offset in the cleaned text of offset ``given`` of the given text; None where cleaning removed it."""
        if given == self.given_length:
            return self.clean_length
        if not 0 <= given < self.given_length:
            return None
        index = bisect_right(self.given_starts, given) - 1
        if index < 0:
            return None
        inside = given - self.given_starts[index]
        if inside >= self._clean_end(index) - self.clean_starts[index]:
            return None  # in text the cleaning dropped (a page footer, a tag)
        return self.clean_starts[index] + inside

    def _clean_end(self, index: int) -> int:
        return self.clean_starts[index + 1] if index + 1 < len(self.clean_starts) else self.clean_length

    def _given_end(self, index: int) -> int:
        return self.given_starts[index + 1] if index + 1 < len(self.given_starts) else self.given_length

    def given_spans(self, start: int, end: int) -> list[tuple[int, int]]:
        """The spans of the given text that ``[start, end)`` of the cleaned text comes from."""
        spans: list[tuple[int, int]] = []
        index = max(0, bisect_right(self.clean_starts, start) - 1)
        while index < len(self.clean_starts) and self.clean_starts[index] < end:
            piece_start = max(start, self.clean_starts[index])
            piece_end = min(end, self._clean_end(index))
            offset = self.given_starts[index] - self.clean_starts[index]
            if piece_end > piece_start:
                spans.append((piece_start + offset, piece_end + offset))
            index += 1
        return spans


def cut(text: str, spans: Iterable[tuple[int, int]]) -> tuple[str, OffsetMap]:
    """``text`` without the ``[start, end)`` spans (sorted, not overlapping), and the map back to ``text``."""
    kept: list[str] = []
    clean_starts: list[int] = []
    given_starts: list[int] = []
    position = 0
    length = 0
    for start, end in [*spans, (len(text), len(text))]:
        if start > position or not clean_starts:
            clean_starts.append(length)
            given_starts.append(position)
            kept.append(text[position:start])
            length += start - position
        position = max(position, end)
    return "".join(kept), OffsetMap(tuple(clean_starts), tuple(given_starts), length, len(text))


def cut_then(
    text: str, first: list[tuple[int, int]], then: Callable[[str], list[tuple[int, int]]]
) -> tuple[str, OffsetMap]:
    """``text`` without the ``first`` spans, then without the spans ``then`` finds in what is left.

    Both cuts are made on ``text`` at once, so the map stays exact.
    """
    middle, middle_map = cut(text, first)
    second = [span for start, end in then(middle) for span in middle_map.given_spans(start, end)]
    return cut(text, merged_spans([*first, *second]))


def cut_twice(text: str, first: list[tuple[int, int]], pattern: re.Pattern[str]) -> tuple[str, OffsetMap]:
    """``text`` without the ``first`` spans, then without what ``pattern``'s group 1 matches in what is left."""
    return cut_then(text, first, lambda middle: [found.span(1) for found in pattern.finditer(middle)])


def merged_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans in order, overlapping (and touching) ones joined."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def composed(inner: OffsetMap, outer: OffsetMap) -> OffsetMap:
    """The map from ``inner``'s cleaned text to ``outer``'s given text, where ``inner``'s given text is
    ``outer``'s cleaned one (a layout's cleaning of a text that had its CRs and byte order mark cut)."""
    clean_starts: list[int] = []
    given_starts: list[int] = []
    for index, (clean, middle) in enumerate(zip(inner.clean_starts, inner.given_starts)):
        length = inner._clean_end(index) - clean
        middle_end = max(inner._given_end(index), middle + 1)
        piece = max(0, bisect_right(outer.clean_starts, middle) - 1)
        while True:
            start = max(middle, outer.clean_starts[piece])
            if start - middle >= length and start > middle:
                break  # past what this piece of the cleaned text holds
            given = outer.given_starts[piece] + start - outer.clean_starts[piece]
            if clean_starts and clean + start - middle == clean_starts[-1]:
                given_starts[-1] = given  # an empty piece before: the later one stands, as in ``to_given``
            else:
                clean_starts.append(clean + start - middle)
                given_starts.append(given)
            piece += 1
            if piece >= len(outer.clean_starts) or outer.clean_starts[piece] >= middle_end:
                break
    if not clean_starts:
        clean_starts, given_starts = [0], [outer.to_given(0)]
    return OffsetMap(tuple(clean_starts), tuple(given_starts), inner.clean_length, outer.given_length)
