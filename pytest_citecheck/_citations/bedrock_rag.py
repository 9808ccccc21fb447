"""Amazon Bedrock Knowledge Bases answers: boto3 ``bedrock-agent-runtime`` ``retrieve_and_generate()``.

The response (botocore's ``RetrieveAndGenerateResponse``, model 2023-07-26) is a dict: ``output.text`` the
answer, ``citations`` a list of ``Citation``s, each a ``generatedResponsePart.textResponsePart`` (``text``,
and its ``span`` ``{start, end}`` in ``output.text``) and the ``retrievedReferences`` it rests on: each a
retrieved chunk, ``content.text`` its text (``content.type`` ``TEXT``; an image, table row, audio or video
cannot be located), ``location`` where it came from (``type`` and one of ``s3Location.uri``,
``webLocation.url``, ``confluenceLocation.url``, ... ``customDocumentLocation.id``) and ``metadata``.

Each retrieved reference of a citation is one citation (``#<position>.<citation>.<reference>``, from 1): the
claim is the answer's text its span marks, the quote the chunk's text, looked for in the document its
location names (the corpus key: the S3 URI, the URL). A PDF's chunk names its page in the reference's metadata,
``x-amz-bedrock-kb-document-page-number``: a page INDEX from 0 (recorded answers: ``16.0`` for a chunk ending in
the printed page number 17), read as physical page ``index + 1`` of a paged document (``_citations/pages.py``:
found on another page, the quote is ``found-elsewhere``). A recorded answer shows the span's ``end`` inclusive
(``{start 0, end 222}`` for a 223-character part, the next part starting at 224): the claim is
``output.text[start:end + 1]``, which must be the part's ``text`` when it has one (an exclusive ``end`` is
taken too when only that reading gives the text). A citation with no retrieved reference cites nothing (its
text is uncited, for ``require_cited_sentences``). Fails closed: a part whose span and text disagree, a
reference without text or of another content type, a page index that is no whole number of 0 or more, is one
invalid citation named by its path
(``citations[1].retrievedReferences[0].content.type``); the others are still read. A
``retrieve_and_generate_stream()`` response, or a list of its events, is refused whole with the remedy: its events
(``output`` pieces, ``citation``s, ``guardrail``) end with none saying the answer is complete, so a stream cut
short could not be told from a whole one. boto3 is not imported.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pytest_citecheck._citations.model import MISSING, Citation, field_of
from pytest_citecheck._citations.pages import page_sections, paged_source
from pytest_citecheck._citations.sentences import uncited_sentences
from pytest_citecheck._errors import CitationInputError
from pytest_citecheck._sources.corpus import Corpus
from pytest_citecheck._sources.source import Source

# Each member of ``RetrievalResultLocation`` and the field naming its document (botocore 1.44's model).
_LOCATION_NAMES = {
    "s3Location": "uri",
    "webLocation": "url",
    "confluenceLocation": "url",
    "salesforceLocation": "url",
    "sharePointLocation": "url",
    "oneDriveLocation": "url",
    "googleDriveLocation": "url",
    "kendraDocumentLocation": "uri",
    "customDocumentLocation": "id",
}
# What Knowledge Bases writes in a reference's metadata when the location names no document.
_SOURCE_URI = "x-amz-bedrock-kb-source-uri"
# The page of a PDF's chunk, from 0 (Knowledge Bases writes it for PDFs when the chunks are not "no chunking").
_PAGE_INDEX = "x-amz-bedrock-kb-document-page-number"
# The events of ``RetrieveAndGenerateStreamResponseOutput`` (botocore 1.44's model): none ends the answer.
_STREAM_EVENTS = frozenset({"output", "citation", "guardrail"})


def is_bedrock_rag(raw: Any) -> bool:
    """A ``retrieve_and_generate()`` response: ``output.text`` and its ``citations`` (or its ``sessionId``)."""
    if not isinstance(raw, Mapping):
        return False
    output = raw.get("output")
    return (
        isinstance(output, Mapping)
        and isinstance(output.get("text"), str)
        and "message" not in output
        and ("citations" in raw or "sessionId" in raw)
    )


def refuse_rag_stream(raw: Any) -> None:
    """Refuse a ``retrieve_and_generate_stream()`` response, or a list of its events, whole, with the remedy."""
    if isinstance(raw, Mapping) and "stream" in raw and ("sessionId" in raw or "ResponseMetadata" in raw):
        got = "a retrieve_and_generate_stream() response"
    elif isinstance(raw, (list, tuple)) and raw and all(_stream_event(item) for item in raw):
        got = f"{len(raw)} retrieve_and_generate_stream() events"
    else:
        return
    raise CitationInputError(
        f"got {got}, which is not read: its events end with none saying the answer is complete, so a stream cut "
        "short cannot be told from a whole one; check the response of retrieve_and_generate() (the same request, "
        "not streamed)",
        field="citations",
    )


def _stream_event(item: Any) -> bool:
    return isinstance(item, Mapping) and len(item) == 1 and next(iter(item)) in _STREAM_EVENTS


def bedrock_rag_citations(
    raw: Mapping[str, Any],
    position: int,
    invalid: dict[str, CitationInputError],
    source: Source | Corpus | None = None,
) -> tuple[list[Citation], list[str]]:
    """One citation per retrieved reference of each citation, and the answer's sentences no span covers.
    ``source`` is what they are checked against: the page a reference names is read as its section."""
    text = raw["output"]["text"]
    cited = raw.get("citations")
    if cited is None:
        return [], uncited_sentences(text, [])
    if not isinstance(cited, (list, tuple)):
        raise CitationInputError(
            f"must be a list of citations, got {type(cited).__name__}", citation=f"#{position}", field="citations"
        )
    adapted: list[Citation] = []
    covered: list[tuple[int, int]] = []
    for number, item in enumerate(cited, start=1):
        path = f"citations[{number - 1}]"
        references = field_of(item, "retrievedReferences")
        if references is MISSING or references is None:
            references = []
        try:
            if not isinstance(references, (list, tuple)):
                raise CitationInputError(
                    f"must be a list of retrieved references, got {type(references).__name__}",
                    field=f"{path}.retrievedReferences",
                )
            claim, span = _claim(text, item, path)
        except CitationInputError as error:
            citation_id = f"#{position}.{number}"
            invalid[citation_id] = CitationInputError(error.message, citation=citation_id, field=error.field)
            adapted.append(Citation(id=citation_id, claim="", quote=None, section=None))
            continue
        if references:
            covered.append(span)
        for index, reference in enumerate(references, start=1):
            citation_id = f"#{position}.{number}.{index}"
            try:
                where = f"{path}.retrievedReferences[{index - 1}]"
                adapted.append(_reference(reference, citation_id, claim, where, source))
            except CitationInputError as error:
                invalid[citation_id] = CitationInputError(error.message, citation=citation_id, field=error.field)
                adapted.append(Citation(id=citation_id, claim=claim, quote=None, section=None))
    return adapted, uncited_sentences(text, covered)


def _claim(text: str, item: Any, path: str) -> tuple[str, tuple[int, int]]:
    """The answer's text a citation's span marks, and ``[start, end)`` of it, checked against the part's text."""
    part = field_of(field_of(item, "generatedResponsePart"), "textResponsePart")
    path = f"{path}.generatedResponsePart.textResponsePart"
    said, span = field_of(part, "text"), field_of(part, "span")
    if said is not MISSING and said is not None and not isinstance(said, str):
        raise CitationInputError(f"must be a string, got {type(said).__name__}", field=f"{path}.text")
    if span is MISSING or span is None:
        if isinstance(said, str) and said.strip() and text.count(said) == 1:
            start = text.index(said)
            return said, (start, start + len(said))
        raise CitationInputError(
            "is missing, and the part's text is not found once in output.text: the claim it marks is unknown",
            field=f"{path}.span",
        )
    return _spanned(text, span, said, path)


