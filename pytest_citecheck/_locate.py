"""Step 1 of the check, with no model: find a quote in a source's sections.

This module owns the normalisation contract (``docs/matching.md``) and the locator that applies it.
Both sides of a match, the quote and every section, go through ``normalize``: NFKC, a fold table for
dashes, quotes, primes and ellipses, ligatures NFKC keeps (Œ, Æ) spelled out, soft hyphens and
zero-width characters removed, hyphens between letters dropped (so a word broken across a line with
a hyphen is joined), whitespace collapsed to one space, and optionally case folding.

A found quote reports where it sits in the *original* section text, so
``section_text[match.start:match.end]`` is the quoted passage. Normalising changes lengths, so every
section keeps a sparse map back to its original: one anchor per place where the lengths differ
(a run of spaces, a joined line break, an expanded ligature), and plain arithmetic in between.

A ``QuoteLocator`` normalises each section of a source once, joins them into one text (one ``\\n``
between sections, a character normalised text never contains) and keeps a small index: for each
block of about 64 KiB of that text, which words occur in it (as bits in a fixed table of hashed
words). A lookup asks the index which blocks hold every interior word of the quote and runs
``str.find`` only there, so a thousand quotes over a large corpus cost little more than one pass.
Approximate matching and the "closest passage" diagnostic use rapidfuzz's
``partial_ratio_alignment`` on the few sections that share the most words with the quote;
rapidfuzz is imported only when either is needed.
"""

from __future__ import annotations

import operator
import re
import unicodedata
import weakref
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from pytest_citecheck._sources.source import Source

# --- the normalisation contract -------------------------------------------------------------

DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\ufe58\ufe63\uff0d"
DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u00ab\u00bb\u2033\u2036\u301d\u301e\uff02"
SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2039\u203a\u2032\u2035\u00b4\u0060"
REMOVED = "\u00ad\u200b\u200c\u200d\u2060\ufeff\u180e"
# NFKC leaves these ligatures alone because they are letters in some languages; a quote typed
# without them must still match.
LIGATURES = {"\u0152": "OE", "\u0153": "oe", "\u00c6": "AE", "\u00e6": "ae", "\ua732": "AA", "\ua733": "aa"}

FOLD_TABLE: dict[int, str | None] = {
    **{ord(ch): "-" for ch in DASHES},
    **{ord(ch): '"' for ch in DOUBLE_QUOTES},
    **{ord(ch): "'" for ch in SINGLE_QUOTES},
    ord("\u2026"): "...",
    ord("\u2034"): "'''",
    **{ord(ch): None for ch in REMOVED},
    **{ord(ch): text for ch, text in LIGATURES.items()},
}
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_HYPHENS = "-\u00ad" + DASHES
# A hyphen (or dash) between two letters, optionally followed by a line break and the next line's
# indentation: dropped, on both sides. That joins "infor-\nmation" and makes "case-\n sensitive"
# (an RFC breaking a compound at its hyphen) match a quote "case-sensitive".
_JOIN = rf"(?<=[^\W\d_])[{_HYPHENS}](?:[ \t]*\r?\n\s*)?(?=[^\W\d_])"
_SPACE_LIKE = rf"[\s{REMOVED}]"
_SPECIAL = re.compile(
    rf"(?P<join>{_JOIN})"
    rf"|(?P<space>{_SPACE_LIKE}{{2,}}|[^\S ]|[{REMOVED}])"
    # A non-ASCII run, with the character before it: NFKC composes "e" + U+0301 into one "é".
    # Dashes are left out of the run so that one between two letters is always seen by ``join``.
    rf"|(?P<other>[\x21-\x7e]?[^\x00-\x7f\s{REMOVED}{DASHES}]+)"
    rf"|(?P<dash>[{DASHES}])"
)
# ASCII text (most documents) takes a faster road to the same result: whitespace to spaces with
# ``str.translate``, then only hyphens and runs of two or more spaces are visited.
_ASCII_WHITESPACE = str.maketrans({ch: " " for ch in "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"})
_ASCII_HYPHEN = re.compile(r"-(?:[ \t]*\r?\n\s*)?(?=[A-Za-z])")
_ASCII_SPACES = re.compile("  +")
_JOINED = "\x00"  # stands in for a joined hyphen's characters until they are dropped
_COMBINING = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u3099\u309a"
_CLUSTER = re.compile(rf"(?s).[{_COMBINING}]*")
ELISION = re.compile(r"\s*\[?\s*\.\.\.\s*\]?\s*")


