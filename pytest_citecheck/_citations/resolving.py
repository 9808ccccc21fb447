"""The citations read from what a check was given, made ready for step 1: each names its document as the
source knows it (a corpus's id, or none for the one ``Source`` an adapter's citation names), and no two share
an id. Shared by ``adapt`` (plain citation dicts) and ``shapes`` (every other answer).
"""

from __future__ import annotations

from dataclasses import replace

from pytest_citecheck._citations.model import Citation
from pytest_citecheck._citations.urls import names_the_source, url_document
from pytest_citecheck._errors import CitationInputError
from pytest_citecheck._sources.corpus import Corpus
from pytest_citecheck._sources.source import Source


def resolved(adapted: list[Citation], named_by_adapter: set[int], source: Source | Corpus | None) -> list[Citation]:
    """The citations with their documents named as ``source`` knows them (``_in_corpus``, ``_in_source``); ids unique."""
    if isinstance(source, Corpus):
        adapted = [_in_corpus(citation, source) for citation in adapted]
    elif isinstance(source, Source) and source.name and named_by_adapter:
        name = source.name
        adapted = [
            _in_source(citation, name) if index in named_by_adapter else citation
            for index, citation in enumerate(adapted)
        ]
    _check_unique_ids(adapted)
    return adapted


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
    found = url_document(corpus, citation.document)
    return citation if found is None else replace(citation, document=found)


def _in_source(citation: Citation, name: str) -> Citation:
    """Against one ``Source``, an adapter's citation naming that source's own document is a citation
    of it: the adapters name the document of every citation (a chunk's ``source``, an OpenAI file
    name), and a single-document app should not have to take it out. A document a user wrote in a
    dict is kept, and checked as written."""
    if citation.document is None or not names_the_source(citation.document, name):
        return citation
    return replace(citation, document=None)
