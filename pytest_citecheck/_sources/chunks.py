"""Retrieved chunks as sources: LangChain ``Document`` and LlamaIndex ``NodeWithScore`` / ``TextNode``.

A RAG app's retriever returns chunks of its knowledge base, each with metadata saying where it came
from. This module reads a chunk without importing either framework (it reads the same attributes
the frameworks' own objects have, so plain dicts shaped like them work too):

- the text: ``page_content`` (LangChain), ``text`` (LlamaIndex; a ``NodeWithScore`` is unwrapped);
- the document: the ``source`` metadata (LangChain's loaders: a path or URL), else ``file_name``
  (LlamaIndex's ``SimpleDirectoryReader``), or what the caller's ``document_id`` says;
- the section: the physical page (LangChain's 0-based ``page`` plus one, else ``page_number``, else
  for LlamaIndex's printed ``page_label`` the physical page ``pdf_pages`` recovers, else the label
  itself) as ``"page 3"``; a chunk without a page is a ``"chunk N"`` section of
  its own (``chunk_index`` / ``chunk_id`` metadata when present, else its order in the document).

``sources_from_chunks`` builds the sources behind ``Corpus.from_documents`` (the corpus imports
this module, never the other way round); ``document_named`` matches the document a chunk or
citation names (often an absolute path) to a corpus id (often a path relative to the corpus
directory).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pytest_citecheck._citations.model import MISSING, field_of
from pytest_citecheck._errors import SourceError
from pytest_citecheck._sources.pdf_pages import physical_page
from pytest_citecheck._sources.source import Source

DocumentId = str | Callable[[Any], Any] | None
_ID_KEYS = ("source", "file_name")
_CHUNK_KEYS = ("chunk_index", "chunk_id", "chunk")


@dataclass(frozen=True)
class Chunk:
    """One retrieved chunk: its text, the document and section it says it comes from."""

    position: int  # its place in the list the caller passed
    text: str
    document: str
    section: str | None  # "page 3" when the chunk's metadata has a page
    start: int | None  # where it starts in its page or document, when the metadata says
    chunk_label: str | None  # an explicit chunk number from the metadata


def is_chunk(raw: Any) -> bool:
    """A LangChain ``Document``, a LlamaIndex node or ``NodeWithScore``, or a dict shaped like one."""
    node = _unwrap(raw)
    text = field_of(node, "page_content")
    if text is MISSING:
        text = field_of(node, "text")
    return isinstance(text, str) and isinstance(field_of(node, "metadata"), Mapping)


_DOCUMENT_ID_REMEDY = "pass document_id= (a metadata key, or a function of the chunk)"


def _unwrap(raw: Any) -> Any:
    node = field_of(raw, "node")  # LlamaIndex NodeWithScore: the node and its score
    return raw if node is MISSING or node is None else node


def read_chunk(raw: Any, position: int, document_id: DocumentId = None, remedy: str = _DOCUMENT_ID_REMEDY) -> Chunk:
    """The text, document and section of one chunk; a clear error for a chunk that lacks one (``remedy``
    says what to do about a chunk that names no document, where ``document_id=`` cannot be passed)."""
    label = f"chunk #{position}"
    node = _unwrap(raw)
    text = field_of(node, "page_content")
    if text is MISSING:
        text = field_of(node, "text")
        if isinstance(text, str):
            text = without_source_prefix(text)
    metadata = field_of(node, "metadata")
    if not isinstance(text, str) or not isinstance(metadata, Mapping):
        raise SourceError(
            f"{label} is a {type(raw).__name__}, not a retrieved chunk: expected a LangChain Document "
            "(page_content, metadata) or a LlamaIndex node (text, metadata)",
            field="chunks",
        )
    if not text.strip():
        raise SourceError(f"{label} has no text", field="page_content")
    document = _document_of(raw, node, metadata, document_id, label, remedy)
    start = metadata.get("start_index")  # LangChain splitters with add_start_index=True
    if start is None:
        start = field_of(node, "start_char_idx")  # LlamaIndex node parsers
    if not isinstance(start, int) or isinstance(start, bool) or start < 0:
        start = None
    chunk_label = next((str(metadata[key]) for key in _CHUNK_KEYS if metadata.get(key) not in (None, "")), None)
    return Chunk(position, text, document, _page_section(metadata, node, text), start, chunk_label)


# What LlamaIndex's CitationQueryEngine writes before each source node's text.
_SOURCE_PREFIX = re.compile(r"\ASource \d+:\n")


def without_source_prefix(text: str) -> str:
    """A LlamaIndex node's text without the ``"Source N:\\n"`` a ``CitationQueryEngine`` puts before it
    (and the line break it puts after); any other text as it is."""
    if not _SOURCE_PREFIX.match(text):
        return text
    return _SOURCE_PREFIX.sub("", text, count=1).removesuffix("\n")


def _document_of(
    raw: Any, node: Any, metadata: Mapping[str, Any], document_id: DocumentId, label: str, remedy: str
) -> str:
    if callable(document_id):
        value = document_id(raw)
        source = "document_id(chunk)"
    elif isinstance(document_id, str):
        value = metadata.get(document_id)
        source = f"metadata {document_id!r}"
    else:
        key = next((key for key in _ID_KEYS if metadata.get(key) not in (None, "")), None)
        if key is None:
            raise SourceError(
                f"{label} has no 'source' or 'file_name' metadata, so its document is unknown: {remedy}",
                field="metadata",
            )
        value, source = metadata[key], f"metadata {key!r}"
    if not isinstance(value, (str, int)) or isinstance(value, bool) or not str(value).strip():
        raise SourceError(f"{label}: {source} gave {value!r}, not a document id", field="metadata")
    return str(value).strip()


def _page_section(metadata: Mapping[str, Any], node: Any, text: str) -> str | None:
    """The chunk's page as ``"page N"``, N the physical page (as Claude's ``page_location`` counts them),
    whatever the printed label says: a PDF labelled i, ii, 1, 2 or 1, 2, 1, 2 has pages 1 to 4. For
    LlamaIndex's PDFReader, which gives only the printed label, the physical page comes from the reader's
    Document ids or the PDF itself (``pdf_pages``); the label is the section only when neither says."""
    page = metadata.get("page")  # 0-based: LangChain's PDF loaders
    if isinstance(page, int) and not isinstance(page, bool):
        return f"page {page + 1}"
    number = metadata.get("page_number")  # 1-based: unstructured and others
    if isinstance(number, int) and not isinstance(number, bool):
        return f"page {number}"
    label = metadata.get("page_label")  # as printed: LlamaIndex's PDFReader
    if isinstance(label, (str, int)) and not isinstance(label, bool) and str(label).strip():
        physical = physical_page(node, metadata, str(label).strip(), text)
        return f"page {physical if physical is not None else str(label).strip()}"
    return None


def _page_order(section: str) -> tuple[int, float, str]:
    number = section.removeprefix("page ")
    return (0, float(number), "") if number.isdigit() else (1, 0.0, number)


def source_from_chunks(document: str, chunks: list[Chunk]) -> Source:
    """One document's ``Source``: a section per page (its chunks in order), or per chunk."""
    paged = [chunk for chunk in chunks if chunk.section is not None]
    sections: dict[str, str] = {}
    for page in sorted({chunk.section for chunk in paged if chunk.section}, key=_page_order):
        sections[page] = _join([chunk for chunk in paged if chunk.section == page])
    _add_unpaged(sections, [chunk for chunk in chunks if chunk.section is None])
    return Source(sections=sections, name=document, format="documents")


