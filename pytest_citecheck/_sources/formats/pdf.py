"""PDF: the text of every page, through PDFium (pypdfium2, the optional ``pdf`` extra, imported only for PDFs).

PDFium places the spaces between words from where the glyphs stand. pypdf (7.1.1, its open issue #3978)
guesses a font's space width from the glyph numbered 32 when no glyph maps to a space, which is the case
for every font XeTeX embeds (Sphinx's and dblatex's PDFs: TeX draws a word gap as a displacement, never a
space glyph): it then adds no space, and a justified line read "Thisdocumentmaybeused". No option of
pypdf's changes that (``space_width`` applies only where that glyph has no width; layout mode uses the same
width). pypdf stays for what LlamaIndex's ``PDFReader`` read (``pdf_pages.py``).
"""

from __future__ import annotations

import os
import re
import threading
import unicodedata
from os import PathLike

from pytest_citecheck._errors import SourceError
from pytest_citecheck._sources.formats.exponents import with_exponents_raised

# TeX draws an accented letter as the letter and an accent over it; pypdf gives the accent first, as
# its spacing form: "Niels M¨oller" for "Niels Möller", which no quote of what the page shows matches.
# Only accents that are never punctuation are joined (not ´ or `, which stand for apostrophes too).
_COMBINING = {"¨": "\u0308", "ˆ": "\u0302", "˜": "\u0303", "ˇ": "\u030c", "˘": "\u0306", "˚": "\u030a", "˝": "\u030b"}
# A space between the accent and its letter ("M¨ oller", as older pypdf read it) is taken too.
_SPACING_ACCENT = re.compile(f"([{''.join(_COMBINING)}]) ?([^\\W\\d_])")


def _accented(found: re.Match[str]) -> str:
    letter = unicodedata.normalize("NFC", found.group(2) + _COMBINING[found.group(1)])
    return letter if len(letter) == 1 else found.group()


# PDFium ends a line with CR LF, and marks a word TeX hyphenated at a line end with U+FFFE, joining the
# two lines: the page shows a hyphen and a line break, and so does the text (as for any other document).
_LINE_ENDS = str.maketrans({"\r": None, "\ufffe": "-\n"})
# pypdfium2 is not thread-safe (its documentation): one document is read at a time.
_PDFIUM = threading.Lock()


def _pages(path: str) -> list[str]:
    """The text of each page, as PDFium extracts it."""
    import pypdfium2

    with _PDFIUM:
        document = pypdfium2.PdfDocument(path)
        try:
            texts = []
            for index in range(len(document)):
                page = document[index]
                text_page = page.get_textpage()
                texts.append(with_exponents_raised(text_page, text_page.get_text_range()))
                text_page.close()
                page.close()
            return texts
        finally:
            document.close()


def read_pdf(path: str | PathLike[str]) -> str:
    """The text of a PDF, page after page (needs the ``pdf`` extra: ``pip install 'pytest-citecheck[pdf]'``)."""
    try:
        from pypdfium2 import PdfiumError
    except ImportError:
        raise SourceError(
            f"{path}: reading PDF needs pypdfium2; install it with: pip install 'pytest-citecheck[pdf]'",
            field="source",
        ) from None
    try:
        pages = [page.translate(_LINE_ENDS) for page in _pages(os.fspath(path))]
    except (PdfiumError, OSError) as error:
        raise SourceError(f"{path}: cannot read this PDF ({error})", field="source") from None
    text = _SPACING_ACCENT.sub(_accented, "\n\n".join(page.strip("\n") for page in pages))
    if not text.strip():
        raise SourceError(f"{path}: the PDF has no extractable text (a scan? run OCR first)", field="source")
    return text
