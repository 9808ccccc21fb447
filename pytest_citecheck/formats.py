"""Splitting a document's text into sections, one function per document shape.

A splitter takes the document's text and returns ``(clean_text, sections)``: the text after
layout noise is removed (page headers and footers, boxes drawn around paragraphs, HTML markup),
and an ordered mapping from section id to that section's full text, heading included. Every
section is a verbatim slice of ``clean_text``. ``FORMATS`` maps each format name
``Source.from_text(format=...)`` accepts to its splitter; ``detect_format`` is what ``auto`` uses;
``read_pdf`` extracts a PDF's text with pypdf (an optional extra, imported only for PDFs).

Formats that are not built in go to the ``pytest_citecheck_split_sections`` hook. This module stays
free of pytest: the plugin hands it the hook's caller (``hookcallers.set_split_hook``) while a session runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from html.parser import HTMLParser
from os import PathLike
from typing import Any

from . import hookcallers
from .errors import SourceError

Splitter = Callable[[str], "tuple[str, dict[str, str]]"]

# RFC Editor plain text: every page ends with a footer "Author, et al.  Category  [Page N]" and the
# next page starts with a header "RFC NNNN  Title  Month Year". Both are layout, not content.
_RFC_FOOTER = re.compile(r"^.*\[Page \d+\][ \t]*$")
_RFC_HEADER = re.compile(r"^RFC \d+ .*\b\d{4}[ \t]*$")
# A numbered section header starts at column 0: "4.1.3.  Title". An "Appendix A." header is not a
# numbered section, but it ends the one before it.
_RFC_SECTION = re.compile(r"^(?:(?P<number>\d+(?:\.\d+)*)\.?[ \t]+\S.*|Appendix [A-Z]\..*)$", re.MULTILINE)


def split_rfc(text: str) -> tuple[str, dict[str, str]]:
    """RFC Editor plain text: strip page headers and footers, split on numbered section headers."""
    kept = [line for line in text.replace("\f", "").split("\n") if not (_RFC_FOOTER.match(line) or _RFC_HEADER.match(line))]
    clean = re.sub(r"\n{3,}", "\n\n", "\n".join(kept))
    headers = list(_RFC_SECTION.finditer(clean))
    sections: dict[str, str] = {}
    for here, following in zip(headers, [*headers[1:], None]):
        number = here.group("number")
        if number is None:
            continue
        end = following.start() if following is not None else len(clean)
        # The first occurrence wins: a table of contents sits before the body only in drafts, and
        # the body's own header always comes first in RFC Editor output.
        sections.setdefault(number, clean[here.start() : end].strip())
    if not sections:
        raise SourceError("no numbered section headers (like '4.1.  Title' at the start of a line) were found", field="source")
    return clean, sections


# --- headings shared by markdown and html ------------------------------------------------

# A heading that starts with a section number: "4.1 Title", "4.1. Title", "Section 4.", "§ 4".
_HEADING_NUMBER = re.compile(r"^(?:(?:section|article|clause)\s+|§\s*)?(\d+(?:\.\d+)*)\.?(?=\s|$)", re.IGNORECASE)
PREAMBLE = "preamble"


def heading_ids(headings: list[tuple[int, str]]) -> list[str]:
    """Section ids for ``(level, title)`` headings: the heading's number when it has a unique one,
    else the path of titles from the top ("Installation > Linux"), made unique with " (2)"."""
    ids: list[str] = []
    used: set[str] = {PREAMBLE}
    path: list[tuple[int, str]] = []
    for level, title in headings:
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, title))
        number = _HEADING_NUMBER.match(title)
        candidate = number.group(1) if number and number.group(1) not in used else " > ".join(t for _, t in path)
        unique, count = candidate, 1
        while unique in used:
            count += 1
            unique = f"{candidate} ({count})"
        used.add(unique)
        ids.append(unique)
    return ids


def _sections_from_starts(text: str, starts: list[int], ids: list[str]) -> dict[str, str]:
    """Cut ``text`` at heading offsets; what precedes the first heading is the preamble (if any)."""
    sections: dict[str, str] = {}
    preamble = text[: starts[0]].strip() if starts else ""
    if preamble:
        sections[PREAMBLE] = preamble
    for index, (start, section_id) in enumerate(zip(starts, ids)):
        end = starts[index + 1] if index + 1 < len(starts) else len(text)
        sections[section_id] = text[start:end].strip()
    return sections


_INLINE_MARKUP = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|[*_`]+")


def _plain_title(title: str) -> str:
    return " ".join(_INLINE_MARKUP.sub(lambda m: m.group(1) or "", title).split())


# --- markdown -------------------------------------------------------------------------------

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def split_markdown(text: str) -> tuple[str, dict[str, str]]:
    """Markdown: ATX (``## Title``) and setext (``Title`` over ``===`` or ``---``) headings; none inside code fences."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    fence: str | None = None
    headings: list[tuple[int, str]] = []
    starts: list[int] = []
    for index, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        atx = _ATX.match(line)
        if atx:
            headings.append((len(atx.group(1)), _plain_title(atx.group(2) or "")))
            starts.append(offsets[index])
            continue
        underline = _SETEXT.match(line)
        if underline and index > 0 and lines[index - 1].strip() and (not starts or starts[-1] != offsets[index - 1]):
            title_line = lines[index - 1]
            if not _ATX.match(title_line) and not _SETEXT.match(title_line) and not title_line.startswith(("    ", "\t")):
                headings.append((1 if underline.group(1)[0] == "=" else 2, _plain_title(title_line)))
                starts.append(offsets[index - 1])
    if not headings:
        raise SourceError("no Markdown headings ('# Title', or a title underlined with === or ---) were found", field="source")
    return text, _sections_from_starts(text, starts, heading_ids(headings))


# --- numbered plain text (licences, contracts, policies) -------------------------------------

_NUMBERED = re.compile(
    r"^(?P<indent>[ \t]{0,6})(?:(?:section|article|clause)[ \t]+|§[ \t]*)?(?P<number>\d+(?:\.\d+)*)(?:\.|\))?(?:[ \t]+(?P<title>\S.*))?$",
    re.IGNORECASE,
)
_BOX_EDGE = re.compile(r"^\*{3,}[ \t]*$")
_BOX_LINE = re.compile(r"^\*(?P<inner>.*?)\*[ \t]*$")
# How far numbering may jump (a section left out, or drawn in a box that was not recognised).
_MAX_SKIP = 3


def _unbox(text: str) -> str:
    """Paragraphs drawn in a box of asterisks (as in MPL-2.0's disclaimers) lose the box."""
    if not any(_BOX_EDGE.match(line) for line in text.split("\n")):
        return text
    out = []
    for line in text.split("\n"):
        boxed = _BOX_LINE.match(line)
        if _BOX_EDGE.match(line):
            out.append("")
        elif boxed:
            inner = boxed.group("inner")
            # "*  6. Title   *": drop the box's margin, keep the text's own indentation.
            out.append(inner[2:].rstrip() if inner.startswith("  ") else inner.strip())
        else:
            out.append(line)
    return "\n".join(out)


def _follows(number: tuple[int, ...], current: tuple[int, ...]) -> bool:
    """Whether ``number`` can be the section after ``current``: its first child, or a later sibling
    of it or of one of its ancestors (skipping at most a few numbers)."""
    if number == (*current, 1) or number == (*current, 0):
        return True
    for depth in range(len(current), 0, -1):
        if len(number) == depth and number[: depth - 1] == current[: depth - 1] and 0 < number[-1] - current[depth - 1] <= _MAX_SKIP:
            return True
    return False


def split_numbered(text: str) -> tuple[str, dict[str, str]]:
    """Plain text whose sections start with ``1.``, ``1.1``, ``Section 4.``, ``§ 4`` at (or near) the line start.

    A numbered line only counts when its number can follow the previous section's (so a list item
    "7." inside section 5, or a wrapped line starting "2.1 of this License", is text) and it is
    indented like the first section of its depth.
    """
    clean = _unbox(text.replace("\r\n", "\n").replace("\f", "\n"))
    lines = clean.split("\n")
    starts: list[int] = []
    ids: list[str] = []
    current: tuple[int, ...] | None = None
    indents: dict[int, str] = {}
    offset = 0
    for line in lines:
        found = _NUMBERED.match(line)
        if found and (found.group("title") or found.group(0).strip().lower().startswith(("section", "article", "clause", "§"))):
            number = tuple(int(part) for part in found.group("number").split("."))
            indent = found.group("indent")
            plausible = (number[-1] <= 1 and len(number) == 1) if current is None else _follows(number, current)
            if plausible and indents.get(len(number), indent) == indent:
                indents.setdefault(len(number), indent)
                current = number
                starts.append(offset + len(indent))
                ids.append(found.group("number"))
        offset += len(line) + 1
    if not starts:
        raise SourceError("no numbered sections ('1.', '1.1', 'Section 4.', '§ 4' at the start of a line) were found", field="source")
    sections: dict[str, str] = {}
    preamble = clean[: starts[0]].strip()
    if preamble:
        sections[PREAMBLE] = preamble
    for index, (start, section_id) in enumerate(zip(starts, ids)):
        end = starts[index + 1] if index + 1 < len(starts) else len(clean)
        sections.setdefault(section_id, clean[start:end].strip())
    return clean, sections


# --- html -----------------------------------------------------------------------------------

_BLOCK_TAGS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li "
    "main nav ol p pre section table tbody td tfoot th thead tr ul".split()
)
_SKIPPED_TAGS = frozenset({"script", "style", "noscript", "template", "head", "svg"})


