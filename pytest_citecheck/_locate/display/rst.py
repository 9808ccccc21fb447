"""reStructuredText's inline markup, as edits that leave the words a reader sees.

Blocks first (``rst_edits``): literal blocks (after a paragraph ending ``::``), doctest blocks, the
bodies of code directives (``code-block``, ``literalinclude``, ``math`` ...), comments and targets
are never touched; adornment lines are no text; each paragraph and list item is one scope. A
paragraph's closing ``::`` shows as ``:`` (``Example::``), or not at all after a space (``Example ::``).

Within a scope, markup is recognised by docutils' inline markup recognition rules (a start-string
after whitespace or an opening punctuation, followed by text; an end-string after text, followed by
whitespace or a closing punctuation), so a ``*`` of a multiplication (``2 * 3``, ``2*3``) or a list
bullet stays. What goes: ``*``/``**``, ````literal```` backquotes (the content stays as written),
backslash escapes (an escaped space goes with its backslash), interpreted text and its role
(``:func:`partial``` shows ``partial``; ``:term:`title <target>``` its title; Sphinx's ``~`` shows
the last part of a dotted name, ``!`` and leading dots go; ``:pep:`8``` shows ``PEP 8``;
``:abbr:`LIFO (last-in, first-out)``` shows ``LIFO``), hyperlink references (```text <url>`_``
shows ``text``, ``name_`` shows ``name``) and inline targets. Sphinx's ``()`` after a function
role's name is not added.

Read as docutils renders them: a substitution reference (``|name|``, ``|name|_``) of a substitution the
document defines with ``replace`` or ``unicode`` shows its text (``substitutions``; other substitution
directives, ``date``, ``image``, and names the document does not define stay as written); a grid table is
read row by row, each cell's lines joined as its paragraph, one edit per row (its cells are interleaved
line by line as written, so a passage in a row maps back to the whole row; rows a cell spans are one).
A table whose cells do not tile it is read as a paragraph, as before (``rst_grid``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from pytest_citecheck._locate.display.edits import Edit, applied
from pytest_citecheck._locate.display.rst_blocks import Blocks
from pytest_citecheck._locate.display.rst_substitutions import substituted, trimmed
from pytest_citecheck._sources.formats.html import RAISED, SUPERSCRIPTS

# A superscript role's content of digits and signs, right after a digit (an escaped space between them):
# read raised, as the HTML reader reads a <sup> there.
_RAISED_CONTENT = re.compile(r"[-+\u2212=()0-9]+")
_AFTER_A_DIGIT = re.compile(r"\d(?:\\[ \t]?)?:(?:sup|superscript):`$")

_SPECIAL = re.compile(r"[\\`*:_]|-{2,}")
# With substitutions defined, a substitution reference's bar too.
_SPECIAL_OR_BAR = re.compile(r"[\\`*:_|]|-{2,}")
# A substitution's name is short: its closing bar is looked for this far at most.
_LONGEST_SUBSTITUTION = 200
# Sphinx's smart quotes show ``--`` as an en dash and ``---`` as an em dash (a longer run stays).
_DASHES = {2: "\u2013", 3: "\u2014"}
_DASH_RUN = re.compile(r"-{2,}")
_START_BEFORE = frozenset("-:/'\"<([{")
_END_AFTER = frozenset("-.,:;!?\\/'\")]}>")
_PAIRS = {"'": "'", '"': '"', "<": ">", "(": ")", "[": "]", "{": "}"}
# A role's name is short (``py:func``, ``c:macro``): bounded here, so that a long run of ``a:a:a:...``
# is not matched to its end from every colon (quadratic: 80 kB took 28 s).
_ROLE_NAME = r"[A-Za-z0-9]{1,64}(?:[-_.+:][A-Za-z0-9]{1,64}){0,8}"
_ROLE = re.compile(rf":({_ROLE_NAME}):`")
_SUFFIX = re.compile(rf"__?|:{_ROLE_NAME}:")
# A reference name (``name_``) longer than this is not one: a long ``a_a_a_...`` word is not walked back
# to its start from every underscore (quadratic: 80 kB took minutes).
_LONGEST_NAME = 100
_EXPLICIT_TITLE = re.compile(r"(.+?)\s*(?<!\\)<(.*?)>\s*$", re.DOTALL)
_ABBREVIATION = re.compile(r"(.+?)\s*\((.*)\)\s*$", re.DOTALL)
# Sphinx's cross-reference roles whose text ``~`` shortens and leading dots search (the Python, C
# and C++ domains), and the other roles whose ``!`` only turns the link off.
_DOTTED_ROLES = frozenset(
    "mod func data const class meth attr exc obj type deco property member macro struct union enum "
    "enumerator var expr texpr concept".split()
)
_XREF_ROLES = _DOTTED_ROLES | frozenset("ref doc term option envvar keyword token numref program".split())
_NAMED = {"pep": "PEP ", "rfc": "RFC "}


def _opening(ch: str) -> bool:
    return ch in _START_BEFORE or unicodedata.category(ch) in ("Pd", "Po", "Ps", "Pi", "Pf")


def _closing(ch: str) -> bool:
    return ch in _END_AFTER or unicodedata.category(ch) in ("Pd", "Po", "Pe", "Pi", "Pf")


class Inline:
    """The inline markup of one scope of a reStructuredText text (a paragraph, a list item), as edits."""

    def __init__(self, text: str, edits: list[Edit], substitutions: Mapping[str, str] | None = None) -> None:
        self.text = text
        self.edits = edits
        # The document's substitutions, name -> the text shown (``substitutions``), names in lower case too.
        self.substitutions = substitutions or {}
        self._special = _SPECIAL_OR_BAR if self.substitutions else _SPECIAL
        self.start = 0
        self.end = 0
        # Per end-string: (where a search started, the first valid end found from there, or None). Whether
        # an end-string is valid depends on it alone, so a later search starting between the two has the
        # same answer: each end-string is scanned past once, not once per opener that looks for it (a
        # paragraph of ``:a:`b`` openers without an end took minutes, 240 kB).
        self._first_end: dict[str, tuple[int, Any]] = {}
        self._handlers = {
            "\\": self._escape,
            "`": self._backquote,
            "*": self._star,
            ":": self._role,
            "_": self._underscore,
            "-": self._dash,
            "|": self._substitution,
        }

    def scan(self, start: int, end: int) -> None:
        self.start, self.end = start, end
        self._first_end = {}
        position = start
        while True:
            found = self._special.search(self.text, position, end)
            if found is None:
                return
            position = self._handlers[found.group()[0]](found.start())

    def _dash(self, at: int) -> int:
        run = 0
        while at + run < self.end and self.text[at + run] == "-":
            run += 1
        if run in _DASHES:
            self.edits.append((at, at + run, _DASHES[run]))
        return at + run

    # --- the recognition rules ---

    def _starts(self, at: int, length: int) -> bool:
        """A start-string of ``length`` at ``at``: after whitespace or an opening punctuation, before text."""
        text = self.text
        before = text[at - 1] if at > self.start else " "
        after = text[at + length] if at + length < self.end else " "
        if after.isspace() or not (before.isspace() or _opening(before)):
            return False
        return _PAIRS.get(before) != after

    def _follows(self, at: int) -> bool:
        """What follows an end-string ending at ``at``: whitespace, a closing punctuation, or the scope's end."""
        return at >= self.end or self.text[at].isspace() or _closing(self.text[at])

    def _remembered(self, marker: str, at: int) -> tuple[bool, Any]:
        """The first valid end-string ``marker`` at or after ``at``, if a search already found it (or none)."""
        known = self._first_end.get(marker)
        if known is None:
            return False, None
        since, found = known
        position = found if found is None or isinstance(found, int) else found[0]
        return since <= at and (position is None or at <= position), found

    def _end(self, marker: str, at: int) -> int | None:
        """The first end-string ``marker`` at or after ``at`` (text before it, whitespace or punctuation after)."""
        known, found = self._remembered(marker, at)
        if not known:
            found = self._search_end(marker, at)
            self._first_end[marker] = (at, found)
        return found  # type: ignore[no-any-return]

    def _search_end(self, marker: str, at: int) -> int | None:
        text = self.text
        position = at
        while True:
            found = text.find(marker, position, self.end)
            if found < 0:
                return None
            # In an inline literal a backslash is text: ``\`` ends after it.
            escaped = text[found - 1] == "\\" and marker != "``"
            if not text[found - 1].isspace() and not escaped and self._follows(found + len(marker)):
                return found
            position = found + 1

    def _interpreted_end(self, at: int) -> tuple[int, str] | None:
        """The closing backquote of interpreted text whose content starts at ``at``, and its suffix
        (``_``, ``__`` or ``:role:``, else empty)."""
        known, found = self._remembered("`", at + 1)
        if not known:
            found = self._search_interpreted_end(at)
            self._first_end["`"] = (at + 1, found)
        return found  # type: ignore[no-any-return]

    def _search_interpreted_end(self, at: int) -> tuple[int, str] | None:
        text = self.text
        position = at + 1
        while True:
            found = text.find("`", position, self.end)
            if found < 0:
                return None
            suffix = _SUFFIX.match(text, found + 1, self.end)
            tail = suffix.group() if suffix else ""
            if not text[found - 1].isspace() and text[found - 1] != "\\" and self._follows(found + 1 + len(tail)):
                return found, tail
            position = found + 1

    # --- the constructs ---

    def _escape(self, at: int) -> int:
        if at + 1 >= self.end:
            return at + 1
        if self.text[at + 1].isspace():  # an escaped space (or line end) is not shown at all
            self.edits.append((at, at + 2, ""))
        else:
            self.edits.append((at, at + 1, ""))
        return at + 2

    def _escapes_in(self, start: int, end: int) -> None:
        """The backslash escapes of some content (emphasis, interpreted text)."""
        at = self.text.find("\\", start, end)
        while at >= 0:
            self._escape(at)
            at = self.text.find("\\", at + 2, end)

    def _star(self, at: int) -> int:
        marker = "**" if self.text.startswith("**", at) else "*"
        if not self._starts(at, len(marker)):
            return at + len(marker)
        close = self._end(marker, at + len(marker) + 1)
        if close is None:
            return at + len(marker)
        self.edits.append((at, at + len(marker), ""))
        self._escapes_in(at + len(marker), close)
        self.edits.append((close, close + len(marker), ""))
        return close + len(marker)

    def _backquote(self, at: int) -> int:
        if self.text.startswith("``", at):
            close = self._end("``", at + 3) if self._starts(at, 2) else None
            if close is None:
                return at + 2
            self.edits.append((at, at + 2, ""))
            self.edits.append((close, close + 2, ""))
            return close + 2
        found = self._interpreted_end(at + 1) if self._starts(at, 1) else None
        if found is None:
            return at + 1
        close, suffix = found
        self.edits.append((at, at + 1, ""))
        if suffix.startswith("_"):
            self._reference(at + 1, close)
        elif suffix:
            self._title(suffix.strip(":"), at + 1, close)
        else:
            self._escapes_in(at + 1, close)
        self.edits.append((close, close + 1 + len(suffix), ""))
        return close + 1 + len(suffix)

    def _substitution(self, at: int) -> int:
        """A substitution reference, ``|name|`` (``|name|_``, ``|name|__`` a link as well), of a substitution the
        document defines with ``replace``: it shows that text. Any other is left as written."""
        text = self.text
        if not self._starts(at, 1):
            return at + 1
        close = text.find("|", at + 1, min(self.end, at + 2 + _LONGEST_SUBSTITUTION))
        if close < 0 or text[close - 1].isspace():
            return at + 1
        suffix = 2 if text.startswith("__", close + 1) else 1 if text.startswith("_", close + 1) else 0
        if not self._follows(close + 1 + suffix):
            return at + 1
        shown = substituted(self.substitutions, text[at + 1 : close])
        if shown is None:
            return close + 1
        start, end = at, close + 1 + suffix
        trim = trimmed(self.substitutions, text[at + 1 : close])
        if "l" in trim:  # the white space before it goes (not into the edit before it)
            floor = max(self.start, self.edits[-1][1] if self.edits else 0)
            while start > floor and text[start - 1].isspace():
                start -= 1
        if "r" in trim:
            while end < self.end and text[end].isspace():
                end += 1
        self.edits.append((start, end, shown))
        return end

    def _role(self, at: int) -> int:
        role = _ROLE.match(self.text, at, self.end)
        if role is None or not self._starts(at, len(role.group())):
            return at + 1
        content = role.end()
        found = self._interpreted_end(content)
        if found is None or found[1]:
            return at + 1
        close = found[0]
        self.edits.append((at, content, self._title(role.group(1), content, close)))
        self.edits.append((close, close + 1, ""))
        return close + 1

    def _title(self, role: str, start: int, end: int) -> str:
        """The edits that leave what Sphinx shows of a role's content; what shows before it (``PEP ``)."""
        content = self.text[start:end]
        name = role.rpartition(":")[2].lower()
        if name in ("sup", "superscript") and _RAISED_CONTENT.fullmatch(content) and content[:1] in RAISED:
            if _AFTER_A_DIGIT.search(self.text, max(0, start - 24), start):
                # "2\ :sup:`64`" shows 2⁶⁴ (as the HTML reader reads 2<sup>64</sup>), not "264".
                self.edits.append((start, end, content.translate(SUPERSCRIPTS)))
                return ""
        domain = role.rpartition(":")[0].lower()
        pattern = _ABBREVIATION if name == "abbr" else _EXPLICIT_TITLE
        explicit = pattern.match(content)
        if explicit is not None:
            self.edits.append((start + explicit.end(1), end, ""))
            self._escapes_in(start, start + explicit.end(1))
            return ""
        if name in _NAMED and content[:1].isdigit():
            return _NAMED[name]
        if name in _XREF_ROLES and content.startswith("!"):
            self.edits.append((start, start + 1, ""))
        elif name in _DOTTED_ROLES and domain in ("", "py", "c", "cpp"):
            self._dotted(start, content)
        return ""

    def _dotted(self, start: int, content: str) -> None:
        """A Python (C, C++) name's display: leading dots go; after ``~``, only the last part shows."""
        dots = len(content) - len(content.lstrip("."))
        rest = content[dots:]
        cut = dots
        if rest.startswith("~"):
            cut += 1 + rest.rfind(".") if "." in rest else 1
        if cut:
            self.edits.append((start, start + cut, ""))

    def _reference(self, start: int, end: int) -> None:
        """A hyperlink reference's content: ``text <url>`` shows ``text``; ``<url>`` alone shows the url."""
        content = self.text[start:end]
        if content.startswith("<") and content.endswith(">"):
            self.edits.append((start, start + 1, ""))
            self.edits.append((end - 1, end, ""))
            return
        explicit = _EXPLICIT_TITLE.match(content)
        if explicit is not None:
            self.edits.append((start + explicit.end(1), end, ""))
            end = start + explicit.end(1)
        self._escapes_in(start, end)

    def _underscore(self, at: int) -> int:
        text = self.text
        if text.startswith("_`", at):  # an inline target: its text shows
            found = self._interpreted_end(at + 1) if self._starts(at, 2) else None
            if found is None or found[1]:
                return at + 1
            self.edits.append((at, at + 2, ""))
            self.edits.append((found[0], found[0] + 1, ""))
            return found[0] + 1
        run = 2 if text.startswith("__", at) else 1
        name = self._name_before(at)
        if name is None or text.startswith("_", at + run) or not self._follows(at + run):
            return at + run
        before = text[name - 1] if name > self.start else " "
        if before.isspace() or _opening(before):
            self.edits.append((at, at + run, ""))  # a reference ``name_``: the name shows
        return at + run

    def _name_before(self, at: int) -> int | None:
        """Where a reference name ending at ``at`` starts: alphanumerics, with single ``- _ . + :`` inside."""
        text = self.text
        if at <= self.start or not text[at - 1].isalnum():
            return None
        position = at - 1
        while position > self.start:
            ch = text[position - 1]
            inside = ch in "-_.+:" and position - 2 >= self.start and text[position - 2].isalnum()
            if not (ch.isalnum() or inside):
                break
            position -= 1
            if at - position > _LONGEST_NAME:
                return None
        return position


