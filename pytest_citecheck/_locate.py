"""Step 1 of the check, with no model: find a quote in a source's sections.

This module owns the normalisation contract (``docs/matching.md``) and the locator that applies it.
Both sides of a match, the quote and every section, go through ``normalize``, in two stages:

- **characters**: the fold table (dashes, quotes, primes, ellipses, ligatures NFKC keeps,
  zero-width characters), Unicode NFKC, and optionally case folding;
- **spaces and hyphens**: a hyphen after a letter is part of the word (the whitespace after it
  goes, and so does the hyphen when a letter follows: ``infor-⏎mation``, ``end- user`` and
  ``end-user`` read ``information``, ``enduser``); a soft hyphen joins a word broken at a line and
  is otherwise removed; whitespace collapses to one space; and the hyphens at either end of the
  text go, so that a quote that starts or ends inside a hyphenated word (``-user authorization``,
  ``corresponding machine-``) is still a piece of the text it was cut from.

Every step is a C-level string operation (``str.replace`` for the characters present,
``unicodedata.normalize`` only where still needed, ``str.split``/``join``, regular expressions with
no per-match Python code but for the rare hyphen followed by a space), so normalising a section
costs about as much as folding and splitting it, whatever characters it holds.

A found quote reports where it sits in the *original* section text, so
``section_text[match.start:match.end]`` is the quoted passage. The map back is built only for a
section a quote was found in (``normalize_with_map``, ``Offsets``), by the same steps: one anchor
per place where a step changed lengths, and the passage's words walked through the text as it was
before whitespace collapsed.

A ``QuoteLocator`` normalises each section once, joins the sections into blocks of about 16 KiB
(one ``\n`` between sections, a character normalised text never contains), and keeps, for each
block, which words occur in it (each word's blocks as bits, keyed by the word up to 131,072 distinct
words and by its crc32 in a fixed table beyond). A lookup runs
``str.find`` only in the blocks holding every interior word of the quote. The closest passage to a
quote that is not there starts from the quote's halves and thirds, looked for the same way (a
misquote keeps one of them intact), in a bounded number of blocks; rapidfuzz aligns the quote only
with the few places they point to, and is imported only when a quote is missing.
"""

from __future__ import annotations

import operator
import re
import unicodedata
import weakref
import zlib
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from pytest_citecheck._sources.source import Source

# --- the normalisation contract -------------------------------------------------------------

DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\ufe58\ufe63\uff0d"
DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u00ab\u00bb\u2033\u2036\u301d\u301e\uff02"
SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2039\u203a\u2032\u2035\u00b4\u0060"
SOFT_HYPHEN = "\u00ad"
# Removed outright. The soft hyphen is removed too, after it has joined a word broken at a line.
REMOVED = "\u200b\u200c\u200d\u2060\ufeff\u180e"
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
# Characters NFKC would change, replaced up front by exactly what NFKC makes of them: text set by a
# PDF or a web page is full of them, and a text left with none needs no NFKC pass at all.
_NFKC_SHORTCUTS = {
    ch: unicodedata.normalize("NFKC", ch)
    for ch in "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
    "\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06"
}
# The fold table as replacements: a handful of ``str.replace`` calls (for the characters a text
# holds) cost far less than ``str.translate``, which looks every character of a non-ASCII text up.
_REPLACEMENTS = {chr(code): text or "" for code, text in FOLD_TABLE.items()} | _NFKC_SHORTCUTS
_FOLDABLE = re.compile("[" + "".join(re.escape(ch) for ch in _REPLACEMENTS) + "]")
_RESIZED = re.compile("[" + "".join(re.escape(ch) for ch, text in _REPLACEMENTS.items() if len(text) != 1) + "]")

