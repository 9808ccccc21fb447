"""Exponents in a PDF's text: digits set smaller and raised right after a number are read raised.

PDFium gives a page's characters in reading order with no sign of a raised one: R's language manual
prints "2 ^ 2 ^ 3 is 2⁸, not 4³", and its text reads "2 ^ 2 ^ 3 is 28\r\n, not\r\n4\r\n3" (the line
breaks PDFium adds where the baseline moves). A quote "is 28" was found there. As for HTML's
``<sup>`` (``html.py``), a run of digits and signs right after a digit, in a smaller font with its
baseline raised, is written with superscript characters (which matching keeps apart from plain
digits), and the line breaks PDFium made around it are dropped. A raised mark after a letter (a
footnote's number) reads as written, as HTML's does.
"""

from __future__ import annotations

import ctypes
import re
from typing import Any

from pytest_citecheck._sources.formats.html import RAISED, SUPERSCRIPTS

# A character that could be raised, after a digit (and any line break PDFium put between them).
_AFTER_A_DIGIT = re.compile(f"(?<=\\d)(?:\r\n)?[{re.escape(RAISED)}]")
# Set smaller than the digit before it (TeX sets a superscript at 70% of the text, Word at about 65%)...
_SMALLER = 0.85
# ...and its baseline higher by a fifth of that digit's size at least (a subscript is lower; a digit of
# the same line, even in another font, within a few percent).
_RISE = 0.2
# A gap wider than a fifth of the digit's size after the run is a space between words (TeX's narrowest, in a
# tight justified line, is about a quarter); a comma set after an exponent stands closer.
_GAP = 0.2


class _Chars:
    """Font size, baseline and whether PDFium generated it, for one text page's characters, asked by index."""

    def __init__(self, text_page: Any) -> None:
        import pypdfium2.raw as pdfium_c

        self._c, self._page = pdfium_c, text_page.raw
        self._x, self._y = ctypes.c_double(), ctypes.c_double()

    def size(self, index: int) -> float:
        return float(self._c.FPDFText_GetFontSize(self._page, index))

    def baseline(self, index: int) -> tuple[float, float]:
        self._c.FPDFText_GetCharOrigin(self._page, index, self._x, self._y)
        return self._x.value, self._y.value

    def generated(self, index: int) -> bool:
        return bool(self._c.FPDFText_IsGenerated(self._page, index))

    def left(self, index: int) -> float:
        return self._box(index)[0]

    def right(self, index: int) -> float:
        return self._box(index)[1]

    def _box(self, index: int) -> tuple[float, float]:
        left, right, bottom, top = ctypes.c_double(), ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
        self._c.FPDFText_GetCharBox(self._page, index, left, right, bottom, top)
        return left.value, right.value


def with_exponents_raised(text_page: Any, text: str) -> str:
    """``text`` (``text_page``'s, as ``get_text_range`` gave it) with every exponent written raised."""
    if not _AFTER_A_DIGIT.search(text) or len(text) != text_page.count_chars():
        # No digit is followed by one, or the text does not map one character to one index (a character
        # beyond the BMP, given as two): read as PDFium wrote it.
        return text
    chars = _Chars(text_page)
    pieces: list[str] = []
    done = 0  # text[:done] is in pieces
    position = 0
    while (found := _AFTER_A_DIGIT.search(text, position)) is not None:
        start = found.end() - 1  # the character that may be raised
        digit = found.start() - 1
        end = _raised_run(text, chars, digit, start) if start >= done else start
        if end == start:
            position = found.end()
            continue
        # Keep what comes before the digit's line break, the run raised, then no break PDFium made after it.
        pieces += [text[done : digit + 1], text[start:end].translate(SUPERSCRIPTS)]
        done, gap = _after_breaks(text, chars, digit, end)
        pieces.append(gap)
        position = done
    return "".join(pieces) + text[done:] if pieces else text


def _raised_run(text: str, chars: _Chars, digit: int, start: int) -> int:
    """The end of the run of raised characters from ``start`` after the digit at ``digit``; ``start`` if none."""
    size = chars.size(digit)  # first: most digits after a digit are more of one number, the same size
    if not size or chars.size(start) >= size * _SMALLER or chars.generated(digit) or chars.generated(start):
        return start
    (x, y), (x_raised, y_raised) = chars.baseline(digit), chars.baseline(start)
    if y_raised - y < size * _RISE or not 0 <= x_raised - x <= size * 2:
        return start
    end = start + 1
    while end < len(text) and text[end] in RAISED and not chars.generated(end):
        if chars.size(end) >= size * _SMALLER or abs(chars.baseline(end)[1] - y_raised) >= size * _RISE:
            break
        end += 1
    return end


def _after_breaks(text: str, chars: _Chars, digit: int, end: int) -> tuple[int, str]:
    """Where the text goes on after a raised run ending at ``end``, and what stands for the line breaks PDFium
    generated there when what follows is on the digit's line (the baseline moved, not the line): a space
    where the page leaves a word's gap ("C99³ interface"), nothing where it does not ("2⁸, not"). A real
    line end is kept."""
    after = end
    while text.startswith("\r\n", after) and chars.generated(after):
        after += 2
    if after == end or after >= len(text):
        return end, ""
    size, line = chars.size(digit), chars.baseline(digit)[1]
    if abs(chars.baseline(after)[1] - line) >= size * _RISE:
        return end, ""
    return after, " " if chars.left(after) - chars.right(end - 1) > size * _GAP else ""
