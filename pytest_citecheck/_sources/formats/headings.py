"""What the heading-based formats (markdown, html) share: section ids from headings, cutting at them,
a heading's words as a reader sees them (``plain_title``), and how raw HTML in Markdown reads (the tags,
references and raised superscripts that ``_locate.display.markdown`` also reads)."""

from __future__ import annotations

import html
import re

# A heading that starts with a section number: "4.1 Title", "4.1. Title", "Section 4.", "§ 4".
_HEADING_NUMBER = re.compile(r"^(?:(?:section|article|clause)\s+|§\s*)?(\d+(?:\.\d+)*)\.?(?=\s|$)", re.IGNORECASE)
PREAMBLE = "preamble"


def heading_ids(headings: list[tuple[int, str]]) -> list[str]:
    """Section ids for ``(level, title)`` headings: the heading's number when it has a unique one,
    else the path of titles from the top ("Installation > Linux"), made unique with " (2)"."""
    ids: list[str] = []
    unique = UniqueIds()
    path: list[tuple[int, str]] = []
    for level, title in headings:
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, title))
        number = _HEADING_NUMBER.match(title)
        candidate = number.group(1) if number and number.group(1) not in unique else " > ".join(t for _, t in path)
        ids.append(unique(candidate))
    return ids


class UniqueIds:
    """Section ids made unique: a taken id gets " (2)", " (3)"... (the first count not taken).

    Each id remembers the last count it reached, so a document repeating one heading n times makes
    n ids, not n * n / 2 tries (20,000 "# a" headings took 28 s).
    """

    def __init__(self, taken: tuple[str, ...] = (PREAMBLE,)) -> None:
        self._used = set(taken)
        self._counts: dict[str, int] = {}

    def __contains__(self, candidate: str) -> bool:
        return candidate in self._used

    def __call__(self, candidate: str) -> str:
        unique, count = candidate, self._counts.get(candidate, 1)
        while unique in self._used:
            count += 1
            unique = f"{candidate} ({count})"
        self._counts[candidate] = count
        self._used.add(unique)
        return unique


def sections_from_starts(text: str, starts: list[int], ids: list[str]) -> dict[str, str]:
    """Cut ``text`` at heading offsets; what precedes the first heading is the preamble (if any)."""
    sections: dict[str, str] = {}
    preamble = text[: starts[0]].strip() if starts else ""
    if preamble:
        sections[PREAMBLE] = preamble
    for index, (start, section_id) in enumerate(zip(starts, ids)):
        end = starts[index + 1] if index + 1 < len(starts) else len(text)
        sections[section_id] = text[start:end].strip()
    return sections


_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
# Emphasis marks at a word's edge ("**psmisc**", "_does..._"); a "_" or "*" inside a word is the word's own
# ("snake_case", "napi_set_instance_data"), as CommonMark reads it.
_EMPHASIS = re.compile(r"(?<![^\W_])[*_]+|[*_]+(?![^\W_])")


# A superscript right after a digit, opening with a digit or a sign, is a power or a mark of that number,
# not more of its digits: its digits and signs are read as superscripts ("2<sup>32</sup>" is 2³², not 232;
# "10<sup>-3</sup>" is 10⁻³, not 10-3), which matching keeps apart from plain digits. Anything else in
# it reads as written, and so does a superscript that opens otherwise (1<sup>st</sup>, 27<sup>[14]</sup>). The
# displayed form of a Markdown or reStructuredText source reads its superscripts by this rule (``_locate/display``),
# and so does a Markdown heading's id (``plain_title``).
RAISED = "0123456789+-\u2212=()"
SUPERSCRIPTS = str.maketrans(RAISED, "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾")

# Markdown's raw HTML as CommonMark reads it (also ``_locate.display.markdown``'s, which reads a whole page).
_ATTRIBUTE = r"""(?:\s+[A-Za-z_:][A-Za-z0-9_.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)"""
TAG = re.compile(rf"<([A-Za-z][A-Za-z0-9-]*){_ATTRIBUTE}*\s*/?>")
CLOSING_TAG = re.compile(r"</([A-Za-z][A-Za-z0-9-]*)\s*>")
AUTOLINK = re.compile(r"<[A-Za-z][A-Za-z0-9.+-]{1,31}:[^\s<>]*>")
ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")
# Tags that break the line or stand for a block: taken out as a space, so the words around them stay apart.
BLOCK_TAGS = frozenset(
    "br p div hr li ul ol tr td th table thead tbody h1 h2 h3 h4 h5 h6 img blockquote pre dl dt dd "
    "details summary section center figure figcaption".split()
)
# A superscript of digits and signs (raw HTML), read raised after a digit as the HTML reader reads it:
# "2<sup>32</sup>" shows 2³², and its displayed form read "232", a number the page does not say.
RAISED_SUP = re.compile(r"<sup\s*>([-+\u2212=()0-9 ]*)</sup\s*>", re.IGNORECASE)
# The elements whose tags a heading's id leaves out (with ``BLOCK_TAGS``): a renderer writes them through
# and a browser shows only the text between (``<a id="intro">``, ``<kbd>``, ``<sup>``). CommonMark takes
# any name for a tag, but in a heading a name that is no element's (``Vec<T>``, ``NO_COLOR=<any>``) is
# most likely the document's own words, which an LLM reading the Markdown cites as written.
_INLINE_ELEMENTS = frozenset(
    "a abbr acronym b bdi bdo big cite code data dfn em font i ins kbd label mark nobr q rp rt ruby s samp "
    "small span strike strong sub sup time tt u var wbr".split()
)


def _without_html(text: str) -> str:
    """Raw HTML as a browser draws it: an element's tags gone, an autolink's brackets gone, a character
    reference as its character, a superscript after a digit raised (``_locate.display.markdown`` alike)."""
    if "<" in text:
        text = AUTOLINK.sub(lambda m: m.group(0)[1:-1], text)
        text = RAISED_SUP.sub(_raised, text)
        text = CLOSING_TAG.sub(_element_tag, TAG.sub(_element_tag, text))
    return ENTITY.sub(lambda m: html.unescape(m.group(0)), text) if "&" in text else text


def _raised(found: re.Match[str]) -> str:
    digits = found.group(1)
    before = found.string[found.start() - 1 : found.start()]
    if before.isdigit() and digits.lstrip()[:1] in RAISED and digits.strip():
        return digits.translate(SUPERSCRIPTS)
    return found.group(0)


def _element_tag(found: re.Match[str]) -> str:
    name = found.group(1).lower()
    return " " if name in BLOCK_TAGS else "" if name in _INLINE_ELEMENTS else found.group(0)


def plain_title(title: str) -> str:
    """A heading's words as a reader sees them: code spans' text as written, links' text, no emphasis
    marks, no HTML element's tags, a character reference as its character."""
    parts = []
    for index, part in enumerate(_CODE_SPAN.split(title)):
        if index % 3 == 0:  # text outside code spans
            parts.append(_EMPHASIS.sub("", _LINK.sub(lambda m: m.group(1), _without_html(part))))
        elif index % 3 == 2:  # a code span's text (index % 3 == 1 is its run of backticks)
            parts.append(part)
    return " ".join("".join(parts).split())