def _add_unpaged(sections: dict[str, str], unpaged: list[Chunk]) -> None:
    """A ``"chunk N"`` section per chunk without a page, in offset order when the metadata has offsets."""
    if any(chunk.start is not None for chunk in unpaged):
        unpaged = sorted(unpaged, key=lambda chunk: (chunk.start is None, chunk.start or 0, chunk.position))
    seen: set[str] = set()
    number = 0
    for chunk in unpaged:
        if chunk.text in seen:  # the same chunk retrieved twice
            continue
        seen.add(chunk.text)
        number += 1
        section = f"chunk {chunk.chunk_label or number}"
        while section in sections:
            section += "'"
        sections[section] = chunk.text


def _join(chunks: list[Chunk]) -> str:
    """A page's chunks in order; where their offsets say two overlap, the overlap is kept once."""
    if all(chunk.start is not None for chunk in chunks):
        ordered = sorted(chunks, key=lambda chunk: (chunk.start or 0, chunk.position))
    else:
        ordered = sorted(chunks, key=lambda chunk: chunk.position)
    text = ""
    end: int | None = None
    seen: set[str] = set()
    for chunk in ordered:
        if chunk.text in seen:
            continue
        seen.add(chunk.text)
        if end is not None and chunk.start is not None and chunk.start < end:
            overlap = end - chunk.start
            if chunk.text[overlap:].strip():
                text += chunk.text[overlap:]
            end = max(end, chunk.start + len(chunk.text))
            continue
        text += ("\n\n" if text else "") + chunk.text
        end = chunk.start + len(chunk.text) if chunk.start is not None else None
    return text