_LETTER = r"[^\W\d_]"
# A soft hyphen between letters, with any line break and indentation after it: the word is joined.
_SOFT_JOIN = re.compile(rf"\u00ad(?<={_LETTER}\u00ad)[\s\u00ad]*(?={_LETTER})")
# A hyphen after a letter, any run of hyphens and whitespace after it, and a letter: joined.
_JOIN = re.compile(rf"-(?<={_LETTER}-)[-\s]*(?={_LETTER})")
# A run of hyphens and whitespace that starts with a hyphen attached to what comes before it (and
# has no letter on both sides: ``pre-⏎2000``, ``2000-⏎era``): its whitespace goes, as a line broken
# at a hyphen is read, and its hyphens stay.
_AFTER_HYPHEN = re.compile(r"-(?<=\S-)-*\s[-\s]*")
_SOFT_HYPHENS = re.compile("\u00ad+")
ELISION = re.compile(r"\s*\[?\s*\.\.\.\s*\]?\s*")
# What NFKC may compose with what comes before it never starts with an ASCII character, so a text
# can be folded piece by piece at any ASCII character: a run of non-ASCII text with the character
# before it (``e`` + U+0301 is one ``é``), and the ASCII text between such runs.
_NON_ASCII_RUN = re.compile(r"[\x00-\x7f]?[^\x00-\x7f]+")
_COMBINING = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u3099\u309a"
_CLUSTER = re.compile(rf"(?s).[{_COMBINING}]*")


def _replace_foldable(text: str) -> str:
    """``text.translate(FOLD_TABLE)``, plus the NFKC shortcuts, as replacements of the characters present."""
    for ch in set(_FOLDABLE.findall(text)):
        text = text.replace(ch, _REPLACEMENTS[ch])
    return text


def _fold_rest(text: str, casefold: bool) -> str:
    """NFKC (and the fold table again: NFKC can make foldable characters) where still needed, then case."""
    if text.isascii():
        return text.lower() if casefold else text
    if not unicodedata.is_normalized("NFKC", text):
        text = _replace_foldable(unicodedata.normalize("NFKC", text))
    return text.casefold() if casefold else text


def _fold(text: str, casefold: bool) -> str:
    """The character stage: the fold table, NFKC, and case folding when asked."""
    if text.isascii():
        if "`" in text:  # the one ASCII character the fold table changes
            text = text.replace("`", "'")
        return text.lower() if casefold else text
    return _fold_rest(_replace_foldable(text), casefold)


def _hyphens(text: str) -> str:
    """Soft hyphens, and word-internal hyphens with the whitespace after them."""
    if SOFT_HYPHEN in text:
        text = _SOFT_JOIN.sub("", text).replace(SOFT_HYPHEN, "")
    if "-" in text:
        text = _AFTER_HYPHEN.sub(_hyphens_only, _JOIN.sub("", text))
    return text


def _hyphens_only(run: re.Match[str]) -> str:
    return "-" * run.group().count("-")


def _words(text: str) -> list[str]:
    """The second stage, as the normalised text's words: hyphens (``_hyphens``), whitespace collapsed,
    and a hyphen at either end that only cut a word."""
    return _collapsed(_hyphens(text))


def _collapsed(text: str) -> list[str]:
    """The words of a text, without the hyphens at either end: ``" ".join(text.split()).strip("- ")``.

    A quote cut from the middle of a line can start or end inside a hyphenated word or next to a
    dash (``-user authorization``, ``corresponding machine-``, ``- see``); without those hyphens it
    is still a piece of the text it was cut from, however that text joined or spaced them.
    """
    words = text.split()
    while words and words[0].startswith("-"):
        first = words[0].lstrip("-")
        if first:
            words[0] = first
            break
        del words[0]
    while words and words[-1].endswith("-"):
        last = words[-1].rstrip("-")
        if last:
            words[-1] = last
            break
        words.pop()
    return words


def normalize(text: str, *, casefold: bool = False) -> str:
    """The normalised form both sides of a match are compared in."""
    return " ".join(_words(_fold(text, casefold)))


# --- offsets back to the original --------------------------------------------------------------