def dashed(text: str) -> str:
    """``text`` with only its ``--`` and ``---`` as Sphinx shows them (a longer run stays): a quote of a page that
    docutils rendered without Sphinx's smart quotes ("0--31", "'\\t'") is looked for so too."""
    return _DASH_RUN.sub(lambda run: _DASHES.get(len(run.group()), run.group()), text)


def rst_shown(text: str, substitutions: Mapping[str, str] | None = None, depth: int = 0) -> str:
    """``text`` (a table's cell, a substitution's text) as a reader sees it, its inline markup taken out;
    ``depth``: how many tables' cells it is in."""
    edits = rst_edits(text, substitutions, depth)
    return applied(text, edits)[0] if edits else text


def rst_edits(text: str, substitutions: Mapping[str, str] | None = None, depth: int = 0) -> list[Edit]:
    """The edits that take a reStructuredText text's inline markup out; a reference to one of the document's
    ``substitutions`` (``substitutions()``) shows its text. ``depth``: how many tables' cells ``text`` is in."""
    edits: list[Edit] = []
    blocks = Blocks(Inline(text, edits, substitutions), edits, rst_shown, depth)
    position = 0
    for line in text.split("\n"):
        blocks.line(position, line)
        position += len(line) + 1
    blocks.close()
    return edits
