"""What a citation is, and turning what the user passed into one.

Users hand us dicts (``{"id", "claim", "quote", "section"}``) or objects with those attributes
(dataclasses, pydantic models, their own classes). ``adapt_citations`` validates every one up front,
so a malformed citation is reported by id and field before any request is sent.
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
    """

    id: str
    claim: str
    quote: str | None
    section: str | None


def _field(raw: Any, name: str) -> Any:
    if isinstance(raw, Mapping):
        return raw.get(name, _MISSING)
    return getattr(raw, name, _MISSING)


def adapt_citation(raw: Any, position: int) -> Citation:
    """Validate one user citation (dict or object) and return it as a ``Citation``."""
    if isinstance(raw, Citation):
        return raw
    if isinstance(raw, (str, bytes)) or raw is None:
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
    return Citation(id=citation_id, claim=claim, quote=quote, section=section)


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
    adapted = []
    for position, raw in enumerate(citations):
        if hooks is not None:
            converted = hooks.pytest_citecheck_adapt_citation(citation=raw, position=position)
            if converted is not None:
                raw = converted
        adapted.append(adapt_citation(raw, position))
    seen: set[str] = set()
    for citation in adapted:
        if citation.id in seen:
            raise CitationInputError("is used by more than one citation; ids must be unique", citation=citation.id, field="id")
        seen.add(citation.id)
    return adapted
