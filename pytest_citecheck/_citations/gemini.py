"""Gemini: a ``GenerateContentResponse`` and the grounding metadata of each candidate.

``grounding_metadata.grounding_supports`` tie a ``segment`` of the answer (its ``text`` is the claim)
to ``grounding_chunk_indices`` into ``grounding_chunks``. A chunk is a web page (``web``: ``uri``,
``title``), cited by its URI as a claim-only citation, or a retrieved passage (``retrieved_context``:
``uri``, ``title``, ``text``), whose ``text`` is the quote, looked for in the document its ``title``
(else its ``uri``) names. Both the SDK's snake_case attributes and the REST API's camelCase JSON are
read. The ``google-genai`` package is never imported.

``citation_metadata.citations`` (the REST API's ``citationMetadata.citationSources``) are recitation
citations: a span ``[start_index, end_index)`` of the answer (UTF-8 bytes of the candidate's text) that
the model "directly quotes, at length" (google-genai's ``CitationMetadata``) from the source its ``uri``
(else ``title``) names. The span is the quote, looked for in that document; the claim is the sentences
of the answer that hold it. A recitation citation that names no source, or whose span is not in the
answer, is invalid: it cannot be checked, and is never skipped.
"""

from __future__ import annotations

from typing import Any

from pytest_citecheck._citations.model import MISSING, Citation, field_of
from pytest_citecheck._citations.pages import page_sections, paged_source
from pytest_citecheck._citations.sentences import clean_claim, sentence_spans, uncited_sentences
from pytest_citecheck._errors import CitationInputError
from pytest_citecheck._sources.corpus import Corpus
from pytest_citecheck._sources.source import Source


def _field(raw: Any, snake: str, camel: str) -> Any:
    """The field by either spelling; None when neither is there (the SDK's objects have only the snake_case one)."""
    value = field_of(raw, snake)
    if value is MISSING or value is None:
        value = field_of(raw, camel)
    return None if value is MISSING else value


def is_gemini_response(raw: Any) -> bool:
    """A ``GenerateContentResponse``: ``candidates``, at least one with grounding or citation metadata or content.

    One without grounding cites nothing, and is read as such (its sentences uncited); were it not
    recognised, the SDK's pydantic object would be iterated as a list of citations, field by field."""
    candidates = field_of(raw, "candidates")
    return isinstance(candidates, (list, tuple)) and any(
        _field(candidate, "grounding_metadata", "groundingMetadata") is not None
        or _field(candidate, "citation_metadata", "citationMetadata") is not None
        or field_of(candidate, "content") not in (MISSING, None)
        for candidate in candidates
    )


def gemini_citations(
    raw: Any,
    position: int,
    invalid: dict[str, CitationInputError] | None = None,
    source: Source | Corpus | None = None,
) -> list[Citation]:
    """One citation per (grounding support, chunk) of every candidate, ids ``#<candidate>.<support>.<chunk>``,
    then one per recitation citation (``citation_metadata``), ids ``#<candidate>.c<n>``.

    With ``invalid``, a support or chunk that cannot be read is recorded there by id (a stand-in keeps
    its place) instead of raising, so the answer's other citations are still checked. ``source`` is what
    the citations are checked against: the pages a retrieved chunk names are read as its sections."""
    adapted: list[Citation] = []
    for number, candidate in enumerate(field_of(raw, "candidates")):
        adapted.extend(_grounding_citations(candidate, position + number, invalid, source))
        adapted.extend(_recitations(candidate, position + number, invalid))
    return adapted


def _grounding_citations(
    candidate: Any, position: int, invalid: dict[str, CitationInputError] | None, source: Source | Corpus | None
) -> list[Citation]:
    """A candidate's grounding supports, one citation per (support, chunk), ids ``#<candidate>.<support>.<chunk>``."""
    metadata = _field(candidate, "grounding_metadata", "groundingMetadata")
    if metadata in (MISSING, None):
        return []
    adapted: list[Citation] = []
    chunks = list(_field(metadata, "grounding_chunks", "groundingChunks") or ())
    supports = _field(metadata, "grounding_supports", "groundingSupports") or ()
    for support_number, support in enumerate(supports, start=1):
        support_id = f"#{position}.{support_number}"
        claim = field_of(_field(support, "segment", "segment"), "text")
        if not isinstance(claim, str) or not claim.strip():
            error = CitationInputError("has no text: it cites nothing to judge", citation=support_id, field="segment")
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
                adapted.append(_cited(chunks, index, claim.strip(), f"{support_id}.{index}", source))
            except CitationInputError as error:
                adapted.append(_invalid(error, claim.strip(), invalid))
    return adapted


