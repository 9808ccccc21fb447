"""Chapter openings as LaTeX prints them, in the text of a PDF: the chapter's number on a line of its own.

dblatex (DocBook's PDFs: the Debian New Maintainers' Guide, the Debian FAQ, the Debian Reference) and
LaTeX's book class print ``Chapter 1`` alone on a line, the title on the next; Sphinx's LaTeX builder
(the Debian Policy Manual, the Developer's Reference) prints ``CHAPTER``, then the number spelled out
(``ONE``, ``TWENTYTHREE``), then the title. The sections inside are numbered lines (``1.1 Scope``),
which ``numbered`` reads; its chapters are these openings. Pages of such PDFs carry running headers and
footers that start with a number (``38 Chapter 5. Control files and their fields``): where a
document has chapter openings, a number at the start of a line is never a chapter.
"""

from __future__ import annotations

import re

_ONES = "ZERO ONE TWO THREE FOUR FIVE SIX SEVEN EIGHT NINE".split()
_TEENS = "TEN ELEVEN TWELVE THIRTEEN FOURTEEN FIFTEEN SIXTEEN SEVENTEEN EIGHTEEN NINETEEN".split()
_TENS = {"TWENTY": 20, "THIRTY": 30, "FORTY": 40, "FIFTY": 50}
SPELLED: dict[str, int] = {word: value for value, word in enumerate(_ONES[1:] + _TEENS, start=1)}
for _word, _value in _TENS.items():
    SPELLED[_word] = _value
    SPELLED.update({_word + one: _value + index for index, one in enumerate(_ONES[1:], start=1)})

_CHAPTER = re.compile(r"^(?:Chapter|CHAPTER)[ \t]+(?P<number>\d{1,3})[ \t]*$")
_SPHINX_CHAPTER = re.compile(r"^CHAPTER[ \t]*$")
# Two openings make chapters: one lone "Chapter 1" line may be a sentence's end or a figure's caption.
MIN_OPENINGS = 2


def chapter_openings(text: str) -> dict[int, int]:
    """``{offset of the opening line: chapter number}``, for chapters that run 1, 2, 3, ... in order.

    A chapter 1 after others starts the count again (what came before was not the body's); fewer than
    ``MIN_OPENINGS`` is none.
    """
    lines = text.split("\n")
    found: dict[int, int] = {}
    offset = 0
    for index, line in enumerate(lines):
        number = _number(line, lines[index + 1] if index + 1 < len(lines) else "")
        if number == 1:
            found = {offset: 1}
        elif number is not None and found and number == max(found.values()) + 1:
            found[offset] = number
        offset += len(line) + 1
    return found if len(found) >= MIN_OPENINGS else {}


def _number(line: str, following: str) -> int | None:
    plain = _CHAPTER.match(line)
    if plain is not None:
        return int(plain.group("number"))
    if _SPHINX_CHAPTER.match(line):
        return SPELLED.get(following.strip())
    return None
