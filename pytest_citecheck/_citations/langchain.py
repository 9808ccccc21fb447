"""LangChain messages: an ``AIMessage`` and its standard content blocks (langchain-core 1.x).

``AIMessage.content_blocks`` translates a provider's answer into standard blocks: a ``"text"`` block
with ``annotations``, each a ``"citation"`` (``cited_text``, ``title``, ``url``, ``start_index`` /
``end_index``, and the provider's own fields in ``extras``). A block whose citations carry
``cited_text`` (Claude's) is read as the Anthropic text block it came from; one whose citations mark
spans of the answer (OpenAI's) as an OpenAI ``output_text`` part. A text block without annotations
cites nothing. langchain-core is never imported: the message is read by its attributes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_citecheck._citations.model import MISSING, field_of


def is_langchain_message(raw: Any) -> bool:
    """A LangChain ``AIMessage`` (or ``AIMessageChunk``): ``type == "ai"`` with ``content_blocks``."""
    return field_of(raw, "type") in ("ai", "AIMessageChunk") and field_of(raw, "content_blocks") is not MISSING


def langchain_parts(raw: Any) -> list[Any]:
    """The text blocks of an ``AIMessage``'s standard content, each as the shape its provider gave it."""
    return [
        standard_part(block) for block in field_of(raw, "content_blocks") or () if field_of(block, "type") == "text"
    ]


def is_standard_text_block(raw: Any) -> bool:
    """A standard content block: ``{"type": "text", "text": ..., "annotations": [...]}``."""
    return (
        field_of(raw, "type") == "text"
        and isinstance(field_of(raw, "text"), str)
        and isinstance(field_of(raw, "annotations"), (list, tuple))
        and field_of(raw, "citations") is MISSING
    )


def standard_part(block: Any) -> dict[str, Any]:
    """A standard text block as an Anthropic text block (citations with ``cited_text``) or an OpenAI part."""
    text = field_of(block, "text")
    annotations = field_of(block, "annotations")
    annotations = annotations if isinstance(annotations, (list, tuple)) else ()
    cited = [item for item in annotations if field_of(item, "type") == "citation"]
    if any(isinstance(field_of(item, "cited_text"), str) for item in cited):
        return {"type": "text", "text": text, "citations": [_anthropic_citation(item) for item in cited]}
    return {"type": "output_text", "text": text, "annotations": [_openai_annotation(item) for item in cited]}


_LOCATIONS = (
    ("start_char_index", "char_location"),
    ("start_page_number", "page_location"),
    ("start_block_index", "content_block_location"),
    ("search_result_index", "search_result_location"),
)


def _anthropic_citation(item: Any) -> dict[str, Any]:
    extras = field_of(item, "extras")
    citation: dict[str, Any] = dict(extras) if isinstance(extras, Mapping) else {}
    citation["cited_text"] = field_of(item, "cited_text") if isinstance(field_of(item, "cited_text"), str) else ""
    for standard, anthropic in (("title", "document_title"), ("url", "url")):
        value = field_of(item, standard)
        if isinstance(value, str):
            citation[anthropic] = value
    kind = next((name for key, name in _LOCATIONS if key in citation), None)
    citation["type"] = kind or ("web_search_result_location" if "url" in citation else "char_location")
    return citation


def _openai_annotation(item: Any) -> dict[str, Any]:
    extras = field_of(item, "extras")
    extras = extras if isinstance(extras, Mapping) else {}
    url, title = field_of(item, "url"), field_of(item, "title")
    start, end = field_of(item, "start_index"), field_of(item, "end_index")
    if isinstance(url, str):
        return {"type": "url_citation", "url": url, "title": title, "start_index": start, "end_index": end}
    point = extras.get("index", end)
    return {"type": "file_citation", "filename": title, "file_id": extras.get("file_id"), "index": point}
