"""The word index: every section of a source normalised once, in blocks, with the blocks each word is in.

A ``WordIndex`` normalises each section once, joins the sections into blocks of about 16 KiB
(one ``\n`` between sections, a character normalised text never contains), and keeps, for each
block, which words occur in it (``WordBlocks``: each word's blocks as bits, keyed by the word up to
131,072 distinct words and by its crc32 in a fixed table beyond). A lookup runs ``str.find`` only
in the blocks holding every interior word of the quote. The places a passage like a quote that is
not there may start come from the quote's halves and thirds, looked for the same way (a misquote
keeps one of them intact), in a bounded number of blocks.

A section of a Markdown or reStructuredText source is indexed twice over: as written, then, after a
``\n``, as a reader sees it (``display``), so that a quote of either is found; its offsets map back
to the section as written from both.
"""

from __future__ import annotations

import zlib
from array import array
from bisect import bisect_right
from collections.abc import Iterator, Mapping
from typing import Protocol

from pytest_citecheck._locate.display import section_markup, widened
from pytest_citecheck._locate.normalize import fold, hyphens_in, normalize_marked, words_of
from pytest_citecheck._locate.offsets import OffsetMap, Offsets, normalize_with_map
from pytest_citecheck._locate.placing import Placed, place
from pytest_citecheck._locate.rules import Piece, SectionJoins

BLOCK_SIZE = 1 << 14
# The word index is exact up to this many distinct words, then a fixed table of crc32-hashed words.
_EXACT_WORDS_AT_MOST = 1 << 17
_HASHED_SLOTS = 1 << 16


def _slot(word: str) -> int:
    # Not hash(): str hashes are salted per process (PYTHONHASHSEED), so the blocks searched, and with
    # them which passage closest() reports, would differ between xdist workers and runs.
    return zlib.crc32(word.encode("utf-8", "surrogatepass")) & (_HASHED_SLOTS - 1)


class Sections(Protocol):
    """What the word index reads of a ``Source``: the sections' texts, and the order they are searched in."""

    @property
    def sections(self) -> Mapping[str, str]: ...

    @property
    def order(self) -> tuple[str, ...]: ...


