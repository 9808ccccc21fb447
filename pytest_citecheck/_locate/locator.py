"""``QuoteLocator``: finds quotes in one source, exactly (after normalisation) or the closest passage.

Each section is normalised once (``WordIndex``), however many quotes are looked up. The closest
passage to a quote that is not there starts from the places the index votes for; rapidfuzz aligns
the quote only with the few best of them, and is imported only when a quote is missing.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from pytest_citecheck._locate.display import Markup, layouts_of
from pytest_citecheck._locate.normalize import quote_fragments
from pytest_citecheck._locate.number_edges import number_edges
from pytest_citecheck._locate.placing import Placed, written_edges
from pytest_citecheck._locate.rules import Piece, quote_pieces
from pytest_citecheck._locate.word_index import Sections, WordIndex


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
    # For an elided quote: what each elision left out (``rules.removed_words``), and of that what turns the
    # meaning (``rules.gap_turns``: a negation, a condition, a number read in another's place).
    removed: tuple[str, ...] = ()
    turning: tuple[tuple[str, ...], ...] = ()

    @property
    def turning_words(self) -> list[str]:
        """The words an elision removed that turn the meaning: the quote is ``altered``."""
        return [word for gap in self.turning for word in gap]

    @property
    def turning_gaps(self) -> tuple[str, ...]:
        """What each elision that removed a word turning the meaning left out."""
        return tuple(gap for gap, turning in zip(self.removed, self.turning) if turning)


class Closest(NamedTuple):
    """The passage most like a quote, in the normalised text: ``[start, end)`` of the section at ``position``."""

    similarity: float
    casefold: bool
    position: int
    start: int
    end: int


# How many places the closest-passage search screens, and how many of them it aligns the quote with.
CANDIDATE_PLACES = 12
CANDIDATE_PASSAGES = 3
# rapidfuzz's partial ratio tries, besides each window of the quote's length, every shorter window at the passage's two
# ends, each costing the quote's length squared / 64: cubic in the quote's length (a fabricated quote of 11,000
# characters took 34 s to align with a passage it is not, one of 100,000 did not end). A quote longer than LONG_QUOTE is
# aligned with windows of its own length only, starting at a word within LONG_QUOTE_SLACK characters of its place: a
# passage with more words inserted or dropped than that aligns less well, which only lowers its similarity.
LONG_QUOTE = 1_000
LONG_QUOTE_SLACK = 32


class QuoteLocator:
    """Finds quotes in one source; each section is normalised once, however many quotes are looked up."""

    def __init__(self, source: Sections, *, part_of: tuple[QuoteLocator, int] | None = None) -> None:
        """``part_of``: (``parent``, ``first``) when ``source``'s sections, in order, are ``parent``'s
        from section index ``first`` on: the word index is made from ``parent``'s normalised texts
        (``WordIndex``'s ``part_of``) instead of normalising them again. What is found is the same."""
        self.source = source
        self._part_of = part_of
        self._indexes: dict[bool, WordIndex] = {}
        # A quote that keeps some of the markup of a Markdown or reStructuredText source (``code``
        # backquoted, links taken out) is looked for as its displayed words too.
        self._markups = tuple(Markup(layout) for layout in layouts_of(source))

    def word_index(self, casefold: bool = False) -> WordIndex:
        found = self._indexes.get(casefold)
        if found is None:
            part_of = None
            if self._part_of is not None:
                parent, first = self._part_of
                part_of = (parent.word_index(casefold), first)
            found = self._indexes[casefold] = WordIndex(self.source, casefold, part_of)
        return found

    def normalized_text(self, section_id: str, casefold: bool = False) -> str:
        """The normalised text of one section, as quotes are matched against it."""
        indexed = self.word_index(casefold)
        return indexed.section_text(indexed.position[section_id])

    def find(
        self, quote: str, *, casefold: bool = False, prefer_section: str | None = None, literal: bool = False
    ) -> Match | None:
        """The first section (in the source's order) containing ``quote``, or None.

        ``prefer_section`` is looked in first (a citation that says where its passage is, such as
        an Anthropic citation's character offsets); the rest of the source is the fallback. The rule for
        quotes applies (``rules``): numbers and hyphens kept, elisions within a paragraph.
        ``literal``: an ellipsis in ``quote`` is text, never an elision (a retrieved chunk is verbatim).
        """
        indexed = self.word_index(casefold)
        for attempt in self._attempts(quote, casefold, literal):
            placed = None
            if prefer_section is not None and prefer_section in indexed.position:
                placed = indexed.locate(attempt, within=indexed.position[prefer_section])
            if placed is None:
                placed = indexed.locate(attempt)
            if placed is not None:
                return self._match(indexed, placed)
        return None

    def _attempts(self, quote: str, casefold: bool, literal: bool = False) -> list[list[Piece]]:
        """``quote_pieces`` of the quote, then of its displayed words in each markup the source has (when
        taking the quote's own markup out changes it). ``literal``: a retrieved chunk, verbatim: as given only."""
        attempts = quote_pieces(quote, casefold=casefold, literal=literal)
        if not self._markups or literal or not attempts:
            return attempts
        for markup in self._markups:
            for shown in markup.quoted(quote):
                attempts += [pieces for pieces in quote_pieces(shown, casefold=casefold) if pieces not in attempts]
        return attempts

    @staticmethod
    def _match(indexed: WordIndex, placed: Placed) -> Match:
        start, end = indexed.original_span(placed.position, placed.start, placed.end)
        return Match(indexed.ids[placed.position], start, end, removed=placed.removed, turning=placed.turning)

    def closest(self, quote: str, *, casefold: bool = False, score_cutoff: float = 0.0) -> Match | None:
        """The passage most like ``quote`` (rapidfuzz alignment), or None when nothing reaches ``score_cutoff`` (0..1)."""
        place = self.closest_place(quote, casefold=casefold, score_cutoff=score_cutoff)
        return None if place is None else self.match_at(place)

    def closest_place(self, quote: str, *, casefold: bool = False, score_cutoff: float = 0.0) -> Closest | None:
        """``closest``'s passage before it is mapped back to the original text (``match_at``): a caller
        weighing two candidates maps only the one it keeps."""
        needle = " ".join(quote_fragments(quote, casefold=casefold))
        if not needle:
            return None
        indexed = self.word_index(casefold)
        best = _best_alignment(indexed, needle, score_cutoff)
        if best is None:
            return None
        score, index, start, end = best
        start, end = _word_edges(indexed.section_text(index), start, end, needle)
        start, end = written_edges(indexed, index, start, end)
        return Closest(round(score / 100, 4), casefold, index, start, end)

    def match_at(self, place: Closest) -> Match:
        """The ``Match`` of a ``closest_place``: offsets in the section's original text."""
        indexed = self.word_index(place.casefold)
        original_start, original_end = indexed.original_span(place.position, place.start, place.end)
        return Match(
            indexed.ids[place.position], original_start, original_end, similarity=place.similarity, approximate=True
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

        Matching is ``find``'s (normalisation, the rule for quotes, a literal "..." tried first).
        """
        attempts = self._attempts(quote, casefold)
        if not attempts or not section_ids:
            return None
        indexed = self.word_index(casefold)
        positions = self._section_positions(indexed)
        for attempt in attempts:
            for section_id in section_ids:
                placed = indexed.locate(attempt, within=positions[section_id])
                if placed is not None:
                    return self._match(indexed, placed)
        return None

    @staticmethod
    def _section_positions(indexed: WordIndex) -> dict[str, int]:
        """Section id -> its index in ``indexed``, built once per normalised form (a dict, not ``list.index``)."""
        positions = _SECTION_POSITIONS.get(indexed)
        if positions is None:
            positions = _SECTION_POSITIONS[indexed] = {
                section_id: index for index, section_id in enumerate(indexed.ids)
            }
        return positions


_SECTION_POSITIONS: weakref.WeakKeyDictionary[WordIndex, dict[str, int]] = weakref.WeakKeyDictionary()


def _best_alignment(indexed: WordIndex, needle: str, score_cutoff: float) -> tuple[float, int, int, int] | None:
    """(score, section index, start, end) of the best alignment of ``needle`` near the places voted for.

    The places are screened by how like the quote the text right there is (a cheap ratio of two
    strings of the quote's length); the best few are aligned, with some slack.
    """
    from rapidfuzz import fuzz

    screened = []
    for index, at in indexed.passages_like(needle, CANDIDATE_PLACES):
        section = indexed.section_text(index)
        screened.append((fuzz.ratio(needle, section[at : at + len(needle)]), index, at))
    screened.sort(key=lambda item: (-item[0], item[1], item[2]))
    best: tuple[float, int, int, int] | None = None
    slack = len(needle) // 4 + 16 if len(needle) <= LONG_QUOTE else LONG_QUOTE_SLACK
    for _, index, at in screened[:CANDIDATE_PASSAGES]:
        # Within the part of the section (as written, or displayed) the place is in.
        low, high = indexed.part_bounds(index, at)
        start = max(low, at - slack)
        text = indexed.section_text(index)[start : min(high, at + len(needle) + slack)]
        if not text.strip():
            continue
        alignment = _aligned(needle, text, score_cutoff * 100)
        if alignment is not None and (best is None or alignment[0] > best[0]):
            best = (alignment[0], index, alignment[1] + start, alignment[2] + start)
    return best


def _aligned(needle: str, text: str, score_cutoff: float) -> tuple[float, int, int] | None:
    """(score, start, end) in ``text`` of ``needle``'s best alignment (0..100), or None below ``score_cutoff``."""
    from rapidfuzz import fuzz

    if len(needle) <= LONG_QUOTE:
        alignment = fuzz.partial_ratio_alignment(needle, text, score_cutoff=score_cutoff)
        # dest is the passage, whichever of the two is longer (src is the quote: rapidfuzz swaps
        # them back after aligning a passage shorter than the quote).
        return None if alignment is None else (alignment.score, alignment.dest_start, alignment.dest_end)
    best: tuple[float, int, int] | None = None
    last = max(0, len(text) - len(needle))
    # From the window's start and each word's (a normalised text: words are one space apart).
    for at in (0, *(at + 1 for at, character in enumerate(text[:last]) if character == " ")):
        score = fuzz.ratio(needle, text[at : at + len(needle)], score_cutoff=score_cutoff)
        if score and (best is None or score > best[0]):
            best = (score, at, min(len(text), at + len(needle)))
    return best


def _word_edges(section: str, start: int, end: int, needle: str) -> tuple[int, int]:
    """An alignment's loose edges widened to whole words, then a stray space or full stop the quote lacks trimmed."""
    while start > 0 and section[start - 1].isalnum() and section[start].isalnum():
        start -= 1
    while end < len(section) and section[end].isalnum() and section[end - 1].isalnum():
        end += 1
    while start < end and not section[start].isalnum() and section[start] != needle[0]:
        start += 1
    while end > start and not section[end - 1].isalnum() and section[end - 1] != needle[-1]:
        end -= 1
    # A number whole, sign and range included: the passage of "1 release a year" in ">1 release a year"
    # shows the ">" its quote dropped (docs: matching, Numbers).
    return number_edges(section, start, end)
