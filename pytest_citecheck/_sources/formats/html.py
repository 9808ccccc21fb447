"""HTML: the visible text of a page (``html.parser``), split at ``<h1>`` to ``<h6>``.

Text a reader does not see is not the page's text, so a quote taken from it is not found: the
contents of ``<script>``, ``<style>``, ``<template>``, ``<noscript>``, ``<head>``, ``<svg>``, ``<iframe>``,
``<noembed>``, ``<noframes>``, ``<datalist>``, ``<rp>`` and MathML's ``<annotation>``, and
of any element marked ``hidden``, ``aria-hidden="true"``, of a ``<dialog>`` that is not ``open``, of a
``<bdo dir="rtl">`` (drawn reversed), of a drop-down's options but the one it shows, of an option's text
where its ``label`` is shown instead, and
of any element that CSS hides (``css.py``: an inline style or a rule of the page's own ``<style>``
with ``display: none``, ``visibility: hidden``, ``opacity: 0`` or ``font-size: 0``). Nor is text the page
strikes out: ``<del>``, ``<s>``, ``<strike>`` (removed, or no longer accurate, by HTML's own definition). A ``<sup>`` right
after a digit is read raised (``2<sup>32</sup>`` is ``2³²``, not ``232``). Nor is the page's chrome, where the page marks it: navigation
(``<nav>``, ``role="navigation"``) and, when the page marks its main content (``<main>``,
``role="main"``: Sphinx, mdBook, MkDocs), everything outside it; a page with no heading left then is
read whole, as before. Every piece of visible text keeps the offset it came from in the page
(an ``OffsetMap``), so offsets into the HTML as given still find their section.
"""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser

from pytest_citecheck._errors import NoSectionsError
from pytest_citecheck._sources.formats.css import HIDING, Hiding, hiding_rules
from pytest_citecheck._sources.formats.headings import RAISED as RAISED
from pytest_citecheck._sources.formats.headings import SUPERSCRIPTS as SUPERSCRIPTS
from pytest_citecheck._sources.formats.headings import heading_ids, sections_from_starts
from pytest_citecheck._sources.offsets import OffsetMap

_BLOCK_TAGS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li "
    "main nav ol p pre section table tbody td tfoot th thead tr ul".split()
)
# What no browser draws: code, styles, the head, fallbacks every browser outgrew (noscript, noembed, noframes),
# an iframe's contents (raw text: the frame shows its src), a datalist's suggestions, ruby's fallback
# parentheses, a MathML formula's source (annotation), and SVG (not read as text here).
_SKIPPED_TAGS = frozenset(
    {"script", "style", "noscript", "template", "head", "svg", "iframe", "noembed", "noframes", "datalist", "rp"}
    | {"annotation", "annotation-xml"}
)
# Struck-out text: HTML says ``<del>`` is "a removal from the document" and ``<s>`` (``<strike>``, obsolete)
# "contents that are no longer accurate or no longer relevant". Drawn, but struck by the document itself:
# not what it says now (a changelog's withdrawn item), so not its text, as a comment is not.
_STRUCK_TAGS = frozenset({"del", "s", "strike"})
_VOID_TAGS = frozenset("area base br col embed hr img input link meta param source track wbr".split())
# A word, as HTML draws it: a run of characters that are not spaces. A no-break, figure, thin or narrow no-break
# space between a digit and a group of three digits stays in it ("59&nbsp;000" is one number to a reader, and
# to the rule for quotes); elsewhere such a space is read as a space, as before.
_WORD = re.compile(r"(?:\S|(?<=\d)[\u00a0\u2007\u2009\u202f](?=\d{3}(?!\d)))+")
# What a heading's link to itself shows when it is only a permalink (the heading's title does not include it).
_PERMALINK_MARKS = frozenset({"¶", "#", "§", "🔗", "\uf0c1", ""})
# Whether a page may mark its main content: looked for before parsing, confirmed by the parser (a match
# in a script or a comment marks nothing, and the page is then read whole).
_MAIN_MARK = re.compile(r"<main\b|\brole\s*=\s*[\"']?main\b", re.I)


def _attribute(attrs: list[tuple[str, str | None]], name: str) -> str:
    return next(((value or "").strip().lower() for key, value in attrs if key.lower() == name), "")


# DocBook's title page puts each author (editor, ...) in an <h3 class="author">: a name, not a section's title.
_CREDITS = {"author", "editor", "corpauthor", "othercredit", "collab"}


def _is_credit(attrs: list[tuple[str, str | None]]) -> bool:
    return bool(_CREDITS.intersection(_attribute(attrs, "class").split()))