def _recitation_items(candidate: Any) -> list[Any]:
    """A candidate's recitation citations: ``citation_metadata.citations`` (``citationMetadata.citationSources``)."""
    metadata = _field(candidate, "citation_metadata", "citationMetadata")
    if metadata in (MISSING, None):
        return []
    items = _field(metadata, "citations", "citationSources")
    return list(items) if isinstance(items, (list, tuple)) else []


def _recitations(candidate: Any, position: int, invalid: dict[str, CitationInputError] | None) -> list[Citation]:
    """A candidate's recitation citations, ids ``#<candidate>.c<n>``: the answer's span is a quote of the
    source the citation names, the sentences holding it the claim."""
    text = _candidate_text(candidate)
    adapted: list[Citation] = []
    for number, item in enumerate(_recitation_items(candidate), start=1):
        citation_id = f"#{position}.c{number}"
        try:
            start, end = _recitation_span(text, item, citation_id)
            spans = [(s, e) for s, e in sentence_spans(text) if s < end and start < e] or [(start, end)]
            claim = clean_claim(text[spans[0][0] : spans[-1][1]])
            document = next(
                (
                    value.strip()
                    for name in ("uri", "title")
                    if isinstance(value := field_of(item, name), str) and value.strip()
                ),
                "",
            )
            if not document:
                raise CitationInputError(
                    "is missing (and so is title): the recitation names no source, so the passage it says the "
                    "answer quotes cannot be checked",
                    citation=citation_id,
                    field="uri",
                )
            quote = text[start:end].strip()
            adapted.append(Citation(id=citation_id, claim=claim, quote=quote, section=None, document=document))
        except CitationInputError as error:
            adapted.append(_invalid(error, "", invalid))
    return adapted


def _recitation_span(text: str, item: Any, citation_id: str) -> tuple[int, int]:
    """``[start, end)`` in ``text`` (characters) of a recitation citation's ``start_index`` / ``end_index``
    (UTF-8 bytes of the answer's text; a missing start is 0, as the API leaves a zero out), checked."""
    start = _field(item, "start_index", "startIndex")
    end = _field(item, "end_index", "endIndex")
    start = 0 if start is None else start
    encoded = text.encode("utf-8")
    whole_end = isinstance(end, int) and not isinstance(end, bool)
    whole_start = isinstance(start, int) and not isinstance(start, bool)
    if not whole_end or end > len(encoded):
        raise CitationInputError(
            f"is {end!r}: a recitation citation's span must end at a whole number of UTF-8 bytes within the "
            f"answer's text (1 to {len(encoded)}), or the passage it says the answer quotes is unknown",
            citation=citation_id,
            field="end_index",
        )
    if not whole_start or not 0 <= start < end:
        raise CitationInputError(
            f"is {start!r}: must be a whole number of 0 or more, before end_index {end!r}",
            citation=citation_id,
            field="start_index",
        )
    first = len(encoded[:start].decode("utf-8", errors="ignore"))
    last = len(encoded[:end].decode("utf-8", errors="ignore"))
    if not text[first:last].strip():
        raise CitationInputError(
            f"start_index {start!r} and end_index {end!r} span no words of the answer: it quotes nothing",
            citation=citation_id,
            field="start_index",
        )
    return first, last


def _candidate_text(candidate: Any) -> str:
    """A candidate's answer: its text parts run together, thoughts aside."""
    parts = field_of(field_of(candidate, "content"), "parts")
    return "".join(
        part_text
        for part in (parts if isinstance(parts, (list, tuple)) else ())
        if isinstance(part_text := field_of(part, "text"), str) and field_of(part, "thought") is not True
    )


def _invalid(error: CitationInputError, claim: str, invalid: dict[str, CitationInputError] | None) -> Citation:
    """The stand-in for a citation that cannot be read, its error kept in ``invalid`` (raised without it)."""
    if invalid is None:
        raise error
    citation_id = error.citation or "#?"
    invalid[citation_id] = error
    return Citation(id=citation_id, claim=claim, quote=None, section=None)


