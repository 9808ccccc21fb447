"""``check_retrieval``: is every chunk a retriever returned really in the document it claims?

A retrieved chunk's text is itself a quote: it must exist, word for word after normalisation, in the
document its metadata names. A chunk that is not there comes from a stale index (the document
changed after it was embedded) or a wrong one; a chunk found in another document than the one its
metadata names would make every answer built on it cite the wrong document. This is step 1 alone:
a ``QuoteLocator`` over each whole document (a chunk does not stop at the corpus's section
boundaries), and no model is asked.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pytest_citecheck._errors import SourceError
from pytest_citecheck._locate.locator import QuoteLocator
from pytest_citecheck._locate.passages import Passage
from pytest_citecheck._sources.chunks import Chunk, DocumentId, document_named, is_chunk, read_chunk
from pytest_citecheck._sources.corpus import Corpus
from pytest_citecheck._sources.source import Source

RetrievalStatus = Literal["found", "found-elsewhere", "missing"]


@dataclass(frozen=True)
class RetrievalResult:
    """Where one retrieved chunk's text is.

    ``status``: ``found`` (in the document, and the page, its metadata names), ``found-elsewhere``
    (in the corpus, but in another document or page than its metadata says) or ``missing`` (in no
    document of the corpus). ``cited_document`` / ``cited_section`` are what the metadata says;
    ``document`` / ``section`` where the text really is (None when missing); ``closest`` the passage
    of the cited document most like a missing chunk, as a hint.
    """

    chunk: int
    status: RetrievalStatus
    cited_document: str
    cited_section: str | None
    document: str | None
    section: str | None
    text: str
    closest: Passage | None = None

    @property
    def ok(self) -> bool:
        return self.status == "found"

    def __str__(self) -> str:
        cited = self.cited_document + (f", {self.cited_section}" if self.cited_section else "")
        where = f"chunk #{self.chunk} ({cited}): {_excerpt(self.text)}"
        if self.status == "found":
            return f"{where} is in {self.document}"
        if self.status == "found-elsewhere":
            place = f"{self.document}" + (f", {self.section}" if self.section else "")
            return f"{where} is not where its metadata says: it is in {place}"
        hint = ""
        if self.closest is not None:
            hint = f"; the closest passage ({self.closest.similarity:.0%}) is {_excerpt(self.closest.text)}"
        return f"{where} is in no document of the corpus (a stale or wrong index?){hint}"


def _excerpt(text: str, length: int = 60) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= length else flat[: length - 1] + "…")


def check_retrieval(
    chunks: Iterable[Any], corpus: Corpus | Source, *, document_id: DocumentId = None, casefold: bool = False
) -> list[RetrievalResult]:
    """Check that each retrieved chunk's text is in the document (and page) its metadata names.

    ``chunks``: LangChain ``Document``s, LlamaIndex ``NodeWithScore``s or ``TextNode``s (or dicts
    shaped like them), as the retriever returned them. ``corpus``: the knowledge base as it is now,
    a ``Corpus`` (or one ``Source``). ``document_id`` reads a chunk's document as
    ``Corpus.from_documents`` does. Returns one result per chunk, in order; ``result.ok`` is True for
    a chunk found where it says. No model is asked.
    """
    single = isinstance(corpus, Source)  # one document: whatever a chunk's metadata calls it, it is this one
    if isinstance(corpus, Source):
        corpus = Corpus({corpus.name or "document": corpus})
    if not isinstance(corpus, Corpus):
        raise SourceError(f"expected a Corpus or a Source, got {type(corpus).__name__}", field="corpus")
    if isinstance(chunks, (str, bytes, Mapping)) or not isinstance(chunks, Iterable) or is_chunk(chunks):
        raise SourceError(
            f"chunks must be a list of retrieved chunks, got {type(chunks).__name__}"
            + (" (a single chunk? wrap it in a list)" if is_chunk(chunks) else ""),
            field="chunks",
        )
    results = []
    for position, raw in enumerate(chunks):
        chunk = read_chunk(raw, position, document_id)
        cited = next(iter(corpus)) if single else document_named(corpus, chunk.document)
        results.append(_check_chunk(chunk, cited, corpus, casefold))
    return results


def _check_chunk(chunk: Chunk, cited: str | None, corpus: Corpus, casefold: bool) -> RetrievalResult:
    page = chunk.section
    if cited is not None and _on_cited_page(chunk, corpus[cited], casefold):
        return RetrievalResult(chunk.position, "found", chunk.document, page, cited, page, chunk.text)
    order = ([cited] if cited is not None else []) + [name for name in corpus if name != cited]
    for name in order:
        source = corpus[name]
        match = _locator(_whole(source)).find(chunk.text, casefold=casefold, literal=True)
        if match is None:
            continue
        section = source.section_at(match.start)
        page_differs = name == cited and page is not None and page in source.sections and section != page
        status: RetrievalStatus = "found" if name == cited and not page_differs else "found-elsewhere"
        return RetrievalResult(chunk.position, status, chunk.document, page, name, section, chunk.text)
    closest = None if cited is None else _closest_in(chunk, corpus[cited], casefold)
    return RetrievalResult(chunk.position, "missing", chunk.document, page, None, None, chunk.text, closest)


def _on_cited_page(chunk: Chunk, source: Source, casefold: bool) -> bool:
    """A corpus built from the same chunks has the chunk's page: the chunk is on it."""
    page = chunk.section
    if page is None or page not in source.sections:
        return False
    match = _locator(source).find(chunk.text, casefold=casefold, prefer_section=page, literal=True)
    return match is not None and match.section == page


def _closest_in(chunk: Chunk, source: Source, casefold: bool) -> Passage | None:
    """The passage of the cited document most like a missing chunk (a hint), when the document is longer."""
    if len(chunk.text) >= len(source.text):
        return None
    near = _locator(_whole(source)).closest(chunk.text, casefold=casefold)
    if near is None:
        return None
    section = source.section_at(near.start) or ""
    base = source.spans.get(section, (0, 0))[0] if section else 0
    text = source.text[near.start : near.end]
    return Passage(section, near.start - base, near.end - base, text, near.similarity)


_LOCATORS: weakref.WeakKeyDictionary[Source, QuoteLocator] = weakref.WeakKeyDictionary()
_WHOLE: weakref.WeakKeyDictionary[Source, Source] = weakref.WeakKeyDictionary()


def _locator(source: Source) -> QuoteLocator:
    """One locator per source object, so a document is normalised once however many chunks are checked."""
    locator = _LOCATORS.get(source)
    if locator is None:
        locator = _LOCATORS[source] = QuoteLocator(source)
    return locator


def _whole(source: Source) -> Source:
    """The document as one section, so a chunk that runs over a section boundary is still found."""
    whole = _WHOLE.get(source)
    if whole is None:
        whole = _WHOLE[source] = Source(sections={"document": source.text}, text=source.text, name=source.name)
    return whole
