"""Cohere chat: the v2 ``V2ChatResponse`` and the v1 response dict, citations against the cited documents.

A Cohere citation marks a span of the answer (``start``, ``end``, ``text``: often a few words, such as
"Emperor penguins") and names the documents it rests on: v2 ``sources`` (``DocumentSource`` with the
document's ``id``; a ``ToolSource`` cites a tool's output, not a document, and is skipped), v1
``document_ids``. The claim is the sentence of the answer that holds the span (the sentences, when it
runs over several); each cited document makes one claim-only citation, judged against that document.
Documents are named by the ids the request gave them (Cohere names them ``doc:0``, ``doc:1``… when it
gave none): key the ``Corpus`` by those. The ``cohere`` package is never imported.
"""

from __future__ import annotations

from typing import Any

from pytest_citecheck._citations.model import MISSING, Citation, field_of
from pytest_citecheck._citations.sentences import clean_claim, sentence_spans, uncited_sentences
from pytest_citecheck._errors import CitationInputError


def is_cohere_response(raw: Any) -> bool:
    """A v2 ``V2ChatResponse`` (its ``message`` has ``citations``) or a v1 response (``text``, ``citations``)."""
    message = field_of(raw, "message")
    if (
        message is not MISSING
        and field_of(message, "citations") is not MISSING
        and field_of(raw, "finish_reason") is not MISSING
    ):
        return True
    cited = field_of(raw, "citations")
    # A v1 answer that cites nothing has ``citations=None``; ``generation_id`` says it is one.
    uncited_v1 = cited is None and field_of(raw, "generation_id") is not MISSING
    return (
        isinstance(field_of(raw, "text"), str)
        and (isinstance(cited, (list, tuple)) or uncited_v1)
        and field_of(raw, "type") is MISSING
        and all(field_of(item, "document_ids") is not MISSING for item in cited or ())
    )


def cohere_citations(raw: Any, position: int, invalid: dict[str, CitationInputError] | None = None) -> list[Citation]:
    """One claim-only citation per (sentence, cited document) of the answer, ids ``#<position>.<citation>.<source>``.

    With ``invalid``, a citation that cannot be read is recorded there by id (a stand-in keeps its
    place) instead of raising, so the answer's other citations are still checked."""
    message = field_of(raw, "message")
    v2 = message is not MISSING and field_of(raw, "text") is MISSING
    text = _v2_text(message) if v2 else field_of(raw, "text")
    adapted: list[Citation] = []
    seen: set[tuple[str, str]] = set()
    for number, item in enumerate(field_of(message if v2 else raw, "citations") or (), start=1):
        citation_id = f"#{position}.{number}"
        try:
            claim = _claim(text, item, citation_id)
            documents = _documents(item, v2, citation_id)
        except CitationInputError as error:
            if invalid is None:
                raise
            invalid[citation_id] = error
            adapted.append(Citation(id=citation_id, claim=str(text), quote=None, section=None))
            continue
        for k, document in enumerate(documents, start=1):
            if (claim, document) not in seen:  # several spans of one sentence citing one document: one citation
                seen.add((claim, document))
                adapted.append(
                    Citation(id=f"{citation_id}.{k}", claim=claim, quote=None, section=None, document=document)
                )
    return adapted


def uncited_cohere_text(raw: Any) -> list[str]:
    """The sentences of the answer's text that no citation's span touches (a span citing only a tool's
    output still covers its sentence: it is cited, though not against a document)."""
    message = field_of(raw, "message")
    v2 = message is not MISSING and field_of(raw, "text") is MISSING
    text = _v2_text(message) if v2 else field_of(raw, "text")
    if not isinstance(text, str):
        return []
    covered = []
    for item in field_of(message if v2 else raw, "citations") or ():
        start, end = field_of(item, "start"), field_of(item, "end")
        if isinstance(start, int) and isinstance(end, int):
            covered.append((start, end))
    return uncited_sentences(text, covered)


def _v2_text(message: Any) -> str:
    content = field_of(message, "content")
    return "".join(field_of(item, "text") for item in content or () if isinstance(field_of(item, "text"), str))


def _claim(text: str, item: Any, citation_id: str) -> str:
    start, end = field_of(item, "start"), field_of(item, "end")
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)):
        raise CitationInputError(
            f"start {start!r} and end {end!r} must be offsets of the answer's text (0 to {len(text)}), start < end",
            citation=citation_id,
            field="start",
        )
    spans = [(s, e) for s, e in sentence_spans(text) if s < end and start < e] or [(start, end)]
    return clean_claim(text[spans[0][0] : spans[-1][1]])


def _documents(item: Any, v2: bool, citation_id: str) -> list[str]:
    """The ids of the documents a citation cites, in order; a citation that names none (its ``sources``
    missing or empty, an id that is not a name) is an error naming it, never a silent pass. A v2
    citation of a tool's output alone cites no document, and gives no citation."""
    if not v2:
        names = field_of(item, "document_ids")
        if not isinstance(names, (list, tuple)) or not names:
            raise CitationInputError(
                f"must be a non-empty list of document ids, got {_shown(names)}",
                citation=citation_id,
                field="document_ids",
            )
        for name in names:
            if not isinstance(name, str) or not name.strip():
                raise CitationInputError(
                    f"must hold document ids (strings), got {name!r}", citation=citation_id, field="document_ids"
                )
        return list(names)
    sources = field_of(item, "sources")
    if not isinstance(sources, (list, tuple)) or not sources:
        raise CitationInputError(
            f"must be a non-empty list of the documents or tools cited, got {_shown(sources)}",
            citation=citation_id,
            field="sources",
        )
    documents = []
    for number, source in enumerate(sources):
        if field_of(source, "type") == "tool":
            continue  # a tool's output, not a document
        name = field_of(source, "id")
        if not isinstance(name, str) or not name.strip():
            raise CitationInputError(
                f"must be the cited document's id (a string), got {_shown(name)}",
                citation=citation_id,
                field=f"sources[{number}].id",
            )
        documents.append(name)
    return documents


def _shown(value: Any) -> str:
    return "nothing (the field is missing)" if value is MISSING else repr(value)