class WordBlocks:
    """Which blocks each word occurs in, as bits (``blocks_of``): the index ``WordIndex`` searches by.

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

    @property
    def exact_table(self) -> dict[str, int] | None:
        """Word -> blocks (as bits) while the table is keyed by the words themselves, else None."""
        return self._exact

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


# How many blocks ``closest`` searches, and how many occurrences of a word in each it uses.
_BLOCKS_SEARCHED = 10
_OCCURRENCES_USED = 4
# (section index, 16-character bucket) -> [votes, start]: where a passage like a quote may start.
Votes = dict[tuple[int, int], list[int]]


class WordIndex:
    """Every section of a source, normalised once, in blocks of whole sections, with a word index.

    Sections are joined (one ``\\n`` apart, a character normalised text never contains) into blocks of
    about ``BLOCK_SIZE`` characters; a section larger than that is a block of its own. A needle never
    spans two sections, so it never spans two blocks. The index (``WordBlocks``) records which
    blocks each word occurs in. The normalised blocks, the index and the offset maps of the sections a
    quote was found in are kept: memory is about one normalised copy of the source.
    """

    def __init__(self, source: Sections, casefold: bool, part_of: tuple[WordIndex, int] | None = None) -> None:
        """``part_of``: (``parent``, ``first``) when ``source``'s sections, in order, are ``parent``'s from
        section index ``first`` on (a document of a ``Corpus`` in the corpus's joined index): their
        normalised texts are taken from ``parent`` rather than normalised again, and the offset maps
        and hyphen joins are ``parent``'s (the same texts, the same casefold, so the same maps)."""
        self.source = source
        self.casefold = casefold
        self.ids: list[str] = list(source.order)
        self.position = {section_id: index for index, section_id in enumerate(self.ids)}
        self._part_of = part_of
        self._markup = section_markup(source)
        # Section index -> where its displayed part starts, less one: a section of Markdown or
        # reStructuredText whose markup, taken out, changes its words is indexed as its normalised text,
        # a ``\n`` (which no quote holds, so none is found across it), and its displayed text normalised.
        self.display_at: dict[int, int] = {}
        self._maps: dict[int, Offsets] = {}
        self._displays: dict[int, tuple[Offsets, OffsetMap]] = {}
        self._joins: dict[int, SectionJoins] = {}
        # Section index -> 2 when its text has a hyphen inside a word (a quote must keep it), 1 when it
        # has other hyphens (at a line break: they may join words), 0 when it has none.
        self.hyphenated = bytearray()
        self.blocks: list[str] = []
        self.section_block = array("i")  # section index -> its block
        self.section_start = array("i")  # section index -> where it starts in its block
        self.section_end = array("i")
        self.block_first_section: list[int] = []  # block -> index of its first section
        pieces: list[str] = []
        size = 0
        # Each block's words, gathered from the normalisation's own word lists (no second split),
        # go into the index when the block is closed: only one block's words are held at a time.
        word_blocks = WordBlocks()
        words_here: set[str] = set()
        for index, (text, words) in enumerate(self._normalized()):
            if pieces and size + len(text) > BLOCK_SIZE:
                self._close_block(pieces, words_here, word_blocks)
                pieces, size, words_here = [], 0, set()
            if not pieces:
                self.block_first_section.append(index)
            self.section_block.append(len(self.blocks))
            self.section_start.append(size)
            self.section_end.append(size + len(text))
            pieces.append(text)
            words_here.update(words)
            size += len(text) + 1
        self._close_block(pieces, words_here, word_blocks)
        # One block needs no index: every lookup searches it.
        self.word_blocks: WordBlocks | None = word_blocks if len(self.blocks) >= 2 else None

    def _normalized(self) -> Iterator[tuple[str, list[str]]]:
        """Each section's normalised text and its words, in order (``hyphenated`` filled on the way)."""
        if self._part_of is not None:
            parent, first = self._part_of
            for index in range(first, first + len(self.ids)):
                text = parent.section_text(index)
                self.hyphenated.append(parent.hyphenated[index])
                if index in parent.display_at:
                    self.display_at[index - first] = parent.display_at[index]
                    yield text, text.split()
                    continue
                # The normalised text is its words one space apart, none of them empty.
                yield text, text.split(" ") if text else []
            return
        sections = self.source.sections
        casefold = self.casefold
        for index, section_id in enumerate(self.ids):
            text = sections[section_id]
            folded = fold(text, casefold)
            words = words_of(folded)
            hyphens = hyphens_in(folded)
            markup = self._markup(section_id)
            shown = markup.displayed(text) if markup is not None else None
            if shown is None:
                self.hyphenated.append(hyphens)
                yield " ".join(words), words
                continue
            folded = fold(shown[0], casefold)
            shown_words = words_of(folded)
            self.hyphenated.append(max(hyphens, hyphens_in(folded)))
            if shown_words == words:
                yield " ".join(words), words
                continue
            self.display_at[index] = len(" ".join(words))
            yield " ".join(words) + "\n" + " ".join(shown_words), words + shown_words

    def _close_block(self, pieces: list[str], words: set[str], word_blocks: WordBlocks) -> None:
        word_blocks.add(words, 1 << len(self.blocks))
        self.blocks.append("\n".join(pieces))

    def section_text(self, index: int) -> str:
        return self.blocks[self.section_block[index]][self.section_start[index] : self.section_end[index]]

    def original_span(self, index: int, start: int, end: int) -> tuple[int, int]:
        """Offsets in the original section text of ``[start, end)`` in its normalised text.

        The section's map is built the first time a quote is found in it, by the same steps as the
        normalised text, so the two agree character for character.
        """
        if self._part_of is not None:
            parent, first = self._part_of
            return parent.original_span(first + index, start, end)
        split = self.display_at.get(index) if self.display_at else None
        if split is not None:  # a passage of one part (``place`` never finds one across the ``\n``)
            if start > split:
                return self._displayed_span(index, start - split - 1, end - split - 1)
            end = min(end, split)
        offsets = self._maps.get(index)
        if offsets is None:
            text, offsets = normalize_with_map(self.source.sections[self.ids[index]], casefold=self.casefold)
            normalized = self.section_text(index)[:split]
            if text != normalized:  # both follow the same steps, so this should not happen; if it does,
                # the passage is placed by the map's own text rather than misplaced
                at = text.find(normalized[start:end])
                if at < 0:
                    return 0, len(self.source.sections[self.ids[index]])
                return offsets.original_span(at, at + (end - start))
            self._maps[index] = offsets
        return offsets.original_span(start, end)

    def _displayed_span(self, index: int, start: int, end: int) -> tuple[int, int]:
        """``original_span`` of ``[start, end)`` in section ``index``'s displayed part: through the normalised
        displayed text's map, then the map from the displayed text back to the section's own."""
        maps = self._displays.get(index)
        original = self.source.sections[self.ids[index]]
        if maps is None:
            markup = self._markup(self.ids[index])
            shown = markup.displayed(original) if markup is not None else None
            assert shown is not None, "a section has a displayed part only when its markup is taken out"
            _, offsets = normalize_with_map(shown[0], casefold=self.casefold)
            maps = self._displays[index] = (offsets, shown[1])
        offsets, step = maps
        return widened(step, original, *offsets.original_span(start, min(end, len(offsets.normalized))))

    def part_bounds(self, index: int, at: int) -> tuple[int, int]:
        """``[start, end)`` in section ``index``'s normalised text of the part (as written, or displayed) ``at`` is in."""
        split = self.display_at.get(index)
        length = self.section_end[index] - self.section_start[index]
        if split is None:
            return 0, length
        return (split + 1, length) if at > split else (0, split)

    def section_in_block(self, block: int, position: int) -> int:
        first = self.block_first_section[block]
        last = self.block_first_section[block + 1] if block + 1 < len(self.blocks) else len(self.ids)
        return bisect_right(self.section_start, position, first, last) - 1

    def _blocks_with(self, words: list[str] | set[str]) -> int:
        """The blocks (as bits) that may hold every one of ``words``."""
        assert self.word_blocks is not None
        mask = (1 << len(self.blocks)) - 1
        exact = self.word_blocks.exact_table
        if exact is not None:  # the table's own lookup (``blocks_of`` is a method call per word)
            for word in words:
                mask &= exact.get(word, 0)
                if not mask:
                    break
            return mask
        for word in words:
            mask &= self.word_blocks.blocks_of(word)
            if not mask:
                break
        return mask

    def candidate_blocks(self, needle: str) -> range | list[int]:
        """Blocks that may hold ``needle``, in order: those holding every interior word of it."""
        interior = needle.split(" ")[1:-1]
        if self.word_blocks is None or not interior:
            return range(len(self.blocks))
        return _bits(self._blocks_with(set(interior)))

    def _blocks_may_hold(self, needle: str) -> int:
        """``candidate_blocks`` as bits."""
        interior = needle.split(" ")[1:-1]
        if self.word_blocks is None or not interior:
            return (1 << len(self.blocks)) - 1
        return self._blocks_with(set(interior))

    def locate(self, pieces: list[Piece], within: int | None = None) -> Placed | None:
        """Where ``pieces`` stand (``placing.place``): section index, ``[start, end)`` in its normalised
        text and what any elision left out; ``within`` restricts the search to one section."""
        return place(self, pieces, within)

    def joins(self, index: int) -> SectionJoins:
        """Where section ``index`` joined hyphenated words, and how (built the first time it is asked for)."""
        if self._part_of is not None:
            parent, first = self._part_of
            return parent.joins(first + index)
        found = self._joins.get(index)
        if found is None:
            original = self.source.sections[self.ids[index]]
            marked = normalize_marked(original, casefold=self.casefold)
            if index in self.display_at:  # the displayed part's joins, after the same ``\n``
                shown = self._markup(self.ids[index]).displayed(original)  # type: ignore[union-attr]
                marked += "\n" + normalize_marked(shown[0] if shown else "", casefold=self.casefold)
            found = self._joins[index] = SectionJoins(marked)
        return found

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
        votes: Votes = {}
        offsets = dict(_word_offsets(words))
        budget = _BLOCKS_SEARCHED
        for _, _, first, piece, mask in sorted(self._pieces(words)):
            for block in _bits(mask, budget):
                self._vote(votes, block, piece, offsets[first], weight=len(piece))
                budget -= 1
            if budget <= 0:
                break
        if not votes:
            self._vote_by_words(votes, words, offsets)
        return _best_places(votes, limit, len(needle) // 2)

    def _pieces(self, words: list[str]) -> list[tuple[int, int, int, str, int]]:
        """The quote's halves and thirds that some block may hold: (blocks, -length, first word, piece, blocks as bits)."""
        count = len(words)
        pieces = []
        for parts in (2, 3):
            if count < 2 * parts:
                continue
            bounds = [count * part // parts for part in range(parts + 1)]
            for first, last in zip(bounds, bounds[1:]):
                piece = " ".join(words[first:last])
                mask = self._blocks_may_hold(piece)
                if mask:
                    pieces.append((mask.bit_count(), -len(piece), first, piece, mask))
        return pieces

    def _vote_by_words(self, votes: Votes, words: list[str], offsets: dict[int, int]) -> None:
        """No piece of the quote is in the text: its two longest words vote, in the blocks most like it."""
        interior = [word for word in (words[1:-1] if len(words) > 2 else words) if word]
        for block in self._blocks_for_passage(interior or words):
            held = [word for word in set(interior or words) if len(word) >= 3 and self._may_hold(block, word)]
            for word in sorted(held, key=lambda word: (-len(word), word))[:2]:
                self._vote(votes, block, word, offsets[words.index(word)], weight=1, whole_word=True)

    def _vote(
        self,
        votes: Votes,
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
                index = self.section_in_block(block, at)
                start = max(0, at - self.section_start[index] - offset)
                vote = votes.setdefault((index, start // 16), [0, start])
                vote[0] += weight
            at = text.find(piece, at + 1)

    def _may_hold(self, block: int, word: str) -> bool:
        return self.word_blocks is None or bool(self.word_blocks.blocks_of(word) >> block & 1)

    def _blocks_for_passage(self, words: list[str]) -> list[int]:
        """Blocks likely to hold a passage with these words, best first, at most ``_BLOCKS_SEARCHED``."""
        if self.word_blocks is None:
            return [0]
        masks = [self.word_blocks.blocks_of(word) for word in words]
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


def _best_places(votes: Votes, limit: int, apart: int) -> list[tuple[int, int]]:
    """The ``limit`` places with the most votes, (section index, start), none within ``apart`` of a better one."""
    places: list[tuple[int, int]] = []
    for (index, _), (_, start) in sorted(votes.items(), key=lambda item: (-item[1][0], item[0])):
        if any(index == other and abs(start - at) < apart for other, at in places):
            continue
        places.append((index, start))
        if len(places) == limit:
            break
    return places


def _word_offsets(words: list[str]) -> Iterator[tuple[int, int]]:
    """(word index, where the word starts in ``" ".join(words)``)."""
    offset = 0
    for index, word in enumerate(words):
        yield index, offset
        offset += len(word) + 1
