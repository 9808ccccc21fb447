"""What a citation is, and turning what the user passed into one.

Users hand us dicts (``{"id", "claim", "quote", "section"}``) or objects with those attributes
(dataclasses, pydantic models, their own classes), or an LLM SDK's answer: Anthropic Messages API
text blocks whose ``citations`` point into a document (one citation per cited passage), or a whole
``Message``; OpenAI Responses API ``output_text`` parts with annotations, or a whole ``Response``.
Each SDK shape has its module here (``anthropic``, ``openai``; ``containers`` splits a whole answer
into its parts), and no SDK is imported. Any other shape goes through the
``pytest_citecheck_adapt_citation`` hook first. ``adapt_citations`` validates every one up front,
so a malformed citation is reported by id and field before any request is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from pytest_citecheck._citations.anthropic import adapt_anthropic_block, is_anthropic_text_block
from pytest_citecheck._citations.containers import citing_parts, is_answer
from pytest_citecheck._citations.model import Citation
from pytest_citecheck._citations.openai import adapt_openai_output_text, is_openai_output_text
from pytest_citecheck._citations.plain import adapt_citation
from pytest_citecheck._errors import CitationInputError
from pytest_citecheck._sources.chunks import document_named
from pytest_citecheck._sources.corpus import Corpus
from pytest_citecheck._sources.source import Source

__all__ = ["Citation", "adapt_citation", "adapt_citations"]


# The SDK shapes read here, in the order they are tried: whether a part is one, how it becomes
# citations, and whether the adapter named each citation's document itself (see ``_in_source``).
_Adapter = Callable[[Any, int, "Source | Corpus | None"], list[Citation]]
_SHAPES: tuple[tuple[Callable[[Any], bool], _Adapter, bool], ...] = (
    (is_anthropic_text_block, adapt_anthropic_block, False),
    (is_openai_output_text, lambda raw, position, source: adapt_openai_output_text(raw, position), True),
)


def adapt_citations(citations: Any, hooks: Any = None, *, source: Source | Corpus | None = None) -> list[Citation]:
    """Validate a list of user citations; ids must be unique so results and recordings can name them.

    ``hooks`` (pytest's hook relay) lets ``pytest_citecheck_adapt_citation`` turn shapes we do not
    know into dicts first. ``source`` is what the citations will be checked against: with a
    ``Corpus``, an Anthropic citation's ``document_index`` / ``document_title`` select a document,
    and a document a citation names by path or file name is matched to the corpus's id for it. With
    one named ``Source``, an adapter's citation naming that document cites it: its document is dropped.
    """
    adapted: list[Citation] = []
    # Citations whose document an adapter read from an SDK object or a chunk's metadata (a file name,
    # a path), rather than one the user wrote in a dict: see ``_in_source``.
    named_by_adapter: set[int] = set()
    for position, raw in enumerate(_parts(citations)):
        if hooks is not None:
            converted = hooks.pytest_citecheck_adapt_citation(citation=raw, position=position)
            raw = raw if converted is None else converted
        from_raw, by_adapter = _adapt_part(raw, position, source)
        if by_adapter:
            named_by_adapter.update(range(len(adapted), len(adapted) + len(from_raw)))
        adapted.extend(from_raw)
    if isinstance(source, Corpus):
        adapted = [_in_corpus(citation, source) for citation in adapted]
    elif isinstance(source, Source) and source.name:
        name = source.name
        adapted = [
            _in_source(citation, name) if index in named_by_adapter else citation
            for index, citation in enumerate(adapted)
        ]
    _check_unique_ids(adapted)
    return adapted


def _parts(citations: Any) -> list[Any]:
    """The citations a check was given, with each whole answer (a Message, a Response) split into its parts."""
    if is_answer(citations):  # a whole Message or Response, passed as it came back
        citations = [citations]
    if isinstance(citations, (str, bytes, Mapping)) or not isinstance(citations, Iterable):
        raise CitationInputError(
            f"citations must be a list of citations, got {type(citations).__name__}"
            + (" (a single citation? wrap it in a list)" if isinstance(citations, Mapping) else ""),
            field="citations",
        )
    parts: list[Any] = []
    for raw in citations:
        parts.extend(citing_parts(raw) if is_answer(raw) else [raw])
    return parts


def _adapt_part(raw: Any, position: int, source: Source | Corpus | None) -> tuple[list[Citation], bool]:
    """The citations of one part, and whether an adapter (not the user) named their documents."""
    for is_shape, adapt, names_documents in _SHAPES:
        if is_shape(raw):
            return adapt(raw, position, source), names_documents
    # A ``Citation`` comes from citations_from_markers or citations_from_openai.
    return [adapt_citation(raw, position)], isinstance(raw, Citation)


def _check_unique_ids(adapted: list[Citation]) -> None:
    seen: set[str] = set()
    for citation in adapted:
        if citation.id in seen:
            raise CitationInputError(
                "is used by more than one citation; ids must be unique", citation=citation.id, field="id"
            )
        seen.add(citation.id)


def _in_corpus(citation: Citation, corpus: Corpus) -> Citation:
    """A citation naming its document by a name the corpus resolves (the id after the documented
    normalisation, or an alias: ``Corpus.resolve``) names it by the corpus's id; others are kept,
    and step 1 says the corpus has no such document."""
    if citation.document is None or citation.document in corpus:
        return citation
    found = corpus.resolve(citation.document)
    return citation if found is None else replace(citation, document=found)


def _in_source(citation: Citation, name: str) -> Citation:
    """Against one ``Source``, an adapter's citation naming that source's own document is a citation
    of it: the adapters name the document of every citation (a chunk's ``source``, an OpenAI file
    name), and a single-document app should not have to take it out. A document a user wrote in a
    dict is kept, and checked as written."""
    if citation.document is None or document_named([name], citation.document) is None:
        return citation
    return replace(citation, document=None)