class OffsetMap:
    """The sparse map from a text's offsets back to those of the text it was made from.

    One anchor per place where the lengths differ: ``[norm_start, norm_end)`` in the new text
    replaced ``[orig_start, orig_end)`` in the old one; offsets in between shift by plain arithmetic.
    """

    __slots__ = ("norm_starts", "norm_ends", "orig_starts", "orig_ends", "shift")

    def __init__(self) -> None:
        # 32-bit offsets: a section would need 2 GB of text to overflow them.
        self.norm_starts = array("i")
        self.norm_ends = array("i")
        self.orig_starts = array("i")
        self.orig_ends = array("i")
        self.shift = 0  # original offset minus new offset, after the last anchor

    def anchor(self, orig_start: int, orig_end: int, replacement_length: int) -> None:
        norm_start = orig_start - self.shift
        self.norm_starts.append(norm_start)
        self.norm_ends.append(norm_start + replacement_length)
        self.orig_starts.append(orig_start)
        self.orig_ends.append(orig_end)
        self.shift += (orig_end - orig_start) - replacement_length

    def anchors(self, starts: list[int], ends: list[int], lengths: list[int]) -> None:
        """Many anchors at once, in order (the arithmetic of ``anchor`` done by C-level iterators)."""
        if not starts:
            return
        deltas = map(operator.sub, map(operator.sub, ends, starts), lengths)
        shift_after = list(accumulate(deltas, initial=self.shift))
        norm_starts = list(map(operator.sub, starts, shift_after))
        self.norm_starts.extend(norm_starts)
        self.norm_ends.extend(map(operator.add, norm_starts, lengths))
        self.orig_starts.extend(starts)
        self.orig_ends.extend(ends)
        self.shift = shift_after[-1]

    def to_original(self, offset: int, *, is_end: bool) -> int:
        """The original offset of a new one: a start maps to where its character begins, an end to where it ends."""
        starts = self.norm_starts
        if is_end:
            index = bisect_left(starts, offset) - 1
            if index >= 0 and offset <= self.norm_ends[index]:
                return self.orig_ends[index]
        else:
            index = bisect_right(starts, offset) - 1
            if index >= 0 and offset < self.norm_ends[index]:
                return self.orig_starts[index]
        if index < 0:
            return offset
        return self.orig_ends[index] + (offset - self.norm_ends[index])

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """Map a ``[start, end)`` range of the new text to the old text's offsets."""
        return self.to_original(start, is_end=False), self.to_original(end, is_end=True)


def _sub_with_map(
    pattern: re.Pattern[str], replacement: str | Callable[[re.Match[str]], str], text: str, steps: list[OffsetMap]
) -> str:
    """``pattern.sub(replacement, text)``, with the map of what it changed appended to ``steps``."""
    found = list(pattern.finditer(text))
    if not found:
        return text
    step = OffsetMap()
    if isinstance(replacement, str):
        lengths = [len(replacement)] * len(found)
    else:
        lengths = [len(replacement(match)) for match in found]
    step.anchors(list(map(re.Match.start, found)), list(map(re.Match.end, found)), lengths)
    steps.append(step)
    return pattern.sub(replacement, text)


def _fold_with_map(text: str, casefold: bool, steps: list[OffsetMap]) -> str:
    """``_fold(text)`` in two steps, each anchoring the characters whose length it changes."""
    if text.isascii():
        return _fold(text, casefold)  # one for one: nothing to anchor
    resized = list(_RESIZED.finditer(text))
    if resized:
        step = OffsetMap()
        step.anchors(
            list(map(re.Match.start, resized)),
            list(map(re.Match.end, resized)),
            [len(_REPLACEMENTS[match.group()]) for match in resized],
        )
        steps.append(step)
    text = _replace_foldable(text)
    if text.isascii() or (not casefold and unicodedata.is_normalized("NFKC", text)):
        return _fold_rest(text, casefold)
    step = OffsetMap()
    pieces = []
    position = 0
    for run in _NON_ASCII_RUN.finditer(text):
        start, end = run.span()
        if start > position:
            pieces.append(_fold_rest(text[position:start], casefold))
        segment = run.group()
        whole = _fold_rest(segment, casefold)
        if len(whole) != len(segment):
            clusters = [(cluster.start(), cluster.group()) for cluster in _CLUSTER.finditer(segment)]
            folded = [_fold_rest(cluster, casefold) for _, cluster in clusters]
            if "".join(folded) == whole:
                # Anchor each character on its own, so a match that starts or ends inside a run of
                # non-ASCII text maps back to the right character, not to the run's ends.
                for (offset, cluster), result in zip(clusters, folded):
                    if len(result) != len(cluster):
                        step.anchor(start + offset, start + offset + len(cluster), len(result))
            else:  # characters that only fold together: one anchor for them all
                step.anchor(start, end, len(whole))
        pieces.append(whole)
        position = end
    if position < len(text):
        pieces.append(_fold_rest(text[position:], casefold))
    if step.norm_starts:
        steps.append(step)
    return "".join(pieces)


