"""A quote that runs across the border of consecutive sections a citation names.

Claude cites a custom-content document by block range (``content_block_location``), and runs the
blocks of a range together; a quote of the end of one block and the start of the next is in the range
the model cited, though in no one of its sections. ``find_across`` looks for it in the named sections'
texts joined, with nothing between them (as Claude joins them), then with a space, when the sections
are consecutive in the document. A quote that one section holds is never looked for here.

``find_spanning`` looks for a quote no section holds across the borders near its closest passage: a
retriever's chunk often runs from one section into the next. Such a quote is still fabricated (nothing judges it),
but its failure names the sections it runs across instead of a closest passage.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pytest_citecheck._locate.locator import Match, QuoteLocator
from pytest_citecheck._sources.source import Source

# How the texts of a range are joined to look for a quote across their borders, in turn.
SEPARATORS = ("", " ")
# How many sections on either side of its closest passage a quote in no one section is looked for across.
SPAN = 1


class Across(NamedTuple):
    """Where a quote runs across sections: the sections from the one it starts in to the one it ends in,
    ``start`` in the first one's text and ``end`` in the last one's."""

    sections: tuple[str, ...]
    start: int
    end: int
    similarity: float = 1.0
    approximate: bool = False


def find_across(source: Source, quote: str, sections: Sequence[str], *, casefold: bool) -> Across | None:
    """The quote in the named sections run together, when they are consecutive in the document; else None.

    A placement whose elisions remove a word that turns the meaning is not taken (the quote is then
    looked for as any other, and is ``altered`` or ``missing`` there)."""
    names = list(source.sections)
    positions = sorted({names.index(section) for section in sections if section in source.sections})
    if len(positions) < 2 or positions[-1] - positions[0] != len(positions) - 1:
        return None
    ordered = [names[position] for position in positions]
    texts = [source.sections[section] for section in ordered]
    for separator in SEPARATORS:
        joined = separator.join(texts)
        match = QuoteLocator(Source(sections={"range": joined})).find(quote, casefold=casefold)
        if match is not None and not match.turning_words:
            return _split(ordered, texts, len(separator), match)
    return None


def find_spanning(source: Source, quote: str, near: str, *, casefold: bool) -> Across | None:
    """Where a quote that no one section holds runs across the border of two (or more) sections next to
    ``near`` (the section of its closest passage, which holds part of it); else None.

    Only the ``SPAN`` sections on either side of ``near`` are run together and searched: a whole document
    joined and indexed for each fabricated quote cost a 1 MB manual 0.14 s a quote (the closest passage,
    0.2 ms). More are joined while those on a side hold less text than the quote (``_window``)."""
    names = list(source.sections)
    if near not in source.sections or len(names) < 2:
        return None
    position = names.index(near)
    across = find_across(source, quote, _window(source, names, position, len(quote)), casefold=casefold)
    return across if across is not None and len(across.sections) > 1 else None


def _window(source: Source, names: list[str], position: int, reach: int) -> list[str]:
    """The sections around ``position`` a quote of ``reach`` characters can run into: ``SPAN`` on either side,
    and more while those on that side hold less text than the quote (a 512-token chunk of GPL-3 runs from
    §11 over §12 and §13 into §14). The window grows with the quote, never with the document."""
    low, covered = position, 0
    while low > 0 and (position - low < SPAN or covered < reach):
        low -= 1
        covered += len(source.sections[names[low]])
    high, covered = position, 0
    while high < len(names) - 1 and (high - position < SPAN or covered < reach):
        high += 1
        covered += len(source.sections[names[high]])
    return names[low : high + 1]


def _split(ordered: list[str], texts: list[str], gap: int, match: Match) -> Across:
    """The joined text's match as the sections it runs across and offsets in the first and last."""
    starts = []
    position = 0
    for text in texts:
        starts.append(position)
        position += len(text) + gap
    first = max(index for index, start in enumerate(starts) if start <= match.start)
    last = max(index for index, start in enumerate(starts) if start < match.end)
    start = min(match.start - starts[first], len(texts[first]))
    end = min(match.end - starts[last], len(texts[last]))
    return Across(tuple(ordered[first : last + 1]), start, end)
