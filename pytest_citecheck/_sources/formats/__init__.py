"""Splitting a document's text into sections, one module per document shape.

A splitter takes the document's text and returns ``(clean_text, sections)``: the text after
layout noise is removed (page headers and footers, boxes drawn around paragraphs, HTML markup),
and an ordered mapping from section id to that section's full text, heading included. Every
section is a verbatim slice of ``clean_text``. ``FORMATS`` maps each format name
``Source.from_text(format=...)`` accepts to its splitter; ``detect_format`` is what ``auto`` uses;
``pdf.read_pdf`` extracts a PDF's text with pypdf (an optional extra, imported only for PDFs).

Formats that are not built in go to the ``pytest_citecheck_split_sections`` hook. This module stays
free of pytest: the plugin hands it the hook's caller (``_hooks.set_split_hook``) while a session runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from pytest_citecheck import _hooks
from pytest_citecheck._errors import SourceError, docs_url
from pytest_citecheck._sources.formats.headings import PREAMBLE, heading_ids
from pytest_citecheck._sources.formats.html import split_html
from pytest_citecheck._sources.formats.markdown import split_markdown
from pytest_citecheck._sources.formats.numbered import split_numbered
from pytest_citecheck._sources.formats.pdf import read_pdf
from pytest_citecheck._sources.formats.rfc import split_rfc

__all__ = [
    "EXTENSIONS",
    "FORMATS",
    "PREAMBLE",
    "detect_format",
    "heading_ids",
    "read_pdf",
    "split",
    "split_detected",
]

Splitter = Callable[[str], "tuple[str, dict[str, str]]"]

_LOOKS_HTML = re.compile(r"<(?:!doctype\s+html|html|body|h[1-6]|p|div)[\s>]", re.IGNORECASE)
_LOOKS_RFC_FOOTER = re.compile(r"^.*\[Page \d+\][ \t]*$", re.MULTILINE)
_LOOKS_ATX = re.compile(r"^ {0,3}#{1,6}[ \t]+\S", re.MULTILINE)


def detect_format(text: str) -> str:
    """The built-in format ``text`` looks like: html, rfc, markdown or numbered."""
    if _LOOKS_HTML.search(text[:65536]):
        return "html"
    if _LOOKS_RFC_FOOTER.search(text) and _RFC_HEADER.search(text):
        return "rfc"
    if len(_LOOKS_ATX.findall(text)) >= 1:
        return "markdown"
    try:
        _, sections = split_numbered(text)
    except SourceError:
        sections = {}
    if len([key for key in sections if key != PREAMBLE]) >= 2:
        return "numbered"
    return "markdown"


# What ``auto`` looks for, in the order it looks, for the message when it finds none of them.
AUTO_TRIED = (
    "html (<h1>-<h6> elements), rfc (RFC Editor page footers and headers), markdown ('#' or underlined "
    "headings) and numbered ('1.', '1.1', 'Section 4.' at the start of lines)"
)


def split_auto(text: str) -> tuple[str, dict[str, str]]:
    """Whichever built-in format ``detect_format`` names."""
    return split_detected(text)[1:]


def split_detected(text: str, name: str | None = None) -> tuple[str, str, dict[str, str]]:
    """``(format, clean_text, sections)`` for the built-in format ``detect_format`` names.

    When that format finds no sections either, the error names every format ``auto`` tried and
    the ways out (``format=``, the split hook), not just the last splitter's complaint.
    """
    chosen = detect_format(text)
    try:
        clean, sections = FORMATS[chosen](text)
    except SourceError:
        document = f"{name}: " if name else ""
        raise SourceError(
            f"{document}format 'auto' found no sections: it looked for {AUTO_TRIED}, and the document has none "
            "of them; if it is one of those formats, pass format= (rfc, markdown, numbered, html); otherwise "
            "split it yourself: implement the pytest_citecheck_split_sections hook for a format name of your "
            "own (see " + docs_url("hooks") + "), or build Source(sections={...})",
            field="format",
        ) from None
    return chosen, clean, sections


_RFC_HEADER = re.compile(r"^RFC \d+ .*\b\d{4}[ \t]*$", re.MULTILINE)

FORMATS: dict[str, Splitter] = {
    "rfc": split_rfc,
    "markdown": split_markdown,
    "numbered": split_numbered,
    "html": split_html,
    "auto": split_auto,
}

EXTENSIONS = {".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html", ".rfc": "rfc"}


def split(text: str, format: str, hooks: Any = None) -> tuple[str, Mapping[str, str]]:
    """Split ``text`` as ``format``: a built-in splitter, else the split hook (``hooks`` or the session's)."""
    splitter = FORMATS.get(format)
    if splitter is not None:
        return splitter(text)
    caller = hooks.pytest_citecheck_split_sections if hooks is not None else _hooks.split_sections
    if caller is not None:
        sections = caller(text=text, format=format)
        if sections is not None:
            if not isinstance(sections, Mapping):
                raise SourceError(
                    f"the pytest_citecheck_split_sections hook returned {type(sections).__name__} for format {format!r}, "
                    "not a mapping of section id to text",
                    field="format",
                )
            return text, sections
    raise SourceError(
        f"unknown format {format!r}; known formats: {', '.join(sorted(FORMATS))} "
        "(or implement pytest_citecheck_split_sections in conftest.py)",
        field="format",
    )
