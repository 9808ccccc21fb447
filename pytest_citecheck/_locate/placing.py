"""Where in a ``WordIndex`` a quote's pieces stand, by the rule for quotes (``rules``).

Each occurrence of the first piece, in the blocks the index says may hold the quote, is tried in
turn: the piece must keep the numbers and hyphens of the section (``number_edges.cuts_a_number``,
``SectionJoins.agree``); an elided quote's next pieces follow in the same section, in order, each
within ``GAP_LIMIT`` characters and no paragraph break of the one before. A placement whose gaps
remove no word that turns the meaning is preferred; failing one, a placement that does is returned
with the words removed, and the quote is ``altered``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from pytest_citecheck._locate.number_edges import (
    GROUPED,
    TABLE_CELL_REST,
    cuts_a_number,
    dollar_space,
    group_space,
    separator_dash,
    sign_space,
    spaced_minus,
)
from pytest_citecheck._locate.rules import (
    GAP_LIMIT,
    PARAGRAPH_BREAK,
    Piece,
    gap_turns,
    inside_a_word,
    removed_words,
    turns_a_word,
)

if TYPE_CHECKING:
    from pytest_citecheck._locate.word_index import WordIndex


class Placed(NamedTuple):
    """Where a quote stands: the section's position in the index, ``[start, end)`` in its normalised text, and for an elided
    quote what each elision left out and, of that, what turns the meaning (``rules.gap_turns``)."""

    position: int
    start: int
    end: int
    removed: tuple[str, ...] = ()
    turning: tuple[tuple[str, ...], ...] = ()


# The most places an elided quote's later pieces are tried at, in one search for it. A quote of a few pieces in
# prose takes some hundreds, each up to ~0.15 ms (what its gap leaves out is read); 200 pieces of "a b a b a b"
# over 8 KB of "a b" took 107 s even with every dead end
# remembered (``Tries.failed``), and hours without.
MAX_TRIES = 10_000


class TooManyPlaces(Exception):
    """An elided quote whose pieces stand at too many places to be placed within ``MAX_TRIES``: step 1
    (``_locate.citations.locate``) makes it the citation's input error; never a quote not found."""

    def __init__(self, pieces: int) -> None:
        super().__init__(
            f"elides text {pieces - 1} times, and its pieces stand at so many places in the source (a text that "
            f"repeats itself) that placing them took more than {MAX_TRIES:,} tries: step 1 cannot tell where the "
            "quote stands, nor what its elisions leave out; quote the passage whole, or with fewer '...'"
        )


class Tries:
    """One search's work: the (piece, position) pairs of a block from which the rest of the quote cannot be placed
    (that depends on nothing else: without them each dead end was walked again along every path to it, exponential in
    the pieces), and how many more places may be tried (``MAX_TRIES``)."""

    __slots__ = ("failed", "left", "pieces")

    def __init__(self, pieces: int) -> None:
        self.failed: set[tuple[int, int]] = set()
        self.left = MAX_TRIES
        self.pieces = pieces

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise TooManyPlaces(self.pieces)


def place(indexed: WordIndex, pieces: list[Piece], within: int | None = None) -> Placed | None:
    """The first place (in the source's order) where ``pieces`` stand; ``within`` restricts it to one section.

    Raises ``TooManyPlaces`` when an elided quote's pieces stand at too many places to tell within ``MAX_TRIES``."""
    tries = Tries(len(pieces))
    placed = _search(indexed, pieces, within, strict=True, tries=tries)
    if placed is None and len(pieces) > 1:
        placed = _search(indexed, pieces, within, strict=False, tries=tries)
    return placed


