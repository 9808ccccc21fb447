"""RFC Editor plain text: page headers and footers dropped, split at numbered section headers."""

from __future__ import annotations

import re
from collections.abc import Iterable

from pytest_citecheck._errors import NoSectionsError
from pytest_citecheck._sources.formats.numbered import follows
from pytest_citecheck._sources.offsets import OffsetMap, cut_twice

# RFC Editor plain text: every page ends with a footer "Author, et al.  Category  [Page N]" and the
# next page starts with a header "RFC NNNN  Title  Month Year". Both are layout, not content.
_RFC_FOOTER = re.compile(r"^.*\[Page \d+\][ \t]*$")
_RFC_HEADER = re.compile(r"^RFC \d+ .*\b\d{4}[ \t]*$")
# A numbered section header starts at column 0: "4.1.3.  Title". An "Appendix A." header is not a
# numbered section, but it ends the one before it.
_RFC_SECTION = re.compile(r"^(?:(?P<number>\d+(?:\.\d+)*)\.?[ \t]+\S.*|Appendix [A-Z]\..*)$", re.MULTILINE)


_EXTRA_BLANK_LINES = re.compile(r"\n\n(\n+)")


def clean_rfc(text: str) -> tuple[str, OffsetMap]:
    """The text without form feeds, page footers and running headers, blank lines left by them folded to one."""
    return cut_twice(text, _page_layout(text), _EXTRA_BLANK_LINES)


def _page_layout(text: str) -> list[tuple[int, int]]:
    """What RFC cleaning removes first: form feeds, and each footer or running header line with a newline."""
    spans: list[tuple[int, int]] = []
    offset = 0
    for line in text.split("\n"):
        end = offset + len(line)
        bare = line.replace("\f", "")
        if _RFC_FOOTER.match(bare) or _RFC_HEADER.match(bare):
            # The line goes with the newline after it, or before it when it is the last line.
            spans.append((offset, end + 1) if end < len(text) else (max(0, offset - 1), end))
        else:
            spans.extend((offset + at, offset + at + 1) for at, char in enumerate(line) if char == "\f")
        offset = end + 1
    return spans


def split_rfc(text: str) -> tuple[str, dict[str, str], OffsetMap]:
    """RFC Editor plain text: strip page headers and footers, split on numbered section headers."""
    clean, offsets = clean_rfc(text)
    headers = _in_sequence(_RFC_SECTION.finditer(clean))
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
        raise NoSectionsError(
            "no numbered section headers (like '4.1.  Title' at the start of a line) were found", field="source"
        )
    return clean, sections, offsets


def _in_sequence(found: Iterable[re.Match[str]]) -> list[re.Match[str]]:
    """The header lines whose numbers follow the section before them (see ``numbered.follows``).

    A wrapped sentence can put a number at the start of a line ("60 days after the cessation." in
    the GFDL's section 9): out of sequence, it is text, not a header that would cut its section in two.
    """
    kept: list[re.Match[str]] = []
    current: tuple[int, ...] | None = None
    for header in found:
        number = header.group("number")
        if number is None:  # "Appendix A.": ends the numbered sections
            kept.append(header)
            continue
        parts = tuple(int(part) for part in number.split("."))
        plausible = (len(parts) == 1 and parts[0] <= 1) if current is None else follows(parts, current)
        if plausible:
            kept.append(header)
            current = parts
    return kept
