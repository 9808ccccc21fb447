"""Numbered plain text (licences, contracts, policies): sections start at ``1.``, ``1.1``, ``Section 4.``, ``§ 4``.

After the last numbered section, a heading-like line on its own (GFDL's "ADDENDUM: How to use this
License for your documents", GPL-2's "How to Apply These Terms to Your New Programs") starts a section
whose id is its title, so the material a licence appends to its terms is not judged as part of its
last section.
"""

from __future__ import annotations

import re
from collections import Counter

from pytest_citecheck._errors import NoSectionsError
from pytest_citecheck._sources.formats.chapters import chapter_openings
from pytest_citecheck._sources.formats.headings import PREAMBLE, UniqueIds
from pytest_citecheck._sources.formats.outline import contents_blocks
from pytest_citecheck._sources.offsets import OffsetMap, cut_then

_NUMBERED = re.compile(
    r"^(?P<indent>[ \t]{0,6})(?:(?:section|article|clause)[ \t]+|§[ \t]*)?(?P<number>\d+(?:\.\d+)*)(?P<mark>\.|\))?(?:[ \t]+(?P<title>\S.*))?$",
    re.IGNORECASE,
)
_BOX_EDGE = re.compile(r"^\*{3,}[ \t]*$")
_BOX_LINE = re.compile(r"^\*(?P<inner>.*?)\*[ \t]*$")
# A line that reads like a heading: all in capitals ("END OF TERMS AND CONDITIONS"), or a label in
# capitals and a colon ("ADDENDUM: How to use ..."), or title case (checked in ``_is_heading``).
_CAPITALS_LABEL = re.compile(r"^[A-Z][A-Z0-9-]+:\s+\S")
_UNDERLINE = re.compile(r"^[ \t]*(?:-{3,}|={3,})[ \t]*$")
_COLUMNS = re.compile(r"\S {3,}\S")
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
# A contents entry's dot leader, with the page number after it or not ("1 Introduction . . . . . 1",
# "7.1 Hash functions . . . . . . ."): texinfo's and LaTeX's tables of contents, as a PDF's text has them.
_DOT_LEADER = re.compile(r"(?:\.[ \t]*){4,}(?:\d+|[ivxlcdm]+)?[ \t]*$", re.IGNORECASE)
# A cross-reference that wraps to a line's start, as texinfo prints one in a PDF: "Section 3.1.2
# [Quoting], page 6." (or "Section 3.1.2 [Shell" with the rest on the next line). A heading titled
# "[Reserved]" is not one: nothing follows its bracket but the line's end.
_XREF = re.compile(r"\[(?:[^\]]*$|[^\]]*\],)")
# An appendix heading as texinfo and LaTeX print it ("Appendix A GNU Free Documentation License"; a
# DocBook render's "Appendix A. Title"), and its sections ("A.1 GNU Free Documentation License"). Its
# title starts as a title does (not "describes ...", not a cross-reference's "["), or is on the next line ("Appendix A"
# alone, as dblatex prints it in a PDF).
_APPENDIX = re.compile(
    r"^(?P<indent>[ \t]{0,6})(?:Appendix|APPENDIX)[ \t]+(?P<letter>[A-Z])(?:\.?[ \t]+[A-Z0-9“\"'(]|[ \t]*$)"
)
_APPENDIX_SECTION = re.compile(
    r"^(?P<indent>[ \t]{0,6})(?P<letter>[A-Z])\.(?P<number>\d+(?:\.\d+)*)\.?[ \t]+(?P<title>\S.*)$"
)
# A top-level section numbered in Roman capitals, as libpng's manual and many contracts number them:
# "I. Introduction", "XII. Changes to Libpng from version 1.5.x to 1.6.x".
_ROMAN = re.compile(r"^(?P<indent>[ \t]{0,6})(?P<number>[IVXL]{1,7})\.[ \t]+(?P<title>[A-Z0-9\"'(].*)$")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50}
# How far numbering may jump (a section left out, or drawn in a box that was not recognised).
_MAX_SKIP = 3


