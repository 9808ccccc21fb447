"""Where a number begins and ends in a section's text: the rule for quotes that concerns numbers (``rules``).

A piece of a quote never starts or ends inside a number (``cuts_a_number``): its digits, its separators
(``JOINERS``: "3.14", "10-50", "10:30"), its sign or comparison (``SIGNS``), its unit (``UNITS``), the
letters written with it ("32k", "x86"), a space that groups its digits ("59 000" with a no-break or
thin space, ``GROUPED``), a currency, percent or degree sign a space apart ("US$ 5", "5 €", "5 $" written as an
amount, "10 %", "20 °C"), and a temperature's scale ("20°C"). ``docs/matching.md`` says why each is part of the number.
"""

from __future__ import annotations

import bisect
import re
import unicodedata

# Vulgar fractions (kept as written by normalisation): a digit of the number they stand in ("1½").
_FRACTIONS = frozenset("\u00bc\u00bd\u00be" + "".join(map(chr, range(0x2150, 0x2160))) + "\u2189")


# Currency signs, written against a number on either side ("$5", "5€", "50¢"): the amount does not say it without them.
CURRENCIES = "$\u20ac\u00a3\u00a5\u00a2\u20b9\u20bd\u20a9"
# What a number's word may open with, written against its digits: a sign, a comparison or approximation
# (">1", "<50%", "≥18", "±5", "~40%", "≈10"), or a currency ("$5"), which the number does not say without it.
SIGNS = "-+<>\u2264\u2265\u2266\u2267\u2a7d\u2a7e\u226a\u226b\u00b1\u2213~\u2248\u2243\u2245\u223c" + CURRENCIES
# What a number's word may close with, written against its digits: "by 10%" is not "by 10", nor "costs 5" "5€".
UNITS = "%\u2030\u2031\u00b0" + CURRENCIES
# An amount written apart from its currency by one space ("$ 5", "US$ 5", "5 €" as French and German write it): plain
# digits, and a multiplier ("$ 5M", "$ 2k", "$ 3bn"), so that a shell prompt's "$ 2to3" is no amount; after the amount,
# a sign that stands alone. The amount does not say it without its currency, spaced or not.
_SPACED_AMOUNT = r" \.?\d[\d.,]*(?:[kKmMbBT]|bn|mn)?(?![^\W_])"
_SPACED_BEFORE = re.compile(rf"[{CURRENCIES}]{_SPACED_AMOUNT}")
# What may follow a sign written a space after its amount: the end of a word.
_SIGN_ENDS = r"(?=$|[\s.,;:!)\]}\"'/])"
# A sign written a space after its amount: a currency but "$" (below), a percent or per mille sign, which French and
# German typography and the SI space from the number ("à 99 %", "80 % davon"), or a degree sign, which the SI spaces
# too, with its temperature's scale ("20 °C", "-4 °F", "45 °"): "by 10" of "by 10 %" is another amount, "at 20" of
# "at 20 °C" another temperature.
SPACED_SIGNS = CURRENCIES.replace("$", "") + "%\u2030\u2031\u00b0"
# A temperature's scale after its degree sign, as written or read small (``casefold``: "20 °c").
SCALES = "CFKcfk"
# The rest of a line that is a table's cell, from where it is read to the line's end: it ends with the cell's border
# ("- 18° C |", a cell on a line of its own as a web page's table is copied as text). A dash opening such a line is
# the number's sign, not a list's bullet: one rule for the near match (``rules``) and the exact one (``placing``).
TABLE_CELL_REST = r"[^\n\r]*\|[ \t]*(?=[\n\r]|\Z)"
_SPACED_AFTER = re.compile(rf"\d [{SPACED_SIGNS}](?:(?<=\u00b0)[{SCALES}])?{_SIGN_ENDS}")
# The scale of a temperature, written against its degree sign ("20°C", "20 °C"): "100°" of "100°C" drops it.
_SCALE = re.compile(r"(?<=\d)\u00b0|(?<=\d )\u00b0")
# "$" after an amount and a space, as Canadian French writes it ("5 $", "19,95 $", "1 250 $", "12000 $"): after a word
# written as such an amount (``_dollar_amount``), not an RCS keyword's value ("$Revision: 9082 $"), and not where the
# "$" opens its line in the section as written (a shell prompt on the line after a command's output that ends in a
# number, "bozo's ID is 1000⏎$ IFS=...", which normalisation makes one space: ``placing``). An amount of five digits or
# more is read so only in a section that writes a shorter one so ("5 $ ... 12000 $"): glib's "640489 $ and ^" is a
# regular expression's anchor after a bug number, in a section with no price.
_DOLLAR_AFTER = re.compile(rf"\d \${_SIGN_ENDS}")
_FRENCH_AMOUNT = re.compile(r"(?:^|(?<=[\s(]))(?:\d{1,3}(?: \d{3})+|\d{1,4}|(\d{5,}))(?:,\d+)?$")
_RCS_KEYWORD = re.compile(r"\$[A-Za-z]+: $")
# The letters that name a currency written against its sign ("US$5", "A$5", "HK$5", "R$5": Brazilian reais),
# then the number, with or without a digit before its decimal point, or after a space ("US$ 5"): "$5" of "A$5" is
# another amount.
_NAMED_CURRENCY = re.compile(rf"[^\W\d_]{{0,3}}[{CURRENCIES}](?:\.?\d|{_SPACED_AMOUNT})")


