"""Citations as dicts (``{"id", "claim", "quote", "section"}``, optionally ``"document"``) or objects with those attributes.

``quote`` and ``section`` may each be a list: a claim that needs several sections (or several
quotes) becomes one citation judged against all of them at once (``Citation.sections``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pytest_citecheck._citations.model import MISSING, Citation, field_of
from pytest_citecheck._errors import CitationInputError


def adapt_citation(raw: Any, position: int, *, location: tuple[int, int] | None = None) -> Citation:
    """Validate one user citation (dict or object) and return it as a ``Citation``."""
    if isinstance(raw, Citation):
        return raw
    if isinstance(raw, (str, bytes, int, float)) or raw is None:  # a scalar has no fields to read
        raise CitationInputError(
            f"expected a dict or an object with id, claim, quote and section, got {type(raw).__name__}",
            citation=f"#{position}",
        )
    raw_id = field_of(raw, "id")
    if raw_id is MISSING or raw_id is None:
        citation_id = f"#{position}"
    elif isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool) and str(raw_id).strip():
        citation_id = str(raw_id)
    else:
        raise CitationInputError(
            f"must be a non-empty string or int, got {raw_id!r}", citation=f"#{position}", field="id"
        )

    claim = field_of(raw, "claim")
    if claim is MISSING:
        raise CitationInputError(
            "is missing: every citation needs the claim it supports", citation=citation_id, field="claim"
        )
    if not isinstance(claim, str):
        raise CitationInputError(f"must be a string, got {type(claim).__name__}", citation=citation_id, field="claim")
    if not claim.strip():
        raise CitationInputError("is empty: there is nothing to judge", citation=citation_id, field="claim")

    quote = field_of(raw, "quote")
    if quote is MISSING:
        quote = None
    several_quotes = listed(quote, citation_id, "quote")
    if several_quotes is not None:
        quote = several_quotes[0] if len(several_quotes) == 1 else None
    if quote is not None:
        if not isinstance(quote, str):
            raise CitationInputError(
                f"must be a string, or None for a claim-only citation; got {type(quote).__name__}",
                citation=citation_id,
                field="quote",
            )
        if not quote.strip():
            raise CitationInputError(
                "is empty or whitespace: give the quoted text, or None for a claim-only citation",
                citation=citation_id,
                field="quote",
            )

    section = field_of(raw, "section")
    if section is MISSING:
        section = None
    several_sections = listed(section, citation_id, "section")
    if several_sections is not None:
        section = several_sections[0] if len(several_sections) == 1 else None
    if section is not None:
        if isinstance(section, (int, float)) and not isinstance(section, bool):
            section = str(section)
        if not isinstance(section, str) or not section.strip():
            raise CitationInputError(
                f"must be a section id string, got {section!r}", citation=citation_id, field="section"
            )
        section = section.strip()
    document = field_of(raw, "document")
    if document is MISSING:
        document = None
    if document is not None:
        # Which documents exist is known only with the corpus: ``_check.locating`` checks that.
        if not isinstance(document, str) or not document.strip():
            raise CitationInputError(
                f"must be a document id string, got {document!r}", citation=citation_id, field="document"
            )
    if (several_quotes is not None and len(several_quotes) > 1) or (
        several_sections is not None and len(several_sections) > 1
    ):
        return dataclasses.replace(
            assembly_citation(citation_id, claim, several_quotes or quote, several_sections or section),
            document=document,
        )
    if quote is None and section is None and document is None:
        raise CitationInputError(
            "is missing: a citation without a quote must name the section (or the document) it rests on",
            citation=citation_id,
            field="section",
        )
    return Citation(id=citation_id, claim=claim, quote=quote, section=section, location=location, document=document)


def listed(value: Any, citation_id: str, field: str) -> tuple[Any, ...] | None:
    """The items of a ``quote`` or ``section`` given as a list (several of them), or None for a single value."""
    if not isinstance(value, (list, tuple)):
        return None
    if not value:
        raise CitationInputError(
            f"is an empty list: give one {field} or several, or leave it out", citation=citation_id, field=field
        )
    return tuple(value)


def assembly_citation(citation_id: str, claim: str, quotes: Any, sections: Any) -> Citation:
    """A citation that names several sections or gives several quotes: judged against all of them at once."""

    def items(value: Any) -> tuple[Any, ...]:
        if value is None:
            return ()
        return value if isinstance(value, tuple) else (value,)

    checked_quotes = []
    for number, quote in enumerate(items(quotes), start=1):
        if not isinstance(quote, str) or not quote.strip():
            raise CitationInputError(
                f"item {number} must be a non-empty string (the quoted text), got {quote!r}",
                citation=citation_id,
                field="quote",
            )
        if quote in checked_quotes:
            raise CitationInputError(f"gives the quote {quote!r} twice", citation=citation_id, field="quote")
        checked_quotes.append(quote)
    checked_sections = []
    for number, section in enumerate(items(sections), start=1):
        if isinstance(section, (int, float)) and not isinstance(section, bool):
            section = str(section)
        if not isinstance(section, str) or not section.strip():
            raise CitationInputError(
                f"item {number} must be a section id string, got {section!r}", citation=citation_id, field="section"
            )
        section = section.strip()
        if section in checked_sections:
            raise CitationInputError(f"names section {section!r} twice", citation=citation_id, field="section")
        checked_sections.append(section)
    return Citation(
        id=citation_id,
        claim=claim,
        quote=None,
        section=None,
        sections=tuple(checked_sections),
        quotes=tuple(checked_quotes),
    )
