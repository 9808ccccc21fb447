"""Gemini: a ``GenerateContentResponse`` and the grounding metadata of each candidate.

``grounding_metadata.grounding_supports`` tie a ``segment`` of the answer (its ``text`` is the claim)
to ``grounding_chunk_indices`` into ``grounding_chunks``. A chunk is a web page (``web``: ``uri``,
``title``), cited by its URI as a claim-only citation, or a retrieved passage (``retrieved_context``:
``uri``, ``title``, ``text``), whose ``text`` is the quote, looked for in the document its ``title``
(else its ``uri``) names. Both the SDK's snake_case attributes and the REST API's camelCase JSON are
read. The ``google-genai`` package is never imported.
"""

from __future__ import annotations

from typing import Any

from pytest_citecheck._citations.model import MISSING, Citation, field_of
from pytest_citecheck._citations.sentences import uncited_sentences
from pytest_citecheck._errors import CitationInputError


def _field(raw: Any, snake: str, camel: str) -> Any:
    """The field by either spelling; None when neither is there (the SDK's objects have only the snake_case one)."""
    value = field_of(raw, snake)
    if value is MISSING or value is None:
        value = field_of(raw, camel)
    return None if value is MISSING else value


def is_gemini_response(raw: Any) -> bool:
    """A ``GenerateContentResponse``: ``candidates``, at least one with grounding metadata or content.

    One without grounding cites nothing, and is read as such (its sentences uncited); were it not
    recognised, the SDK's pydantic object would be iterated as a list of citations, field by field."""
    candidates = field_of(raw, "candidates")
    return isinstance(candidates, (list, tuple)) and any(
        _field(candidate, "grounding_metadata", "groundingMetadata") is not None
        or field_of(candidate, "content") not in (MISSING, None)
        for candidate in candidates
    )


def gemini_citations(raw: Any, position: int, invalid: dict[str, CitationInputError] | None = None) -> list[Citation]:
    """One citation per (grounding support, chunk) of every candidate, ids ``#<candidate>.<support>.<chunk>``.

    With ``invalid``, a support or chunk that cannot be read is recorded there by id (a stand-in keeps
    its place) instead of raising, so the answer's other citations are still checked."""
    adapted: list[Citation] = []
    for number, candidate in enumerate(field_of(raw, "candidates")):
        metadata = _field(candidate, "grounding_metadata", "groundingMetadata")
        if metadata in (MISSING, None):
            continue
        chunks = list(_field(metadata, "grounding_chunks", "groundingChunks") or ())
        supports = _field(metadata, "grounding_supports", "groundingSupports") or ()
        for support_number, support in enumerate(supports, start=1):
            support_id = f"#{position + number}.{support_number}"
            claim = field_of(_field(support, "segment", "segment"), "text")
            if not isinstance(claim, str) or not claim.strip():
                error = CitationInputError(
                    "has no text: it cites nothing to judge", citation=support_id, field="segment"
                )
                adapted.append(_invalid(error, "", invalid))
                continue
            indices = _field(support, "grounding_chunk_indices", "groundingChunkIndices") or ()
            if not indices:  # a support that names no chunk cites nothing: never a silent pass
                error = CitationInputError(
                    "names no grounding chunk: the segment cites nothing to judge it against",
                    citation=support_id,
                    field="grounding_chunk_indices",
                )
                adapted.append(_invalid(error, claim.strip(), invalid))
                continue
            for index in indices:
                try:
                    adapted.append(_cited(chunks, index, claim.strip(), f"{support_id}.{index}"))
                except CitationInputError as error:
                    adapted.append(_invalid(error, claim.strip(), invalid))
    return adapted


def _invalid(error: CitationInputError, claim: str, invalid: dict[str, CitationInputError] | None) -> Citation:
    """The stand-in for a citation that cannot be read, its error kept in ``invalid`` (raised without it)."""
    if invalid is None:
        raise error
    citation_id = error.citation or "#?"
    invalid[citation_id] = error
    return Citation(id=citation_id, claim=claim, quote=None, section=None)


def uncited_gemini_text(raw: Any) -> list[str]:
    """The sentences of each candidate's answer (its text parts, thoughts aside) that no grounding
    support's segment covers. A segment is found by its ``text`` in the answer, else by its
    ``start_index`` and ``end_index``, which count UTF-8 bytes."""
    uncited: list[str] = []
    for candidate in field_of(raw, "candidates") or ():
        parts = field_of(field_of(candidate, "content"), "parts")
        text = "".join(
            part_text
            for part in (parts if isinstance(parts, (list, tuple)) else ())
            if isinstance(part_text := field_of(part, "text"), str) and field_of(part, "thought") is not True
        )
        metadata = _field(candidate, "grounding_metadata", "groundingMetadata")
        supports = () if metadata in (MISSING, None) else _field(metadata, "grounding_supports", "groundingSupports")
        covered = [_segment_span(text, _field(support, "segment", "segment")) for support in supports or ()]
        uncited.extend(uncited_sentences(text, [span for span in covered if span is not None]))
    return uncited


def _segment_span(text: str, segment: Any) -> tuple[int, int] | None:
    """Where a grounding segment is in the answer's text: its ``text`` found there, else its byte offsets."""
    said = field_of(segment, "text")
    at = text.find(said) if isinstance(said, str) and said.strip() else -1
    if at >= 0:
        return at, at + len(said)
    start = _field(segment, "start_index", "startIndex")
    end = _field(segment, "end_index", "endIndex")
    start = 0 if start in (MISSING, None) else start
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end):
        return None
    encoded = text.encode("utf-8")
    return (
        len(encoded[:start].decode("utf-8", errors="ignore")),
        len(encoded[:end].decode("utf-8", errors="ignore")),
    )


def _cited(chunks: list[Any], index: Any, claim: str, citation_id: str) -> Citation:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(chunks):
        raise CitationInputError(
            f"grounding chunk index {index!r} is not one of the {len(chunks)} grounding chunks",
            citation=citation_id,
            field="grounding_chunk_indices",
        )
    chunk = chunks[index]
    web = field_of(chunk, "web")
    if web not in (MISSING, None):
        return Citation(
            id=citation_id, claim=claim, quote=None, section=None, document=_name(web, ("uri", "title"), citation_id)
        )
    context = _field(chunk, "retrieved_context", "retrievedContext")
    if context in (MISSING, None):
        raise CitationInputError(
            "is neither a web page nor a retrieved passage", citation=citation_id, field="grounding_chunks"
        )
    text = field_of(context, "text")
    quote = text.strip() if isinstance(text, str) and text.strip() else None
    document = _name(context, ("title", "uri"), citation_id)
    return Citation(id=citation_id, claim=claim, quote=quote, section=None, document=document)


def _name(chunk: Any, fields: tuple[str, ...], citation_id: str) -> str:
    for name in fields:
        value = field_of(chunk, name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    raise CitationInputError(
        f"names no document (no {' or '.join(fields)})", citation=citation_id, field="grounding_chunks"
    )
