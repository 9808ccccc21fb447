"""What a citation is, and turning what the user passed into one.

Users hand us dicts (``{"id", "claim", "quote", "section"}``) or objects with those attributes
(dataclasses, pydantic models, their own classes), or Anthropic Messages API text blocks whose
``citations`` point into a document (one citation per cited passage). Any other shape goes through
the ``pytest_citecheck_adapt_citation`` hook first. ``adapt_citations`` validates every one up
front, so a malformed citation is reported by id and field before any request is sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import CitationInputError

_MISSING = object()


@dataclass(frozen=True)
class Citation:
    """One claim and the evidence the LLM gave for it.

    ``quote`` is None for a claim-only citation, which is judged against the ``section`` it names.
    ``location`` is ``[start, end)`` in the source's text when the citation says where its passage
    is (an Anthropic ``char_location``); the quote is then looked for in that section first.
    """

    id: str
    claim: str
    quote: str | None
    section: str | None
    location: tuple[int, int] | None = None


def _field(raw: Any, name: str) -> Any:
    if isinstance(raw, Mapping):
        return raw.get(name, _MISSING)
    return getattr(raw, name, _MISSING)


def is_anthropic_text_block(raw: Any) -> bool:
    """An Anthropic Messages API text content block (a dict, or the SDK's ``TextBlock``)."""
    return _field(raw, "type") == "text" and _field(raw, "text") is not _MISSING and _field(raw, "claim") is _MISSING


def adapt_anthropic_block(raw: Any, position: int) -> list[Citation]:
    """One citation per cited passage of a text block: the block's text is the claim, ``cited_text`` the quote."""
    block_id = f"#{position}"
    claim = _field(raw, "text")
    if not isinstance(claim, str):
        raise CitationInputError(f"must be a string, got {type(claim).__name__}", citation=block_id, field="text")
    cited = _field(raw, "citations")
    if cited is None or cited is _MISSING:
        return []  # text the model did not cite: nothing to check
    if isinstance(cited, (str, bytes, Mapping)) or not isinstance(cited, Iterable):
        raise CitationInputError(f"must be a list of citations, got {type(cited).__name__}", citation=block_id, field="citations")
    adapted = []
    for number, item in enumerate(cited, start=1):
        citation_id = f"#{position}.{number}"
        quote = _field(item, "cited_text")
        if quote is _MISSING:
            raise CitationInputError("is missing: an Anthropic citation carries the passage it cites", citation=citation_id, field="cited_text")
        if not isinstance(quote, str):
            raise CitationInputError(f"must be a string, got {type(quote).__name__}", citation=citation_id, field="cited_text")
        location = None
        start, end = _field(item, "start_char_index"), _field(item, "end_char_index")
        if start is not _MISSING or end is not _MISSING:
            if not (isinstance(start, int) and isinstance(end, int)) or isinstance(start, bool) or not 0 <= start <= end:
                raise CitationInputError(
                    f"start_char_index {start!r} and end_char_index {end!r} must be whole numbers with 0 <= start <= end",
                    citation=citation_id, field="start_char_index",
                )
            location = (start, end)
        adapted.append(adapt_citation({"id": citation_id, "claim": claim, "quote": quote}, position, location=location))
    return adapted


def adapt_citation(raw: Any, position: int, *, location: tuple[int, int] | None = None) -> Citation:
    """Validate one user citation (dict or object) and return it as a ``Citation``."""
    if isinstance(raw, Citation):
        return raw
    if isinstance(raw, (str, bytes, int, float)) or raw is None:  # a scalar has no fields to read
        raise CitationInputError(
            f"expected a dict or an object with id, claim, quote and section, got {type(raw).__name__}",
            citation=f"#{position}",
        )
    raw_id = _field(raw, "id")
    if raw_id is _MISSING or raw_id is None:
        citation_id = f"#{position}"
    elif isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool) and str(raw_id).strip():
        citation_id = str(raw_id)
    else:
        raise CitationInputError(f"must be a non-empty string or int, got {raw_id!r}", citation=f"#{position}", field="id")

    claim = _field(raw, "claim")
    if claim is _MISSING:
        raise CitationInputError("is missing: every citation needs the claim it supports", citation=citation_id, field="claim")
    if not isinstance(claim, str):
        raise CitationInputError(f"must be a string, got {type(claim).__name__}", citation=citation_id, field="claim")
    if not claim.strip():
        raise CitationInputError("is empty: there is nothing to judge", citation=citation_id, field="claim")

    quote = _field(raw, "quote")
    if quote is _MISSING:
        quote = None
    if quote is not None:
        if not isinstance(quote, str):
            raise CitationInputError(
                f"must be a string, or None for a claim-only citation; got {type(quote).__name__}", citation=citation_id, field="quote"
            )
        if not quote.strip():
            raise CitationInputError(
                "is empty or whitespace: give the quoted text, or None for a claim-only citation", citation=citation_id, field="quote"
            )

    section = _field(raw, "section")
    if section is _MISSING:
        section = None
    if section is not None:
        if isinstance(section, (int, float)) and not isinstance(section, bool):
            section = str(section)
        if not isinstance(section, str) or not section.strip():
            raise CitationInputError(f"must be a section id string, got {section!r}", citation=citation_id, field="section")
        section = section.strip()
    if quote is None and section is None:
        raise CitationInputError(
            "is missing: a citation without a quote must name the section it rests on", citation=citation_id, field="section"
        )
    return Citation(id=citation_id, claim=claim, quote=quote, section=section, location=location)


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
            raise CitationInputError("is used by more than one citation; ids must be unique", citation=citation.id, field="id")
        seen.add(citation.id)
    return adapted