# What joins digits into one number: a decimal or thousands separator ("3.14", "1,000"), and a range, date,
# time, ratio or fraction written without spaces ("10-50", "18–24", "2023-01-15", "10:30", "1/2").
JOINERS = ".,-/:\u2044"


def digit(ch: str) -> bool:
    """A digit of a number: a digit of any script, or a vulgar fraction (\"1½\")."""
    return ch.isdigit() or ch in _FRACTIONS


def _cased(ch: str) -> bool:
    """A letter of a script with case (Latin, Greek, Cyrillic, ...), which spaces its words."""
    return ch.isalpha() and ch.lower() != ch.upper()


def _written_with(ch: str) -> bool:
    """A letter written against a number's digits as part of it: a cased letter ("32k"), a modifier letter
    (an exponent "2ˣ", which normalisation keeps as written) or an ordinal indicator ("1º", "2ª")."""
    return _cased(ch) or ch in "\u00aa\u00ba" or (ch.isalpha() and unicodedata.category(ch) == "Lm")


def _leading_point(text: str, at: int) -> bool:
    """``text[at]`` is the decimal point a number opens with (".5 seconds", "-.5"): a point before a digit that
    does not end a word or a run of points ("v1.5", "wait...5")."""
    return (
        text[at] == "."
        and at + 1 < len(text)
        and text[at + 1].isdigit()
        and (at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "."))
    )


def _leading_comma(text: str, at: int) -> bool:
    """``text[at]`` is the decimal comma a number opens with, as a German or French text may write it (",5 Sekunden"):
    a comma before a digit that starts a word (at the start or after a space). A comma written against what stands
    before it is code or a list, not a number's ("{,1,2}", "f(x),0"; "1,5,7" is one number to cut, ``JOINERS``)."""
    return text[at] == "," and at + 1 < len(text) and text[at + 1].isdigit() and (at == 0 or text[at - 1].isspace())


# A digit, a space that groups digits ("59 000" as French and the SI write it: a no-break, figure, thin or narrow
# no-break space, or its entity), then exactly three digits: told from a list ("port 443 563") as written.
GROUPED = re.compile(
    r"\d(?:[\u00a0\u2007\u2009\u202f]|&(?:nbsp|numsp|thinsp|#160|#8199|#8201|#8239|#x0*(?:a0|2007|2009|202f));)"
    r"\d{3}(?!\d)",
    re.IGNORECASE,
)


def _in_number(text: str, at: int) -> bool:
    """Whether the boundary before ``text[at]`` is inside a number: between digits (a vulgar fraction is
    one: "within 1" is not in "within 1½ days"), at a separator between digits (``JOINERS``: "3.14", and
    "10-50", "10:30", "1/2": a range, time or fraction is one number to cut), between a sign
    (``SIGNS``: also "<", "≥", "±", "~", "$") and its digits, between its digits and a unit (``UNITS``:
    "10" is not "10%"), between a degree sign and its scale ("20°C"), or between a digit and a cased letter
    written with it ("32" is not "32k", "0" not "0x10", "86" not "x86", "CO" not "CO₂"). A script without case
    writes a counter right after a number ("30日"): the number's edge is a word's edge there. Or at an entity
    grouping digits ("1&nbsp;000"; a grouping character is normalised to a space: ``group_space``), or at the
    space between an amount and its currency, percent or degree sign ("US$ 5", "5 €", "10 %", "20 °C")."""
    if at <= 0 or at >= len(text):
        return False
    before, after = text[at - 1], text[at]
    if after == "&" or before == ";":  # a Markdown source's "1&nbsp;000", as written
        return _at_an_entity_group(text, at)
    if before == " " or after == " ":
        return _at_a_spaced_sign(text, at)
    return _goes_on(text, at) if before.isdigit() else _before_a_digit(text, at)