class Offsets:
    """Where a normalised text's passages are in the original: ``original_span(start, end)``.

    The map stops short of the last step, collapsing whitespace, which changes lengths at every line
    break: a passage is placed instead by walking its words through the text just before that step
    (``spaced``), where they stand in the same order, whitespace between them, and the steps
    before it (folding characters, joining hyphenated words) map back by their anchors.
    """

    __slots__ = ("normalized", "spaced", "steps")

    def __init__(self, normalized: str, spaced: str, steps: list[OffsetMap]) -> None:
        self.normalized = normalized
        self.spaced = spaced
        self.steps = steps

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """Map ``[start, end)`` of the normalised text to the original text's offsets."""
        passage = self.normalized[start:end]
        stripped = passage.strip(" ")
        if not stripped:  # nothing to place: the point where the passage would start
            point = self._spaced_span(self.normalized[start:], 0)
            at = point[0] if point is not None else len(self.spaced)
            return self._through_steps(at, at)
        start += len(passage) - len(passage.lstrip(" "))
        # The same passage earlier in the text: that many occurrences to walk past first.
        earlier, at = 0, self.normalized.find(stripped)
        while 0 <= at < start:
            earlier += 1
            at = self.normalized.find(stripped, at + 1)
        spaced = self._spaced_span(stripped, earlier)
        if spaced is None:  # cannot happen: ``spaced`` collapses to ``normalized``
            return 0, self._through_steps(len(self.spaced), len(self.spaced))[1]
        return self._through_steps(*spaced)

    def _spaced_span(self, passage: str, earlier: int) -> tuple[int, int] | None:
        """Where the words of ``passage`` stand in ``spaced`` (skipping ``earlier`` occurrences)."""
        text = self.spaced
        length = len(text)
        first, *rest = passage.split(" ")
        position = 0
        while True:
            at = text.find(first, position)
            if at < 0:
                return None
            cursor = at + len(first)
            for word in rest:
                gap = cursor
                while gap < length and text[gap].isspace():
                    gap += 1
                if gap == cursor or not text.startswith(word, gap):
                    break
                cursor = gap + len(word)
            else:
                if not earlier:
                    return at, cursor
                earlier -= 1
            position = at + 1

    def _through_steps(self, start: int, end: int) -> tuple[int, int]:
        for step in reversed(self.steps):
            start, end = step.original_span(start, end)
        return start, end


def normalize_with_map(original: str, *, casefold: bool = False) -> tuple[str, Offsets]:
    """``normalize(original)`` by the same steps, and where its passages are in ``original`` (``Offsets``)."""
    steps: list[OffsetMap] = []
    text = _fold_with_map(original, casefold, steps)
    if SOFT_HYPHEN in text:
        text = _sub_with_map(_SOFT_JOIN, "", text, steps)
        text = _sub_with_map(_SOFT_HYPHENS, "", text, steps)
    if "-" in text:
        text = _sub_with_map(_JOIN, "", text, steps)
        text = _sub_with_map(_AFTER_HYPHEN, _hyphens_only, text, steps)
    normalized = " ".join(_collapsed(text))
    return normalized, Offsets(normalized, text, steps)


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
    return [_trim_cut_hyphens(fragment) for fragment in ELISION.split(needle) if _trim_cut_hyphens(fragment)]