def sources_from_chunks(docs: Iterable[Any], document_id: DocumentId = None) -> dict[str, Source]:
    """The sources of retrieved chunks, by document (one per ``source`` / ``file_name``), for a ``Corpus``."""
    if isinstance(docs, (str, bytes, Mapping)) or not isinstance(docs, Iterable) or is_chunk(docs):
        raise SourceError(
            f"documents must be a list of retrieved chunks, got {type(docs).__name__}"
            + (" (a single chunk? wrap it in a list)" if is_chunk(docs) else ""),
            field="documents",
        )
    by_document: dict[str, list[Chunk]] = {}
    for position, raw in enumerate(docs):
        chunk = read_chunk(raw, position, document_id)
        by_document.setdefault(chunk.document, []).append(chunk)
    return {document: source_from_chunks(document, chunks) for document, chunks in by_document.items()}


def document_named(document_ids: Iterable[str], name: str) -> str | None:
    """The corpus id ``name`` refers to: itself, else the one id it ends with as a path
    (``/srv/kb/policies/refund.md`` → ``policies/refund.md``), else the one id with its file name.
    None when no id, or more than one, fits."""
    ids = list(document_ids)
    if name in ids:
        return name
    untracked = _without_tracking(name)  # OpenAI's web search adds ?utm_source=openai to the URLs it cites
    if untracked != name and untracked in ids:
        return untracked
    path = name.replace("\\", "/").removeprefix("file://")
    suffixes = [candidate for candidate in ids if path.endswith("/" + candidate.lstrip("/"))]
    if suffixes:  # the most specific one: "policies/refund.md" rather than "refund.md"
        return _only(suffixes, max(map(len, suffixes)), len)
    return _only(ids, path.rsplit("/", 1)[-1], lambda candidate: candidate.replace("\\", "/").rsplit("/", 1)[-1])


def _only(candidates: list[str], wanted: Any, key: Callable[[str], Any]) -> str | None:
    """The one candidate whose ``key`` is ``wanted``; None when none or several are."""
    fits = [candidate for candidate in candidates if key(candidate) == wanted]
    return fits[0] if len(fits) == 1 else None


def _without_tracking(name: str) -> str:
    if "utm_" not in name or "://" not in name:
        return name
    parts = urlsplit(name)
    query = urlencode([(key, value) for key, value in parse_qsl(parts.query) if not key.startswith("utm_")])
    return urlunsplit(parts._replace(query=query))
