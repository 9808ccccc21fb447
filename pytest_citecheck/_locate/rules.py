"""The rule for quotes (``docs/matching.md``): what a place in a section must be for a quote to stand there.

Normalisation (``normalize``) says which texts compare equal; these rules say which of the places a
normalised quote occurs at are the quote's. Each is checked where a piece of a quote was found:

- **numbers**: a piece never starts or ends inside a number (its digits, its decimal separator, its
  sign, a space that groups its digits): "The fee is 50" is not in "The fee is 500", nor "40 degrees"
  in "-40 degrees", nor "within 1" in "within 1 000 days" written with a no-break or thin space;
- **hyphens**: a hyphen is dropped only at a line break. Normalisation joins every hyphenated
  word (so that a word broken at a line is found); the joins are told apart here: where the
  section's hyphen stood inside the word (``re-sign``), the quote must have it (``resign`` is
  another word), and where the quote has one, so must the section;
- **elisions**: a quote that leaves text out (``...``) has pieces of at least ``MIN_PIECE_WORDS``
  words each, in one section, in order, each gap shorter than a paragraph (no blank line, at most
  ``GAP_LIMIT`` characters). A gap that holds a word that turns the meaning (``NEGATIONS``,
  ``n't``, RFC 2119's ``MUST NOT``), a phrase that makes a condition (``CONDITIONS``: "only if"), or
  a number the quote reads another number in place of (``gap_turns``) makes the quote ``altered``.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from pytest_citecheck._locate.normalize import (
    JOINED_AT_BREAK,
    JOINED_INLINE,
    normalize,
    normalize_marked,
    split_elisions,
    trim_cut_hyphens,
)
from pytest_citecheck._locate.number_edges import CURRENCIES, JOINERS, SCALES, SIGNS, SPACED_SIGNS, UNITS, joined_signs
from pytest_citecheck._locate.number_edges import TABLE_CELL_REST as _TABLE_CELL_REST
from pytest_citecheck._locate.number_edges import digit as _digit

MIN_PIECE_WORDS = 3
# A gap longer than this (normalised characters) is more than a paragraph's worth of text.
GAP_LIMIT = 500
PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")

# Words that turn the meaning of what they stand in, in the languages the contract covers (English,
# French, German, Spanish, Italian, Portuguese, Dutch); with any word ending in n't (don't, can't)
# or starting with n' (French: n'est). RFC 2119's MUST NOT, SHALL NOT and SHOULD NOT hold "not".
NEGATIONS = frozenset(
    """
    not no never without except unless cannot nor neither none nothing nobody nowhere naught nought
    ne pas jamais sans sauf aucun aucune ni rien nul nulle nullement guère
    nicht nichts niemand nirgends nirgendwo kein keine keinen keinem keiner keines nie niemals ohne außer ausser weder
    nunca jamás sin salvo excepto ningún ninguna ninguno ningunos ningunas nada nadie tampoco
    non mai senza tranne nessun nessuno nessuna niente nulla né neanche nemmeno neppure
    não sem exceto nenhum nenhuma nem ninguém
    niet geen nooit zonder behalve niets niemand nergens noch
    """.split()
)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
# Read as the word a reader sees: apostrophes (U+2019, and U+02BC, the one Unicode recommends, which is a
# letter to ``\w``) as ', and the Greek and Cyrillic letters drawn like Latin ones as those (a section's
# "MUST ΝΟΤ" in Greek capitals reads "MUST NOT"). Only for this check: matching compares characters.
_AS_READ = str.maketrans(
    {
        "\u2019": "'",
        "\u02bc": "'",
        **dict.fromkeys("\u0391\u0410", "A"),
        **dict.fromkeys("\u0392\u0412", "B"),
        **dict.fromkeys("\u0395\u0415", "E"),
        **dict.fromkeys("\u0397\u041d", "H"),
        **dict.fromkeys("\u0399\u0406", "I"),
        **dict.fromkeys("\u039a\u041a", "K"),
        **dict.fromkeys("\u039c\u041c", "M"),
        "\u039d": "N",
        **dict.fromkeys("\u039f\u041e", "O"),
        **dict.fromkeys("\u03a1\u0420", "P"),
        "\u0421": "C",
        **dict.fromkeys("\u03a4\u0422", "T"),
        **dict.fromkeys("\u03a5\u04ae", "Y"),
        **dict.fromkeys("\u03a7\u0425", "X"),
        **dict.fromkeys("\u03bf\u043e", "o"),
        **dict.fromkeys("\u03b1\u0430", "a"),
        "\u0435": "e",
        **dict.fromkeys("\u03c1\u0440", "p"),
        "\u0441": "c",
        "\u0443": "y",
        **dict.fromkeys("\u03c7\u0445", "x"),
        **dict.fromkeys("\u03b9\u0456", "i"),
        "\u0458": "j",
        "\u0455": "s",
        "\u04bb": "h",
        "\u03bd": "v",
        "\u03ba": "k",
    }
)
_MARKS = re.compile(f"[{JOINED_AT_BREAK}{JOINED_INLINE}]")


@dataclass(frozen=True)
class Piece:
    """A piece of a quote as it is searched for: its normalised text, and where it joined a hyphenated
    word (offset in ``text`` -> ``JOINED_INLINE`` or ``JOINED_AT_BREAK``)."""

    text: str
    joins: dict[int, str] = field(default_factory=dict)

    @property
    def words(self) -> int:
        return self.text.count(" ") + 1

    @property
    def inline(self) -> bool:
        """The piece has a hyphen inside a word, which the section must have too."""
        return JOINED_INLINE in self.joins.values()


def piece_of(marked: str) -> Piece:
    """A ``Piece`` from normalised text with its joins marked (``normalize_marked``)."""
    if JOINED_AT_BREAK not in marked and JOINED_INLINE not in marked:
        return Piece(marked)
    joins, _ = marks_of(marked)
    return Piece(_MARKS.sub("", marked), joins)


def marks_of(marked: str) -> tuple[dict[int, str], list[int]]:
    """The joins of a marked text, by offset in the text without its marks; and those offsets, in order."""
    joins: dict[int, str] = {}
    removed = 0
    for mark in _MARKS.finditer(marked):
        joins[mark.start() - removed] = mark.group()
        removed += 1
    return joins, list(joins)


# A quote that opens with a minus a space before its number ("− 18 °C est bonne"): normalisation drops a dash at a text's
# ends, so the quote is searched for with the sign first (where the section writes it as a sign, ``placing``), then
# as normalised.
_LEADING_MINUS = re.compile(r"\s*[-\u2010\u2011\u2012\u2013\u2212\ufe63\uff0d]\s+\d")


def quote_pieces(quote: str, *, casefold: bool = False, literal: bool = False) -> list[list[Piece]]:
    """The ways to search for a quote, in order: whole (a literal "..." in the source matches as is),
    then, when it elides text and every piece is long enough, its pieces. Empty for a quote of nothing.
    A quote that opens with a minus a space apart from its number is searched for with it first."""
    attempts = _quote_pieces(quote, casefold, literal)
    if not attempts or not attempts[0][0].text[:1].isdigit() or _LEADING_MINUS.match(quote) is None:
        return attempts
    signed = [
        [Piece("- " + first.text, {at + 2: join for at, join in first.joins.items()}), *rest]
        for first, *rest in attempts
    ]
    return signed + attempts


def _quote_pieces(quote: str, casefold: bool, literal: bool) -> list[list[Piece]]:
    marked = normalize_marked(quote, casefold=casefold, quote=True)
    if "..." not in marked:
        # Most quotes elide nothing: their one piece is the whole, already without hyphens at its ends
        # (trimming them again, as ``trim_cut_hyphens`` does each piece, leaves it as it is).
        return [[piece_of(marked)]] if marked else []
    parts = [part for part in map(trim_cut_hyphens, split_elisions(marked)) if part]
    if not parts:
        return []
    whole = [piece_of(marked)]
    if literal or parts == [marked]:
        return [whole]
    pieces = [piece_of(part) for part in parts]
    if len(pieces) > 1 and any(piece.words < MIN_PIECE_WORDS for piece in pieces):
        return [whole]  # not an elision the rule allows: only the literal text can match
    return [whole, pieces]


def short_pieces(quote: str, *, casefold: bool = False) -> list[str]:
    """The pieces of an elided quote shorter than ``MIN_PIECE_WORDS`` words (empty when none, or not elided)."""
    if quote.isascii() and "..." not in quote:
        return []  # folding makes no "..." of ASCII text: it elides nothing
    parts = [trim_cut_hyphens(part) for part in split_elisions(normalize_marked(quote, casefold=casefold, quote=True))]
    parts = [_MARKS.sub("", part) for part in parts if part]
    if len(parts) < 2:
        return []
    return [part for part in parts if part.count(" ") + 1 < MIN_PIECE_WORDS]


class SectionJoins:
    """Where a section's normalised text joined a hyphenated word, and how (``marks_of``)."""

    __slots__ = ("inline", "joins", "offsets")

    def __init__(self, marked: str) -> None:
        self.joins, self.offsets = marks_of(marked)
        # Where a hyphen or dash stood inside the line ("not—and", "end-user"): two words to a reader.
        self.inline = [offset for offset in self.offsets if self.joins[offset] == JOINED_INLINE]

    def agree(self, start: int, piece: Piece) -> bool:
        """A piece at ``start`` keeps every hyphen the section has inside a word, and has none inside a
        word that the section lacks. At a line break, on either side, both readings stand:
        ``infor-⏎mation`` is "information", and ``end-⏎user`` is "end-user".
        """
        joins = self.joins
        for offset, how in piece.joins.items():
            if how == JOINED_INLINE and start + offset not in joins:
                return False  # the quote's hyphen is not in the section ("re-sign" for "resign")
        offsets = self.offsets
        first, last = bisect_right(offsets, start), bisect_left(offsets, start + len(piece.text))
        for offset in offsets[first:last]:
            if joins[offset] == JOINED_INLINE and offset - start not in piece.joins:
                return False  # the section's hyphen is not in the quote ("resign" for "re-sign")
        return True