def _search(indexed: WordIndex, pieces: list[Piece], within: int | None, strict: bool, tries: Tries) -> Placed | None:
    first = pieces[0].text
    if within is not None:
        blocks: range | list[int] = [indexed.section_block[within]]
    else:
        longest = pieces[0].text if len(pieces) == 1 else max((piece.text for piece in pieces), key=len)
        blocks = indexed.candidate_blocks(longest)
    for block in blocks:
        text = indexed.blocks[block]
        tries.failed.clear()  # positions are the block's
        low, high = 0, len(text)
        if within is not None:
            low, high = indexed.section_start[within], indexed.section_end[within]
        at = text.find(first, low, high)
        while at >= 0:
            placed = _from(indexed, text, indexed.section_in_block(block, at), pieces, (at, tries), strict)
            if placed is not None:
                return placed
            at = text.find(first, at + 1, high)
    return None


def _from(
    indexed: WordIndex,
    text: str,
    index: int,
    pieces: list[Piece],
    start: tuple[int, Tries],
    strict: bool,
) -> Placed | None:
    """The placement whose first piece is at ``at`` (in section ``index`` of the block ``text``), or None.

    ``start``: ``at``, and the search's ``Tries`` (shared by every first piece tried in the block)."""
    at, tries = start
    if not _fits(indexed, text, index, pieces[0], at) or turns_a_word(
        text, at, start=True, hyphen=_acronym_hyphen(indexed, text, index, at)
    ):
        return None
    if len(pieces) == 1:  # a quote that elides nothing: no gap, nothing removed
        if turns_a_word(text, at + len(pieces[0].text), start=False):
            return None
        base = indexed.section_start[index]
        return Placed(index, at - base, at + len(pieces[0].text) - base)
    if _cut_inside_a_word(indexed, text, index, at + len(pieces[0].text)) or turns_a_word(
        text, at + len(pieces[0].text), start=False
    ):
        return None
    rest = _rest(indexed, text, index, pieces, (1, at, tries), strict)
    if rest is None:
        return None
    starts = [at, *rest]
    base = indexed.section_start[index]
    ends = [start + len(piece.text) for start, piece in zip(starts, pieces)]
    if turns_a_word(text, ends[-1], start=False):
        return None
    gaps = list(zip(ends, starts[1:]))
    removed = tuple(_removed(indexed, text, index, end, start) for end, start in gaps)
    turning = tuple(tuple(gap_turns(text, end, start, gap)) for (end, start), gap in zip(gaps, removed))
    return Placed(index, at - base, ends[-1] - base, removed, turning)


def _removed(indexed: WordIndex, text: str, index: int, start: int, end: int) -> str:
    """What the elision between ``start`` and ``end`` left out (``rules.removed_words``), its words apart
    where the section joined them at a hyphen or dash ("not—and" is "not and", not "notand")."""
    if not indexed.hyphenated[index]:
        return removed_words(text, start, end)
    base = indexed.section_start[index]
    return removed_words(text, start, end, indexed.joins(index).inline, base)


def _acronym_hyphen(indexed: WordIndex, text: str, index: int, at: int) -> bool:
    """The section had a hyphen at ``at`` between capitals and small letters ("DES-based"), which normalisation
    joined: a quote may start after an acronym there (``rules.turns_a_word``)."""
    return (
        0 < at < len(text)
        and text[at - 1].isupper()
        and text[at].islower()
        and bool(indexed.hyphenated[index])
        and at - indexed.section_start[index] in indexed.joins(index).joins
    )


def _cut_inside_a_word(indexed: WordIndex, text: str, index: int, at: int) -> bool:
    """An elision's edge at ``at`` cuts a word of the section in two ("must not …" in "must notify");
    a hyphen or dash the section had there (joined by normalisation) is a word's edge."""
    if not inside_a_word(text, at):
        return False
    return not indexed.hyphenated[index] or at - indexed.section_start[index] not in indexed.joins(index).joins


