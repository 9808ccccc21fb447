"""PDF: the text of every page, through pypdf (the optional ``pdf`` extra, imported only for PDFs)."""

from __future__ import annotations

import os
from os import PathLike

from pytest_citecheck._errors import SourceError


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
    text = "\n\n".join(page.strip("\n") for page in pages)
    if not text.strip():
        raise SourceError(f"{path}: the PDF has no extractable text (a scan? run OCR first)", field="source")
    return text
