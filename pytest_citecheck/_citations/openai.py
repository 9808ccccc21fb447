"""OpenAI Responses API ``output_text`` parts: each citing annotation is a claim-only citation.

An annotation says which file or page the answer rests on, and where in the answer, but not which
passage: so the claim is the text the annotation annotates, and it is judged against the whole
document the annotation names (or the section the caller maps it to). An annotation marks a point
(``index``, or the end of a ``url_citation``'s link), so the text it annotates runs from the previous
annotation's point or the start of the line, whichever is nearer, to that point. (A run longer than
``MAX_CLAIM_CHARACTERS`` twice over, a paragraph with one annotation at its end, stands for the
sentence the annotation closes.) Several annotations at one point share their claim.

- ``file_citation`` (file search): ``index`` is the point in the answer; ``file_id`` / ``filename``
  name the document (by default the ``filename``).
- ``url_citation`` (web search): ``start_index`` / ``end_index`` delimit the citation in the answer,
  usually a markdown link such as ``([example.com](https://example.com/…))``, which is taken out of
  the claim; ``url`` is the document id by default.
- ``file_path`` and ``container_file_citation`` point at files the model made, not sources: skipped.

``citations_from_openai(response, documents=...)`` maps file ids, file names or URLs to document
ids with a dict or a function; a mapped value may also be ``(document, section)``. A ``Response``
passed straight to ``check_citations`` uses the default names, matched to the corpus's ids by
``document_named``. The ``openai`` package is never imported: objects are read by their attributes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_citecheck._citations.containers import citing_parts, is_answer
from pytest_citecheck._citations.model import MISSING, Citation, field_of
from pytest_citecheck._citations.sentences import (
    MAX_CLAIM_CHARACTERS,
    clean_claim,
    sentence_closed_by,
    uncited_sentences,
)
from pytest_citecheck._errors import CitationInputError
from pytest_citecheck._sources.offsets import merged_spans

DocumentMap = Mapping[str, Any] | Callable[[Any], Any] | None
_NOT_SOURCES = frozenset({"file_path", "container_file_citation"})
_CLOSING = re.compile(r"[ \t]*[)\]]*[.!?]?[\"'”’)\]]*")
_EMPTY_BRACKETS = re.compile(r"[ \t]*(?:\(\s*\)|\[\s*\])")
_LINK = re.compile(r"\[([^\]]+)\]\(")


def is_openai_output_text(raw: Any) -> bool:
    """An OpenAI Responses API ``output_text`` content part (a dict, or the SDK's ``ResponseOutputText``)."""
    return field_of(raw, "type") == "output_text" and isinstance(field_of(raw, "text"), str)


def citations_from_openai(response: Any, documents: DocumentMap = None) -> list[Citation]:
    """The citations of an OpenAI Responses API answer, with files or URLs mapped to documents.

    ``response``: a ``Response``, an output message, an ``output_text`` part, or a list of them.
    ``documents``: a dict from ``file_id``, ``filename`` or ``url`` to a document id (or to a
    ``(document, section)`` pair), or a function of the annotation that returns one. Without it the
    ``filename`` or ``url`` is the document id.
    """
    if is_answer(response) or is_openai_output_text(response):
        response = [response]
    if isinstance(response, (str, bytes, Mapping)) or not isinstance(response, Iterable):
        raise CitationInputError(
            f"expected an OpenAI Response, output message or output_text part, got {type(response).__name__}",
            field="response",
        )
    parts: list[Any] = []
    for item in response:
        parts.extend(citing_parts(item) if is_answer(item) else [item])
    adapted: list[Citation] = []
    for position, part in enumerate(parts):
        if not is_openai_output_text(part):
            raise CitationInputError(
                f"expected an output_text part, got {type(part).__name__}", citation=f"#{position}", field="type"
            )
        adapted.extend(adapt_openai_output_text(part, position, documents))
    return adapted


def adapt_openai_output_text(raw: Any, position: int, documents: DocumentMap = None) -> list[Citation]:
    """One claim-only citation per citing annotation of an ``output_text`` part."""
    return read_openai_output_text(raw, position, documents)[0]


def read_openai_output_text(
    raw: Any, position: int, documents: DocumentMap = None, invalid: dict[str, CitationInputError] | None = None
) -> tuple[list[Citation], list[str]]:
    """The citations of an ``output_text`` part, and the sentences of its text that no annotation covers.

    With ``invalid``, an annotation that cannot be read is recorded there by id (a stand-in keeps its
    place) instead of raising, so the part's other annotations are still checked."""
    part_id = f"#{position}"
    text: str = field_of(raw, "text")
    annotations = field_of(raw, "annotations")
    if annotations is MISSING or annotations is None:
        annotations = []
    if isinstance(annotations, (str, bytes, Mapping)) or not isinstance(annotations, Iterable):
        raise CitationInputError(
            f"must be a list of annotations, got {type(annotations).__name__}", citation=part_id, field="annotations"
        )
    reading = _Reading(text, list(annotations), documents)
    adapted: list[Citation] = []
    for number, annotation in enumerate(reading.annotations, start=1):
        citation_id = f"#{position}.{number}"
        try:
            citation = reading.citation(annotation, citation_id)
        except CitationInputError as error:
            if invalid is None:
                raise
            invalid[citation_id] = error  # ``_check.invalid`` makes its result; the others are still read
            citation = Citation(id=citation_id, claim=text, quote=None, section=None)
        if citation is not None:
            adapted.append(citation)
    return adapted, _uncited(reading.answer, reading.covered)


class _Reading:
    """One ``output_text`` part being read: its text without the links' markup (``answer``), where the
    previous annotation's claim ended, and the claims found so far (``covered``, ``seen``)."""

    def __init__(self, text: str, annotations: list[Any], documents: DocumentMap) -> None:
        self.text, self.annotations, self.documents = text, annotations, documents
        self.markup = _markup_spans(text, annotations)
        self.answer = _without(text, self.markup)
        self.covered: list[tuple[int, int]] = []
        self.seen: set[tuple[str, str | None, str]] = set()
        self.previous = 0

    def citation(self, annotation: Any, citation_id: str) -> Citation | None:
        """The annotation's claim-only citation; None for a file the model made, or the same document cited
        twice for one claim."""
        kind = field_of(annotation, "type")
        if kind in _NOT_SOURCES:
            return None
        target = _target(annotation, kind, self.text, citation_id)
        point = _shifted(target.point, self.markup)
        start, end = claim_range(self.answer, point, self.previous)
        self.previous = max(self.previous, point)
        claim = _claim_text(self.answer[start:end]) or _link_text(self.text, target)
        if not claim:
            raise CitationInputError(
                f"closes no sentence of the answer (offset {target.point} of {len(self.text)} characters)",
                citation=citation_id,
                field=target.offset_field,
            )
        self.covered.append((start, end))
        document, section = _mapped(annotation, target, self.documents, citation_id)
        if (claim, section, document) in self.seen:
            return None
        self.seen.add((claim, section, document))
        return Citation(id=citation_id, claim=claim, quote=None, section=section, document=document)


def _link_text(text: str, target: _Target) -> str:
    """For a link that stands alone (a list of sources: ``- [Volcano erupts near Grindavik](https://…)``),
    the link's words: what a reader sees the link say. A link whose text is one word (a site's name,
    ``[reuters.com]``) says nothing of its own: empty."""
    if target.span is None:
        return ""
    link = _LINK.search(text, *target.span)
    words = clean_claim(link.group(1)) if link is not None else ""
    return words if len(words.split()) > 1 else ""


def claim_range(answer: str, point: int, previous: int) -> tuple[int, int]:
    """``[start, end)`` of the text an annotation at ``point`` annotates: since the previous annotation's
    point or the start of the line, whichever is nearer (the sentence it closes, when that text is empty or
    over twice ``MAX_CLAIM_CHARACTERS``)."""
    line_start = answer.rfind("\n", 0, point) + 1
    start = max(line_start, previous if previous < point else line_start)
    if not _claim_text(answer[start:point]) or point - start > 2 * MAX_CLAIM_CHARACTERS:
        return sentence_closed_by(answer, point)
    # The brackets and the full stop that close the annotated text go with it ("warranty (…link…).").
    return start, point + len(_CLOSING.match(answer, point).group())  # type: ignore[union-attr]


def _claim_text(piece: str) -> str:
    """The words of an annotated piece of the answer as a claim; "" when it has none (a bullet alone)."""
    claim = _EMPTY_BRACKETS.sub("", clean_claim(piece)).strip()
    return claim if re.search(r"\w", claim) else ""


def _uncited(answer: str, covered: list[tuple[int, int]]) -> list[str]:
    """The sentences of the answer that no annotation's claim overlaps (layout aside: ``claim_of``)."""
    return [_EMPTY_BRACKETS.sub("", sentence).strip() for sentence in uncited_sentences(answer, covered)]


@dataclass(frozen=True)
class _Target:
    """Where an annotation sits in the answer and what it names: ``point`` closes the claim; ``default``
    is the document id without a map; ``keys`` are looked up in a ``documents=`` map."""

    point: int
    default: str
    keys: tuple[Any, ...]
    name_field: str
    offset_field: str
    # ``[start, end)`` of a ``url_citation`` in the answer (its link), None for a file citation.
    span: tuple[int, int] | None = None


def _file_citation(annotation: Any, text: str, citation_id: str) -> _Target:
    point = _offset(annotation, "index", text, citation_id)
    default = field_of(annotation, "filename")
    if not isinstance(default, str) or not default.strip():
        default = _required_string(annotation, "file_id", citation_id)
    keys = (field_of(annotation, "file_id"), field_of(annotation, "filename"))
    return _Target(point, default, keys, "file_id", "index")


def _url_citation(annotation: Any, text: str, citation_id: str) -> _Target:
    start = _offset(annotation, "start_index", text, citation_id)
    point = _offset(annotation, "end_index", text, citation_id)
    if point < start:
        raise CitationInputError(
            f"end_index {point} is before start_index {start}", citation=citation_id, field="end_index"
        )
    default = _required_string(annotation, "url", citation_id)
    return _Target(point, default, (default,), "url", "start_index", (start, point))


_TARGETS: dict[str, Callable[[Any, str, str], _Target]] = {
    "file_citation": _file_citation,
    "url_citation": _url_citation,
}


def _target(annotation: Any, kind: Any, text: str, citation_id: str) -> _Target:
    read = _TARGETS.get(kind) if isinstance(kind, str) else None
    if read is None:
        raise CitationInputError(
            f"annotation type {kind!r} is not one pytest-citecheck reads (file_citation, url_citation; "
            "file_path and container_file_citation are skipped)",
            citation=citation_id,
            field="type",
        )
    return read(annotation, text, citation_id)


def _offset(annotation: Any, name: str, text: str, citation_id: str) -> int:
    value = field_of(annotation, name)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= len(text):
        raise CitationInputError(
            f"must be a whole number from 0 to the answer's length ({len(text)}), got {value!r}",
            citation=citation_id,
            field=name,
        )
    return value


def _required_string(annotation: Any, name: str, citation_id: str) -> str:
    value = field_of(annotation, name)
    if not isinstance(value, str) or not value.strip():
        raise CitationInputError(f"must be a non-empty string, got {value!r}", citation=citation_id, field=name)
    return value.strip()


def _markup_spans(text: str, annotations: list[Any]) -> list[tuple[int, int]]:
    """The ``url_citation`` spans that are link markup in the answer, not words of the claim."""
    spans = []
    for annotation in annotations:
        span = _markup_span(text, annotation) if field_of(annotation, "type") == "url_citation" else None
        if span is not None:
            spans.append(span)
    return merged_spans(spans)


def _markup_span(text: str, annotation: Any) -> tuple[int, int] | None:
    """A ``url_citation``'s span when it is a link (with the spaces before it), else None."""
    start, end, url = (field_of(annotation, name) for name in ("start_index", "end_index", "url"))
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)):
        return None  # reported with its citation's id when the annotation is read
    piece = text[start:end]
    if not ("](" in piece or (isinstance(url, str) and url in piece) or piece.lstrip().startswith(("(", "["))):
        return None
    while start > 0 and text[start - 1] in " \t":  # the space before the link goes with it
        start -= 1
    return start, end


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    pieces, position = [], 0
    for start, end in spans:
        pieces.append(text[position:start])
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def _shifted(offset: int, spans: list[tuple[int, int]]) -> int:
    """Where ``offset`` of the answer lands once the markup spans are taken out."""
    removed = 0
    for start, end in spans:
        if offset <= start:
            break
        removed += min(offset, end) - start
    return offset - removed


