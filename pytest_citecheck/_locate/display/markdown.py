"""Markdown's inline markup, as edits that leave the words a reader sees (CommonMark 0.31, inline parts).

Blocks first (``markdown_edits``): fenced and indented code is never touched; blockquote markers
(``> ``) go; each paragraph, list item and heading is one scope, and inline markup never crosses
scopes. Within a scope (``Inline``), left to right as CommonMark reads it: backslash escapes, code
spans (their backticks go, their content stays as written), autolinks (their angle brackets go), raw
HTML tags (they go), entities (decoded), links and images (``[text](url "title")``, ``[text][ref]``,
``[text][]``, ``[text]`` when ``ref`` is defined: the text or the alt text stays, the rest goes).
Then emphasis: delimiter runs of ``*`` and ``_`` (and GitHub's strikethrough ``~~``) go in the pairs
CommonMark's "process emphasis" makes; a run between two letters or digits (``snake_case``, ``2*3*4``)
is never one, for either character, where CommonMark lets ``*`` make intraword emphasis: a
multiplication keeps its ``*``.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass

from pytest_citecheck._sources.formats.headings import AUTOLINK as _AUTOLINK
from pytest_citecheck._sources.formats.headings import BLOCK_TAGS as _BLOCK_TAGS
from pytest_citecheck._sources.formats.headings import CLOSING_TAG as _CLOSING_TAG
from pytest_citecheck._sources.formats.headings import ENTITY as _ENTITY
from pytest_citecheck._sources.formats.headings import RAISED_SUP as _RAISED_SUP
from pytest_citecheck._sources.formats.headings import TAG as _TAG
from pytest_citecheck._sources.formats.html import RAISED, SUPERSCRIPTS

Edit = tuple[int, int, str]

_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_SPECIAL = re.compile(r"[\\`<&!\[\]*_~]")
_EMAIL = re.compile(
    r"<[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*>"
)
# CommonMark lets an implementation limit a destination's nested parentheses (cmark: 32) and caps a
# link label at 999 characters: past them the brackets are text. Both keep a page of unclosed
# ``[a](`` or ``[`` from being scanned to its end once per bracket (quadratic: 160 kB took minutes).
_MOST_NESTED_PARENTHESES = 32
_LONGEST_LABEL = 999
_LABEL = re.compile(r"\[((?:[^\[\]\\]|\\.){0,999})\]")
_ANGLE_DESTINATION = re.compile(r"<(?:[^<>\n\\]|\\.)*>")
_PLAIN_DESTINATION = re.compile(r"[^\s()\\\x00-\x1f]*")
_TITLE = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\)")


def is_space(ch: str) -> bool:
    return not ch or ch.isspace()


def is_punctuation(ch: str) -> bool:
    """CommonMark's punctuation: ASCII punctuation and Unicode's P and S categories."""
    return ch in _ASCII_PUNCTUATION or unicodedata.category(ch)[0] in "PS"


@dataclass
class Delimiter:
    """A run of ``*`` or ``_`` that may open or close emphasis: ``count`` of its ``length`` still unused."""

    at: int
    char: str
    length: int
    count: int
    opens: bool
    closes: bool


@dataclass
class Bracket:
    """An opening ``[`` or ``![``: ``delimiters`` is how many delimiter runs came before it."""

    at: int
    image: bool
    delimiters: int
    active: bool = True


def label_key(label: str) -> str:
    """A link label as CommonMark matches it: case folded, whitespace collapsed."""
    return " ".join(label.split()).casefold()


def _skip_space(text: str, at: int, end: int) -> int:
    while at < end and text[at] in " \t\n":
        at += 1
    return at


def _destination_end(text: str, at: int, end: int) -> int | None:
    """Where a link destination starting at ``at`` ends: ``<…>``, or characters with balanced parentheses."""
    if text.startswith("<", at):
        found = _ANGLE_DESTINATION.match(text, at, end)
        return found.end() if found else None
    depth = 0
    position = at
    while True:  # runs of plain characters, regex-fast; a parenthesis or an escape one at a time
        position = _PLAIN_DESTINATION.match(text, position, end).end()  # type: ignore[union-attr]
        ch = text[position] if position < end else ""
        if ch == "\\" and position + 1 < end:
            position += 2
        elif ch == "(" or (ch == ")" and depth):
            depth += 1 if ch == "(" else -1
            position += 1
            if depth > _MOST_NESTED_PARENTHESES:
                return None
        else:
            break
    return position if depth == 0 else None


def inline_link_end(text: str, at: int, end: int) -> int | None:
    """Where ``(destination "title")`` starting at ``at`` (its ``(``) ends, or None when it is not one."""
    position = _skip_space(text, at + 1, end)
    if text.startswith(")", position):
        return position + 1
    destination = _destination_end(text, position, end)
    if destination is None:
        return None
    position = _skip_space(text, destination, end)
    if position > destination and position < end and text[position] in "\"'(":
        title = _TITLE.match(text, position, end)
        if title is None:
            return None
        position = _skip_space(text, title.end(), end)
    return position + 1 if text.startswith(")", position) and position < end else None


def process_emphasis(delimiters: list[Delimiter], edits: list[Edit]) -> None:
    """CommonMark's "process emphasis": pair closers with openers; each pair's delimiters go (``edits``)."""
    bottoms: dict[tuple[str, bool, int], int] = {}
    closer = 0
    while closer < len(delimiters):
        run = delimiters[closer]
        if not run.closes or not run.count:
            closer += 1
            continue
        key = (run.char, run.opens, run.length % 3)
        opener = _opener(delimiters, closer, bottoms.get(key, -1))
        if opener is None:
            bottoms[key] = closer - 1
            closer += 1
            continue
        start = delimiters[opener]
        used = run.count if run.char == "~" else 2 if start.count >= 2 and run.count >= 2 else 1
        edits.append((start.at + start.count - used, start.at + start.count, ""))
        edits.append((run.at, run.at + used, ""))
        start.count -= used
        run.at += used
        run.count -= used
        for between in delimiters[opener + 1 : closer]:
            between.count = 0
        if not run.count:
            closer += 1


def _opener(delimiters: list[Delimiter], closer: int, bottom: int) -> int | None:
    """The nearest opener before ``closer`` (and above ``bottom``) that may pair with it (the rule of 3)."""
    run = delimiters[closer]
    for index in range(closer - 1, bottom, -1):
        start = delimiters[index]
        if start.char != run.char or not start.opens or not start.count:
            continue
        if run.char == "~":  # strikethrough: a ``~~`` closes a ``~~``
            return index
        both = start.closes or run.opens
        if both and (start.length + run.length) % 3 == 0 and (start.length % 3 or run.length % 3):
            continue
        return index
    return None


class Inline:
    """The inline markup of one scope of a Markdown text (a paragraph, a list item, a heading), as edits."""

    def __init__(self, text: str, labels: frozenset[str], edits: list[Edit]) -> None:
        self.text = text
        self.labels = labels
        self.edits = edits
        self.end = 0
        self.start = 0
        self.delimiters: list[Delimiter] = []
        self.brackets: list[Bracket] = []
        self.deactivated = 0  # self.brackets[:deactivated] are inactive (or images, which stay active)
        self._handlers = {
            "\\": self._escape,
            "`": self._code,
            "<": self._angle,
            "&": self._entity,
            "!": self._bang,
            "[": self._bracket,
            "]": self._close,
            "*": self._delimiter,
            "_": self._delimiter,
            "~": self._delimiter,
        }

    def scan(self, start: int, end: int) -> None:
        self.start, self.end = start, end
        self.delimiters, self.brackets = [], []
        self.deactivated = 0
        position = start
        while True:
            found = _SPECIAL.search(self.text, position, end)
            if found is None:
                break
            position = self._handlers[found.group()](found.start())
        process_emphasis(self.delimiters, self.edits)

    def _escape(self, at: int) -> int:
        following = self.text[at + 1 : at + 2] if at + 1 < self.end else ""
        if following in _ASCII_PUNCTUATION and following:
            self.edits.append((at, at + 1, ""))
            return at + 2
        if following == "\n":  # a hard line break: the backslash is not shown
            self.edits.append((at, at + 1, ""))
        return at + 1

    def _code(self, at: int) -> int:
        text, end = self.text, self.end
        length = _run(text, at, end, "`")
        closing = re.compile(rf"(?<!`)`{{{length}}}(?!`)")
        found = closing.search(text, at + length, end)
        if found is None:
            return at + length
        close = found.start()
        content = text[at + length : close]
        # One space (or line end) at each end of the content is padding, not code (CommonMark 6.1).
        pad = int(len(content) >= 2 and content[0] in " \n" and content[-1] in " \n" and bool(content.strip()))
        self.edits.append((at, at + length + pad, ""))
        self.edits.append((close - pad, close + length, ""))
        return close + length

    def _angle(self, at: int) -> int:
        text, end = self.text, self.end
        found = _AUTOLINK.match(text, at, end) or _EMAIL.match(text, at, end)
        if found is not None:
            self.edits.append((at, at + 1, ""))
            self.edits.append((found.end() - 1, found.end(), ""))
            return found.end()
        raised = _RAISED_SUP.match(text, at, end) if at > self.start and text[at - 1].isdigit() else None
        if raised is not None and raised.group(1).lstrip()[:1] in RAISED and raised.group(1).strip():
            self.edits.append((at, raised.start(1), ""))
            self.edits.append((raised.start(1), raised.end(1), raised.group(1).translate(SUPERSCRIPTS)))
            self.edits.append((raised.end(1), raised.end(), ""))
            return raised.end()
        found = _TAG.match(text, at, end) or _CLOSING_TAG.match(text, at, end)
        if found is None:
            return at + 1
        name = found.group(1).lower()
        self.edits.append((at, found.end(), " " if name in _BLOCK_TAGS else ""))
        return found.end()

    def _entity(self, at: int) -> int:
        found = _ENTITY.match(self.text, at, self.end)
        if found is None:
            return at + 1
        decoded = html.unescape(found.group())
        if decoded != found.group():
            self.edits.append((at, found.end(), decoded))
        return found.end()

    def _bang(self, at: int) -> int:
        if self.text.startswith("[", at + 1) and at + 1 < self.end:
            self.brackets.append(Bracket(at, True, len(self.delimiters)))
            return at + 2
        return at + 1

    def _bracket(self, at: int) -> int:
        self.brackets.append(Bracket(at, False, len(self.delimiters)))
        return at + 1

    def _close(self, at: int) -> int:
        if not self.brackets:
            return at + 1
        opener = self.brackets.pop()
        self.deactivated = min(self.deactivated, len(self.brackets))
        if not opener.active:
            return at + 1
        tail = self._link_end(opener, at)
        if tail is None:
            return at + 1
        # The link's text: its emphasis is its own (CommonMark), then the brackets and the rest go.
        process_emphasis(self.delimiters[opener.delimiters :], self.edits)
        del self.delimiters[opener.delimiters :]
        self.edits.append((opener.at, opener.at + (2 if opener.image else 1), ""))
        self.edits.append((at, tail, ""))
        if not opener.image:  # no link inside a link
            # Brackets up to ``deactivated`` were made inactive by an earlier link (a bracket never
            # becomes active again): only those opened since are visited, so each is visited once.
            for bracket in self.brackets[self.deactivated :]:
                if not bracket.image:
                    bracket.active = False
            self.deactivated = len(self.brackets)
        return tail

    def _link_end(self, opener: Bracket, at: int) -> int | None:
        """Where the link whose text ends at ``at`` (its ``]``) ends, or None when the brackets are text."""
        text, end = self.text, self.end
        after = at + 1
        if text.startswith("(", after) and after < end:
            tail = inline_link_end(text, after, end)
            if tail is not None:
                return tail
        label_start = opener.at + (2 if opener.image else 1)
        # The link's text names the reference only if it could be a label: a longer one is never
        # defined, and is not sliced and folded once per bracket.
        label = text[label_start:at] if at - label_start <= _LONGEST_LABEL else None
        if text.startswith("[", after) and after < end:
            reference = _LABEL.match(text, after, end)
            if reference is not None:
                named = reference.group(1) if reference.group(1).strip() else label
                return reference.end() if named is not None and label_key(named) in self.labels else None
        return after if label is not None and label_key(label) in self.labels else None

    def _delimiter(self, at: int) -> int:
        text, end = self.text, self.end
        char = text[at]
        length = _run(text, at, end, char)
        if char == "~" and length != 2:  # GitHub's strikethrough is ``~~`` (a lone ``~`` is a tilde)
            return at + length
        before = text[at - 1] if at > self.start else ""
        after = text[at + length] if at + length < end else ""
        opens, closes = _flanking(before, after)
        if opens or closes:
            self.delimiters.append(Delimiter(at, char, length, length, opens, closes))
        return at + length


def _flanking(before: str, after: str) -> tuple[bool, bool]:
    """Whether a delimiter run between ``before`` and ``after`` may open and close emphasis.

    CommonMark's flanking rules, with the rule it gives ``_`` applied to ``*`` too: a run between two
    letters or digits neither opens nor closes (``snake_case``, ``2*3*4``)."""
    left = not is_space(after) and (not is_punctuation(after) or is_space(before) or is_punctuation(before))
    right = not is_space(before) and (not is_punctuation(before) or is_space(after) or is_punctuation(after))
    return left and (not right or is_punctuation(before)), right and (not left or is_punctuation(after))


def _run(text: str, at: int, end: int, char: str) -> int:
    """How many ``char`` follow one another from ``at``."""
    position = at
    while position < end and text[position] == char:
        position += 1
    return position - at


# --- blocks: which lines are scopes of inline markup, and which are code ---------------------------

# A code fence, at any indentation (inside a list item too): what it opens is never touched.
_FENCE = re.compile(r"[ \t]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)?(`{3,}|~{3,})([^\n]*)")
_QUOTE_MARKS = re.compile(r"(?: {0,3}>[ ]?)+")
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_UNDERLINE = re.compile(r" {0,3}(?:=+|-+)[ \t]*$")
_ITEM = re.compile(r" {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
# A link reference definition (not shown); a footnote's (``[^1]: text``) is shown, and read as a paragraph.
_DEFINITION_LINE = re.compile(r" {0,3}\[(?!\^)(?:[^\[\]\\]|\\.)+\]:")


def _closes(closing: re.Match[str], fence: str) -> bool:
    """A fence line closes the open ``fence``: the same character, as many or more, and nothing after them."""
    run = closing.group(1)
    return run[0] == fence[0] and len(run) >= len(fence) and not closing.group(2).strip()


class _Blocks:
    """The lines of a Markdown text, read one by one: each scope of inline markup is handed to ``Inline``."""

    def __init__(self, inline: Inline, edits: list[Edit]) -> None:
        self.inline = inline
        self.edits = edits
        self.fence: str | None = None  # the open fence's run of backticks or tildes
        self.code = False  # the last line was indented code
        self.blank = True  # the last line was blank (or the text starts here)
        self.in_list = False  # a list item came since the last paragraph at the margin
        self.scope: list[int] | None = None  # [start, end) of the scope being read

    def line(self, start: int, line: str) -> None:
        if self.fence is not None:
            closing = _FENCE.fullmatch(line.rstrip())
            if closing and _closes(closing, self.fence):
                self.fence = None
            return
        marks = _QUOTE_MARKS.match(line)
        body_at = start + (marks.end() if marks else 0)
        if marks:
            self.edits.append((start, body_at, ""))
        body = line[body_at - start :]
        fence = _FENCE.match(body)
        if fence and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            self.close()
            self.fence, self.blank = fence.group(1), False
            return
        if not body.strip():
            self.close()
            self.blank = True
            return
        self._text_line(body_at, body)

    def _text_line(self, at: int, body: str) -> None:
        spaced = body.expandtabs(4)
        indent = len(spaced) - len(spaced.lstrip())
        blank_before, self.blank = self.blank, False
        if indent >= 4 and (self.code or (blank_before and not self.in_list)):
            self.close()
            self.code = True
            return
        self.code = False
        end = at + len(body)
        if _HEADING.match(body) or _DEFINITION_LINE.match(body) or (_UNDERLINE.match(body) and self.scope):
            self.close()
            if _HEADING.match(body):
                self.in_list = False
                self.inline.scan(at, end)
            return
        if _ITEM.match(body):
            self.close()
            self.in_list = True
        elif indent == 0 and blank_before:
            self.in_list = False
        if self.scope is None:
            self.scope = [at, end]
        else:
            self.scope[1] = end

    def close(self) -> None:
        if self.scope is not None:
            self.inline.scan(*self.scope)
            self.scope = None


def markdown_edits(text: str, labels: frozenset[str]) -> list[Edit]:
    """The edits that take a Markdown text's markup out; ``labels``: the link labels the document defines."""
    edits: list[Edit] = []
    blocks = _Blocks(Inline(text, labels, edits), edits)
    position = 0
    for line in text.split("\n"):
        blocks.line(position, line)
        position += len(line) + 1
    blocks.close()
    return edits