def removed_words(text: str, start: int, end: int, joins: Sequence[int] = (), base: int = 0) -> str:
    """What an elision left out of ``text`` between ``start`` and ``end``, widened to whole words.

    ``joins`` are the offsets (sorted, in ``text`` from ``base``) where normalisation joined two words
    at a hyphen or a dash: the words are given back apart there ("not—and will" was joined as "notand will"), so
    that a negation written against a dash is still read as a word."""
    while start > 0 and text[start - 1].isalnum() and text[start].isalnum():
        start -= 1
    while end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        end += 1
    cuts = [base + at for at in joins[bisect_right(joins, start - base) : bisect_left(joins, end - base)]]
    if not cuts:
        return text[start:end].strip()
    bounds = [start, *cuts, end]
    return " ".join(text[a:b] for a, b in zip(bounds, bounds[1:])).strip()


def turning_words(removed: str) -> list[str]:
    """The words of ``removed`` that turn the meaning of a sentence (``NEGATIONS``, ``n't``, ``n'``), as
    written (each read as ``_AS_READ`` reads it)."""
    turning = []
    for word in _WORD.finditer(removed.translate(_AS_READ)):
        folded = word.group().casefold()
        if folded in NEGATIONS or folded.endswith("n't") or folded.startswith("n'"):
            turning.append(removed[word.start() : word.end()])
    return turning


