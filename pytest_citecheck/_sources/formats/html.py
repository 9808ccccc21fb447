"""HTML: the visible text of a page (``html.parser``), split at ``<h1>`` to ``<h6>``.

Text a reader does not see is not the page's text, so a quote taken from it is not found: the
contents of ``<script>``, ``<style>``, ``<template>``, ``<noscript>``, ``<head>`` and ``<svg>``, and
of any element marked ``hidden``, ``aria-hidden="true"``, or with an inline ``display: none`` or
``visibility: hidden`` style. Every piece of visible text keeps the offset it came from in the page
(an ``OffsetMap``), so offsets into the HTML as given still find their section.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from pytest_citecheck._errors import SourceError
from pytest_citecheck._sources.formats.headings import heading_ids, sections_from_starts
from pytest_citecheck._sources.offsets import OffsetMap

_BLOCK_TAGS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li "
    "main nav ol p pre section table tbody td tfoot th thead tr ul".split()
)
_SKIPPED_TAGS = frozenset({"script", "style", "noscript", "template", "head", "svg"})
_VOID_TAGS = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_HIDDEN_STYLE = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)", re.I
)
_WORD = re.compile(r"\S+")


def is_hidden(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
    """Whether an element's own markup hides it (and everything in it) from a reader."""
    if tag in _SKIPPED_TAGS:
        return True
    found = {name.lower(): (value or "") for name, value in attrs}
    return (
        "hidden" in found
        or found.get("aria-hidden", "").strip().lower() == "true"
        or bool(_HIDDEN_STYLE.search(found.get("style", "")))
    )


class _HtmlText(HTMLParser):
    """The visible text of an HTML page, with the offset and level of every heading in it."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self.length = 0
        self.hidden: list[str] = []  # the open elements that hide what is in them (tag names)
        self.preformatted = 0
        self.headings: list[tuple[int, int, list[str]]] = []  # (offset, level, title pieces)
        self.in_heading: int | None = None
        self.in_permalink = False  # inside a heading's permalink (Sphinx's and MkDocs' ``<a class="headerlink">``)
        self.line_starts = [0] + [match.end() for match in re.finditer("\n", page)]
        self.anchors: list[tuple[int, int]] = []  # (offset in the text, offset in the page)

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
        if self.hidden:
            if tag == self.hidden[-1] or tag in _SKIPPED_TAGS:
                self.hidden.append(tag)
            return
        if tag not in _VOID_TAGS and is_hidden(tag, attrs):
            self.hidden.append(tag)
            return
        if tag in _BLOCK_TAGS:
            self._break()
        if tag == "pre":
            self.preformatted += 1
        if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.headings.append((self.length, int(tag[1]), []))
            self.in_heading = len(self.headings) - 1
        if tag == "a" and self.in_heading is not None:
            # Sphinx and MkDocs end every heading with a permalink, "¶", that shows on hover: it is in
            # the text, but not in the title a reader (and a citation's section) calls the heading by.
            self.in_permalink = "headerlink" in (dict(attrs).get("class") or "").split()

    def handle_endtag(self, tag: str) -> None:
        if self.hidden:
            if tag in self.hidden:
                del self.hidden[len(self.hidden) - 1 - self.hidden[::-1].index(tag) :]
            return
        if tag == "pre":
            self.preformatted = max(0, self.preformatted - 1)
        if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.in_heading = None
        if tag == "a" or self.in_heading is None:
            self.in_permalink = False
        if tag in _BLOCK_TAGS:
            self._break()

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        at = self._position()
        if self.preformatted:
            self._emit(data, at)
        else:
            self._emit_words(data, at)
        if self.in_heading is not None and not self.in_permalink:
            self.headings[self.in_heading][2].append(data)

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


def split_html(text: str) -> tuple[str, dict[str, str], OffsetMap]:
    """HTML: visible text through ``html.parser`` (hidden elements dropped), split at ``<h1>``..``<h6>``."""
    parser = _HtmlText(text)
    parser.feed(text)
    parser.close()
    clean = "".join(parser.pieces)
    headings = [(offset, level, " ".join("".join(title).split())) for offset, level, title in parser.headings]
    headings = [heading for heading in headings if heading[2]]
    if not headings:
        raise SourceError("no HTML headings (<h1> to <h6>) with text were found", field="source")
    ids = heading_ids([(level, title) for _, level, title in headings])
    anchors = parser.anchors or [(0, 0)]
    offsets = OffsetMap(tuple(a for a, _ in anchors), tuple(b for _, b in anchors), len(clean), len(text))
    return clean, sections_from_starts(clean, [offset for offset, _, _ in headings], ids), offsets
