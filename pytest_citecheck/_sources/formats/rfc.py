"""RFC Editor plain text: page headers and footers dropped, split at numbered section headers."""

from __future__ import annotations

import re
from collections.abc import Iterable

from pytest_citecheck._errors import SourceError
from pytest_citecheck._sources.formats.numbered import follows

# RFC Editor plain text: every page ends with a footer "Author, et al.  Category  [Page N]" and the
# next page starts with a header "RFC NNNN  Title  Month Year". Both are layout, not content.
_RFC_FOOTER = re.compile(r"^.*\[Page \d+\][ \t]*$")
_RFC_HEADER = re.compile(r"^RFC \d+ .*\b\d{4}[ \t]*$")
# A numbered section header starts at column 0: "4.1.3.  Title". An "Appendix A." header is not a
# numbered section, but it ends the one before it.
_RFC_SECTION = re.compile(r"^(?:(?P<number>\d+(?:\.\d+)*)\.?[ \t]+\S.*|Appendix [A-Z]\..*)$", re.MULTILINE)


def split_rfc(text: str) -> tuple[str, dict[str, str]]:
    """RFC Editor plain text: strip page headers and footers, split on numbered section headers."""
    kept = [
        line for line in text.replace("\f", "").split("\n") if not (_RFC_FOOTER.match(line) or _RFC_HEADER.match(line))
    ]
    clean = re.sub(r"\n{3,}", "\n\n", "\n".join(kept))
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
        raise SourceError(
            "no numbered section headers (like '4.1.  Title' at the start of a line) were found", field="source"
        )
    return clean, sections


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
