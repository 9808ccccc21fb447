"""DocBook (and other HTML manuals) rendered to text by lynx, w3m or DocBook's own text stylesheets.

Chapters open with a ``Chapter N. Title`` line, appendices with ``Appendix A. Title``, and the
sections inside them with a dotted number, ``N.M. Title`` or ``A.1. Title`` (the renderers put a
no-break space after the number, and may indent the line). The table of contents at the front,
and the one at the head of each chapter, list the same numbers: they are recognised as contents
(see ``outline``) and never become sections. A section's id is its number: ``4``, ``4.1``, ``A.2``
(numbered sections of a preface, before the first chapter, are known by their titles instead).
"""

from __future__ import annotations

import re
from dataclasses import replace

from pytest_citecheck._errors import NoSectionsError
from pytest_citecheck._sources.formats.outline import Heading, split_outline

_SPACE = r"[ \t\u00a0]"
_CHAPTER = re.compile(rf"^(?P<kind>Chapter|Appendix){_SPACE}+(?P<number>\d+|[A-Z])\.(?:{_SPACE}+(?P<title>\S.*))?$")
_SECTION = re.compile(rf"^{_SPACE}*(?P<number>(?:\d+|[A-Z])(?:\.\d+)+)\.{_SPACE}+(?P<title>\S.*)$")


def docbook_headings(text: str) -> list[Heading]:
    """Chapter and appendix lines (level 1) and dotted section lines (level = how many numbers)."""
    headings: list[Heading] = []
    chapter: str | None = None
    offset = 0
    for line in text.split("\n"):
        end = offset + len(line) + 1
        found = _CHAPTER.match(line) or _SECTION.match(line)
        number = found.group("number") if found else ""
        if found is not None and found.re is _CHAPTER:
            chapter = number
        # Inside a chapter, "2.6. Upon discovery ..." in chapter 3 is a wrapped sentence, not a heading.
        if found is not None and (chapter is None or number.split(".")[0] == chapter):
            level = 1 if found.re is _CHAPTER else number.count(".") + 1
            indent = len(line) - len(line.lstrip())
            headings.append(Heading(offset + indent, min(end, len(text)), level, " ".join(line.split()), number))
        offset = end
    return _front_matter_unnumbered(headings)


def _front_matter_unnumbered(headings: list[Heading]) -> list[Heading]:
    """Numbered headings before the first chapter (a preface's "3.1.") keep their numbers out of the ids,
    which are the chapters' ("3.1" is chapter 3's first section)."""
    first = next((index for index, heading in enumerate(headings) if heading.level == 1), 0)
    return [replace(heading, number=None) for heading in headings[:first]] + headings[first:]


def split_docbook(text: str) -> tuple[str, dict[str, str]]:
    """DocBook or HTML manuals rendered as text: sections at ``Chapter N.``, ``Appendix A.`` and ``N.M.`` lines."""
    headings = docbook_headings(text)
    sections = split_outline(text, headings) if headings else {}
    if not [key for key in sections if key != "preamble"]:
        raise NoSectionsError(
            "no chapters or numbered sections of a rendered manual ('Chapter 1. Title', 'Appendix A. Title', "
            "'1.2. Title' on a line of its own) were found",
            field="source",
        )
    return text, sections
