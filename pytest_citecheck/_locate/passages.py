"""What step 1 hands on about a place in a section: a ``Passage``, and the window of text around a quote."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Passage:
    """A passage of the source: for a fabricated quote, the closest one (did the model misquote it?).

    ``section_text[start:end] == text``; ``similarity`` is rapidfuzz's alignment score in 0..1.
    ``across``: for a quote that is in the document but runs across the border of sections, those
    sections in order (the passage is where it starts, to the end of the first; similarity 1.0).
    """

    section: str
    start: int
    end: int
    text: str
    similarity: float
    # The document of a ``Corpus`` the passage is in (None for a single source).
    document: str | None = None
    across: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        # The document only when there is one (a Corpus): a single source's report keeps its shape.
        return {
            **({"document": self.document} if self.document is not None else {}),
            "section": self.section,
            "span": [self.start, self.end],
            "text": self.text,
            "similarity": self.similarity,
            **({"across": list(self.across)} if self.across is not None else {}),
        }


def window_around(section_text: str, start: int, end: int, size: int) -> tuple[int, int]:
    """``[start, end)`` of about ``size`` characters of ``section_text`` centred on the quote at ``[start, end)``.

    The window always holds the whole quote (even when the quote is longer than ``size``) and its
    edges move out to the nearest whitespace so no word is cut in half.
    """
    extra = max(0, size - (end - start))
    window_start = max(0, start - extra // 2)
    window_end = min(len(section_text), end + (extra - (start - window_start)))
    window_start = (
        max(0, window_start - (size - (window_end - window_start))) if window_end == len(section_text) else window_start
    )
    if window_start > 0:
        space = section_text.rfind(" ", 0, window_start)
        newline = section_text.rfind("\n", 0, window_start)
        window_start = max(space, newline) + 1
    if window_end < len(section_text):
        candidates = [i for i in (section_text.find(" ", window_end), section_text.find("\n", window_end)) if i >= 0]
        window_end = min(candidates) if candidates else len(section_text)
    return window_start, window_end
