"""Claude's citations of the pages its web fetch tool fetched, read by the pages' URLs.

A page the web fetch tool (``web_fetch_20250910`` and later, citations enabled) fetched is cited as a document: a
``char_location`` or ``page_location`` whose ``document_title`` is the page's title. Only the tool's result block
(``web_fetch_tool_result``; through langchain-core a ``server_tool_result``) names the page's URL. Anthropic's web
fetch documentation shows the shape (``tests/data/payloads/claude_web_fetch_article.json``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pytest_citecheck._citations.anthropic import _KINDS, is_anthropic_text_block
from pytest_citecheck._citations.model import MISSING, field_of

# The fields of a Claude document citation (``char_location``, ``page_location``, ``content_block_location``).
_DOCUMENT_CITATION_FIELDS = (
    "type",
    "cited_text",
    "document_title",
    "file_id",
    "start_char_index",
    "end_char_index",
    "start_page_number",
    "end_page_number",
    "start_block_index",
    "end_block_index",
)


def fetched_pages_cited(parts: list[Any]) -> list[Any]:
    """A Message's text blocks with each citation of a page the web fetch tool fetched naming that page's URL.

    Claude cites a fetched page as a document (a ``char_location`` or ``page_location`` whose ``document_title``
    is the page's title, ``document_index`` counting it among the documents of the conversation); the page's URL
    is only in the ``web_fetch_tool_result`` block that holds it. Read by title or by its position in a ``Corpus``,
    such a citation would be checked against whichever document of the corpus bore that title or stood there. It
    is read as a citation of its URL alone, as a web search result is: a ``Corpus`` keyed by the fetched URLs
    finds it; any other corpus fails naming ``document_title``, never another document."""
    fetched: dict[str, str | None] = {}
    for part in parts:
        result = _fetch_result(part)
        if result is MISSING:
            continue
        url, title = field_of(result, "url"), field_of(field_of(result, "content"), "title")
        if isinstance(url, str) and url.strip() and isinstance(title, str) and title.strip():
            # Two fetched pages of one title: which one a citation cites is not known (None: an error below).
            fetched[title] = url.strip() if fetched.get(title, url.strip()) == url.strip() else None
    if not fetched:
        return parts
    return [_fetched_block(part, fetched) if is_anthropic_text_block(part) else part for part in parts]


def _fetch_result(part: Any) -> Any:
    """The ``web_fetch_result`` of a web fetch tool's result block: Claude's ``web_fetch_tool_result`` (its
    ``content``), or the ``server_tool_result`` block langchain-core makes of it (its ``output``); else MISSING."""
    kind = field_of(part, "type")
    if kind == "web_fetch_tool_result":
        return field_of(part, "content")
    if kind == "server_tool_result" and field_of(field_of(part, "extras"), "block_type") == "web_fetch_tool_result":
        return field_of(part, "output")
    return MISSING


def _fetched_block(block: Any, fetched: dict[str, str | None]) -> Any:
    cited = field_of(block, "citations")
    if isinstance(cited, (str, bytes, Mapping)) or not isinstance(cited, Iterable):
        return block  # no citations, or unreadable ones: the block's own reader says so
    items = list(cited)
    if not any(_fetched_url(item, fetched) is not MISSING for item in items):
        return block
    text = field_of(block, "text")
    return {"type": "text", "text": text, "citations": [_fetched_citation(item, fetched) for item in items]}


def _fetched_url(item: Any, fetched: dict[str, str | None]) -> Any:
    """The URL of the fetched page a document citation cites (None: two fetched pages share its title), or MISSING."""
    title = field_of(item, "document_title")
    if field_of(item, "type") not in _KINDS or not isinstance(title, str) or title not in fetched:
        return MISSING
    return fetched[title]


def _fetched_citation(item: Any, fetched: dict[str, str | None]) -> Any:
    url = _fetched_url(item, fetched)
    if url is MISSING:
        return item
    fields = {name: value for name in _DOCUMENT_CITATION_FIELDS if (value := field_of(item, name)) is not MISSING}
    # No document_index: the page is named by its URL (a title shared by two fetched pages names none: an error).
    fields["document_title"] = url if url is not None else f"one of the pages fetched as {fields['document_title']!r}"
    return fields
