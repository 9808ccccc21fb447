"""Anthropic Messages API text blocks: one citation per cited passage (``cited_text`` is the quote)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pytest_citecheck._citations.model import MISSING, Citation, field_of
from pytest_citecheck._citations.plain import adapt_citation
from pytest_citecheck._errors import CitationInputError


def is_anthropic_text_block(raw: Any) -> bool:
    """An Anthropic Messages API text content block (a dict, or the SDK's ``TextBlock``)."""
    return (
        field_of(raw, "type") == "text" and field_of(raw, "text") is not MISSING and field_of(raw, "claim") is MISSING
    )


def adapt_anthropic_block(raw: Any, position: int) -> list[Citation]:
    """One citation per cited passage of a text block: the block's text is the claim, ``cited_text`` the quote."""
    block_id = f"#{position}"
    claim = field_of(raw, "text")
    if not isinstance(claim, str):
        raise CitationInputError(f"must be a string, got {type(claim).__name__}", citation=block_id, field="text")
    cited = field_of(raw, "citations")
    if cited is None or cited is MISSING:
        return []  # text the model did not cite: nothing to check
    if isinstance(cited, (str, bytes, Mapping)) or not isinstance(cited, Iterable):
        raise CitationInputError(
            f"must be a list of citations, got {type(cited).__name__}", citation=block_id, field="citations"
        )
    adapted = []
    for number, item in enumerate(cited, start=1):
        citation_id = f"#{position}.{number}"
        quote = field_of(item, "cited_text")
        if quote is MISSING:
            raise CitationInputError(
                "is missing: an Anthropic citation carries the passage it cites",
                citation=citation_id,
                field="cited_text",
            )
        if not isinstance(quote, str):
            raise CitationInputError(
                f"must be a string, got {type(quote).__name__}", citation=citation_id, field="cited_text"
            )
        location = None
        start, end = field_of(item, "start_char_index"), field_of(item, "end_char_index")
        if start is not MISSING or end is not MISSING:
            if (
                not (isinstance(start, int) and isinstance(end, int))
                or isinstance(start, bool)
                or not 0 <= start <= end
            ):
                raise CitationInputError(
                    f"start_char_index {start!r} and end_char_index {end!r} must be whole numbers with 0 <= start <= end",
                    citation=citation_id,
                    field="start_char_index",
                )
            location = (start, end)
        adapted.append(adapt_citation({"id": citation_id, "claim": claim, "quote": quote}, position, location=location))
    return adapted