def _before_a_digit(text: str, at: int) -> bool:
    """Whether the boundary before ``text[at]``, not after a digit nor at a space, is inside a number: before its
    digits (after a sign, a separator or a letter written with it), inside a named currency ("US$5"), or between a
    degree sign and its scale ("20°C")."""
    before, after = text[at - 1], text[at]
    if before == "\u00b0":
        return _at_a_scale(text, at)
    if _cased(before) and (_cased(after) or after in CURRENCIES) and _NAMED_CURRENCY.match(text, at):
        return True  # inside "US$5": the letters and the sign are the currency's
    return (digit(after) or _leading_point(text, at)) and _opens_number(text, at)


def _goes_on(text: str, at: int) -> bool:
    """Whether what stands at ``text[at]``, right after a digit, is part of its number: a digit, a letter written
    with it, a unit, or a separator before another digit."""
    after = text[at]
    return (
        digit(after)
        or _written_with(after)
        or after in UNITS
        or (after in JOINERS and at + 1 < len(text) and text[at + 1].isdigit())
    )


def _opens_number(text: str, at: int) -> bool:
    """Whether what stands before the digit ``text[at]`` is part of its number: a separator after a digit,
    a cased letter written with it, or a sign that starts its word."""
    before = text[at - 1]
    if before in JOINERS and at >= 2 and text[at - 2].isdigit():
        return True
    if before in ".,":
        # ".5 seconds" is not "5 seconds", nor ",5 Sekunden" "5 Sekunden"
        return _leading_point(text, at - 1) if before == "." else _leading_comma(text, at - 1)
    if _cased(before):
        return True
    if before in CURRENCIES and at >= 2 and _cased(text[at - 2]):
        return True  # "US$5": the currency is named by the letters before its sign
    # A sign starts its word: "-40", not "pre-40" nor the end of a rule of hyphens "----40". So does a
    # comparison or an approximation written against the number: ">1 release a year" is not one.
    return before in SIGNS and (at < 2 or not (text[at - 2].isalnum() or text[at - 2] in SIGNS))


def _at_a_spaced_sign(text: str, at: int) -> bool:
    """The boundary before ``text[at]`` is at either side of the space between an amount and its sign: a currency
    before it, "$ 5" (the sign opens the number: not after a digit), "US$ 5"; or ``SPACED_SIGNS`` after it, "5 €",
    "10 %", "20 °C". ("$" after an amount, "5 $", is ``dollar_space``'s: whether it is read needs the section as written.)"""
    space = at - 1 if text[at - 1] == " " else at
    if space < 1:
        return False
    if _SPACED_BEFORE.match(text, space - 1):
        return space < 2 or not text[space - 2].isdigit()
    return _SPACED_AFTER.match(text, space - 1) is not None


def _dollar_amount(text: str, space: int) -> int:
    """The word before ``text[space]`` as an amount Canadian French writes before "$": ``_SHORT`` ("5", "19,95",
    "1 250"), ``_LONG`` (five digits or more, no group space: "12000", or glib's bug number "640489 $ and ^"), or 0:
    none, or an RCS keyword's value ("$Revision: 9082 $")."""
    amount = _FRENCH_AMOUNT.search(text, max(0, space - 24), space)
    if amount is None or _RCS_KEYWORD.search(text, max(0, amount.start() - 40), amount.start()) is not None:
        return 0
    return _LONG if amount.group(1) else _SHORT


_SHORT, _LONG = 1, 2


def dollar_space(text: str, at: int) -> int:
    """Where the "$" is, when the boundary ``at`` is at either side of the space between an amount and the "$" Canadian
    French writes after it ("5| $", "5 |$": ``_dollar_amount``; an amount of five digits or more in a section that
    writes a shorter one so); else -1. Whether the "$" opens its line in the section as written is the caller's to read."""
    if 2 <= at < len(text) and text[at - 1] == " " and text[at] == "$":
        space = at - 1
    elif 1 <= at < len(text) - 1 and text[at] == " " and text[at + 1] == "$":
        space = at
    else:
        return -1
    if _DOLLAR_AFTER.match(text, space - 1) is None:
        return -1
    kind = _dollar_amount(text, space)
    if kind == _LONG:
        breaks, shorts = _short_dollars(text)
        kind = shorts[bisect.bisect_left(breaks, space)]
    return space + 1 if kind else -1


