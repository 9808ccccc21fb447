"""Step 1 of the check, with no model: find a quote in a source's sections.

The match is exact after normalisation (the cookbook's rule): runs of whitespace become one space,
curly quotes become straight ones, and both ends are stripped. The same normalisation is applied to
the quote and to every section, and the first section in the source's order that contains the quote
wins. A found quote also reports where it sits in the *original* section text, so
``section_text[match.start:match.end]`` is the quoted passage.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from .sources import Source

_QUOTE_FOLD = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})
_WORD = re.compile(r"\S+")


def normalize(text: str) -> str:
    """The normalised form both sides of a match are compared in."""
    return " ".join(_WORD.findall(text.translate(_QUOTE_FOLD)))


class NormalizedText:
    """A text's normalised form plus the map back to offsets in the original text."""

    __slots__ = ("text", "_norm_starts", "_orig_starts", "_orig_ends")

    def __init__(self, original: str) -> None:
        words = list(_WORD.finditer(original.translate(_QUOTE_FOLD)))
        self.text = " ".join(word.group() for word in words)
        norm_starts: list[int] = []
        position = 0
        for word in words:
            norm_starts.append(position)
            position += len(word.group()) + 1
        self._norm_starts = norm_starts
        self._orig_starts = [word.start() for word in words]
        self._orig_ends = [word.end() for word in words]

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """Map a normalised ``[start, end)`` range to the original text's offsets."""
        return self._to_original(start, is_end=False), self._to_original(end, is_end=True)

    def _to_original(self, offset: int, *, is_end: bool) -> int:
        # The translation is one character for one, so inside a word offsets move together; only the
        # collapsed whitespace between words changes length.
        index = bisect_right(self._norm_starts, offset - 1 if is_end else offset) - 1
        if index < 0:
            return 0
        inside = offset - self._norm_starts[index]
        return min(self._orig_starts[index] + inside, self._orig_ends[index])


@dataclass(frozen=True)
class Match:
    """Where a quote was found: a section id and ``[start, end)`` offsets in that section's text."""

    section: str
    start: int
    end: int
    similarity: float = 1.0
    approximate: bool = False


class QuoteLocator:
    """Finds quotes in one source; each section is normalised once, however many quotes are looked up."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self._normalized: dict[str, NormalizedText] = {}

    def normalized(self, section_id: str) -> NormalizedText:
        found = self._normalized.get(section_id)
        if found is None:
            found = self._normalized[section_id] = NormalizedText(self.source.sections[section_id])
        return found

    def find(self, quote: str) -> Match | None:
        """The first section (in the source's order) containing ``quote``, or None."""
        needle = normalize(quote)
        if not needle:
            return None
        for section_id in self.source.order:
            section = self.normalized(section_id)
            at = section.text.find(needle)
            if at >= 0:
                start, end = section.original_span(at, at + len(needle))
                return Match(section_id, start, end)
        return None