# Phrases that make what they stand in a condition ("granted only if the receipt is shown"): an elision that
# removes one (or cuts one in two) makes a conditional statement read as unconditional, as ``unless`` and
# ``except`` (``NEGATIONS``) do. Multi-word, so that a bare "if" or "only" in a long gap is no such phrase.
CONDITIONS = (
    "only if|only when|only where|provided that|providing that|on condition that|"
    "seulement si|uniquement si|à condition que|à condition de|pourvu que|"
    "nur wenn|nur falls|nur sofern|vorausgesetzt, dass|vorausgesetzt dass|unter der Bedingung, dass|"
    "solo si|sólo si|únicamente si|con tal de que|a condición de que|"
    "solo se|soltanto se|solamente se|purché|a condizione che|"
    "somente se|apenas se|só se|contanto que|com a condição de que|"
    "alleen als|alleen indien|alleen wanneer|mits|op voorwaarde dat"
)
_CONDITION = re.compile(rf"(?<![^\W_])(?:{CONDITIONS})(?![^\W_])", re.IGNORECASE)
# A word that is a number as a reader reads one (a count, an amount, a date, a version: "30", "1,000",
# "$5", "2.5%", "(10.16),"; with the letters written with it: "32k", "10x", "4GB", "0x10"), not a name that
# holds digits ("RFC3986", "%x21", "v2").
_NUMBER_WORD = re.compile(r"[(\[\"']*[-+\u2212]?[$€£¥]?\d[\d.,:/]*(?:[^\W_][\w.,:/]*)?%?[)\]\"',.;:]*")


