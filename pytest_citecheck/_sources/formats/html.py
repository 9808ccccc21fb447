"""HTML: the visible text of a page (``html.parser``), split at ``<h1>`` to ``<h6>``."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from pytest_citecheck._errors import SourceError
from pytest_citecheck._sources.formats.headings import heading_ids, sections_from_starts

_BLOCK_TAGS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li "
    "main nav ol p pre section table tbody td tfoot th thead tr ul".split()
)
_SKIPPED_TAGS = frozenset({"script", "style", "noscript", "template", "head", "svg"})


class _HtmlText(HTMLParser):
    """The visible text of an HTML page, with the offset and level of every heading in it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self.length = 0
        self.skipping = 0
        self.preformatted = 0
        self.headings: list[tuple[int, int, list[str]]] = []  # (offset, level, title pieces)
        self.in_heading: int | None = None

    def _emit(self, text: str) -> None:
        if text:
            self.pieces.append(text)
            self.length += len(text)

    def _break(self) -> None:
        if self.pieces and not self.pieces[-1].endswith("\n"):
            self._emit("\n")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED_TAGS:
            self.skipping += 1
            return
        if tag in _BLOCK_TAGS:
            self._break()
        if tag == "pre":
            self.preformatted += 1
        if not self.skipping and len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.headings.append((self.length, int(tag[1]), []))
            self.in_heading = len(self.headings) - 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_TAGS:
            self.skipping = max(0, self.skipping - 1)
            return
        if tag == "pre":
            self.preformatted = max(0, self.preformatted - 1)
        if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.in_heading = None
        if tag in _BLOCK_TAGS:
            self._break()

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        if not self.preformatted:
            data = re.sub(r"\s+", " ", data)
            if self.pieces and self.pieces[-1].endswith(("\n", " ")):
                data = data.lstrip(" ")
        self._emit(data)
        if self.in_heading is not None:
            self.headings[self.in_heading][2].append(data)


def split_html(text: str) -> tuple[str, dict[str, str]]:
    """HTML: visible text through ``html.parser`` (script, style and head dropped), split at ``<h1>``..``<h6>``."""
    parser = _HtmlText()
    parser.feed(text)
    parser.close()
    clean = "".join(parser.pieces)
    headings = [(offset, level, " ".join("".join(title).split())) for offset, level, title in parser.headings]
    headings = [heading for heading in headings if heading[2]]
    if not headings:
        raise SourceError("no HTML headings (<h1> to <h6>) with text were found", field="source")
    ids = heading_ids([(level, title) for _, level, title in headings])
    return clean, sections_from_starts(clean, [offset for offset, _, _ in headings], ids)