# ``_short_dollars``' results, for the last few texts, keyed by the text's identity, length and hash: not by the text,
# which a cache would keep alive (a block of the index may be megabytes) after its index is dropped.
_SHORT_CACHE: dict[tuple[int, int, int], tuple[list[int], bytearray]] = {}


def _short_dollars(text: str) -> tuple[list[int], bytearray]:
    """Where ``text``'s lines end, and for each line (a section: the locator's text holds one normalised section a
    line) whether it writes "$" after an amount of up to four digits, groups or a decimal comma (``_SHORT``). Read once
    per text, not once per boundary (a boundary's section may be long)."""
    key = (id(text), len(text), hash(text))
    found = _SHORT_CACHE.get(key)
    if found is None:
        breaks = [found.start() for found in re.finditer("\n", text)]
        shorts = bytearray(len(breaks) + 1)
        for dollar in _DOLLAR_AFTER.finditer(text):
            if _dollar_amount(text, dollar.start() + 1) == _SHORT:
                shorts[bisect.bisect_left(breaks, dollar.start())] = 1
        if len(_SHORT_CACHE) >= 8:
            del _SHORT_CACHE[next(iter(_SHORT_CACHE))]
        found = _SHORT_CACHE[key] = (breaks, shorts)
    return found


# A minus a space apart from its number, as French typography and typesetting write it ("ne dépassant pas - 18 °C",
# "(− 18 °C)", "solde : – 50 €"; normalisation makes each dash "-"): "18 °C" of "- 18 °C" is another temperature. Read
# as a sign only where nothing else can be meant: the number carries a unit whose sign matters (a degree, percent or per
# mille sign, a currency: written against it or a space apart, ``_at_a_spaced_sign``), and the word before the dash is
# no operand (no digit, unit or closing bracket in it: "10 - 18 °C" and "0.7% - 2.2%" are ranges, "calc(100% - 1rem)"
# a subtraction). A bare number after a spaced dash is in practice a subtraction ("len - 1", "65,535 − 8 bytes") or a
# separator ("Paperback - 829 pages", "Release 2004e - 2004-10-11"), and stays apart. A list's bullet ("- 5 % off" at
# a line's start) and an em dash are no sign: that is read in the section as written (``placing``, ``locator``).
_MINUS_NUMBER = re.compile(r"- (?:\d{1,3}(?: \d{3})+(?!\d)|\d+(?:[.,]\d+)*)")
_CLOSING = ")]}"


def spaced_minus(text: str, dash: int) -> bool:
    """``text[dash]`` is a "-" standing alone, a space before a number it is the sign of (``_MINUS_NUMBER``)."""
    if dash > 0 and text[dash - 1] not in " \n":
        return False
    found = _MINUS_NUMBER.match(text, dash)
    if found is None or found.end() >= len(text):
        return False
    end = found.end()
    if not (
        text[end] in UNITS or (text[end] == " " and (_at_a_spaced_sign(text, end) or dollar_space(text, end) >= 0))
    ):
        return False
    return dash < 2 or text[dash - 1] == "\n" or not _operand(text, dash - 2)


# A spaced dash between a word and an amount written the way English writes it, its percent, per mille or currency sign
# against its digits ("call - 7% speedup", "Capital - 2.000€"), is a separator: that typography writes a minus against
# its number too ("-7%"); French typography spaces both ("baisse de - 5 %"), so there a spaced dash is the sign. Unless
# the word before it is one a number follows as its object or comparison ("en croissance de + 3,6%", "baisse de - 5%",
# "fell to - 7%"): there the dash is the number's sign, however the unit is written. A degree is never told so: a
# temperature below zero is common, and written "– 18°C" as often as "- 18 °C" (``docs/matching.md``).
_SEPARATED_UNITS = "%\u2030\u2031" + CURRENCIES
_TAKES_A_NUMBER = frozenset(
    "à a au aux de des du pas par sur sous entre et ou vers jusqu'à jusqu’à environ soit est sont était atteint "
    "atteignant dépassant excède excédant moins plus que qu'à qu’à "
    "of at to by from and or between about around approximately is are was were be been reach reached reaches "
    "reaching below under above over than as down up near".split()
)