def gap_turns(text: str, start: int, end: int, removed: str) -> list[str]:
    """What an elision that left out ``removed`` (``text[start:end]``, between two pieces of a quote) removes
    that turns the meaning: a word that does (``turning_words``), a phrase that makes a condition
    (``CONDITIONS``, also when the gap cuts it in two: "granted only … within 30 days" of "granted only if
    the receipt is shown, within 30 days"), or a number when the quote reads another number in its
    place, the word right before or after the gap being one ("within … 90 days" of "within 30 days of
    purchase; exchanges within 90 days"): the numbers the gap removes."""
    turning = turning_words(removed)
    before = text[max(0, start - 80) : start].split()[-1:]
    after = text[end : end + 80].split()[:1]
    context = " ".join([*before, removed, *after])
    first = len(before[0]) + 1 if before else 0
    for found in _CONDITION.finditer(context.translate(_AS_READ)):
        if found.end() > first and found.start() < first + len(removed):  # the gap takes some of it
            turning.append(context[found.start() : found.end()])
    numbers = [word for word in removed.split() if _NUMBER_WORD.fullmatch(word)]
    if numbers and any(_NUMBER_WORD.fullmatch(word) for word in before + after):
        turning += numbers
    elif numbers:
        turning += _swapped_numbers(
            removed.split(), text[max(0, start - 120) : start].split()[-3:], text[end : end + 120].split()[:3]
        )
    return turning


def _swapped_numbers(gap: list[str], before: list[str], after: list[str]) -> list[str]:
    """The number a gap removes that the quote reads another number in place of, a word or two from the gap:
    the gap opens with the words and number the piece after it opens with, another number ("… within 90
    days" over "within 30 days of purchase; … within 90 days"), or closes with the number and words the
    piece before it closes with ("30 days for … purchases" over "… 90 days for purchases")."""
    swapped = []
    for width in (1, 2):
        if len(gap) > width and len(after) > width and _same(gap[:width], after[:width]):
            if _NUMBER_WORD.fullmatch(gap[width]) and _NUMBER_WORD.fullmatch(after[width]):
                swapped.append(gap[width])
        if len(gap) > width and len(before) > width and _same(gap[-width:], before[-width:]):
            if _NUMBER_WORD.fullmatch(gap[-width - 1]) and _NUMBER_WORD.fullmatch(before[-width - 1]):
                swapped.append(gap[-width - 1])
    return swapped


def _same(words: list[str], others: list[str]) -> bool:
    return [word.strip(",.;:").casefold() for word in words] == [word.strip(",.;:").casefold() for word in others]


# Prefixes that negate or reverse the word they stand on ("unavailable", "non-exclusive", "illegal", "disallowed",
# "decompress", "misfiled", "malformed", "anti-aliasing", "counterclockwise", "dysfunction"), in the languages the
# contract covers: French "dé-compresse", "désactiver", "mécontent", "mésentente", "contre-indiqué"; Spanish and
# Portuguese "descomprimir", "desligar", "contraindicado"; Italian "controindicato"; German "entsperren",
# "missverstehen", "nichtöffentlich"; Dutch "niet-leden".
NEGATING_PREFIXES = (
    *("un", "in", "im", "il", "ir", "non", "dis", "a", "de", "mis", "mal", "anti", "counter", "dys"),
    *("dé", "dés", "des", "mé", "més", "contre", "contra", "contro", "ent", "miss", "nicht", "niet"),
)
# Suffixes that negate the word they end ("lead-free", "passwordless"): a quote that ends before one reads
# the opposite ("The solder is lead" of "lead-free"; the hyphen is joined by normalisation).
NEGATING_SUFFIXES = ("free", "less", "lessly", "lessness")
# Modal verbs and RFC 2119's keywords: one for another ("may" for "must") turns an obligation.
MODALS = frozenset("must shall should may can could will would might required recommended optional".split())


