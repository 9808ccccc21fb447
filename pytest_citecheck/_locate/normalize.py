"""The normalisation contract (``docs/matching.md``): the form both sides of a match are compared in.

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
"""

from __future__ import annotations

import re
import unicodedata

from pytest_citecheck._text import is_wide

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
REPLACEMENTS = {chr(code): text or "" for code, text in FOLD_TABLE.items()} | _NFKC_SHORTCUTS
_FOLDABLE = re.compile("[" + "".join(re.escape(ch) for ch in REPLACEMENTS) + "]")
RESIZED = re.compile("[" + "".join(re.escape(ch) for ch, text in REPLACEMENTS.items() if len(text) != 1) + "]")

# Digits NFKC would turn into plain ones, kept as they are: "10⁶" is not "106", nor "③⓪" "30".
# Superscripts and subscripts (with ¹ ² ³), enclosed and circled numbers, digits with a full stop or comma,
# and vulgar fractions: NFKC spells "½" as "1⁄2", so "1½ days" read "11⁄2 days" and a quote "within 11" was
# a whole number of the section.
# And the letters NFKC would turn into ones that say something else: modifier (superscript) letters, which
# write an exponent ("2ˣ" is not "grows 2x", "2ᵏ" not "2k"), the ordinal indicators ("1º" is not "1o"), and
# the numero sign ("№ 5" read "No 5", a negation to the elision check).
KEPT_DIGITS = re.compile(
    "[\u00b2\u00b3\u00b9\u00bc-\u00be\u2070-\u209f\u2150-\u215f\u2189\u2460-\u24ff\u2776-\u2793"
    "\u3251-\u325f\u32b1-\u32bf\U0001f100-\U0001f10c"
    "\u00aa\u00ba\u2116\u02b0-\u02b8\u02e0-\u02e4\u1d2c-\u1d6a\u1d78\u1d9b-\u1dbf\u2c7c\u2c7d"
    "\ua69c\ua69d\ua770\ua7f2-\ua7f4\ua7f8\ua7f9\uab5c-\uab5f\uab69\U00010780-\U000107ba]"
)

_LETTER = r"[^\W\d_]"
# A soft hyphen between letters, with any line break and indentation after it: the word is joined.
SOFT_JOIN = re.compile(rf"\u00ad(?<={_LETTER}\u00ad)[\s\u00ad]*(?={_LETTER})")
# A hyphen after a letter, any run of hyphens and whitespace after it, and a letter: joined.
JOIN = re.compile(rf"-(?<={_LETTER}-)[-\s]*(?={_LETTER})")
# A run of hyphens and whitespace that starts with a hyphen attached to what comes before it (and
# has no letter on both sides: ``pre-⏎2000``, ``2000-⏎era``): its whitespace goes, as a line broken
# at a hyphen is read, and its hyphens stay.
# The same joins, told apart: where whitespace follows the hyphen (a line break, or a re-wrapped
# one), and where the hyphen stood inside the word (``re-sign``, which is not ``resign``).
_JOIN_AT_BREAK = re.compile(rf"-(?<={_LETTER}-)-*\s[-\s]*(?={_LETTER})")
_JOIN_INLINE = re.compile(rf"-(?<={_LETTER}-)-*(?={_LETTER})")
JOINED_AT_BREAK = "\x02"
JOINED_INLINE = "\x01"
AFTER_HYPHEN = re.compile(r"-(?<=\S-)-*\s[-\s]*")
SOFT_HYPHENS = re.compile("\u00ad+")
ELISION = re.compile(r"\s*\[?\s*\.\.\.\s*\]?\s*")


def split_elisions(text: str) -> list[str]:
    """``ELISION.split(text)``: the pieces of a text between its elisions. Every elision holds "...", and
    a text without one is its only piece: most quotes, which then skip the expression (it tries its
    optional parts at every character, some tens of instructions each)."""
    return ELISION.split(text) if "..." in text else [text]


# What NFKC may compose with what comes before it never starts with an ASCII character, so a text
# can be folded piece by piece at any ASCII character: a run of non-ASCII text with the character
# before it (``e`` + U+0301 is one ``é``), and the ASCII text between such runs.
NON_ASCII_RUN = re.compile(r"[\x00-\x7f]?[^\x00-\x7f]+")
_COMBINING = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u3099\u309a"
CLUSTER = re.compile(rf"(?s).[{_COMBINING}]*")


def replace_foldable(text: str) -> str:
    """``text.translate(FOLD_TABLE)``, plus the NFKC shortcuts, as replacements of the characters present."""
    for ch in set(_FOLDABLE.findall(text)):
        text = text.replace(ch, REPLACEMENTS[ch])
    return text


def fold_rest(text: str, casefold: bool) -> str:
    """NFKC (and the fold table again: NFKC can make foldable characters) where still needed, then case."""
    if text.isascii():
        return text.lower() if casefold else text
    if not unicodedata.is_normalized("NFKC", text):
        text = replace_foldable(_nfkc(text))
    return text.casefold() if casefold else text


def _nfkc(text: str) -> str:
    """NFKC, except for the digits and letters ``KEPT_DIGITS`` names: a number keeps every digit as written."""
    if KEPT_DIGITS.search(text) is None:
        return unicodedata.normalize("NFKC", text)
    pieces = KEPT_DIGITS.split(text)
    kept = KEPT_DIGITS.findall(text)
    folded = [unicodedata.normalize("NFKC", piece) for piece in pieces]
    return "".join(part for pair in zip(folded, [*kept, ""]) for part in pair)