def _rest(
    indexed: WordIndex,
    text: str,
    index: int,
    pieces: list[Piece],
    after: tuple[int, int, Tries],
    strict: bool,
) -> list[int] | None:
    """Where pieces ``k`` on stand, after piece ``k - 1`` at ``previous`` (``after``): each within the gap limit."""
    k, previous, tries = after
    if (k, previous) in tries.failed:
        return None
    piece = pieces[k]
    cursor = previous + len(pieces[k - 1].text)
    limit = min(indexed.section_end[index], cursor + GAP_LIMIT + len(piece.text))
    at = text.find(piece.text, cursor, limit)
    while at >= 0:
        tries.spend()
        if _fits(indexed, text, index, piece, at) and _gap_fits(indexed, text, index, (previous, cursor, at), strict):
            if _cut_inside_a_word(indexed, text, index, at) or (
                k + 1 < len(pieces) and _cut_inside_a_word(indexed, text, index, at + len(piece.text))
            ):
                at = text.find(piece.text, at + 1, limit)
                continue
            # At a hyphen the section joined ("de-compress"), a piece must not drop a prefix or suffix that turns it.
            if turns_a_word(text, at, start=True, hyphen=_acronym_hyphen(indexed, text, index, at)) or (
                k + 1 < len(pieces) and turns_a_word(text, at + len(piece.text), start=False)
            ):
                at = text.find(piece.text, at + 1, limit)
                continue
            if k + 1 == len(pieces):
                return [at]
            rest = _rest(indexed, text, index, pieces, (k + 1, at, tries), strict)
            if rest is not None:
                return [at, *rest]
        at = text.find(piece.text, at + 1, limit)
    tries.failed.add((k, previous))
    return None


def _fits(indexed: WordIndex, text: str, index: int, piece: Piece, at: int) -> bool:
    """The piece at ``at`` keeps the section's numbers whole and its hyphens as they are."""
    end = at + len(piece.text)
    if cuts_a_number(text, at, end):
        return False
    # A number at either end may stop at a space that groups its digits (most pieces start and end with a letter).
    if (text[at].isdigit() or text[end - 1].isdigit()) and _cuts_a_group(indexed, text, index, at, end):
        return False
    if _cuts_a_sign(indexed, text, index, at, end):
        return False
    # A quote's minus a space apart (``rules.quote_pieces``): the section's sign.
    if piece.text.startswith("- ") and not (spaced_minus(text, at) and written_as_a_sign(indexed, text, index, at)):
        return False
    hyphens = indexed.hyphenated[index]
    if hyphens == 2 or (hyphens and piece.inline):
        return indexed.joins(index).agree(at - indexed.section_start[index], piece)
    return not piece.inline  # no hyphen inside a word to keep; none to have but at a line break


def _cuts_a_group(indexed: WordIndex, text: str, index: int, start: int, end: int) -> bool:
    """The piece ``[start, end)`` starts or ends at a space the section wrote to group a number's digits
    ("59 000" with a no-break or thin space, ``number_edges.GROUPED``); an ordinary space there separates two numbers."""
    for at in (start, end):
        space = group_space(text, at)
        if space >= 0:
            base = indexed.section_start[index]
            first, last = indexed.original_span(index, space - 1 - base, space + 4 - base)
            if GROUPED.search(indexed.source.sections[indexed.ids[index]], first, last):
                return True
    return False


def _cuts_a_sign(indexed: WordIndex, text: str, index: int, start: int, end: int) -> bool:
    """The piece ``[start, end)`` starts or ends at the space between a number and a sign the section wrote a space
    apart, where reading it needs the section as written: a minus before the number ("- 18 °C", ``sign_space``,
    ``written_as_a_sign``), or "$" after an amount ("5 $", ``dollar_space``, ``written_after_an_amount``)."""
    for at in (start, end):
        dash = sign_space(text, at)
        if dash >= 0 and written_as_a_sign(indexed, text, index, dash):
            return True
        dollar = dollar_space(text, at)
        if dollar >= 0 and written_after_an_amount(indexed, index, dollar - indexed.section_start[index]):
            return True
    return False


# The dashes a minus is written with, a space before its number: a hyphen-minus, a hyphen, a figure or en dash, the
# minus sign. An em dash, a horizontal bar and a hyphen bullet stand between words, never for a sign.
_MINUS_DASHES = "-\u2010\u2011\u2012\u2013\u2212\ufe63\uff0d"