# A near match's words, with each number whole as the number rule reads it (``number_edges._in_number``): its sign, its
# digits joined by separators, its letters and its unit (">1", "10-50", "18-24", "10%", "32k"; ".5", "US$5"), and a
# currency, percent or degree sign a space apart ("US$ 5", "$ 5", "5 €", "5 $", "10 %", "20 °C") and a temperature's
# scale ("20°C"), so that a quote that drops any of them differs from its passage in that number.
_ALNUM_WITH_DIGIT = r"[^\W_]*[\d\u00bc-\u00be\u2150-\u215f\u2189][^\W_]*"
_CURRENCY = f"[{re.escape(CURRENCIES)}]"
_TOKEN = re.compile(
    rf"(?:(?<![^\W_])(?:[^\W\d_]{{1,3}}{_CURRENCY} ?|{_CURRENCY} (?=\.?\d)|[{re.escape(SIGNS)}]))?"
    rf"(?:(?<![\w.])\.(?=\d)|(?<!\S),(?=\d))?{_ALNUM_WITH_DIGIT}(?:[{re.escape(JOINERS)}]{_ALNUM_WITH_DIGIT})*"
    rf"(?: ?\u00b0[{SCALES}](?![^\W_])| [{re.escape(SPACED_SIGNS)}](?![^\W_])| \$(?=$|[\s.,;:!)\]}}\"'/])|[{re.escape(UNITS)}])?"
    rf"|{_WORD.pattern}"
)


# A list's bullet at a line's start ("\n- 5 % off"): no sign (a minus sign, U+2212, is one wherever it stands); a dash
# opening a line that is a table's cell ("\n- 18° C |", ``number_edges.TABLE_CELL_REST``) is the number's sign.
_BULLET = re.compile(rf"\n[ \t]*[-\u2010-\u2015\u2043\ufe63\uff0d](?=[ \t])(?!{_TABLE_CELL_REST})")
# A minus sign a space before its number ("\u2212 7%"): a sign wherever it stands, written against it before normalising.
_MINUS_SIGN = re.compile(r"\u2212[ \t\u00a0\u202f]+(?=\d)")


def _number_tokens(text: str, casefold: bool) -> list[str]:
    """``_TOKEN``'s words of ``text`` normalised, with a minus a space before its number (``number_edges.joined_signs``:
    "pas - 18 °C") joined to it, at the start too (normalisation drops a dash there; a passage starts with one only
    where the section wrote it as a sign: ``placing.written_edges``); a list's bullet is no sign."""
    normal = joined_signs(
        normalize("\x00 " + _MINUS_SIGN.sub("\u2212", _BULLET.sub("\n", text)), casefold=casefold)[2:]
    )
    return _TOKEN.findall(normal)


# An acronym, a hyphen (a line break may follow it) and a word in small letters: "DES-based", "IN-operator".
_ACRONYM_JOIN = re.compile(r"(?<![^\W_])([^\W\d_]{2,})[-\u2010\u2011]\s*([^\W\d_]+)")


def _acronym_words(passage: str) -> frozenset[str]:
    """The words of ``passage`` an acronym and a word in small letters make, joined at a hyphen ("DESbased")."""
    return frozenset(
        found[1] + found[2] for found in _ACRONYM_JOIN.finditer(passage) if found[1].isupper() and found[2][0].islower()
    )


def meaning_changes(quote: str, passage: str, casefold: bool = False) -> list[str]:
    """The words in which a near match (``fuzzy``) differs from its passage that turn the meaning: a
    negation added or dropped (``turning_words``), a number changed, a negating prefix ("available"
    for "unavailable"), or one modal for another ("may" for "must"). Both texts are normalised here;
    words added or dropped at either end are the alignment's edges, not a difference."""
    from difflib import SequenceMatcher  # only for a near match

    said = _number_tokens(quote, casefold)
    says = _number_tokens(passage, casefold)
    acronyms = _acronym_words(passage)
    changed: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, said, says, autojunk=False).get_opcodes():
        if tag == "equal" or (tag != "replace" and (min(i1, j1) == 0 or i2 == len(said) or j2 == len(says))):
            continue
        words = said[i1:i2] + says[j1:j2]
        changed += [word for word in words if turning_words(word) or any(_digit(c) for c in word)]
        if tag == "replace":  # each word against each: an alignment may drop a word next to the one turned
            changed += [b for b in says[j1:j2] if any(_turned(a, b, acronyms) for a in said[i1:i2])]
    return changed


