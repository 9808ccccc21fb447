"""Many documents at once: a ``Corpus`` maps a document id to its ``Source``.

A RAG answer cites a knowledge base, not one document: a citation may name the ``document`` it
rests on beside the ``section``. Document ids are plain strings (``Corpus.from_dir`` uses paths
relative to the directory, in POSIX form).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from os import PathLike
from pathlib import Path
from typing import Any

from pytest_citecheck._errors import SourceError
from pytest_citecheck._sources.chunks import DocumentId, sources_from_chunks
from pytest_citecheck._sources.names import DocumentNames
from pytest_citecheck._sources.source import Source, _not_a_file


class Corpus:
    """Documents by id: ``Corpus({"refund-policy": Source, "terms": Source, ...})``.

    A value may also be a document's text, which is split as ``Source.from_text(text, format="auto")``.
    A citation names its document by id, matched exactly after a documented normalisation (``names``);
    ``aliases={name: document_id}`` declares any other name a document goes by.
    """

    def __init__(self, documents: Mapping[str, Source | str], *, aliases: Mapping[str, str] | None = None) -> None:
        if not isinstance(documents, Mapping):
            raise SourceError(
                f"documents must be a mapping of document id to Source, not {type(documents).__name__}",
                field="documents",
            )
        if not documents:
            raise SourceError("the corpus has no documents", field="documents")
        self.documents: dict[str, Source] = {}
        for key, value in documents.items():
            if not isinstance(key, str) or not key.strip():
                raise SourceError(f"document id {key!r} must be a non-empty string", field="documents")
            if isinstance(value, str):
                value = Source.from_text(value, format="auto", name=key)
            if not isinstance(value, Source):
                raise SourceError(
                    f"document {key!r} must be a Source or its text, not {type(value).__name__}", field="documents"
                )
            self.documents[key] = value
        self._names = DocumentNames(list(self.documents), aliases)

    @property
    def aliases(self) -> dict[str, str]:
        """The names declared for documents beside their ids: name -> document id."""
        return dict(self._names.aliases)

    def resolve(self, name: str) -> str | None:
        """The id of the document ``name`` means: the id itself, or one equal to it after the
        normalisation of ``names`` (separators, a leading ``./``, URL scheme and host case), or an
        alias; None when no document is meant."""
        return name if name in self.documents else self._names.resolve(name)

    @classmethod
    def from_dir(
        cls,
        path: str | PathLike[str],
        pattern: str = "**/*.md",
        *,
        format: str | None = None,
        encoding: str = "utf-8",
        aliases: Mapping[str, str] | None = None,
    ) -> Corpus:
        """Every file under ``path`` matching ``pattern``, each split as ``Source.from_file`` splits it.

        A document's id is its path relative to ``path`` in POSIX form (``"policies/refunds.md"``),
        so ids are the same on every operating system; documents are in the order of their ids.
        """
        root = Path(path)
        if not root.is_dir():
            raise SourceError(f"{root} is not a directory", field="documents")
        matched = sorted((found.relative_to(root).as_posix(), found) for found in root.glob(pattern))
        # A directory whose name matches (``pattern="*"``) holds documents, it is not one. Anything else
        # that is not a regular file (a FIFO, a link to nothing or to /dev/zero) is a document the user
        # meant to include: an error, not a silent skip (and never opened, so a FIFO cannot block).
        files = [(document_id, found) for document_id, found in matched if not found.is_dir()]
        if not files:
            named = root / pattern
            if named.is_symlink():
                # A pattern without wildcards is the name of one file, which glob looks up by following
                # it: a link to nothing (or to itself) is dropped there. Say what it is, as for a match.
                raise SourceError(f"document {pattern!r}: {_not_a_file(named)}", field="documents")
            raise SourceError(f"no file under {root} matches {pattern!r}", field="documents")
        documents: dict[str, Source] = {}
        for document_id, found in files:
            if not found.is_file():
                raise SourceError(f"document {document_id!r}: {_not_a_file(found)}", field="documents")
            try:
                documents[document_id] = Source.from_file(found, format, encoding=encoding)
            except SourceError as error:  # an empty or binary file: say which one, once
                raise SourceError(f"document {document_id!r}: {_unnamed(error, found)}", field="documents") from None
        return cls(documents, aliases=aliases)

    def __getitem__(self, document_id: str) -> Source:
        return self.documents[document_id]

    def __contains__(self, document_id: object) -> bool:
        return document_id in self.documents

    def __iter__(self) -> Iterator[str]:
        return iter(self.documents)

    def __len__(self) -> int:
        return len(self.documents)

    def __repr__(self) -> str:
        return f"Corpus({len(self.documents)} documents: {', '.join(list(self.documents)[:5])}{', …' if len(self) > 5 else ''})"

    @classmethod
    def from_documents(
        cls, docs: Iterable[Any], *, document_id: DocumentId = None, aliases: Mapping[str, str] | None = None
    ) -> Corpus:
        """The corpus of a retriever's chunks: LangChain ``Document``s, LlamaIndex ``NodeWithScore``s or ``TextNode``s.

        Each chunk's document is its ``source`` metadata (else ``file_name``), or what ``document_id``
        gives: a metadata key, or a function of the chunk. Its page metadata makes sections
        (``"page 3"``, a page's chunks in order); a chunk without a page is a ``"chunk N"`` section.
        Neither framework is imported: the objects are read by their attributes.
        """
        return cls(sources_from_chunks(docs, document_id), aliases=aliases)


def _unnamed(error: SourceError, path: Path) -> str:
    """``error``'s message without the file's name, which the document id in front of it already gives
    (``"empty.md: the document is empty"`` -> ``"the document is empty"``), and with the field it
    blames when that is one the caller passed (``format``)."""
    message = error.message
    for named in (f"{path}: ", f"{path.name}: "):
        if message.startswith(named):
            message = message[len(named) :]
            break
    else:
        if message.startswith(f"{path} "):  # "<path> is not utf-8 text: ... at byte 5 (line 1); ..."
            message = "it " + message[len(f"{path} ") :]
    return f"field {error.field!r}: {message}" if error.field not in (None, "source") else message
