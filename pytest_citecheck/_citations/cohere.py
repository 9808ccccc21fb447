"""Cohere chat: the v2 ``V2ChatResponse`` and the v1 response dict, citations against the cited documents.

A Cohere citation marks a span of the answer (``start``, ``end``, ``text``: often a few words, such as
"Emperor penguins") and names the documents it rests on: v2 ``sources`` (``DocumentSource`` with the
document's ``id``; a ``ToolSource`` cites a tool's output, not a document, and is skipped), v1
``document_ids``. The claim is the sentence of the answer that holds the span (the sentences, when it
runs over several); each cited document makes one claim-only citation, judged against that document.
Documents are named by the ids the request gave them (Cohere names them ``doc:0``, ``doc:1``… when it
gave none): key the ``Corpus`` by those. The ``cohere`` package is never imported.

A v2 citation's ``start`` / ``end`` count characters of the content item ``content_index`` names (the
answer's text items are read together, so a citation of the second text item is moved past the first);
its ``type`` says which text it marks: ``TEXT_CONTENT`` the answer, ``THINKING_CONTENT`` a reasoning
model's ``thinking`` item and ``PLAN`` the ``tool_plan``. Those two cite the model's reasoning, not a
sentence of the answer, and are skipped, as a tool's output is; any other type is an error naming it.
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
            if v2 and not _of_the_answer(item, citation_id):
                continue  # it cites the model's reasoning (its thinking, its tool plan), not the answer
            claim = _claim(text, _span(message, item, citation_id) if v2 else _offsets(item), citation_id)
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
        try:
            if v2 and not _of_the_answer(item, ""):
                continue
            start, end = _span(message, item, "") if v2 else _offsets(item)
        except CitationInputError:
            continue  # an unreadable citation is the invalid citation's business, not coverage's
        if isinstance(start, int) and isinstance(end, int):
            covered.append((start, end))
    return uncited_sentences(text, covered)


def _text_items(message: Any) -> list[Any]:
    content = field_of(message, "content")
    return list(content) if isinstance(content, (list, tuple)) else []


def _v2_text(message: Any) -> str:
    return "".join(field_of(item, "text") for item in _text_items(message) if isinstance(field_of(item, "text"), str))


# A v2 citation's ``type``: the answer's text, or the model's reasoning (a ``thinking`` content item, the tool plan).
_ANSWER, _REASONING = "TEXT_CONTENT", ("THINKING_CONTENT", "PLAN")


def _of_the_answer(item: Any, citation_id: str) -> bool:
    """Whether a v2 citation marks the answer's text (``type`` TEXT_CONTENT, or none: answers from before the
    field); False for one of the model's reasoning; an error naming ``type`` for any other, which is never
    read at offsets it may not count in."""
    kind = field_of(item, "type")
    if kind in (MISSING, None, _ANSWER):
        return True
    if kind in _REASONING:
        return False
    raise CitationInputError(
        f"is {kind!r}, not a type of Cohere citation this version knows ({_ANSWER}, {', '.join(_REASONING)})",
        citation=citation_id,
        field="type",
    )


def _offsets(item: Any) -> tuple[Any, Any]:
    return field_of(item, "start"), field_of(item, "end")


def _span(message: Any, item: Any, citation_id: str) -> tuple[Any, Any]:
    """A v2 citation's ``start`` / ``end`` in the answer's text items read together: they count characters of
    the content item ``content_index`` names (without one, of the text items together, as before the field)."""
    start, end = _offsets(item)
    index = field_of(item, "content_index")
    if index in (MISSING, None):
        return start, end
    content = _text_items(message)
    if not (isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(content)) or not isinstance(
        field_of(content[index], "text"), str
    ):
        raise CitationInputError(
            f"is {index!r}, which names no text item of the answer's {len(content)} content items",
            citation=citation_id,
            field="content_index",
        )
    before = sum(len(text) for item in content[:index] if isinstance(text := field_of(item, "text"), str))
    length = len(field_of(content[index], "text"))
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= length):
        raise CitationInputError(
            f"start {start!r} and end {end!r} must be offsets of content item {index}'s text (0 to {length}), "
            "start < end",
            citation=citation_id,
            field="start",
        )
    return before + start, before + end


def _claim(text: str, span: tuple[Any, Any], citation_id: str) -> str:
    start, end = span
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