def _turned(said: str, says: str, acronyms: frozenset[str] = frozenset()) -> bool:
    """One word for another that turns the meaning: one is the other with a negating prefix
    ("available" for "unavailable") or suffix ("lead" for "lead-free"), or both are modals ("may" for "must").
    ``acronyms``: the passage's words joined at a hyphen after an acronym ("DESbased"), which none turns."""
    if said.casefold() in MODALS and says.casefold() in MODALS:
        return True
    written_short, written_long = sorted((said, says), key=lambda word: len(word.casefold()))
    short, long = written_short.casefold(), written_long.casefold()
    if long.startswith(short) and long[len(short) :] in NEGATING_SUFFIXES:
        return True
    # The prefix as written, to tell an acronym ("DES" of "DESbased") from a prefix ("desbloquear"), where folding
    # the case kept the word's length.
    cut = len(long) - len(short)
    written = written_long if len(written_long) == len(long) else long
    return long.endswith(short) and _reversing_prefix(written[:cut], written[cut], written_long in acronyms)


def inside_a_word(text: str, at: int) -> bool:
    """Whether ``at`` falls between two letters of one word, in a script that spaces its words (cased
    letters: Latin, Greek, Cyrillic, ...; Chinese or Japanese text has no such edge to keep)."""
    if at <= 0 or at >= len(text):
        return False
    before, after = text[at - 1], text[at]
    return before.isalpha() and after.isalpha() and before.lower() != before.upper() and after.lower() != after.upper()


_APOSTROPHES = "'\u2019\u02bc"


def _word_around(text: str, at: int) -> tuple[int, int]:
    """Where the word around ``at`` starts and ends: letters, and apostrophes between letters ("don't")."""
    start = at
    while start > 0 and (
        text[start - 1].isalpha() or (text[start - 1] in _APOSTROPHES and start > 1 and text[start - 2].isalpha())
    ):
        start -= 1
    end = at
    while end < len(text) and (
        text[end].isalpha() or (text[end] in _APOSTROPHES and end + 1 < len(text) and text[end + 1].isalpha())
    ):
        end += 1
    return start, end


def turns_a_word(text: str, at: int, *, start: bool, hyphen: bool = False) -> bool:
    """A quote's start (or end) at ``at`` cuts a word of ``text`` so that the quote reads a word that turns
    the meaning where the section's word does not, or the other way round ("must not" of "must notify",
    "do" of "don't", "no" of "piano"), cuts off a negating prefix ("lawful" of "unlawful") or a negating
    suffix ("lead" of "lead-free"). ``hyphen``: the section had a hyphen at ``at``, which normalisation joined."""
    if at <= 0 or at >= len(text):
        return False
    begins, ends = _word_around(text, at)
    if not begins < at < ends:
        return False
    part = text[at:ends] if start else text[begins:at]
    if bool(turning_words(part)) != bool(turning_words(text[begins:ends])):
        return True
    if start:
        return _reversing_prefix(text[begins:at], text[at], hyphen)
    return text[at:ends].casefold() in NEGATING_SUFFIXES


def _reversing_prefix(prefix: str, rest: str, hyphen: bool = False) -> bool:
    """``prefix`` is a prefix that negates or reverses the word it stands on, whose rest starts with ``rest``; not an
    acronym in capitals before a hyphen and a word in small letters (Node.js's "DES-based ciphers", SQLite's
    "IN-operator", "IN-ep": normalisation joins the hyphen), which names a thing and does not turn the word. Written
    against the word, capitals are a prefix stressed ("no longer DEcode entities", HTML-Tree's changelog)."""
    if hyphen and len(prefix) > 1 and prefix.isupper() and rest.islower():
        return False
    return prefix.casefold() in NEGATING_PREFIXES
