"""Offsets back to the original: where a normalised passage is in the text it was made from.

A found quote reports where it sits in the *original* section text, so
``section_text[match.start:match.end]`` is the quoted passage. The map back is built only for a
section a quote was found in (``normalize_with_map``, ``Offsets``), by the same steps as
``normalize``: one anchor per place where a step changed lengths, and the passage's words walked
through the text as it was before whitespace collapsed.
"""

from __future__ import annotations

import operator
import re
import unicodedata
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from itertools import accumulate, repeat

from pytest_citecheck._locate.normalize import (
    AFTER_HYPHEN,
    CLUSTER,
    JOIN,
    NON_ASCII_RUN,
    REPLACEMENTS,
    RESIZED,
    SOFT_HYPHEN,
    SOFT_HYPHENS,
    SOFT_JOIN,
    collapsed,
    fold,
    fold_rest,
    hyphens_only,
    replace_foldable,
)


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
    """``fold(text)`` in two steps, each anchoring the characters whose length it changes."""
    if text.isascii():
        return fold(text, casefold)  # one for one: nothing to anchor
    resized = list(RESIZED.finditer(text))
    if resized:
        step = OffsetMap()
        step.anchors(
            list(map(re.Match.start, resized)),
            list(map(re.Match.end, resized)),
            [len(REPLACEMENTS[match.group()]) for match in resized],
        )
        steps.append(step)
    text = replace_foldable(text)
    if text.isascii() or (not casefold and unicodedata.is_normalized("NFKC", text)):
        return fold_rest(text, casefold)
    return _fold_runs_with_map(text, casefold, steps)


def _fold_runs_with_map(text: str, casefold: bool, steps: list[OffsetMap]) -> str:
    """NFKC and case folding, run of non-ASCII text by run, anchoring each change of length."""
    step = OffsetMap()
    pieces = []
    position = 0
    for run in NON_ASCII_RUN.finditer(text):
        start, end = run.span()
        if start > position:
            pieces.append(fold_rest(text[position:start], casefold))
        pieces.append(_fold_run_with_map(run.group(), start, casefold, step))
        position = end
    if position < len(text):
        pieces.append(fold_rest(text[position:], casefold))
    if step.norm_starts:
        steps.append(step)
    return "".join(pieces)


def _fold_run_with_map(segment: str, start: int, casefold: bool, step: OffsetMap) -> str:
    """One run of non-ASCII text (at ``start``) folded; ``step`` anchors what changed length."""
    whole = fold_rest(segment, casefold)
    if len(whole) == len(segment):
        return whole
    clusters = [(cluster.start(), cluster.group()) for cluster in CLUSTER.finditer(segment)]
    folded = [fold_rest(cluster, casefold) for _, cluster in clusters]
    if "".join(folded) != whole:  # characters that only fold together: one anchor for them all
        step.anchor(start, start + len(segment), len(whole))
        return whole
    # Anchor each character on its own, so a match that starts or ends inside a run of non-ASCII
    # text maps back to the right character, not to the run's ends.
    for (offset, cluster), result in zip(clusters, folded):
        if len(result) != len(cluster):
            step.anchor(start + offset, start + offset + len(cluster), len(result))
    return whole


# A run of whitespace: what ``str.split`` splits at (``\s`` is ``str.isspace``).
_SPACE_RUN = re.compile(r"\s+")