def fold(text: str, casefold: bool) -> str:
    """The character stage: the fold table, NFKC, and case folding when asked."""
    if text.isascii():
        if "`" in text:  # the one ASCII character the fold table changes
            text = text.replace("`", "'")
        return text.lower() if casefold else text
    return fold_rest(replace_foldable(text), casefold)


def _hyphens(text: str) -> str:
    """Soft hyphens, and word-internal hyphens with the whitespace after them."""
    if SOFT_HYPHEN in text:
        text = SOFT_JOIN.sub("", text).replace(SOFT_HYPHEN, "")
    if "-" in text:
        text = AFTER_HYPHEN.sub(hyphens_only, JOIN.sub("", text))
    return text


def hyphens_marked(text: str, soft: str = JOINED_AT_BREAK) -> str:
    """``_hyphens`` with each joined hyphen left as a mark: ``JOINED_AT_BREAK`` where a line break cut
    the word, ``JOINED_INLINE`` where the hyphen stood inside the word; ``soft`` for a soft hyphen."""
    if SOFT_HYPHEN in text:
        text = SOFT_JOIN.sub(soft, text).replace(SOFT_HYPHEN, "")
    if "-" in text:
        text = _JOIN_INLINE.sub(JOINED_INLINE, _JOIN_AT_BREAK.sub(JOINED_AT_BREAK, text))
        text = AFTER_HYPHEN.sub(hyphens_only, text)
    return text


def hyphens_in(text: str) -> int:
    """2 when ``text`` (folded) has a hyphen inside a word, 1 when it has other hyphens, 0 when none."""
    if "-" in text and _JOIN_INLINE.search(text) is not None:
        return 2
    return int("-" in text or SOFT_HYPHEN in text)


def normalize_marked(text: str, *, casefold: bool = False, quote: bool = False) -> str:
    """``normalize(text)`` with the joined hyphens marked (``hyphens_marked``); without the marks, the same text.

    A soft hyphen is invisible: in a source it may have been shown as a hyphen at a line break, and
    in a quote (``quote=True``) it joins nothing the source must have.
    """
    return " ".join(collapsed(hyphens_marked(fold(text, casefold), "" if quote else JOINED_AT_BREAK)))


def hyphens_only(run: re.Match[str]) -> str:
    return "-" * run.group().count("-")


def words_of(text: str) -> list[str]:
    """The second stage, as the normalised text's words: hyphens (``_hyphens``), whitespace collapsed,
    and a hyphen at either end that only cut a word."""
    return collapsed(_hyphens(text))


def collapsed(text: str) -> list[str]:
    """The words of a text, without the hyphens at either end: ``" ".join(text.split()).strip("- ")``.

    A quote cut from the middle of a line can start or end inside a hyphenated word or next to a
    dash (``-user authorization``, ``corresponding machine-``, ``- see``); without those hyphens it
    is still a piece of the text it was cut from, however that text joined or spaced them. One
    hyphen right before a digit is a sign, and stays (``-40``); a run of them is a rule, and goes.
    """
    words = text.split()
    while words and words[0].startswith("-"):
        first = words[0].lstrip("-")
        number = first[:1].isdigit() or (first[:1] == "." and first[1:2].isdigit())  # "-40", "-.5"
        if number and len(words[0]) == len(first) + 1:  # a sign: "-40" is not "40"
            break
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
    return " ".join(words_of(fold(text, casefold)))


def quote_fragments(quote: str, *, casefold: bool = False) -> list[str]:
    """The normalised pieces of a quote: one, or several when it elides text with ``...`` or ``…``."""
    needle = normalize(quote, casefold=casefold)
    return [trim_cut_hyphens(fragment) for fragment in split_elisions(needle) if trim_cut_hyphens(fragment)]


def trim_cut_hyphens(fragment: str) -> str:
    """A fragment between elisions has ends too: its hyphens there go, as at the quote's ends (a sign stays)."""
    return " ".join(collapsed(fragment))


def quote_length(quote: str, *, casefold: bool = False) -> int:
    """How many characters of the quote count towards ``min_quote_length`` (elision markers excluded); a
    wide character (``wide_characters``) counts as two."""
    if quote.isascii() and "-" not in quote and "..." not in quote:
        # Folding changes no length, no hyphen joins or is trimmed, nothing is elided: its words one space apart.
        if quote.isprintable() and "  " not in quote and quote[:1] != " " and quote[-1:] != " ":
            return len(quote)  # an ASCII space is the only printable whitespace: its words are one space apart
        return len(" ".join(quote.split()))
    fragments = quote_fragments(quote, casefold=casefold)
    return sum(len(fragment) + wide_characters(fragment) for fragment in fragments)


def wide_characters(text: str) -> int:
    """How many of ``text``'s characters are wide (East Asian Wide or Fullwidth: Chinese, Japanese and Korean
    script). Each is a syllable or a morpheme, written without spaces: "可选模板规范" ("optional template
    specification") is six, where English needs some thirty letters. Counted twice toward
    ``min_quote_length``, as a terminal gives them two columns, so six identify a passage as twelve letters do."""
    if text.isascii():
        return 0
    return sum(1 for character in text if is_wide(character))


def too_short(quote: str, length: int, minimum: int, *, casefold: bool = False) -> str:
    """Why ``quote``, of ``quote_length`` ``length``, is refused: its length (how wide characters were counted)."""
    wide = sum(wide_characters(fragment) for fragment in quote_fragments(quote, casefold=casefold))
    said = (
        f"counts as {length} characters ({wide} wide ones, each counted twice)" if wide else f"is {length} characters"
    )
    return (
        f"{said} after normalisation, too short to identify a passage (min_quote_length is {minimum}): "
        "quote more of the passage, or lower min_quote_length"
    )
