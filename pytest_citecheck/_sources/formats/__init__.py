"""Splitting a document's text into sections, one module per document shape.

A splitter takes the document's text and returns ``(clean_text, sections)``, or
``(clean_text, sections, offsets)`` when it cleans: the text after layout noise is removed (page
headers and footers, boxes drawn around paragraphs, HTML markup), an ordered mapping from section
id to that section's full text, heading included, and the ``OffsetMap`` from the cleaned text back
to the text as given. Every section is a verbatim slice of ``clean_text``. ``FORMATS`` maps each
layout's name to its splitter (one module each); ``auto`` (``detect``) splits the text every way
and keeps the split that explains it best (``auto.py``); ``pdf.read_pdf`` extracts a PDF's text
with pypdf (an optional extra, imported only for PDFs).

Formats that are not built in go to the ``pytest_citecheck_split_sections`` hook. This module stays
free of pytest: the plugin hands it the hook's caller (``_hooks.set_split_hook``) while a session runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from pytest_citecheck import _hooks
from pytest_citecheck._errors import NoSectionsError, SourceError, docs_url
from pytest_citecheck._sources.formats.auto import Fit, fit, ranked
from pytest_citecheck._sources.formats.docbook import split_docbook
from pytest_citecheck._sources.formats.headings import PREAMBLE, heading_ids
from pytest_citecheck._sources.formats.html import split_html
from pytest_citecheck._sources.formats.info import MARK as INFO_MARK
from pytest_citecheck._sources.formats.info import split_info, split_manual
from pytest_citecheck._sources.formats.man import ROFF, header_page, split_man
from pytest_citecheck._sources.formats.markdown import RST_MARKUP, split_markdown
from pytest_citecheck._sources.formats.numbered import split_numbered
from pytest_citecheck._sources.formats.pdf import read_pdf
from pytest_citecheck._sources.formats.rfc import split_rfc
from pytest_citecheck._sources.formats.rst import split_rst, written_in_rst
from pytest_citecheck._sources.offsets import OffsetMap

__all__ = [
    "EXTENSIONS",
    "FORMATS",
    "PREAMBLE",
    "Detected",
    "Split",
    "detect_format",
    "format_of_name",
    "heading_ids",
    "read_pdf",
    "split",
    "split_detected",
]


class Split(NamedTuple):
    """A split document: the cleaned text, its sections (slices of it), and the map back to the text as given
    (None when the cleaned text is the text as given)."""

    clean: str
    sections: Mapping[str, str]
    offsets: OffsetMap | None = None


# A splitter returns ``(clean_text, sections)``, or ``(clean_text, sections, offsets)`` when it cleans.
Splitter = Callable[[str], "tuple[Any, ...]"]

_LOOKS_HTML = re.compile(r"<(?:!doctype\s+html|html|body|h[1-6]|p|div)[\s>]", re.IGNORECASE)
_RFC_HEADER = re.compile(r"^RFC \d+ .*\b\d{4}[ \t]*$", re.MULTILINE)
_RFC_FOOTER = re.compile(r"^.*\[Page \d+\][ \t]*$", re.MULTILINE)
_DOCBOOK_CHAPTER = re.compile(r"^(?:Chapter|Appendix)\u00a0\S+\.\u00a0", re.MULTILINE)

FORMATS: dict[str, Splitter] = {
    "rfc": split_rfc,
    "markdown": split_markdown,
    "numbered": split_numbered,
    "html": split_html,
    "rst": split_rst,
    "docbook": split_docbook,
    "man": split_man,
    "info": split_info,
}

# The mark each layout leaves, worth a little in ``auto``'s score (``auto.MARK_BONUS``).
MARKS: dict[str, Callable[[str], bool]] = {
    "html": lambda text: bool(_LOOKS_HTML.search(text[:65536])),
    "rfc": lambda text: bool(_RFC_FOOTER.search(text) and _RFC_HEADER.search(text)),
    "man": lambda text: header_page(text) is not None,
    "docbook": lambda text: bool(_DOCBOOK_CHAPTER.search(text)),
    "info": lambda text: bool(INFO_MARK.search(text)),
}

# Layouts ``auto`` tries only on text that bears their mark: HTML without elements, an RFC without
# page footers and headers (which is numbered text), an Info file without nodes.
MARKED_ONLY = ("html", "rfc", "info")

EXTENSIONS = {".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html", ".rfc": "rfc", ".rst": "rst"}
# Names that say the format before a last ``.txt``: Sphinx ships each page's source as ``_sources/<page>.rst.txt``.
SOURCE_SUFFIXES = {".rst.txt": "rst"}
# Layouts ``auto`` may score as well as ``rst`` on a reStructuredText document, which its own markup then overrules.
READ_AS_RST = ("markdown", "numbered")


def format_of_name(name: str) -> str:
    """The format a file's name says (its extension; Sphinx's ``.rst.txt``), else ``auto``."""
    lower = name.lower()
    for suffix, format in SOURCE_SUFFIXES.items():
        if lower.endswith(suffix):
            return format
    dot = lower.rfind(".")
    return EXTENSIONS.get(lower[dot:], "auto") if dot > 0 else "auto"


def _as_split(result: tuple[object, ...], text: str) -> Split:
    clean, sections = result[0], result[1]
    offsets = result[2] if len(result) > 2 else None
    assert isinstance(clean, str) and isinstance(sections, Mapping)
    return Split(clean, sections, offsets if isinstance(offsets, OffsetMap) else None)


@dataclass(frozen=True)
class Detected:
    """What ``auto`` chose: the format, its split, every layout's ``Fit`` best first."""

    format: str
    split: Split
    fits: tuple[Fit, ...]

    def warning(self, name: str | None) -> str | None:
        """The load-time warning when even the best layout explains the document badly, else None."""
        return badly_explained(self.fits[0], self.fits[1] if len(self.fits) > 1 else None, name)