def _unbox_spans(text: str) -> list[tuple[int, int]]:
    """What unboxing removes from paragraphs drawn in a box of asterisks (as in MPL-2.0's disclaimers):
    the edge lines' asterisks, each boxed line's left edge and margin, and its right edge."""
    if not any(_BOX_EDGE.match(line) for line in text.split("\n")):
        return []
    spans: list[tuple[int, int]] = []
    offset = 0
    for line in text.split("\n"):
        boxed = _BOX_LINE.match(line)
        if _BOX_EDGE.match(line):
            spans.append((offset, offset + len(line)))
        elif boxed:
            inner = boxed.group("inner")
            # "*  6. Title   *": drop the box's margin, keep the text's own indentation.
            margin = 2 if inner.startswith("  ") else len(inner) - len(inner.lstrip())
            kept = inner[margin:].rstrip()
            spans.extend([(offset, offset + 1 + margin), (offset + 1 + margin + len(kept), offset + len(line))])
        offset += len(line) + 1
    return spans


def clean_numbered(text: str) -> tuple[str, OffsetMap]:
    """CRLF line ends as LF, form feeds as line breaks, boxes of asterisks unboxed; and the map back."""
    carriage_returns = [(found.start(), found.start() + 1) for found in re.finditer("\r\n", text)]
    return cut_then(text.replace("\f", "\n"), carriage_returns, _unbox_spans)


def follows(number: tuple[int, ...], current: tuple[int, ...]) -> bool:
    """Whether ``number`` can be the section after ``current``: its first child, or a later sibling
    of it or of one of its ancestors (skipping at most a few numbers)."""
    if number == (*current, 1) or number == (*current, 0):
        return True
    for depth in range(len(current), 0, -1):
        if (
            len(number) == depth
            and number[: depth - 1] == current[: depth - 1]
            and 0 < number[-1] - current[depth - 1] <= _MAX_SKIP
        ):
            return True
    return False


def split_numbered(text: str) -> tuple[str, dict[str, str], OffsetMap]:
    """Plain text whose sections start with ``1.``, ``1.1``, ``Section 4.``, ``§ 4`` at (or near) the line start.

    A numbered line only counts when its number can follow the previous section's (so a list item
    "7." inside section 5, or a wrapped line starting "2.1 of this License", is text) and it is
    indented like the first section of its depth.
    """
    clean, offsets = clean_numbered(text)
    starts, ids = _numbered_starts(clean)
    if not starts:
        raise NoSectionsError(
            "no numbered sections ('1.', '1.1', 'Section 4.', '§ 4' at the start of a line) were found", field="source"
        )
    # Only a document with numbered sections (not one "1." list item) has trailing material to split;
    # this also keeps ``detect_format``'s count of numbered sections what it was.
    if len(set(ids)) >= 2:
        for start, appendix in appendices(clean, starts[-1]):
            starts.append(start)
            ids.append(appendix)
    unique = UniqueIds((PREAMBLE, *ids))
    for start, title in trailing_headings(clean, starts[-1]) if len(set(ids)) >= 2 else []:
        starts.append(start)
        ids.append(unique(title))  # a third "Notes" was "Notes (2)" again, and its text was lost
    sections: dict[str, str] = {}
    preamble = clean[: starts[0]].strip()
    if preamble:
        sections[PREAMBLE] = preamble
    for index, (start, section_id) in enumerate(zip(starts, ids)):
        end = starts[index + 1] if index + 1 < len(starts) else len(clean)
        sections.setdefault(section_id, clean[start:end].strip())
    return clean, sections, offsets


