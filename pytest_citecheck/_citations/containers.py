"""Whole answers split into the parts that cite: an Anthropic ``Message``, an OpenAI ``Response``.

A test may pass the SDK's whole response object (or a dict shaped like it) where citations are
expected. An Anthropic ``Message`` (``type == "message"``) holds content blocks, and its ``text``
blocks carry the citations. An OpenAI ``Response`` (``object == "response"``) holds output items, and
its ``message`` items hold ``output_text`` parts with annotations. Other blocks and items (thinking,
tool use, a file search call, a refusal) cite nothing and are left out. Neither SDK is imported.
"""

from __future__ import annotations

from typing import Any

from pytest_citecheck._citations.anthropic import fetched_pages_cited
from pytest_citecheck._citations.model import field_of

CITING_PARTS = frozenset({"text", "output_text"})


def is_answer(raw: Any) -> bool:
    """A whole Anthropic ``Message``, OpenAI ``Response`` or OpenAI output message."""
    if field_of(raw, "object") == "response" and isinstance(field_of(raw, "output"), (list, tuple)):
        return True
    return field_of(raw, "type") == "message" and isinstance(field_of(raw, "content"), (list, tuple))


def citing_parts(raw: Any) -> list[Any]:
    """The parts of a whole answer that may carry citations, in order."""
    if field_of(raw, "object") == "response":
        parts = []
        for item in field_of(raw, "output"):
            if is_answer(item):
                parts.extend(citing_parts(item))
        return parts
    # A Claude citation of a page its web fetch tool fetched is read by the page's URL, which only the tool's
    # result block (left out below) names.
    content = fetched_pages_cited(list(field_of(raw, "content")))
    return [part for part in content if field_of(part, "type") in CITING_PARTS]