def badly_explained(best: Fit, runner_up: Fit | None, name: str | None, chosen: bool = True) -> str | None:
    """The load-time warning for a split that explains its document badly (``Fit.problems``), else None.

    ``chosen``: ``auto`` chose the layout (and ``runner_up`` is the next best); else the caller named it.
    """
    problems = best.problems
    if not problems:
        return None
    document = f"{name}: " if name else ""
    if not chosen:
        how, other = f"format {best.format!r} split the document", "pass format='auto' to score every layout"
    elif runner_up is not None:
        how = f"format 'auto' split the document as {best.format!r}"
        score, other_score = round(best.score, 6), round(runner_up.score, 6)
        worse = (
            "fits worse"
            if other_score < score
            else "fits no better"
            if other_score == score
            else "takes lines of the text under that heading for headings"
        )
        other = f"the runner-up, {runner_up.format!r} ({_sections(runner_up.sections)}), {worse}"
    else:
        how, other = f"format 'auto' split the document as {best.format!r}", "no other layout found any sections"
    return (
        f"{document}{how} ({_sections(best.sections)}), but {'; '.join(problems)}; {other}. If the document is "
        f"one of the built-in layouts, pass format= ({', '.join(sorted(set(FORMATS) - {'auto'}))}); otherwise "
        f"split it yourself with the pytest_citecheck_split_sections hook (see {docs_url('hooks')}) or "
        "Source(sections={...})"
    )


def explained(format: str, parts: Split, name: str | None) -> str | None:
    """The warning for a built-in layout named by the caller (or a file's extension) that explains the text badly."""
    if format not in FORMATS:
        return None  # the split hook's own split: its author knows best
    return badly_explained(fit(format, parts.clean, parts.sections, marked=False), None, name, chosen=False)


def _sections(count: int) -> str:
    return f"{count} section" + ("" if count == 1 else "s")


def detect(text: str) -> Detected:
    """Split ``text`` in every built-in layout and keep the best (see ``auto``)."""
    splits: dict[str, Split] = {}
    fits: list[Fit] = []
    for name, splitter in FORMATS.items():
        if name == "auto" or (name in MARKED_ONLY and not MARKS[name](text)):
            continue
        try:
            found = _as_split(splitter(text), text)
        except SourceError:
            continue
        splits[name] = found
        fits.append(fit(name, found.clean, found.sections, MARKS.get(name, _unmarked)(text)))
    if not fits:
        raise SourceError("no layout found sections", field="format")
    best = ranked(fits)
    if best[0].format in READ_AS_RST and "rst" in splits and written_in_rst(text):
        # reStructuredText whose underlined titles Markdown reads as well, or whose lists looked numbered: its
        # directives, targets and roles say what it is, and it is read as rendered (sections, comments, markup).
        best = sorted(best, key=lambda one: one.format != "rst")
    chosen = splits[best[0].format]
    if best[0].format == "markdown" and RST_MARKUP.search(text) is not None:
        # reStructuredText that Markdown reads as well (its titles): its comments are no more its text.
        chosen = _as_split(split_markdown(text, rst_markup=True), text)
    return Detected(best[0].format, chosen, tuple(best))


