"""What a citation is, and turning what the user passed into one.

Users hand us dicts (``{"id", "claim", "quote", "section"}``) or objects with those attributes
(dataclasses, pydantic models, their own classes), or Anthropic Messages API text blocks whose
``citations`` point into a document (one citation per cited passage). Any other shape goes through
the ``pytest_citecheck_adapt_citation`` hook first. ``adapt_citations`` validates every one up
front, so a malformed citation is reported by id and field before any request is sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pytest_citecheck._citations.anthropic import adapt_anthropic_block, is_anthropic_text_block
from pytest_citecheck._citations.model import Citation
from pytest_citecheck._citations.plain import adapt_citation
from pytest_citecheck._errors import CitationInputError

__all__ = ["Citation", "adapt_citation", "adapt_citations"]


def adapt_citations(citations: Any, hooks: Any = None) -> list[Citation]:
    """Validate a list of user citations; ids must be unique so results and recordings can name them.

    ``hooks`` (pytest's hook relay) lets ``pytest_citecheck_adapt_citation`` turn shapes we do not
    know into dicts first.
    """
    if isinstance(citations, (str, bytes, Mapping)) or not isinstance(citations, Iterable):
        raise CitationInputError(
            f"citations must be a list of citations, got {type(citations).__name__}"
            + (" (a single citation? wrap it in a list)" if isinstance(citations, Mapping) else ""),
            field="citations",
        )
    adapted: list[Citation] = []
    for position, raw in enumerate(citations):
        if hooks is not None:
            converted = hooks.pytest_citecheck_adapt_citation(citation=raw, position=position)
            if converted is not None:
                raw = converted
        if is_anthropic_text_block(raw):
            adapted.extend(adapt_anthropic_block(raw, position))
        else:
            adapted.append(adapt_citation(raw, position))
    seen: set[str] = set()
    for citation in adapted:
        if citation.id in seen:
            raise CitationInputError(
                "is used by more than one citation; ids must be unique", citation=citation.id, field="id"
            )
        seen.add(citation.id)
    return adapted