def _is_main(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
    return tag == "main" or _attribute(attrs, "role") == "main"


def _is_navigation(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
    return tag == "nav" or _attribute(attrs, "role") == "navigation"


def is_hidden(tag: str, attrs: list[tuple[str, str | None]], hiding: Hiding | None = None) -> bool:
    """Whether an element's own markup, or a rule of the page's ``<style>`` (``hiding``), hides it (and
    everything in it) from a reader."""
    if tag in _SKIPPED_TAGS or tag in _STRUCK_TAGS:
        return True
    found = {name.lower(): (value or "") for name, value in attrs}
    if (
        "hidden" in found
        or found.get("aria-hidden", "").strip().lower() == "true"
        or bool(HIDING.search(found.get("style", "")))
        or (tag == "dialog" and "open" not in found)  # a dialog is shown only while open
        # Drawn right to left character by character ("<bdo dir=rtl>03</bdo>" shows 30): not the text as written.
        or (tag == "bdo" and found.get("dir", "").strip().lower() == "rtl")
    ):
        return True
    return hiding is not None and hiding.hides(tag, set(found.get("class", "").split()), found.get("id"))


class _HtmlText(HTMLParser):
    """The visible text of an HTML page, with the offset and level of every heading in it."""

    def __init__(self, page: str, *, chrome_dropped: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        # Page chrome dropped: navigation, and what lies outside the main content (``main_only``).
        self.chrome_dropped = chrome_dropped
        self.main_only = chrome_dropped and _MAIN_MARK.search(page) is not None
        self.main: list[str] = []  # the main content's element, and elements of its name open in it
        self.saw_main = False
        self.pieces: list[str] = []
        self.length = 0
        self.hidden: list[str] = []  # the open elements that hide what is in them (tag names)
        self.hiding = hiding_rules(page)  # what the page's own <style> rules hide
        # How many of each name ``hidden`` holds: an end tag of a name it does not hold (a stray one) is
        # known to close nothing without a scan of the whole list (each scan made such a page quadratic).
        self.hidden_names: Counter[str] = Counter()
        self.preformatted = 0
        # The open <sup> elements: True when its digits are read raised, False when not, None while it
        # follows a digit and has shown no text yet (its first character decides).
        self.superscripts: list[bool | None] = []
        self.headings: list[tuple[int, int, list[str]]] = []  # (offset, level, title pieces)
        self.in_heading: int | None = None
        self.in_permalink = False  # inside a heading's permalink (Sphinx's and MkDocs' ``<a class="headerlink">``)
        # Inside a heading's link to its own anchor (``href="#..."``): its text, kept out of the title if
        # it is only a permalink mark (Node.js's ``<a class="mark" href="#c-addons">#</a>``).
        self.anchor_text: list[str] | None = None
        self.line_starts = [0] + [match.end() for match in re.finditer("\n", page)]
        self.anchors: list[tuple[int, int]] = []  # (offset in the text, offset in the page)
        self.item_at = -1  # where the open list item's text starts, while it has none (a task list's box may come)
        # Inside a closed <select> (a drop-down): its options so far, each (selected, [(text, offset)]). It
        # shows one option, so the one it shows is read when it ends (``_close_select``), not all of them.
        self.options: list[tuple[bool, list[tuple[str, int]]]] | None = None
        # Inside an option with a label (``<option label="Monthly">``): a browser shows the label, not its text.
        self.labelled = False

    def _position(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def _emit(self, text: str, at: int) -> None:
        if text:
            self.anchors.append((self.length, at))
            self.pieces.append(text)
            self.length += len(text)

    def _break(self) -> None:
        if self.pieces and not self.pieces[-1].endswith("\n"):
            self._emit("\n", self._position())

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._outside_at_start(tag, attrs):
            return
        if tag in _BLOCK_TAGS:
            self._break()
        if tag == "pre":
            self.preformatted += 1
        if tag == "sup":
            self.superscripts.append(None if self.pieces and self.pieces[-1][-1:].isdigit() else False)
        if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456" and not _is_credit(attrs):
            self.headings.append((self.length, int(tag[1]), []))
            self.in_heading = len(self.headings) - 1
        if tag == "a" and self.in_heading is not None:
            self._enter_heading_link(attrs)
        if tag in ("li", "input"):
            self._task_box(tag, attrs)
        if tag in ("select", "option", "optgroup", "hr"):
            self._open_select(tag, attrs)

    def _open_select(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """A drop-down (a ``<select>`` without ``multiple`` that shows one row) starts, or one of its options;
        or an option of a list box, a row of its own. An option's ``label``, when it has one that is not
        empty, is what a browser shows of it, in either: its text is then not read."""
        self.labelled = False  # an <optgroup> or <hr> ends an option too
        label = _label(attrs, self.get_starttag_text() or "", self._position()) if tag == "option" else None
        if tag == "option" and self.options is not None:
            self.options.append((any(name == "selected" for name, _ in attrs), [label] if label else []))
            self.labelled = label is not None
        elif tag == "option":
            self._break()
            if label is not None:
                self._emit_words(*label)
                self.labelled = True
        elif (
            tag == "select"
            and self.options is None
            and not any(name == "multiple" for name, _ in attrs)
            and _rows(attrs) <= 1
        ):
            self.options = []

    def _close_select(self) -> None:
        """A drop-down ends: the option it shows is read, the last one marked ``selected``, else the first."""
        options, self.options = self.options or [], None
        chosen = next((texts for selected, texts in reversed(options) if selected), options[0][1] if options else [])
        for data, at in chosen:
            self._emit_words(data, at)

    def _task_box(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """A task list's box, a checkbox that opens a list item (GitHub, GitLab, pandoc, markdown-it render
        "- [x] item" so): its state is what the item says ("done" or not), read as Markdown writes it.
        Other checkboxes (Node.js's docs' module-syntax toggle in each example) are controls: not read."""
        if tag == "li":
            self.item_at = self.length
        elif self.item_at == self.length and _attribute(attrs, "type") == "checkbox":
            self._emit("[x] " if any(name == "checked" for name, _ in attrs) else "[ ] ", self._position())
            self.item_at = self.length

    def _outside_at_start(self, tag: str, attrs: list[tuple[str, str | None]]) -> bool:
        """Whether what this start tag opens is not read: hidden, navigation, or outside the main content."""
        if self.hidden:
            if tag == self.hidden[-1] or tag in _SKIPPED_TAGS:
                self._hide(tag)
            return True
        hidden = is_hidden(tag, attrs, self.hiding)
        if tag not in _VOID_TAGS and (hidden or (self.chrome_dropped and _is_navigation(tag, attrs))):
            self._hide(tag)
            return True
        if not self.main_only:
            return False
        if tag not in _VOID_TAGS:
            if self.main and tag == self.main[0]:
                self.main.append(tag)  # an element of main's own tag, nested in it: its end is not main's
            elif not self.main and _is_main(tag, attrs):
                self.main.append(tag)
                self.saw_main = True
        return not self.main

    def _hide(self, tag: str) -> None:
        self.hidden.append(tag)
        self.hidden_names[tag] += 1

    def _close_hidden(self, tag: str) -> None:
        """The innermost open hidden element of this name closes, with what is open inside it; a stray end
        tag closes nothing. The innermost is the last one, most often: found at once (a reversed copy of
        the list per end tag made 50,000 nested hidden <div>s take seconds), and each element is passed
        over once, when it closes."""
        if not self.hidden_names[tag]:
            return
        index = len(self.hidden) - 1
        while self.hidden[index] != tag:
            index -= 1
        for closed in self.hidden[index:]:
            self.hidden_names[closed] -= 1
        del self.hidden[index:]

    def _enter_heading_link(self, attrs: list[tuple[str, str | None]]) -> None:
        # Sphinx and MkDocs end every heading with a permalink, "¶", that shows on hover: it is in
        # the text, but not in the title a reader (and a citation's section) calls the heading by.
        self.in_permalink = "headerlink" in _attribute(attrs, "class").split()
        if not self.in_permalink and _attribute(attrs, "href").startswith("#"):
            self.anchor_text = []

    def handle_endtag(self, tag: str) -> None:
        if self._outside_at_end(tag):
            return
        if tag == "pre":
            self.preformatted = max(0, self.preformatted - 1)
        if tag == "sup" and self.superscripts:
            self.superscripts.pop()
        if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.in_heading = None
        if tag == "a" or self.in_heading is None:
            self._leave_heading_link(tag)
        self._end_block(tag)

    def _end_block(self, tag: str) -> None:
        """A block, an option or a ``<select>`` ends: a line break, or the option a drop-down shows read."""
        if tag in ("option", "optgroup", "select"):
            self.labelled = False
        if tag == "select" and self.options is not None:
            self._close_select()
        elif tag in _BLOCK_TAGS or (tag in ("option", "select") and self.options is None):  # a list box's row ends
            self._break()

    def _outside_at_end(self, tag: str) -> bool:
        """Whether this end tag closes something not read (the main content's own end included)."""
        if self.hidden:
            self._close_hidden(tag)
            return True
        if not self.main_only:
            return False
        if not self.main:
            return True
        if tag == self.main[0]:
            self.main.pop()
            if not self.main:
                self._break()
                return True
        return False

    def _leave_heading_link(self, tag: str) -> None:
        """A link in a heading ends (or the heading does): its text joins the title unless it is a permalink mark."""
        if tag == "a" and self.anchor_text is not None and self.in_heading is not None:
            if "".join(self.anchor_text).strip() not in _PERMALINK_MARKS:
                self.headings[self.in_heading][2].extend(self.anchor_text)
        self.in_permalink = False
        self.anchor_text = None

    def handle_data(self, data: str) -> None:
        if self.hidden or (self.main_only and not self.main):
            return
        if self.labelled:
            return  # an option's text where its label is shown
        at = self._position()
        if self.options is not None:  # in a drop-down: read when it ends, if its option is the one shown
            if self.options:
                self.options[-1][1].append((data, at))
            return
        if self.superscripts and self.superscripts[-1] is not False:
            data = self._raised(data)
        if self.preformatted:
            self._emit(data, at)
        else:
            self._emit_words(data, at)
        if self.anchor_text is not None:
            self.anchor_text.append(data)
        elif self.in_heading is not None and not self.in_permalink:
            self.headings[self.in_heading][2].append(data)

    def _raised(self, data: str) -> str:
        """The text of a ``<sup>`` after a digit: raised if it opens with a digit or a sign (its first text
        decides, for the whole element); one character for one, so every offset stays where it was."""
        if self.superscripts[-1] is None:
            if not data.strip():
                return data
            self.superscripts[-1] = data.lstrip()[0] in RAISED
        return data.translate(SUPERSCRIPTS) if self.superscripts[-1] else data

    def _emit_words(self, data: str, at: int) -> None:
        """Text with each run of whitespace folded to one space, each word anchored where it stands."""
        space_first = bool(data[:1].isspace()) and not (self.pieces and self.pieces[-1].endswith(("\n", " ")))
        if space_first:
            self._emit(" ", at)
        words = list(_WORD.finditer(data))
        for number, word in enumerate(words):
            self._emit(word.group(), at + word.start())
            if number + 1 < len(words) or data[-1:].isspace():
                self._emit(" ", at + word.end())


# Where an option's ``label`` attribute's value starts in its start tag.
_LABEL_VALUE = re.compile(r"""\slabel\s*=\s*["']?""", re.IGNORECASE)


def _label(attrs: list[tuple[str, str | None]], tag_text: str, at: int) -> tuple[str, int] | None:
    """An option's label (the first ``label`` attribute, as written, when not empty) and where its value starts
    in the page (the tag's start, if the value cannot be found in it); None when it has none."""
    value = next((value for key, value in attrs if key == "label"), None)
    if not value:
        return None
    found = _LABEL_VALUE.search(tag_text)
    return value, at + (found.end() if found else 0)


def _rows(attrs: list[tuple[str, str | None]]) -> int:
    """How many rows a ``<select>`` shows (its ``size``; one when it has none, or one that is not a number)."""
    size = _attribute(attrs, "size").strip()
    return int(size) if size.isascii() and size.isdigit() else 1


def split_html(text: str) -> tuple[str, dict[str, str], OffsetMap]:
    """HTML: visible text through ``html.parser`` (hidden elements and page chrome dropped), split at ``<h1>``..``<h6>``."""
    parser, headings = _parsed(text, chrome_dropped=True)
    if not headings:
        # Nothing but chrome had headings (or a "main" in a script marked nothing): the page is read whole.
        parser, headings = _parsed(text, chrome_dropped=False)
    if not headings:
        raise NoSectionsError("no HTML headings (<h1> to <h6>) with text were found", field="source")
    clean = "".join(parser.pieces)
    ids = heading_ids([(level, title) for _, level, title in headings])
    anchors = parser.anchors or [(0, 0)]
    offsets = OffsetMap(tuple(a for a, _ in anchors), tuple(b for _, b in anchors), len(clean), len(text))
    return clean, sections_from_starts(clean, [offset for offset, _, _ in headings], ids), offsets


def _parsed(text: str, *, chrome_dropped: bool) -> tuple[_HtmlText, list[tuple[int, int, str]]]:
    """The page parsed, and its headings that have a title: (offset in the text, level, title)."""
    parser = _HtmlText(text, chrome_dropped=chrome_dropped)
    parser.feed(text)
    parser.close()
    if parser.options is not None:  # a drop-down the page never closes shows its option all the same
        parser._close_select()
    if parser.main_only and not parser.saw_main:
        return _parsed(text, chrome_dropped=False) if chrome_dropped else (parser, [])
    headings = [(offset, level, " ".join("".join(title).split())) for offset, level, title in parser.headings]
    return parser, [heading for heading in headings if heading[2]]