def _spanned(text: str, span: Any, said: Any, path: str) -> tuple[str, tuple[int, int]]:
    """The answer's text a ``span`` marks, its ``end`` read inclusive (else exclusive, when only that gives ``said``)."""
    start, end = field_of(span, "start"), field_of(span, "end")
    whole = all(isinstance(value, int) and not isinstance(value, bool) for value in (start, end))
    if not whole or not 0 <= start <= end <= len(text):
        raise CitationInputError(
            f"start {start!r} and end {end!r} must be whole numbers with 0 <= start <= end <= {len(text)}, the "
            "length of output.text",
            field=f"{path}.span",
        )
    for stop in (end + 1, end):  # ``end`` is inclusive in recorded answers; exclusive only when the text says so
        if stop <= len(text) and (not isinstance(said, str) or text[start:stop] == said) and text[start:stop].strip():
            return text[start:stop], (start, stop)
    raise CitationInputError(
        f"marks {text[start : end + 1]!r} of output.text, but the part's text is {said!r}: the claim is unknown",
        field=f"{path}.span",
    )


def _reference(reference: Any, citation_id: str, claim: str, path: str, source: Source | Corpus | None) -> Citation:
    """One retrieved reference as a citation of its chunk's text, in the document (and page) it names."""
    if not isinstance(reference, Mapping):
        raise CitationInputError(f"must be an object, got {type(reference).__name__}", field=path)
    content = reference.get("content")
    kind = field_of(content, "type")
    if kind not in (MISSING, None, "TEXT"):
        raise CitationInputError(
            f"is {kind!r}: only a TEXT chunk can be located in the source", field=f"{path}.content.type"
        )
    quote = field_of(content, "text")
    if not isinstance(quote, str) or not quote.strip():
        got = "nothing" if quote is MISSING or quote is None else repr(quote)[:40]
        raise CitationInputError(f"must be the retrieved chunk's text, got {got}", field=f"{path}.content.text")
    metadata = reference.get("metadata")
    if metadata is not None and not isinstance(metadata, Mapping):
        raise CitationInputError(f"must be an object, got {type(metadata).__name__}", field=f"{path}.metadata")
    document = _document(reference, path)
    page = _page(metadata or {}, path)
    sections: tuple[str, ...] = ()
    if page is not None:
        field = f"{path}.metadata.{_PAGE_INDEX}"
        sections = page_sections(page, page + 1, paged_source(source, document), citation_id, field)
    section = sections[0] if sections else None
    return Citation(id=citation_id, claim=claim, quote=quote, section=section, document=document)