def _trim_cut_hyphens(fragment: str) -> str:
    """A fragment between elisions has ends too: its hyphens there go, as at the quote's ends."""
    return fragment.strip("- ")


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


BLOCK_SIZE = 1 << 14
# The word index is exact up to this many distinct words, then a fixed table of crc32-hashed words.
_EXACT_WORDS_AT_MOST = 1 << 17
_HASHED_SLOTS = 1 << 16


def _slot(word: str) -> int:
    # Not hash(): str hashes are salted per process (PYTHONHASHSEED), so the blocks searched, and with
    # them which passage closest() reports, would differ between xdist workers and runs.
    return zlib.crc32(word.encode("utf-8", "surrogatepass")) & (_HASHED_SLOTS - 1)


class _WordIndex:
    """Which blocks each word occurs in, as bits (``blocks_of``): the index ``_Corpus`` searches by.

    Keyed by the words themselves while there are at most ``_EXACT_WORDS_AT_MOST`` distinct words:
    exact, and the fastest to build. Past that, a fixed table of ``_HASHED_SLOTS`` crc32-hashed
    slots, so that a text of millions of distinct tokens (hashes, numbers, base64) costs bounded
    memory; a slot two words share only costs a wasted ``str.find``. Both are the same in every
    process, whatever its hash seed.
    """

    def __init__(self) -> None:
        self._exact: dict[str, int] | None = {}
        self._hashed: list[int] = []

    @property
    def hashed(self) -> bool:
        return self._exact is None

    def add(self, words: set[str], bit: int) -> None:
        exact = self._exact
        if exact is None:
            table = self._hashed
            for word in words:
                table[_slot(word)] |= bit
            return
        blocks_of = exact.get
        for word in words:
            exact[word] = blocks_of(word, 0) | bit
        if len(exact) > _EXACT_WORDS_AT_MOST:
            self._hashed = [0] * _HASHED_SLOTS
            for word, bits in exact.items():
                self._hashed[_slot(word)] |= bits
            self._exact = None

    def blocks_of(self, word: str) -> int:
        return self._hashed[_slot(word)] if self._exact is None else self._exact.get(word, 0)


# How many places the closest-passage search screens, and how many of them it aligns the quote with.
CANDIDATE_PLACES = 12
CANDIDATE_PASSAGES = 3
# How many blocks ``closest`` searches, and how many occurrences of a word in each it uses.
_BLOCKS_SEARCHED = 10
_OCCURRENCES_USED = 4


