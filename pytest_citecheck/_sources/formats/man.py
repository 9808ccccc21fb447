"""Man pages as a reader has them: rendered by ``man`` (``man -P cat ls``, ``man ls | col -b``).

The rendered page opens with a header line (``LS(1)  User Commands  LS(1)``) and closes with a
footer naming the page again; section headings (``.SH``: NAME, SYNOPSIS, DESCRIPTION ...) stand
at the left margin, subsection headings (``.SS``) are indented three columns, and the text is
indented seven. Ids are the titles: ``DESCRIPTION``, ``DESCRIPTION > Input file location`` (a
subsection's trailing colon dropped). The header is the preamble; the footer is in no section.
Overstrikes a terminal would show as bold or underlined (``N\\bNA\\bA``) and colour escapes are
cleaned away, with offsets kept (``offsets``). The roff source (``.TH``, ``.SH``) is not this
layout: render it first.
"""

from __future__ import annotations

import re

from pytest_citecheck._errors import NoSectionsError
from pytest_citecheck._sources.formats.outline import Heading, split_outline
from pytest_citecheck._sources.offsets import OffsetMap, cut

HEADER = re.compile(r"^(?P<page>[\w.:+-]+\([\w]+\))[ \t]{2,}.*?(?P=page)[ \t]*$", re.MULTILINE)
_TERMINAL_NOISE = re.compile(r".\x08|\x1b\[[0-9;]*m")
_SECTION = re.compile(r"^\S.{0,79}$")
_SUBSECTION = re.compile(r"^ {3}(?P<title>\S.{0,76})$")
ROFF = re.compile(r"^\.(?:TH|SH)\b", re.MULTILINE)
_PAGE = re.compile(r"[\w.:+-]+\(\w+\)")


def header_page(text: str) -> str | None:
    """The page (``LS(1)``) that the header line, the first of ``text``, names; None without one.

    A title too long for the line is overprinted by groff: the line is then the page cut short,
    glued to the rest, and the page whole at its end (gcloud's pages:
    ``GCLOUD_AI_ENDPOINTS_CREATE(1General Commands ManuGCLOUD_AI_ENDPOINTS_CREATE(1)``).
    """
    first = text.lstrip("\n").split("\n", 1)[0].rstrip()
    found = HEADER.match(first)
    if found is not None:
        return found.group("page")
    start = first.rfind(first[:10], 1) if len(first) >= 20 else -1
    return first[start:] if start > 0 and _PAGE.fullmatch(first[start:]) else None


def clean_man(text: str) -> tuple[str, OffsetMap | None]:
    """The page without overstrikes and colour escapes, and the map back (None when there were none)."""
    spans = [(found.start(), found.end()) for found in _TERMINAL_NOISE.finditer(text)]
    if not spans:
        return text, None
    clean, offsets = cut(text, spans)
    return clean, offsets


def man_headings(text: str) -> tuple[list[Heading], int]:
    """The page's section and subsection headings, and where its footer starts (the end of its sections)."""
    page = header_page(text)
    if page is None:
        return [], len(text)
    lines = text.split("\n")
    end = len(text)
    header_start = len(text) - len(text.lstrip("\n"))
    if text.rstrip().endswith(page):
        end = text.rstrip().rfind("\n") + 1
    headings: list[Heading] = []
    offset = 0
    for index, line in enumerate(lines):
        after = offset + len(line) + 1
        alone = index == 0 or not lines[index - 1].strip()
        if offset >= end or offset == header_start:
            pass
        elif _SECTION.match(line):
            headings.append(Heading(offset, min(after, len(text)), 1, line.strip()))
        elif alone and (sub := _SUBSECTION.match(line)):
            headings.append(Heading(offset + 3, min(after, len(text)), 2, sub.group("title").strip().rstrip(":")))
        offset = after
    return headings, end


def split_man(text: str) -> tuple[str, dict[str, str], OffsetMap | None]:
    """A rendered man page: sections at the headings on the left margin, subsections at those indented three."""
    clean, offsets = clean_man(text)
    headings, end = man_headings(clean)
    if not headings:
        hint = (
            " (this is roff source: render it first, e.g. man -P cat ./page.1 > page.txt)" if ROFF.search(text) else ""
        )
        raise NoSectionsError(
            "no rendered man page (a header line such as 'LS(1)  User Commands  LS(1)', then NAME, SYNOPSIS ... "
            "at the left margin) was found" + hint,
            field="source",
        )
    return clean, split_outline(clean, headings, end), offsets