def _candidate(line: str, quantities: bool) -> re.Match[str] | None:
    """A numbered line that may start a section: not a contents entry (a dot leader), a cross-reference,
    or (unless ``quantities``) a number in a sentence that wrapped to the line's start: a number with no
    mark after it, then a word in lower case ("5 or more arguments", "1 file changed")."""
    found = _NUMBERED.match(line)
    if found is None or _DOT_LEADER.search(line):
        return None
    title = found.group("title")
    if title is None:
        return found if found.group(0).strip().lower().startswith(("section", "article", "clause", "§")) else None
    if _XREF.match(title) or (not quantities and not found.group("mark") and title[0].islower()):
        return None
    return found


def _numbered_starts(clean: str) -> tuple[list[int], list[str]]:
    """The offsets and numbers of the numbered lines that start sections.

    A line whose number is followed by a word in lower case is a sentence's number ("5 or more
    arguments" under the Bash manual's 4.1 took chapter 5, and 4.2 to 4.4 were lost), unless the
    document has no other numbered lines (a changelog's "1 file changed" then stays what it was).
    """
    starts, ids = _outline(clean, quantities=False)
    roman = _roman_outline(clean)
    if len(roman[0]) >= 3 and len(roman[0]) > len(starts):
        return roman
    if starts:
        return starts, ids
    # Every numbered line is a number and a word in lower case: a changelog's "1 file changed", "2 files
    # changed" are its sections; one such line alone is a wrapped sentence ("0 is used.", in the middle of
    # CPython's _thread docs), not a section.
    starts, ids = _outline(clean, quantities=True)
    return (starts, ids) if len(starts) >= 2 else ([], [])


def roman_value(numeral: str) -> int | None:
    """``"XIV"`` as 14; None for letters that are no well-formed numeral (``"IIII"``, ``"VX"``)."""
    total = 0
    for index, letter in enumerate(numeral):
        value = _ROMAN_VALUES[letter]
        following = _ROMAN_VALUES[numeral[index + 1]] if index + 1 < len(numeral) else 0
        total += -value if value < following else value
    return total if total > 0 and _as_roman(total) == numeral else None