class _Corpus:
    """Every section of a source, normalised once, in blocks of whole sections, with a word index.

    Sections are joined (one ``\\n`` apart, a character normalised text never contains) into blocks of
    about ``BLOCK_SIZE`` characters; a section larger than that is a block of its own. A needle never
    spans two sections, so it never spans two blocks. The index (``_WordIndex``) records which
    blocks each word occurs in. The normalised blocks, the index and the offset maps of the sections a
    quote was found in are kept: memory is about one normalised copy of the source.
    """

    def __init__(self, source: Source, casefold: bool) -> None:
        self.source = source
        self.casefold = casefold
        self.ids: list[str] = list(source.order)
        self.position = {section_id: index for index, section_id in enumerate(self.ids)}
        self._maps: dict[int, Offsets] = {}
        self.blocks: list[str] = []
        self.section_block = array("i")  # section index -> its block
        self.section_start = array("i")  # section index -> where it starts in its block
        self.section_end = array("i")
        self.block_first_section: list[int] = []  # block -> index of its first section
        pieces: list[str] = []
        size = 0
        sections = source.sections
        # Each block's words, gathered from the normalisation's own word lists (no second split),
        # go into the index when the block is closed: only one block's words are held at a time.
        word_index = _WordIndex()
        words_here: set[str] = set()
        for index, section_id in enumerate(self.ids):
            words = _words(_fold(sections[section_id], casefold))
            text = " ".join(words)
            if pieces and size + len(text) > BLOCK_SIZE:
                self._close_block(pieces, words_here, word_index)
                pieces, size, words_here = [], 0, set()
            if not pieces:
                self.block_first_section.append(index)
            self.section_block.append(len(self.blocks))
            self.section_start.append(size)
            self.section_end.append(size + len(text))
            pieces.append(text)
            words_here.update(words)
            size += len(text) + 1
        self._close_block(pieces, words_here, word_index)
        # One block needs no index: every lookup searches it.
        self.word_index: _WordIndex | None = word_index if len(self.blocks) >= 2 else None

    def _close_block(self, pieces: list[str], words: set[str], word_index: _WordIndex) -> None:
        word_index.add(words, 1 << len(self.blocks))
        self.blocks.append("\n".join(pieces))

    def section_text(self, index: int) -> str:
        return self.blocks[self.section_block[index]][self.section_start[index] : self.section_end[index]]

    def original_span(self, index: int, start: int, end: int) -> tuple[int, int]:
        """Offsets in the original section text of ``[start, end)`` in its normalised text.

        The section's map is built the first time a quote is found in it, by the same steps as the
        normalised text, so the two agree character for character.
        """
        offsets = self._maps.get(index)
        if offsets is None:
            text, offsets = normalize_with_map(self.source.sections[self.ids[index]], casefold=self.casefold)
            normalized = self.section_text(index)
            if text != normalized:  # both follow the same steps, so this should not happen; if it does,
                # the passage is placed by the map's own text rather than misplaced
                at = text.find(normalized[start:end])
                if at < 0:
                    return 0, len(self.source.sections[self.ids[index]])
                return offsets.original_span(at, at + (end - start))
            self._maps[index] = offsets
        return offsets.original_span(start, end)

    def _section_in_block(self, block: int, position: int) -> int:
        first = self.block_first_section[block]
        last = self.block_first_section[block + 1] if block + 1 < len(self.blocks) else len(self.ids)
        return bisect_right(self.section_start, position, first, last) - 1

    def _blocks_with(self, words: list[str] | set[str]) -> int:
        """The blocks (as bits) that may hold every one of ``words``."""
        assert self.word_index is not None
        mask = (1 << len(self.blocks)) - 1
        for word in words:
            mask &= self.word_index.blocks_of(word)
            if not mask:
                break
        return mask

    def _candidate_blocks(self, needle: str) -> range | list[int]:
        """Blocks that may hold ``needle``, in order: those holding every interior word of it."""
        interior = needle.split(" ")[1:-1]
        if self.word_index is None or not interior:
            return range(len(self.blocks))
        return _bits(self._blocks_with(set(interior)))

    def _blocks_may_hold(self, needle: str) -> int:
        """``_candidate_blocks`` as bits."""
        interior = needle.split(" ")[1:-1]
        if self.word_index is None or not interior:
            return (1 << len(self.blocks)) - 1
        return self._blocks_with(set(interior))

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

    def passages_like(self, needle: str, limit: int) -> list[tuple[int, int]]:
        """Up to ``limit`` places, (section index, offset in its normalised text), where a passage like
        ``needle`` most likely starts, most votes first; the cost does not grow with the source.

        A misquote keeps most of the passage it misquotes word for word: with one word changed, one
        half of the quote is intact; with two, one third may be. The halves and thirds are looked for
        as ``find`` looks for a quote (in the blocks the index says may hold them), the most
        distinctive first (the piece fewest blocks may hold: boilerplate such as a page header is
        in many), at most ``_BLOCKS_SEARCHED`` blocks in all; each occurrence votes for where the
        whole quote would start. When no piece is in the text (a quote more invented than
        misquoted), the blocks holding all its words but one, or the most of its rarer words, are
        searched for its two longest words.
        """
        words = needle.split(" ")
        votes: dict[tuple[int, int], list[int]] = {}  # (section, 16-character bucket) -> [votes, start]
        offsets = dict(_word_offsets(words))
        count = len(words)
        pieces = []
        for parts in (2, 3):
            if count >= 2 * parts:
                bounds = [count * part // parts for part in range(parts + 1)]
                for first, last in zip(bounds, bounds[1:]):
                    piece = " ".join(words[first:last])
                    mask = self._blocks_may_hold(piece)
                    if mask:
                        pieces.append((mask.bit_count(), -len(piece), first, piece, mask))
        budget = _BLOCKS_SEARCHED
        for _, _, first, piece, mask in sorted(pieces):
            for block in _bits(mask, budget):
                self._vote(votes, block, piece, offsets[first], weight=len(piece))
                budget -= 1
            if budget <= 0:
                break
        if not votes:
            interior = [word for word in (words[1:-1] if count > 2 else words) if word]
            for block in self._blocks_for_passage(interior or words):
                held = [word for word in set(interior or words) if len(word) >= 3 and self._may_hold(block, word)]
                for word in sorted(held, key=lambda word: (-len(word), word))[:2]:
                    self._vote(votes, block, word, offsets[words.index(word)], weight=1, whole_word=True)
        places: list[tuple[int, int]] = []
        for (index, _), (_, start) in sorted(votes.items(), key=lambda item: (-item[1][0], item[0])):
            if any(index == other and abs(start - at) < len(needle) // 2 for other, at in places):
                continue
            places.append((index, start))
            if len(places) == limit:
                break
        return places

    def _vote(
        self,
        votes: dict[tuple[int, int], list[int]],
        block: int,
        piece: str,
        offset: int,
        weight: int,
        whole_word: bool = False,
    ) -> None:
        """Each occurrence of ``piece`` in ``block`` (the first few) votes for where the quote, ``offset``
        characters before the piece, would start: (section index, 16-character bucket)."""
        text = self.blocks[block]
        found = 0
        at = text.find(piece)
        while at >= 0 and found < _OCCURRENCES_USED:
            end = at + len(piece)
            if not whole_word or ((at == 0 or text[at - 1] in " \n") and (end == len(text) or text[end] in " \n")):
                found += 1
                index = self._section_in_block(block, at)
                start = max(0, at - self.section_start[index] - offset)
                vote = votes.setdefault((index, start // 16), [0, start])
                vote[0] += weight
            at = text.find(piece, at + 1)

    def _may_hold(self, block: int, word: str) -> bool:
        return self.word_index is None or bool(self.word_index.blocks_of(word) >> block & 1)

    def _blocks_for_passage(self, words: list[str]) -> list[int]:
        """Blocks likely to hold a passage with these words, best first, at most ``_BLOCKS_SEARCHED``."""
        if self.word_index is None:
            return [0]
        masks = [self.word_index.blocks_of(word) for word in words]
        every = (1 << len(self.blocks)) - 1
        # Prefix and suffix ANDs: the blocks holding every word but the i-th, for each i, in O(words).
        prefix = [every]
        for mask in masks:
            prefix.append(prefix[-1] & mask)
        suffix = [every]
        for mask in reversed(masks):
            suffix.append(suffix[-1] & mask)
        suffix.reverse()
        all_words = prefix[-1]
        all_but_one = 0
        for i in range(len(masks)):
            all_but_one |= prefix[i] & suffix[i + 1]
        chosen = _bits(all_words, _BLOCKS_SEARCHED)
        if len(chosen) < _BLOCKS_SEARCHED:
            chosen += _bits(all_but_one & ~all_words, _BLOCKS_SEARCHED - len(chosen))
        if chosen:
            return chosen
        # More invented than misquoted: the blocks holding the most of its words, among those
        # holding its two rarest words (the first 64 of them, so that the cost stays bounded).
        held = sorted((mask for mask in masks if mask), key=int.bit_count)
        candidates = _bits(held[0] | held[1 % len(held)], 64) if held else []
        scored = sorted(candidates, key=lambda block: (-sum(mask >> block & 1 for mask in masks), block))
        return scored[:_BLOCKS_SEARCHED]


def _bits(mask: int, limit: int | None = None) -> list[int]:
    """The positions of the bits set in ``mask``, lowest first (the first ``limit`` of them)."""
    positions: list[int] = []
    while mask and (limit is None or len(positions) < limit):
        low = mask & -mask
        positions.append(low.bit_length() - 1)
        mask ^= low
    return positions


def _word_offsets(words: list[str]) -> Iterator[tuple[int, int]]:
    """(word index, where the word starts in ``" ".join(words)``)."""
    offset = 0
    for index, word in enumerate(words):
        yield index, offset
        offset += len(word) + 1


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
        return corpus.section_text(corpus.position[section_id])

    def find(self, quote: str, *, casefold: bool = False, prefer_section: str | None = None) -> Match | None:
        """The first section (in the source's order) containing ``quote``, or None.

        ``prefer_section`` is looked in first (a citation that says where its passage is, such as
        an Anthropic citation's character offsets); the rest of the source is the fallback.
        """
        needle = normalize(quote, casefold=casefold)
        fragments = [_trim_cut_hyphens(fragment) for fragment in ELISION.split(needle)]
        fragments = [fragment for fragment in fragments if fragment]
        if not fragments:
            return None
        corpus = self.corpus(casefold)
        attempts = [[needle], fragments] if fragments != [needle] else [fragments]
        for attempt in attempts:  # a literal "..." in the source is matched as is before it is read as an elision
            located = None
            if prefer_section is not None and prefer_section in corpus.position:
                located = corpus.locate(attempt, within=corpus.position[prefer_section])
            if located is None:
                located = corpus.locate(attempt)
            if located is not None:
                index, start, end = located
                original_start, original_end = corpus.original_span(index, start, end)
                return Match(corpus.ids[index], original_start, original_end)
        return None

    def closest(self, quote: str, *, casefold: bool = False, score_cutoff: float = 0.0) -> Match | None:
        """The passage most like ``quote`` (rapidfuzz alignment), or None when nothing reaches ``score_cutoff`` (0..1)."""
        from rapidfuzz import fuzz

        needle = " ".join(quote_fragments(quote, casefold=casefold))
        if not needle:
            return None
        corpus = self.corpus(casefold)
        # The places voted for are screened by how like the quote the text right there is (a cheap
        # ratio of two strings of the quote's length); the best few are aligned, with some slack.
        screened = []
        for index, at in corpus.passages_like(needle, CANDIDATE_PLACES):
            section = corpus.section_text(index)
            screened.append((fuzz.ratio(needle, section[at : at + len(needle)]), index, at))
        screened.sort(key=lambda item: (-item[0], item[1], item[2]))
        best: tuple[float, int, Any, str, int] | None = None
        slack = len(needle) // 4 + 16
        for _, index, at in screened[:CANDIDATE_PASSAGES]:
            start = max(0, at - slack)
            text = corpus.section_text(index)[start : at + len(needle) + slack]
            if not text.strip():
                continue
            alignment = fuzz.partial_ratio_alignment(needle, text, score_cutoff=score_cutoff * 100)
            if alignment is None:
                continue
            if best is None or alignment.score > best[0]:
                best = (alignment.score, index, alignment, text, start)
        if best is None:
            return None
        score, index, alignment, text, offset = best
        # dest is the passage, whichever of the two is longer (src is the quote: rapidfuzz swaps
        # them back after aligning a passage shorter than the quote).
        section = corpus.section_text(index)
        start, end = alignment.dest_start + offset, alignment.dest_end + offset
        # The alignment's edges are loose: widen them to whole words, then trim a stray space or
        # full stop the quote does not have.
        while start > 0 and section[start - 1].isalnum() and section[start].isalnum():
            start -= 1
        while end < len(section) and section[end].isalnum() and section[end - 1].isalnum():
            end += 1
        while start < end and not section[start].isalnum() and section[start] != needle[0]:
            start += 1
        while end > start and not section[end - 1].isalnum() and section[end - 1] != needle[-1]:
            end -= 1
        original_start, original_end = corpus.original_span(index, start, end)
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
                    original_start, original_end = corpus.original_span(index, start, end)
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