def _mapped(annotation: Any, target: _Target, documents: DocumentMap, citation_id: str) -> tuple[str, str | None]:
    """The document (and section) an annotation cites: the caller's map, else its file name or URL."""
    if documents is None:
        return target.default, None
    if callable(documents) and not isinstance(documents, Mapping):
        value, origin = documents(annotation), "documents(annotation)"
    else:
        key = next((key for key in target.keys if isinstance(key, str) and key in documents), None)
        if key is None:
            named = " / ".join(repr(key) for key in target.keys if isinstance(key, str))
            raise CitationInputError(
                f"{named} is not in the documents= map: add it (map a file id, file name or URL to a document id)",
                citation=citation_id,
                field=target.name_field,
            )
        value, origin = documents[key], f"documents[{key!r}]"
    pair = _document_and_section(value)
    if pair is None:
        raise CitationInputError(
            f"{origin} gave {value!r}: expected a document id, or a (document, section) pair",
            citation=citation_id,
            field=target.name_field,
        )
    return pair


def _document_and_section(value: Any) -> tuple[str, str | None] | None:
    """A mapped value as ``(document, section)``: a document id, a pair, or a dict; None when it is none of them."""
    if isinstance(value, str):
        return (value.strip(), None) if value.strip() else None
    if isinstance(value, Mapping):
        value = (value.get("document"), value.get("section"))
    if not (isinstance(value, tuple) and len(value) == 2):
        return None
    document, section = value
    if not isinstance(document, str) or not document.strip():
        return None
    if section is None:
        return document.strip(), None
    if not isinstance(section, str) or not section.strip():
        return None
    return document.strip(), section.strip()
