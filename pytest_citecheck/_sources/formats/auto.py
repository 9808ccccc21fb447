"""How ``auto`` picks a layout: split the document every way, score each split, take the best.

A split is scored on the whole document (``Fit``):
- how much of the text its sections hold (text before the first heading, or after the last one's
  end, is outside every section);
- how the sizes are spread (the share of the text in the largest section);
- whether numbered sections are in order (a number lower than the one before is backwards);
- how many sections are only their heading line (a heading followed by its first subsection is not);
- how many sections there are (up to five, a split with more is not thereby better).

The score is the product of those, plus a little for the layout's own mark in the text (RFC page
footers, a man page's header line, ``Chapter 1.`` lines with a no-break space, HTML elements, an
Info node's separator and header).
A document that is honestly one section, one heading at its top over all of its text, scores 0 (its
section holds all the text); a split of a few sections that leaves a tenth more of the text before its
first heading found its headings in the body (list items, a code fence under a word) and ranks below
that one-section reading (``ranked``).
Equal scores go to the layout that comes first in ``PRECEDENCE``. When even the best split
explains the document badly (``Fit.problems``), ``Source.from_text`` warns at load, naming the
layout chosen and the runner-up.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pytest_citecheck._sources.formats.headings import PREAMBLE

# Layouts in the order that wins a tie: the more particular a layout's mark, the earlier.
# An RFC comes last: without its page marks (which win it the bonus) an RFC is numbered text.
PRECEDENCE = ("html", "info", "man", "docbook", "markdown", "rst", "numbered", "rfc")
# Below this size no split is called bad: a short note in one section is fine.
LARGE_DOCUMENT = 20_000
MARK_BONUS = 0.15
# One section "at the top": less than this share of the text before its heading (a mail header, a badge).
TOP = 0.05
# A split of at most FEW sections that leaves BODY more of the text outside than that one section does
# took lines of the body for headings. (A real document with a title, a long preamble and numbered
# sections has more than a few.)
FEW = 3
BODY = 0.1

_ID_PART = re.compile(r"^(?:\d+|[A-Z])$")


@dataclass(frozen=True)
class Fit:
    """How well one layout's split explains a document."""

    format: str
    sections: int
    largest_id: str
    largest: float  # share of the text in the largest section
    outside: float  # share of the text in no section (the preamble included)
    backwards: int  # numbered sections whose number is lower than the one before
    numbered: int
    one_line: int  # sections that are only their heading line
    marked: bool
    size: int

    @property
    def score(self) -> float:
        if not self.sections:
            return 0.0
        order = 1 - self.backwards / max(1, self.numbered - 1)
        lines = 1 - self.one_line / self.sections
        count = min(1.0, self.sections / 5)
        quality = (1 - self.outside) * (1 - self.largest) * order * lines * count
        return quality + (MARK_BONUS if self.marked else 0.0)

    @property
    def problems(self) -> list[str]:
        """What about this split explains the document badly (empty when nothing does)."""
        found: list[str] = []
        large = self.size >= LARGE_DOCUMENT
        if large and self.sections == 1 and self.largest > 0.5:
            found.append(f"its one heading, {self.largest_id!r}, makes the whole text one section")
        elif large and self.largest > 0.5:
            found.append(f"section {self.largest_id!r} holds {self.largest:.0%} of the text")
        if large and self.outside > 0.5:
            found.append(f"{self.outside:.0%} of the text is in no section")
        if self.backwards >= 2 and self.backwards > 0.1 * self.numbered:
            found.append(f"section numbers go backwards {self.backwards} times")
        if self.sections >= 5 and self.one_line > 0.3 * self.sections:
            found.append(f"{self.one_line} of its {self.sections} sections are only a heading line")
        return found


def number_of(section_id: str) -> tuple[int, ...] | None:
    """A dotted section id as numbers to compare (``A.1`` after ``12``), else None."""
    parts = section_id.split(".")
    if not all(_ID_PART.match(part) for part in parts):
        return None
    return tuple(int(part) if part.isdigit() else 1000 + ord(part) for part in parts)


def _bare(text: str, section_id: str, following: str) -> bool:
    """A section that is only its heading line and has no subsection after it."""
    parent = following.startswith(section_id + ".") or following.startswith(section_id + " > ")
    return "\n" not in text.strip() and not parent


def fit(format: str, clean: str, sections: Mapping[str, str], marked: bool) -> Fit:
    """Score one split (see the module's docstring)."""
    body = {key: value for key, value in sections.items() if key != PREAMBLE}
    total = max(1, len(clean.strip()))
    numbers = [number for number in map(number_of, body) if number is not None]
    largest_id = max(body, key=lambda key: len(body[key]), default="")
    return Fit(
        format=format,
        sections=len(body),
        largest_id=largest_id,
        largest=len(body.get(largest_id, "")) / total,
        outside=max(0.0, 1 - sum(map(len, body.values())) / total),
        backwards=sum(1 for before, after in zip(numbers, numbers[1:]) if after < before),
        numbered=len(numbers),
        one_line=sum(1 for key, after in zip(body, [*list(body)[1:], ""]) if _bare(body[key], key, after)),
        marked=marked,
        size=total,
    )


# Layouts whose one heading can be a document's title (a lone "1" or "Chapter 1." at the top is not).
TITLED = ("html", "markdown", "rst")


def _whole(one: Fit) -> bool:
    """One section under a title at the top of the document, and more than that title."""
    return one.format in TITLED and one.sections == 1 and one.one_line == 0 and one.outside < TOP


def ranked(fits: list[Fit]) -> list[Fit]:
    """Best first: by score, then by ``PRECEDENCE``; a split that took lines of the body of a one-section
    document for headings (see the module's docstring) after that document's one section."""
    order = {name: index for index, name in enumerate(PRECEDENCE)}
    top = min((one.outside for one in fits if _whole(one)), default=None)

    def in_body(one: Fit) -> bool:
        return top is not None and one.sections <= FEW and one.outside > top + BODY

    return sorted(fits, key=lambda one: (in_body(one), -round(one.score, 6), order.get(one.format, len(order))))


Marks = Mapping[str, Callable[[str], bool]]