def uncited_gemini_text(raw: Any) -> list[str]:
    """The sentences of each candidate's answer (its text parts, thoughts aside) that no grounding
    support's segment or recitation citation's span covers. A segment is found by its ``text`` in the
    answer, else by its ``start_index`` and ``end_index``, which count UTF-8 bytes."""
    uncited: list[str] = []
    for candidate in field_of(raw, "candidates") or ():
        text = _candidate_text(candidate)
        metadata = _field(candidate, "grounding_metadata", "groundingMetadata")
        supports = () if metadata in (MISSING, None) else _field(metadata, "grounding_supports", "groundingSupports")
        covered = [_segment_span(text, _field(support, "segment", "segment")) for support in supports or ()]
        for item in _recitation_items(candidate):
            try:
                covered.append(_recitation_span(text, item, ""))
            except CitationInputError:
                continue  # an unreadable span is the invalid citation's business, not coverage's
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


def _cited(chunks: list[Any], index: Any, claim: str, citation_id: str, source: Source | Corpus | None) -> Citation:
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
    document = _chunk_document(context, quote, citation_id)
    pages = _chunk_pages(context, citation_id)
    sections: tuple[str, ...] = ()
    if pages is not None:
        start, end, field = pages
        paged = source if document is None and isinstance(source, Source) else paged_source(source, document)
        sections = page_sections(start, end, paged, citation_id, field)
    if len(sections) > 1:  # a page span: its pages, the chunk's text looked for there first
        return Citation(
            citation_id, claim, None, None, document=document, sections=sections, quotes=(quote,) if quote else ()
        )
    section = sections[0] if sections else None
    return Citation(id=citation_id, claim=claim, quote=quote, section=section, document=document)


def _chunk_document(context: Any, quote: str | None, citation_id: str) -> str | None:
    """The document a retrieved chunk names: its ``title``, else its ``uri``. A File Search chunk of a file uploaded
    without a display name has neither (only ``file_search_store``, the store, which holds many documents): with its
    text it is a quote naming no document, looked for in every document checked against; without text it names
    nothing to check, and is an error."""
    if quote is None and _field(context, "media_id", "mediaId") not in (None, ""):
        # Multimodal File Search: the chunk is an image (its blob's ``media_id``), not text. Read as a claim-only
        # citation of its document, the claim would be judged against the document's text, not the image it rests on.
        raise CitationInputError(
            "cites an image (a File Search chunk with a media_id and no text), which cannot be checked against text",
            citation=citation_id,
            field="grounding_chunks.retrieved_context.media_id",
        )
    for name in ("title", "uri"):
        value = field_of(context, name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    if quote is not None:
        return None
    raise CitationInputError(
        "names no document (no title or uri) and has no text", citation=citation_id, field="grounding_chunks"
    )


def _chunk_pages(context: Any, citation_id: str) -> tuple[int, int, str] | None:
    """The pages ``[start, end)`` a retrieved chunk names, with the field naming them: File Search's
    ``page_number`` (one page), else Vertex AI RAG's ``rag_chunk.page_span`` (``first_page`` to ``last_page``,
    inclusive); None when it names none."""
    number = _field(context, "page_number", "pageNumber")
    if number is not None:
        if not _whole(number) or number < 1:
            raise CitationInputError(
                f"is {number!r}: a page is a whole number of 1 or more", citation=citation_id, field="page_number"
            )
        return number, number + 1, "page_number"
    span = _field(_field(context, "rag_chunk", "ragChunk"), "page_span", "pageSpan")
    if span is None:
        return None
    first, last = _field(span, "first_page", "firstPage"), _field(span, "last_page", "lastPage")
    if not (_whole(first) and _whole(last) and 1 <= first <= last):
        raise CitationInputError(
            f"first_page {first!r} and last_page {last!r} must be whole numbers with 1 <= first_page <= last_page",
            citation=citation_id,
            field="page_span",
        )
    return first, last + 1, "page_span"


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _name(chunk: Any, fields: tuple[str, ...], citation_id: str) -> str:
    for name in fields:
        value = field_of(chunk, name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    raise CitationInputError(
        f"names no document (no {' or '.join(fields)})", citation=citation_id, field="grounding_chunks"
    )