def _as_roman(number: int) -> str:
    out = ""
    for value, letters in ((50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        count, number = divmod(number, value)
        out += letters * count
    return out


def _roman_outline(clean: str) -> tuple[list[int], list[str]]:
    """Top-level sections numbered "I.", "II.", ... in order (skipping at most a few), indented like the first,
    outside contents lists; a later "I." starts again (libpng's contents list right-aligns its numerals, which
    no contents block recognises). The ids are the numerals as written. Used when they outnumber the Arabic
    outline: libpng's manual has fifteen, and four list items "1)" to "4)" in its section III."""
    starts: list[int] = []
    ids: list[str] = []
    current = 0
    indent: str | None = None
    contents = contents_blocks(clean)
    offset = 0
    for line in clean.split("\n"):
        found = _ROMAN.match(line)
        value = roman_value(found.group("number")) if found else None
        if found and value and not _DOT_LEADER.search(line) and not _inside(offset, contents):
            if value == 1:  # a second "I." starts the count again: what came before was a contents list
                starts, ids, current, indent = [], [], 0, None
            plausible = value == 1 if not current else 0 < value - current <= _MAX_SKIP
            if plausible and (indent is None or found.group("indent") == indent):
                indent = found.group("indent")
                current = value
                starts.append(offset + len(indent))
                ids.append(found.group("number"))
        offset += len(line) + 1
    return starts, ids


def _outline(clean: str, quantities: bool) -> tuple[list[int], list[str]]:
    """The numbered lines that follow one another as an outline does (``follows``).

    A depth's first section sets its indentation; and where it is a bare number with no mark ("4 Shell
    Builtin Commands", as texinfo and LaTeX print chapters), a bare number with a mark ("4." or "4)")
    is a list item, not a section at that depth: "4. Performs the various shell expansions", item 4
    of a list under the Bash manual's 3.1.1, is no chapter 4. (Documents that write "2.3." and then
    "2.4" at one depth exist: only this one direction is refused.)

    Where LaTeX printed chapter openings (``chapters.chapter_openings``: "Chapter 1" or "CHAPTER" /
    "ONE" on lines of their own), they are the chapters: a numbered line before the first one (the
    contents) or at the top depth (a page's running footer, "38 Chapter 5. Control files") is text; and a title
    may start in lower case ("4.1 control": the sections must follow the chapters, so a sentence's number rarely can).
    """
    starts: list[int] = []
    ids: list[str] = []
    current: tuple[int, ...] | None = None
    indents: dict[int, str] = {}
    unmarked: dict[int, bool] = {}  # whether a depth's first bare number had no mark after it
    contents = contents_blocks(clean)
    chapters = chapter_openings(clean)
    offset = 0
    for line in clean.split("\n"):
        found = _candidate(line, quantities or bool(chapters))
        if offset in chapters:
            current = (chapters[offset],)
            starts.append(offset)
            ids.append(str(chapters[offset]))
        elif found and not _chapter_text(found, current, bool(chapters)) and not _inside(offset, contents):
            number = _next_section(found, current, indents, unmarked)
            if number is not None:
                current = number
                starts.append(offset + len(found.group("indent")))
                ids.append(found.group("number"))
        offset += len(line) + 1
    return starts, ids


def _inside(offset: int, blocks: list[tuple[int, int]]) -> bool:
    return any(start <= offset < end for start, end in blocks)


def _chapter_text(found: re.Match[str], current: tuple[int, ...] | None, chapters: bool) -> bool:
    """In a document with chapter openings: a numbered line before the first, or one without a dot."""
    return chapters and (current is None or "." not in found.group("number"))


def _next_section(
    found: re.Match[str], current: tuple[int, ...] | None, indents: dict[int, str], unmarked: dict[int, bool]
) -> tuple[int, ...] | None:
    """The number of the section ``found`` starts, or None when it is text (see ``_outline``); notes the
    indentation and the mark of a depth's first section in ``indents`` and ``unmarked``."""
    number = tuple(int(part) for part in found.group("number").split("."))
    indent, depth = found.group("indent"), len(number)
    bare = found.group(0)[len(indent)].isdigit()
    listed = bare and bool(found.group("mark")) and unmarked.get(depth, False)
    plausible = (number[-1] <= 1 and depth == 1) if current is None else follows(number, current)
    if not plausible or listed or indents.setdefault(depth, indent) != indent:
        return None
    if bare:
        unmarked.setdefault(depth, not found.group("mark"))
    return number


def appendices(text: str, last_section_start: int) -> list[tuple[int, str]]:
    """``(offset, id)`` of the appendices after the last numbered section, as texinfo and LaTeX print
    them: "Appendix A GNU Free Documentation License" (id ``A``), then its sections "A.1 Title"
    (``A.1``), each following the one before as numbered sections do; appendices in order from A.

    A page's running header ("Appendix B: Major Differences From The Bourne Shell 169", a colon after
    the letter), a contents entry (a dot leader), a cross-reference ("Appendix C [GNU Free
    Documentation License], page 174") and a sentence ("Appendix A describes ...") are not appendices.
    """
    found: list[tuple[int, str]] = []
    expected = "A"
    letter: str | None = None
    current: tuple[int, ...] = ()
    offset = text.find("\n", last_section_start) + 1
    for line in text[offset:].split("\n") if offset else []:
        if not _DOT_LEADER.search(line):
            appendix = _APPENDIX.match(line)
            part = _APPENDIX_SECTION.match(line) if letter else None
            if appendix and appendix.group("letter") == expected:
                letter, current = expected, ()
                expected = chr(ord(expected) + 1)
                found.append((offset + len(appendix.group("indent")), letter))
            elif part and part.group("letter") == letter and not _XREF.match(part.group("title")):
                number = tuple(int(piece) for piece in part.group("number").split("."))
                if follows(number, current):
                    current = number
                    found.append((offset + len(part.group("indent")), f"{letter}.{part.group('number')}"))
        offset += len(line) + 1
    return found


def _title_words(line: str) -> list[str]:
    """The words of a line that could be a title: one to twelve, and not mostly single letters (a
    formula's variables, "Y = 0.2126 * R + 0.7152 * G", are all capitals and too short for title case;
    "Appendix A" has a word); else none."""
    words = _WORD.findall(line)
    single = sum(1 for word in words if len(word) == 1)
    return words if 1 <= len(words) <= 12 and single <= len(words) - single else []


def _is_heading(line: str) -> bool:
    """Whether a line (already stripped) reads like a title rather than a sentence."""
    if not 3 <= len(line) <= 100 or not line[0].isupper() or line.endswith((",", ";", ":")):
        return False
    words = _title_words(line)
    if not words:
        return False
    letters = [ch for ch in line if ch.isalpha()]
    if len(letters) >= 2 and all(ch.isupper() for ch in letters):
        return True  # END OF TERMS AND CONDITIONS
    if _CAPITALS_LABEL.match(line):
        return True  # ADDENDUM: How to use this License for your documents
    # Title case: every word of four or more letters is capitalised ("How to Apply These Terms to ...").
    return not line.endswith(".") and all(word[0].isupper() for word in words if len(word) >= 4)


def trailing_headings(text: str, last_section_start: int) -> list[tuple[int, str]]:
    """``(offset, title)`` of each section that a heading-like line starts after the last numbered section.

    A heading counts when it stands on its own line (a blank line, or the start of the text, before it;
    a blank line, an underline of ``-`` or ``=``, or the end after it), and only once the last
    numbered section has had some text of its own. A heading with no text before the next heading
    (GPL's "END OF TERMS AND CONDITIONS" before "How to Apply ...") opens the next heading's section,
    whose id is the later title.
    """
    lines = text[last_section_start:].split("\n")
    furniture = running_lines(text)
    offsets = []
    position = last_section_start
    for line in lines:
        offsets.append(position)
        position += len(line) + 1
    found: list[tuple[int, str, bool]] = []  # (offset, title, has text before the next heading)
    body_seen = False
    for index, line in enumerate(lines[1:], start=1):  # the first line is the numbered heading itself
        stripped = line.strip()
        if not stripped or _UNDERLINE.match(line):
            continue
        alone = not lines[index - 1].strip() and (
            index + 1 == len(lines) or not lines[index + 1].strip() or bool(_UNDERLINE.match(lines[index + 1]))
        )
        if body_seen and alone and _is_heading(stripped) and not _furniture(line, furniture):
            title = " ".join(stripped.rstrip(".").split())
            found.append((offsets[index] + len(line) - len(line.lstrip()), title, False))
        else:
            body_seen = True
            if found:
                found[-1] = (*found[-1][:2], True)
    return _runs(found)


def running_lines(text: str) -> set[str]:
    """Page furniture: lines laid out in columns (a gap of three spaces or more between words) that come
    back three times or more, page numbers aside ("Samar, Schemers      Page 28", "OSF-RFC 86.0      PAM
    October 1995" on every page of OSF RFC 86.0)."""
    counts = Counter(_furniture_key(line) for line in text.split("\n") if _COLUMNS.search(line.strip()))
    return {key for key, count in counts.items() if count >= 3}


def _furniture_key(line: str) -> str:
    return re.sub(r"\d+", "#", " ".join(line.split()))


def _furniture(line: str, furniture: set[str]) -> bool:
    return bool(furniture) and _furniture_key(line) in furniture


def _runs(found: list[tuple[int, str, bool]]) -> list[tuple[int, str]]:
    """A heading with no text of its own opens the next heading's section (whose id is the later title)."""
    headings: list[tuple[int, str]] = []
    run_start: int | None = None  # where a run of headings without text of their own began
    for number, (offset, title, has_text) in enumerate(found):
        run_start = offset if run_start is None else run_start
        if has_text or number + 1 == len(found):
            headings.append((run_start, title))
            run_start = None
    return headings