def _fold_piece(piece: str, casefold: bool) -> str:
    folded = unicodedata.normalize("NFKC", piece.translate(FOLD_TABLE)).translate(FOLD_TABLE)
    if casefold:
        folded = folded.casefold()
    if not folded.isascii() or " " in folded:
        folded = " ".join(folded.split()) if folded.strip() else ""
    return folded


class _Normalizer:
    """One pass of the contract over one text; records the anchors of the map when asked to."""

    __slots__ = ("casefold", "record", "shift", "norm_starts", "norm_ends", "orig_starts", "orig_ends")

    def __init__(self, casefold: bool, record: bool) -> None:
        self.casefold = casefold
        self.record = record
        self.shift = 0  # original offset minus normalised offset, at the current position
        # 32-bit offsets: a section would need 2 GB of text to overflow them.
        self.norm_starts = array("i")
        self.norm_ends = array("i")
        self.orig_starts = array("i")
        self.orig_ends = array("i")

    def _anchor(self, orig_start: int, orig_end: int, replacement_length: int) -> None:
        norm_start = orig_start - self.shift
        self.norm_starts.append(norm_start)
        self.norm_ends.append(norm_start + replacement_length)
        self.orig_starts.append(orig_start)
        self.orig_ends.append(orig_end)
        self.shift += (orig_end - orig_start) - replacement_length

    def replace(self, match: re.Match[str]) -> str:
        kind = match.lastgroup
        original = match.group()
        if kind == "join":
            replacement = ""
        elif kind == "dash":
            replacement = "-"
        elif kind == "space":
            replacement = " " if any(ch.isspace() for ch in original) else ""
        else:
            replacement = _fold_piece(original, self.casefold)
            if len(replacement) != len(original) and self.record:
                # Anchor each cluster on its own, so a match that starts or ends inside a run of
                # non-ASCII text maps back to the right character, not to the run's ends.
                start = match.start()
                pieces = []
                for cluster in _CLUSTER.finditer(original):
                    folded = _fold_piece(cluster.group(), self.casefold)
                    if len(folded) != len(cluster.group()):
                        self._anchor(start + cluster.start(), start + cluster.end(), len(folded))
                    pieces.append(folded)
                return "".join(pieces)
        if len(replacement) != len(original) and self.record:
            self._anchor(match.start(), match.end(), len(replacement))
        return replacement

    def run(self, text: str) -> str:
        # The grave accent is the one ASCII character the fold table changes: folded here, one for
        # one, so that it folds whether or not non-ASCII text stands next to it.
        text = text.replace("`", "'")
        normalized = self._run_ascii(text) if text.isascii() else _SPECIAL.sub(self.replace, text)
        if self.casefold:
            normalized = normalized.translate(_ASCII_LOWER)
        return normalized

    def _run_ascii(self, text: str) -> str:
        # The same rules as ``_SPECIAL`` where they can apply to ASCII, with the per-match work in C:
        # whitespace becomes spaces (one for one), joined hyphens become placeholders, then runs of
        # spaces collapse and placeholders go. Anchors are computed in bulk from the match lists.
        joins = [
            (match.start(), match.end())
            for match in _ASCII_HYPHEN.finditer(text)
            if match.start() > 0 and text[match.start() - 1].isalpha()
        ]
        spaced = text.translate(_ASCII_WHITESPACE)
        if joins and _JOINED in text:  # the placeholder is taken: take the general road
            return _SPECIAL.sub(self.replace, text)
        if joins:
            spaced = "".join(
                spaced[start:end] if index % 2 == 0 else _JOINED * (end - start)
                for index, (start, end) in enumerate(_alternate(joins, len(spaced)))
            )
        normalized = _ASCII_SPACES.sub(" ", spaced)
        if joins:
            normalized = normalized.replace(_JOINED, "")
        if self.record:
            runs = list(_ASCII_SPACES.finditer(spaced))
            starts = list(map(re.Match.start, runs))
            ends = list(map(re.Match.end, runs))
            lengths = [1] * len(runs)
            if joins:
                merged = sorted([*zip(starts, ends, lengths), *((start, end, 0) for start, end in joins)])
                starts, ends, lengths = (list(column) for column in zip(*merged))
            self._bulk_anchors(starts, ends, lengths)
        return normalized

    def _bulk_anchors(self, starts: list[int], ends: list[int], lengths: list[int]) -> None:
        deltas = map(operator.sub, map(operator.sub, ends, starts), lengths)
        shift_after = list(accumulate(deltas, initial=self.shift))
        norm_starts = list(map(operator.sub, starts, shift_after))
        self.norm_starts.extend(norm_starts)
        self.norm_ends.extend(map(operator.add, norm_starts, lengths))
        self.orig_starts.extend(starts)
        self.orig_ends.extend(ends)
        self.shift = shift_after[-1]


