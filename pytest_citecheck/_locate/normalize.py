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