class Offsets:
    """Where a normalised text's passages are in the original: ``original_span(start, end)``.

    The map stops short of the last step, collapsing whitespace, which changes lengths at every line
    break: a passage is placed instead by walking its words through the text just before that step
    (``spaced``), where they stand in the same order, whitespace between them, and the steps
    before it (folding characters, joining hyphenated words) map back by their anchors.
    """

    __slots__ = ("normalized", "spaced", "steps", "_starts")

    def __init__(self, normalized: str, spaced: str, steps: list[OffsetMap]) -> None:
        self.normalized = normalized
        self.spaced = spaced
        self.steps = steps
        # Where each word starts in ``normalized`` and in ``spaced`` (``_word_starts``), once asked for.
        self._starts: tuple[array[int], array[int]] | tuple[()] | None = None

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """Map ``[start, end)`` of the normalised text to the original text's offsets."""
        passage = self.normalized[start:end]
        stripped = passage.strip(" ")
        if not stripped:  # nothing to place: the point where the passage would start
            point = self._spaced_span(self.normalized[start:], 0)
            at = point[0] if point is not None else len(self.spaced)
            return self._through_steps(at, at)
        start += len(passage) - len(passage.lstrip(" "))
        placed = self._by_words(stripped, start)
        if placed is not None:
            return self._through_steps(*placed)
        # The same passage earlier in the text: that many occurrences to walk past first.
        earlier, at = 0, self.normalized.find(stripped)
        while 0 <= at < start:
            earlier += 1
            at = self.normalized.find(stripped, at + 1)
        spaced = self._spaced_span(stripped, earlier)
        if spaced is None:  # cannot happen: ``spaced`` collapses to ``normalized``
            return 0, self._through_steps(len(self.spaced), len(self.spaced))[1]
        return self._through_steps(*spaced)

    def _by_words(self, stripped: str, start: int) -> tuple[int, int] | None:
        """``_spaced_span``'s answer for the passage at ``start``, by word position rather than by walking.

        When ``normalized`` is exactly ``spaced``'s words one space apart (no hyphen trimmed at its
        ends), the walk's n-th occurrence of a passage in ``spaced`` is its n-th in ``normalized``, word
        for word: the passage at ``start`` (inside word i, o characters in, over k words) stands in
        ``spaced`` o characters into word i, and ends with its last word in word i + k - 1. None when
        that does not hold (the walk then places it) or the passage is not at ``start``.
        """
        starts = self._word_starts()
        if len(starts) != 2 or not self.normalized.startswith(stripped, start):
            return None
        normalized_starts, spaced_starts = starts
        first = bisect_right(normalized_starts, start) - 1
        offset = start - normalized_starts[first]
        words = stripped.count(" ")
        last_word = len(stripped) - stripped.rfind(" ") - 1
        at = spaced_starts[first] + offset
        return at, (at if not words else spaced_starts[first + words]) + last_word

    def _word_starts(self) -> tuple[array[int], array[int]] | tuple[()]:
        """Where each word starts in ``normalized`` and in ``spaced``; empty when their words differ.

        Kept for every section a quote was found in, so as 32-bit arrays: 4 bytes a word, where lists
        held an int object and a pointer, 36 (+22 MB over the 5 MB of the step 1 bench's memory row).
        Worked out from the words' lengths and the whitespace between them, by C-level iterators.
        The hyphens normalisation trims at the text's ends (``collapsed``: a list's first bullet, "- The token") are
        words, or a first word's start, that ``normalized`` lacks: its words start that much later in ``spaced``.
        """
        if self._starts is None:
            self._starts = ()
            spaced = self.spaced
            words = spaced.split()
            kept, cut = _kept_words(words, self.normalized)
            if kept is not None:
                lengths = list(map(len, words))
                # The runs of whitespace ``split`` splits at (``\s`` is ``str.isspace``), the first one
                # before the first word when the text starts with whitespace.
                gaps = list(map(len, _SPACE_RUN.findall(spaced)))
                lead = gaps[0] if spaced[0].isspace() else 0
                between = gaps[1:] if lead else gaps
                starts = array("i", accumulate(map(operator.add, lengths[:-1], between), initial=lead))
                starts = starts[kept.start : kept.stop]
                starts[0] += cut
                lengths = lengths[kept.start : kept.stop - 1]
                if lengths:
                    lengths[0] -= cut
                normalized = array("i", accumulate(map(operator.add, lengths, repeat(1)), initial=0))
                self._starts = (normalized, starts)
        return self._starts

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


def _kept_words(words: list[str], normalized: str) -> tuple[slice | None, int]:
    """Which of ``spaced``'s ``words`` are ``normalized``'s, one space apart, and how many hyphens normalisation cut
    from the first one's start (``collapsed``: words of hyphens alone at either end go, and the hyphens at the ends of
    the first and last words left); (None, 0) when that does not make ``normalized``."""
    first, last = 0, len(words)
    while first < last and not words[first].strip("-"):
        first += 1
    while last > first and not words[last - 1].strip("-"):
        last -= 1
    if first == last:
        return None, 0
    joined = " ".join(words[first:last])
    for cut in (0, len(joined) - len(joined.lstrip("-"))):
        if joined.startswith(normalized, cut) and not joined[cut + len(normalized) :].strip("-"):
            if " " not in joined[cut + len(normalized) :] and cut < len(words[first]):
                return slice(first, last), cut
    return None, 0


def normalize_with_map(original: str, *, casefold: bool = False) -> tuple[str, Offsets]:
    """``normalize(original)`` by the same steps, and where its passages are in ``original`` (``Offsets``)."""
    steps: list[OffsetMap] = []
    text = _fold_with_map(original, casefold, steps)
    if SOFT_HYPHEN in text:
        text = _sub_with_map(SOFT_JOIN, "", text, steps)
        text = _sub_with_map(SOFT_HYPHENS, "", text, steps)
    if "-" in text:
        text = _sub_with_map(JOIN, "", text, steps)
        text = _sub_with_map(AFTER_HYPHEN, hyphens_only, text, steps)
    normalized = " ".join(collapsed(text))
    return normalized, Offsets(normalized, text, steps)


class NormalizedText:
    """A text's normalised form plus the map back to offsets in the original text."""

    __slots__ = ("text", "map")

    def __init__(self, original: str, *, casefold: bool = False) -> None:
        self.text, self.map = normalize_with_map(original, casefold=casefold)

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        return self.map.original_span(start, end)