def _page(metadata: Mapping[str, Any], path: str) -> int | None:
    """The physical page (from 1) a reference's page index (from 0) names, or None when it names none."""
    index = metadata.get(_PAGE_INDEX)
    if index is None:
        return None
    # A JSON number: ``16.0`` as recorded, or ``16``; a bool, text or fraction is no page.
    whole = isinstance(index, int) or (isinstance(index, float) and math.isfinite(index) and index.is_integer())
    if isinstance(index, bool) or not whole or index < 0:
        raise CitationInputError(
            f"is {index!r}: the page index Knowledge Bases writes is a whole number of 0 or more (the first page is 0)",
            field=f"{path}.metadata.{_PAGE_INDEX}",
        )
    return int(index) + 1


def _document(reference: Mapping[str, Any], path: str) -> str | None:
    """The document a reference's location names (the metadata's source URI when the location names none)."""
    location = reference.get("location")
    if location is not None and not isinstance(location, Mapping):
        raise CitationInputError(f"must be an object, got {type(location).__name__}", field=f"{path}.location")
    for member, name in _LOCATION_NAMES.items():
        value = field_of(field_of(location or {}, member), name)
        if value is MISSING or value is None:
            continue
        if not isinstance(value, str) or not value.strip():
            raise CitationInputError(f"must name the document, got {value!r}", field=f"{path}.location.{member}.{name}")
        return value
    named = (reference.get("metadata") or {}).get(_SOURCE_URI)
    return named if isinstance(named, str) and named.strip() else None