def _alternate(joins: list[tuple[int, int]], length: int) -> Iterator[tuple[int, int]]:
    """Kept spans and joined spans, alternating, covering ``[0, length)``."""
    position = 0
    for start, end in joins:
        yield position, start
        yield start, end
        position = end
    yield position, length


def normalize(text: str, *, casefold: bool = False) -> str:
    """The normalised form both sides of a match are compared in (leading and trailing space stripped)."""
    return _Normalizer(casefold, record=False).run(text).strip(" ")


class OffsetMap:
    """The sparse map from a normalised text's offsets back to its original's."""

    __slots__ = ("_norm_starts", "_norm_ends", "_orig_starts", "_orig_ends")

    def __init__(self, normalizer: _Normalizer) -> None:
        self._norm_starts = normalizer.norm_starts
        self._norm_ends = normalizer.norm_ends
        self._orig_starts = normalizer.orig_starts
        self._orig_ends = normalizer.orig_ends

    def to_original(self, offset: int, *, is_end: bool) -> int:
        """The original offset of a normalised one: a start maps to where its character begins, an end to where it ends."""
        starts = self._norm_starts
        if is_end:
            index = bisect_left(starts, offset) - 1
            if index >= 0 and offset <= self._norm_ends[index]:
                return self._orig_ends[index]
        else:
            index = bisect_right(starts, offset) - 1
            if index >= 0 and offset < self._norm_ends[index]:
                return self._orig_starts[index]
        if index < 0:
            return offset
        return self._orig_ends[index] + (offset - self._norm_ends[index])

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """Map a normalised ``[start, end)`` range to the original text's offsets."""
        return self.to_original(start, is_end=False), self.to_original(end, is_end=True)


def normalize_with_map(original: str, *, casefold: bool = False) -> tuple[str, OffsetMap]:
    """``normalize(original)`` (without the final strip) and the map of its offsets back to ``original``."""
    normalizer = _Normalizer(casefold, record=True)
    text = normalizer.run(original)
    return text, OffsetMap(normalizer)


class NormalizedText:
    """A text's normalised form plus the map back to offsets in the original text."""

    __slots__ = ("text", "map")

    def __init__(self, original: str, *, casefold: bool = False) -> None:
        self.text, self.map = normalize_with_map(original, casefold=casefold)

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        return self.map.original_span(start, end)


