"""PDF: the text of every page, through pypdf (the optional ``pdf`` extra, imported only for PDFs)."""

from __future__ import annotations

import os
import re
import unicodedata
from os import PathLike

from pytest_citecheck._errors import SourceError

# TeX draws an accented letter as the letter and an accent over it; pypdf gives the accent first, as
# its spacing form: "Niels M¨oller" for "Niels Möller", which no quote of what the page shows matches.
# Only accents that are never punctuation are joined (not ´ or `, which stand for apostrophes too).
_COMBINING = {"¨": "\u0308", "ˆ": "\u0302", "˜": "\u0303", "ˇ": "\u030c", "˘": "\u0306", "˚": "\u030a", "˝": "\u030b"}
# Older pypdf (4.x) puts a space between the accent and its letter ("M¨ oller"): one space is taken too.
_SPACING_ACCENT = re.compile(f"([{''.join(_COMBINING)}]) ?([^\\W\\d_])")


def _accented(found: re.Match[str]) -> str:
    letter = unicodedata.normalize("NFC", found.group(2) + _COMBINING[found.group(1)])
    return letter if len(letter) == 1 else found.group()


def read_pdf(path: str | PathLike[str]) -> str:
    """The text of a PDF, page after page (needs the ``pdf`` extra: ``pip install 'pytest-citecheck[pdf]'``)."""
    try:
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError
    except ImportError:
        raise SourceError(
            f"{path}: reading PDF needs pypdf; install it with: pip install 'pytest-citecheck[pdf]'", field="source"
        ) from None
    try:
        reader = PdfReader(os.fspath(path))
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, OSError) as error:
        raise SourceError(f"{path}: cannot read this PDF ({error})", field="source") from None
    text = _SPACING_ACCENT.sub(_accented, "\n\n".join(page.strip("\n") for page in pages))
    if not text.strip():
        raise SourceError(f"{path}: the PDF has no extractable text (a scan? run OCR first)", field="source")
    return text