def written_as_a_sign(indexed: WordIndex, text: str, index: int, dash: int) -> bool:
    """The "-" at ``dash`` in ``text``, the block of section ``index``, was written as a minus: a minus sign (U+2212)
    anywhere, or a hyphen or en dash that is no separator between a word and an amount written English-style ("call -
    7% speedup", ``number_edges.separator_dash``) and does not open its line, unless that line is a table's cell ("- 18°
    C |"): elsewhere a dash that opens its line is a list's bullet ("- 5 % off"). The dash is placed in the section as
    written with its number ("- 18"): a dash alone may be placed on another one, where normalisation dropped a dash that
    opened the section."""
    base, section_end = indexed.section_start[index], indexed.section_end[index]
    number = text.find(" ", dash + 2, section_end)
    first, last = indexed.original_span(index, dash - base, (number if number > 0 else section_end) - base)
    original = indexed.source.sections[indexed.ids[index]]
    written = original[first : first + 1]
    if written == "\u2212":
        return True
    if written not in _MINUS_DASHES or first >= last or separator_dash(text, dash):
        return False
    return not _opens_a_line(original, first) or _a_table_cell(original, first)


def _a_table_cell(original: str, at: int) -> bool:
    """The line ``original[at]`` stands on is a table's cell (``number_edges.TABLE_CELL_REST``); read to its end only."""
    return _TABLE_CELL.match(original, at) is not None


_TABLE_CELL = re.compile(TABLE_CELL_REST)


def written_after_an_amount(indexed: WordIndex, index: int, dollar: int) -> bool:
    """The "$" at ``dollar`` in section ``index``'s normalised text does not open its line as the section wrote it
    (there it is a shell prompt after a command's output: "bozo's ID is 1000⏎$ IFS=..."); placed with the digit
    before it."""
    first, last = indexed.original_span(index, dollar - 2, dollar + 1)
    original = indexed.source.sections[indexed.ids[index]]
    return last > first and original[last - 1] == "$" and not _opens_a_line(original, last - 1)


def _opens_a_line(original: str, at: int) -> bool:
    """Only spaces stand before ``original[at]`` on its line (read back over those spaces only)."""
    while at > 0 and original[at - 1] in " \t\u00a0\u2007\u2009\u202f\u3000":
        at -= 1
    return at == 0 or original[at - 1] in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def written_edges(indexed: WordIndex, index: int, start: int, end: int) -> tuple[int, int]:
    """A passage ``[start, end)`` in section ``index``'s normalised text, widened to a minus a space before its number
    and to a "$" a space after its amount where the section wrote them so (``_cuts_a_sign``): the passage shows the sign
    its quote may have dropped."""
    text, base = indexed.blocks[indexed.section_block[index]], indexed.section_start[index]
    dash = sign_space(text, base + start)
    if dash >= 0 and written_as_a_sign(indexed, text, index, dash):
        start = dash - base
    dollar = dollar_space(text, base + end)
    if dollar >= 0 and written_after_an_amount(indexed, index, dollar - base):
        end = dollar + 1 - base
    return start, end


def _gap_fits(indexed: WordIndex, text: str, index: int, places: tuple[int, int, int], strict: bool) -> bool:
    """The gap between the piece at ``previous`` (ending at ``cursor``) and the next at ``at``: no
    paragraph break in the section's own text, and (``strict``) no word removed that turns the meaning."""
    previous, cursor, at = places
    if text.find("\n", cursor, at) >= 0:  # from a section's text as written into its displayed part
        return False
    if strict and gap_turns(text, cursor, at, _removed(indexed, text, index, cursor, at)):
        return False
    base = indexed.section_start[index]
    # From the end of the piece before to the start of the next, in the original text (line breaks kept).
    gap_from = indexed.original_span(index, previous - base, cursor - base)[1]
    gap_to = indexed.original_span(index, at - base, at - base + 1)[0]
    original = indexed.source.sections[indexed.ids[index]]
    return PARAGRAPH_BREAK.search(original, gap_from, max(gap_from, gap_to)) is None