class _HtmlText(HTMLParser):
    """The visible text of an HTML page, with the offset and level of every heading in it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self.length = 0
        self.skipping = 0
        self.preformatted = 0
        self.headings: list[tuple[int, int, list[str]]] = []  # (offset, level, title pieces)
        self.in_heading: int | None = None

    def _emit(self, text: str) -> None:
        if text:
            self.pieces.append(text)
            self.length += len(text)

    def _break(self) -> None:
        if self.pieces and not self.pieces[-1].endswith("\n"):
            self._emit("\n")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED_TAGS:
            self.skipping += 1
            return
        if tag in _BLOCK_TAGS:
            self._break()
        if tag == "pre":
            self.preformatted += 1
        if not self.skipping and len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.headings.append((self.length, int(tag[1]), []))
            self.in_heading = len(self.headings) - 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_TAGS:
            self.skipping = max(0, self.skipping - 1)
            return
        if tag == "pre":
            self.preformatted = max(0, self.preformatted - 1)
        if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.in_heading = None
        if tag in _BLOCK_TAGS:
            self._break()

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        if not self.preformatted:
            data = re.sub(r"\s+", " ", data)
            if self.pieces and self.pieces[-1].endswith(("\n", " ")):
                data = data.lstrip(" ")
        self._emit(data)
        if self.in_heading is not None:
            self.headings[self.in_heading][2].append(data)


def split_html(text: str) -> tuple[str, dict[str, str]]:
    """HTML: visible text through ``html.parser`` (script, style and head dropped), split at ``<h1>``..``<h6>``."""
    parser = _HtmlText()
    parser.feed(text)
    parser.close()
    clean = "".join(parser.pieces)
    headings = [(offset, level, " ".join("".join(title).split())) for offset, level, title in parser.headings]
    headings = [heading for heading in headings if heading[2]]
    if not headings:
        raise SourceError("no HTML headings (<h1> to <h6>) with text were found", field="source")
    ids = heading_ids([(level, title) for _, level, title in headings])
    return clean, _sections_from_starts(clean, [offset for offset, _, _ in headings], ids)


# --- auto, pdf, and the hook ----------------------------------------------------------------

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


def split_auto(text: str) -> tuple[str, dict[str, str]]:
    """Whichever built-in format ``detect_format`` names."""
    return FORMATS[detect_format(text)](text)


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
    caller = hooks.pytest_citecheck_split_sections if hooks is not None else hookcallers.split_sections
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
        reader = PdfReader(path)
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, OSError) as error:
        raise SourceError(f"{path}: cannot read this PDF ({error})", field="source") from None
    text = "\n\n".join(page.strip("\n") for page in pages)
    if not text.strip():
        raise SourceError(f"{path}: the PDF has no extractable text (a scan? run OCR first)", field="source")
    return text