def quote_fragments(quote: str, *, casefold: bool = False) -> list[str]:
    """The normalised pieces of a quote: one, or several when it elides text with ``...`` or ``…``."""
    needle = normalize(quote, casefold=casefold)
    return [fragment for fragment in ELISION.split(needle) if fragment]


def quote_length(quote: str, *, casefold: bool = False) -> int:
    """How many characters of the quote count towards ``min_quote_length`` (elision markers excluded)."""
    return sum(len(fragment) for fragment in quote_fragments(quote, casefold=casefold))


# --- locating -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    """Where a quote was found: a section id and ``[start, end)`` offsets in that section's text.

    ``similarity`` is 1.0 for an exact match (after normalisation); an approximate match or a
    closest passage carries rapidfuzz's score scaled to 0..1 and ``approximate=True``.
    """

    section: str
    start: int
    end: int
    similarity: float = 1.0
    approximate: bool = False


BLOCK_SIZE = 1 << 16
_TABLE_BITS = 16
_TABLE_MASK = (1 << _TABLE_BITS) - 1
# How many sections the fuzzy search and the closest-passage diagnostic align the quote against.
CANDIDATE_SECTIONS = 8


class _Corpus:
    """Every section of a source, normalised once, in blocks of whole sections, with a word index.

    Sections are joined (one ``\\n`` apart, a character normalised text never contains) into blocks of
    about ``BLOCK_SIZE`` characters; a section larger than that is a block of its own. A needle never
    spans two sections, so it never spans two blocks. For each block the index records which words
    occur in it, as one bit per block in a fixed table of hashed words; a hash collision only costs
    a wasted ``str.find``. Only the normalised blocks and the offset maps are kept, so memory is about
    one normalised copy of the source.
    """

    def __init__(self, source: Source, casefold: bool) -> None:
        self.ids: list[str] = list(source.order)
        self.maps: list[OffsetMap] = []
        self.blocks: list[str] = []
        self.section_block = array("i")  # section index -> its block
        self.section_start = array("i")  # section index -> where it starts in its block
        self.section_end = array("i")
        self.block_first_section: list[int] = []  # block -> index of its first section
        pieces: list[str] = []
        size = 0
        for index, section_id in enumerate(self.ids):
            text, offsets = normalize_with_map(source.sections[section_id], casefold=casefold)
            self.maps.append(offsets)
            if pieces and size + len(text) > BLOCK_SIZE:
                self._close_block(pieces)
                pieces, size = [], 0
            if not pieces:
                self.block_first_section.append(index)
            self.section_block.append(len(self.blocks))
            self.section_start.append(size)
            self.section_end.append(size + len(text))
            pieces.append(text)
            size += len(text) + 1
        self._close_block(pieces)
        self.table: list[int] | None = None
        if len(self.blocks) >= 2:
            table = [0] * (1 << _TABLE_BITS)
            for block, text in enumerate(self.blocks):
                bit = 1 << block
                for word in set(text.split()):
                    table[hash(word) & _TABLE_MASK] |= bit
            self.table = table

    def _close_block(self, pieces: list[str]) -> None:
        self.blocks.append("\n".join(pieces))

    def section_text(self, index: int) -> str:
        return self.blocks[self.section_block[index]][self.section_start[index] : self.section_end[index]]

    def _section_in_block(self, block: int, position: int) -> int:
        first = self.block_first_section[block]
        last = self.block_first_section[block + 1] if block + 1 < len(self.blocks) else len(self.ids)
        return bisect_right(self.section_start, position, first, last) - 1

    def _candidate_blocks(self, needle: str) -> range | list[int]:
        """Blocks that may hold ``needle``, in order: those holding every interior word of it."""
        interior = needle.split(" ")[1:-1]
        if self.table is None or not interior:
            return range(len(self.blocks))
        mask = (1 << len(self.blocks)) - 1
        for word in set(interior):
            mask &= self.table[hash(word) & _TABLE_MASK]
            if not mask:
                return []
        return [block for block in range(len(self.blocks)) if mask >> block & 1]

    def locate(self, fragments: list[str], within: int | None = None) -> tuple[int, int, int] | None:
        """(section index, start, end) in normalised section offsets of the first section holding
        every fragment in order; ``within`` restricts the search to one section."""
        first, rest = fragments[0], fragments[1:]
        if within is not None:
            blocks: range | list[int] = [self.section_block[within]]
        else:
            blocks = self._candidate_blocks(max(fragments, key=len))
        for block in blocks:
            text = self.blocks[block]
            search_from, search_to = 0, len(text)
            if within is not None:
                search_from, search_to = self.section_start[within], self.section_end[within]
            while True:
                at = text.find(first, search_from, search_to)
                if at < 0:
                    break
                index = self._section_in_block(block, at)
                section_end = self.section_end[index]
                cursor = at + len(first)
                for fragment in rest:
                    found = text.find(fragment, cursor, section_end)
                    if found < 0:
                        break
                    cursor = found + len(fragment)
                else:
                    start = self.section_start[index]
                    return index, at - start, cursor - start
                # Earliest-first is optimal inside one section: if the fragments do not follow the
                # first one's earliest occurrence, they follow none in this section.
                search_from = section_end + 1
        return None

    def candidate_sections(self, needle: str, limit: int) -> list[int]:
        """Sections most likely to hold a passage like ``needle``: those in the blocks sharing the most words."""
        if self.table is None:
            chosen = list(range(len(self.ids)))
        else:
            words = set(needle.split())
            scores = [0] * len(self.blocks)
            for word in words:
                bits = self.table[hash(word) & _TABLE_MASK]
                while bits:
                    low = bits & -bits
                    scores[low.bit_length() - 1] += 1
                    bits ^= low
            best_blocks = sorted(sorted(range(len(scores)), key=lambda block: -scores[block])[:2])
            chosen = []
            for block in best_blocks:
                first = self.block_first_section[block]
                last = self.block_first_section[block + 1] if block + 1 < len(self.blocks) else len(self.ids)
                chosen.extend(range(first, last))
        if len(chosen) <= limit:
            return chosen
        # Too many small sections: rank them by the words they share with the needle.
        words = set(needle.split())

        def shared(index: int) -> int:
            text = self.section_text(index)
            return sum(1 for word in words if word in text)

        return sorted(sorted(chosen, key=shared, reverse=True)[:limit])


class QuoteLocator:
    """Finds quotes in one source; each section is normalised once, however many quotes are looked up."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self._corpora: dict[bool, _Corpus] = {}

    def corpus(self, casefold: bool = False) -> _Corpus:
        found = self._corpora.get(casefold)
        if found is None:
            found = self._corpora[casefold] = _Corpus(self.source, casefold)
        return found

    def normalized_text(self, section_id: str, casefold: bool = False) -> str:
        """The normalised text of one section, as quotes are matched against it."""
        corpus = self.corpus(casefold)
        return corpus.section_text(corpus.ids.index(section_id))

    def find(self, quote: str, *, casefold: bool = False, prefer_section: str | None = None) -> Match | None:
        """The first section (in the source's order) containing ``quote``, or None.

        ``prefer_section`` is looked in first (a citation that says where its passage is, such as
        an Anthropic citation's character offsets); the rest of the source is the fallback.
        """
        needle = normalize(quote, casefold=casefold)
        fragments = [fragment for fragment in ELISION.split(needle) if fragment]
        if not fragments:
            return None
        corpus = self.corpus(casefold)
        attempts = [[needle], fragments] if fragments != [needle] else [fragments]
        for attempt in attempts:  # a literal "..." in the source is matched as is before it is read as an elision
            located = None
            if prefer_section is not None and prefer_section in self.source.sections:
                located = corpus.locate(attempt, within=corpus.ids.index(prefer_section))
            if located is None:
                located = corpus.locate(attempt)
            if located is not None:
                index, start, end = located
                original_start, original_end = corpus.maps[index].original_span(start, end)
                return Match(corpus.ids[index], original_start, original_end)
        return None

    def closest(self, quote: str, *, casefold: bool = False, score_cutoff: float = 0.0) -> Match | None:
        """The passage most like ``quote`` (rapidfuzz alignment), or None when nothing reaches ``score_cutoff`` (0..1)."""
        from rapidfuzz import fuzz

        needle = " ".join(quote_fragments(quote, casefold=casefold))
        if not needle:
            return None
        corpus = self.corpus(casefold)
        best: tuple[float, int, Any, str] | None = None
        for index in corpus.candidate_sections(needle, CANDIDATE_SECTIONS):
            text = corpus.section_text(index)
            if not text.strip():
                continue
            alignment = fuzz.partial_ratio_alignment(needle, text, score_cutoff=score_cutoff * 100)
            if alignment is None:
                continue
            if best is None or alignment.score > best[0]:
                best = (alignment.score, index, alignment, text)
        if best is None:
            return None
        score, index, alignment, text = best
        # partial_ratio swaps its arguments when the section is shorter than the quote.
        if len(needle) <= len(text):
            start, end = alignment.dest_start, alignment.dest_end
        else:
            start, end = alignment.src_start, alignment.src_end
        # The alignment's edges are loose: widen them to whole words, then trim a stray space or
        # full stop the quote does not have.
        while start > 0 and text[start - 1].isalnum() and text[start].isalnum():
            start -= 1
        while end < len(text) and text[end].isalnum() and text[end - 1].isalnum():
            end += 1
        while start < end and not text[start].isalnum() and text[start] != needle[0]:
            start += 1
        while end > start and not text[end - 1].isalnum() and text[end - 1] != needle[-1]:
            end -= 1
        original_start, original_end = corpus.maps[index].original_span(start, end)
        return Match(
            corpus.ids[index], original_start, original_end, similarity=round(score / 100, 4), approximate=True
        )

    def find_approx(self, quote: str, threshold: float, *, casefold: bool = False) -> Match | None:
        """The best passage whose similarity to ``quote`` reaches ``threshold`` (0..1), or None."""
        match = self.closest(quote, casefold=casefold, score_cutoff=threshold)
        if match is None or match.similarity < threshold:
            return None
        return match

    # --- searching only part of a source (issue 12: a Corpus looks in the cited document first) ---

    def find_in_sections(self, quote: str, section_ids: Sequence[str], *, casefold: bool = False) -> Match | None:
        """The first of ``section_ids``, in the order given, that contains ``quote``; no other section is searched.

        Matching is ``find``'s (normalisation, elisions, a literal "..." tried first).
        """
        needle = normalize(quote, casefold=casefold)
        fragments = [fragment for fragment in ELISION.split(needle) if fragment]
        if not fragments or not section_ids:
            return None
        corpus = self.corpus(casefold)
        positions = self._section_positions(corpus)
        attempts = [[needle], fragments] if fragments != [needle] else [fragments]
        for attempt in attempts:
            for section_id in section_ids:
                located = corpus.locate(attempt, within=positions[section_id])
                if located is not None:
                    index, start, end = located
                    original_start, original_end = corpus.maps[index].original_span(start, end)
                    return Match(corpus.ids[index], original_start, original_end)
        return None

    @staticmethod
    def _section_positions(corpus: _Corpus) -> dict[str, int]:
        """Section id -> its index in ``corpus``, built once per normalised form (a dict, not ``list.index``)."""
        positions = _SECTION_POSITIONS.get(corpus)
        if positions is None:
            positions = _SECTION_POSITIONS[corpus] = {section_id: index for index, section_id in enumerate(corpus.ids)}
        return positions


_SECTION_POSITIONS: weakref.WeakKeyDictionary[_Corpus, dict[str, int]] = weakref.WeakKeyDictionary()