def _unmarked(text: str) -> bool:
    return False


def split_auto(text: str) -> tuple[str, Mapping[str, str], OffsetMap | None]:
    """Whichever layout explains ``text`` best (``detect``)."""
    return split_detected(text).split


FORMATS["auto"] = split_auto


def detect_format(text: str) -> str:
    """The built-in layout ``auto`` splits ``text`` as."""
    try:
        return detect(text).format
    except SourceError:
        return "markdown"


# What ``auto`` looks for, for the message when it finds none of them.
AUTO_TRIED = (
    "html (<h1>-<h6> elements), rfc (RFC Editor page footers and headers), man (a rendered man page's "
    "headings), info (GNU Info nodes: \\x1f, then 'File: ...,  Node: ...'), docbook ('Chapter 1.', '1.2.' lines of a rendered manual), markdown ('#' or underlined "
    "headings), rst (titles underlined with = - ~ ^ and the like) and numbered ('1.', '1.1', 'Section 4.' "
    "at the start of lines)"
)


def split_detected(text: str, name: str | None = None) -> Detected:
    """What ``auto`` makes of ``text``.

    When no layout finds sections, the error names every layout ``auto`` tried and the ways out
    (``format=``, the split hook), not just the last splitter's complaint.
    """
    try:
        return detect(text)
    except SourceError:
        document = f"{name}: " if name else ""
        roff = " (it looks like man page roff source: render it first, e.g. man -P cat ./page.1)"
        info = split_manual(text)
        hint = roff if ROFF.search(text) else f" ({info})" if info else ""
        raise SourceError(
            f"{document}format 'auto' found no sections: it looked for {AUTO_TRIED}, and the document has none "
            f"of them{hint}; {ways_out('auto')}",
            field="format",
        ) from None


def no_sections(found: str, format: str, name: str | None = None, *, by_name: bool = False) -> SourceError:
    """The error of a layout that found none of its sections (``found``), with the ways out.

    ``name``: the document's, put first as ``auto``'s error does; ``by_name``: ``Source.from_file`` chose the
    layout by the file's extension (the user named none).
    """
    document = f"{name}: " if name else ""
    chosen = f" (read as {format!r} because of the file's name)" if by_name else ""
    error = SourceError(f"{document}{found}{chosen}; {ways_out(format)}", field="source")
    error.found, error.layout = found, format
    return error


def ways_out(layout: str) -> str:
    """What to do about a document in which ``layout`` found no sections: one text for a layout's error
    (``no_sections``) and ``auto``'s (``split_detected``), so the two cannot drift apart. Another layout
    (``auto`` first, unless it was ``auto`` that found none), ``Source(sections=...)``, the split hook."""
    others = ", ".join(sorted(set(FORMATS) - {"auto", layout}))
    if layout == "auto":
        another = (
            f"if the document is in one of those layouts all the same, pass the layout it is in as format= ({others})"
        )
    else:
        another = (
            f"if the document is laid out otherwise, pass format='auto' (it tries every layout) or the layout it is in "
            f"({others})"
        )
    return (
        f"{another}; a document with no sections at all can be one: Source(sections={{'<id>': text}}); or split it "
        f"yourself with the pytest_citecheck_split_sections hook, for a format name of your own (see {docs_url('hooks')})"
    )


def split(text: str, format: str, hooks: Any = None) -> Split:
    """Split ``text`` as ``format``: a built-in splitter, else the split hook (``hooks`` or the session's)."""
    if format == "auto":
        return split_detected(text).split
    splitter = FORMATS.get(format)
    if splitter is not None:
        try:
            return _as_split(splitter(text), text)
        except NoSectionsError as error:
            raise no_sections(error.message, format) from None
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
            return Split(text, sections)
    raise SourceError(
        f"unknown format {format!r}; known formats: {', '.join(sorted(FORMATS))} "
        "(or implement pytest_citecheck_split_sections in conftest.py)",
        field="format",
    )