def separator_dash(text: str, dash: int) -> bool:
    """The spaced dash at ``text[dash]`` before a number with a unit (``spaced_minus``) separates a word from an amount
    written with its percent or currency sign against its digits ("call - 7% speedup"): it is no sign
    (``_SEPARATED_UNITS``, ``_TAKES_A_NUMBER``). The word is read in small letters."""
    if dash < 2 or text[dash - 1] != " " or not text[dash - 2].isalpha():
        return False
    found = _MINUS_NUMBER.match(text, dash)
    if found is None or found.end() >= len(text) or text[found.end()] not in _SEPARATED_UNITS:
        return False
    low = max(0, dash - 66)
    start = max(text.rfind(" ", low, dash - 1), text.rfind("\n", low, dash - 1)) + 1
    return text[start : dash - 1].lower() not in _TAKES_A_NUMBER


def _operand(text: str, last: int) -> bool:
    """The word ending at ``text[last]`` can be the left side of a range or a subtraction: a digit or a unit in it
    (its last 64 characters), or a closing bracket at its end."""
    start = max(text.rfind(" ", max(0, last - 64), last), text.rfind("\n", max(0, last - 64), last)) + 1
    word = text[max(start, last - 63) : last + 1]
    return text[last] in _CLOSING or any(digit(ch) or ch in UNITS for ch in word)


_LONE_MINUS = re.compile(r"(?<![^ \n])- (?=\d)")


def joined_signs(text: str) -> str:
    """``text`` with each minus a space before its number (``spaced_minus``, no ``separator_dash``) written against it:
    "pas -18 °C" (a near match compares the number whole, ``rules.meaning_changes``)."""
    if "- " not in text:
        return text
    dashes = [
        found.start()
        for found in _LONE_MINUS.finditer(text)
        if spaced_minus(text, found.start()) and not separator_dash(text, found.start())
    ]
    for dash in reversed(dashes):
        text = text[: dash + 1] + text[dash + 2 :]
    return text


def sign_space(text: str, at: int) -> int:
    """Where the dash is, when the boundary ``at`` is at either side of the space between a minus and its number
    (``spaced_minus``: "- |18 °C", "-| 18 °C"); else -1. Whether the section wrote it as a sign is the caller's to read."""
    if 2 <= at < len(text) and text[at - 1] == " " and text[at - 2] == "-":
        dash = at - 2
    elif 1 <= at < len(text) - 1 and text[at - 1] == "-" and text[at] == " ":
        dash = at - 1
    else:
        return -1
    return dash if spaced_minus(text, dash) else -1


def _at_a_scale(text: str, at: int) -> bool:
    """The boundary before ``text[at]``, right after a degree sign, is between a temperature's degree sign and its
    scale: "C", "F" or "K" ending the word, after a degree sign written against or a space after a digit ("20°C")."""
    return (
        text[at] in SCALES
        and (at + 1 == len(text) or not text[at + 1].isalpha())
        and _SCALE.search(text, at - 1, at) is not None
    )


def _at_an_entity_group(text: str, at: int) -> bool:
    """The boundary before ``text[at]`` is at either side of a grouping space written as an entity ("1&nbsp;000")."""
    if text[at] == "&":
        return text[at - 1].isdigit() and GROUPED.match(text, at - 1) is not None
    return text[at].isdigit() and any(
        found.end() == at + 3 for found in GROUPED.finditer(text, max(0, at - 16), at + 4)
    )


def cuts_a_number(text: str, start: int, end: int) -> bool:
    """A passage ``text[start:end]`` that starts or ends inside a number is not the number."""
    return _in_number(text, start) or _in_number(text, end)


def group_space(text: str, at: int) -> int:
    """Where the space is, when the boundary ``at`` is right before or after a space between a digit and a
    group of exactly three digits ("1 000"): a grouping space if the section wrote one (``GROUPED``); else -1."""
    if at < len(text) and text[at] == " ":
        space = at
    elif at >= 2 and text[at - 1] == " ":
        space = at - 1
    else:
        return -1
    group = text[space + 1 : space + 4]
    if len(group) < 3 or not group.isdigit() or not text[space - 1].isdigit():
        return -1
    return -1 if space + 4 < len(text) and digit(text[space + 4]) else space


def number_edges(text: str, start: int, end: int) -> tuple[int, int]:
    """``text[start:end]`` widened so that it neither starts nor ends inside a number."""
    while _in_number(text, start):
        start -= 1
    while _in_number(text, end):
        end += 1
    return start, end
