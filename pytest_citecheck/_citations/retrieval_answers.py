"""RAG framework answers that cite their retrieved sources with inline markers.

- LlamaIndex: a ``Response`` (``response``, ``source_nodes``). ``CitationQueryEngine`` numbers its
  source nodes and writes ``[1]``, ``[2]`` into the answer; each node's text begins with
  ``"Source N:\\n"``, which is taken off, so the rest is the quote, looked for in the node's document.
- Haystack: a ``GeneratedAnswer`` (``data``, ``query``, ``documents``). ``AnswerBuilder`` with a
  ``reference_pattern`` keeps the documents the answer cites; a document's ``meta["source_index"]``
  (else its position, from 1) is its number. A ``Document``'s ``content`` is the quote, its
  ``meta`` names its document (``file_path``, ``source``, ``file_name``).

Both are read with ``citations_from_markers``: each marked sentence is a claim, one citation per
source it cites (ids ``#<position>.s<sentence>[<n>]``); a marker naming no source is ``invalid`` and
the others are still checked. Neither framework is imported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_citecheck._citations.markers import marker_citations, uncited_by_markers
from pytest_citecheck._citations.model import MISSING, Citation, field_of
from pytest_citecheck._errors import CitationInputError
from pytest_citecheck._sources.chunks import without_source_prefix


def is_llamaindex_response(raw: Any) -> bool:
    return isinstance(field_of(raw, "response"), str) and isinstance(field_of(raw, "source_nodes"), (list, tuple))


def is_haystack_answer(raw: Any) -> bool:
    return (
        isinstance(field_of(raw, "data"), str)
        and isinstance(field_of(raw, "documents"), (list, tuple))
        and field_of(raw, "query") is not MISSING
    )


def llamaindex_citations(
    raw: Any, position: int, invalid: dict[str, CitationInputError] | None = None
) -> tuple[list[Citation], list[str]]:
    """The citations of a LlamaIndex ``Response``, and the sentences of its answer that carry no marker."""
    nodes = {}
    for number, scored in enumerate(field_of(raw, "source_nodes"), start=1):
        node = field_of(scored, "node")
        node = scored if node is MISSING or node is None else node
        text = field_of(node, "text")
        nodes[number] = {
            "text": without_source_prefix(text) if isinstance(text, str) else text,
            "metadata": field_of(node, "metadata"),
        }
    answer = field_of(raw, "response")
    return marker_citations(answer, nodes, f"#{position}.", invalid), uncited_by_markers(answer, nodes)


def haystack_citations(
    raw: Any, position: int, invalid: dict[str, CitationInputError] | None = None
) -> tuple[list[Citation], list[str]]:
    """The citations of a Haystack ``GeneratedAnswer``, and the sentences of its answer that carry no marker."""
    sources: dict[int, dict[str, Any]] = {}
    for number, document in enumerate(field_of(raw, "documents"), start=1):
        meta = field_of(document, "meta")
        meta = dict(meta) if isinstance(meta, Mapping) else {}
        key = _source_number(meta.get("source_index"), number, position)
        if key in sources:
            # Fails closed: the answer's [key] would be read as whichever document came last.
            raise CitationInputError(
                f"is {key}, as another document's is: the answer's [{key}] names neither for sure",
                citation=f"#{position}",
                field=f"documents[{number - 1}].meta['source_index']",
            )
        sources[key] = {"page_content": field_of(document, "content"), "metadata": _named(meta)}
    answer = field_of(raw, "data")
    return marker_citations(answer, sources, f"#{position}.", invalid), uncited_by_markers(answer, sources)


def _source_number(index: Any, number: int, position: int) -> int:
    """The number the answer cites a document by: its ``source_index`` (``AnswerBuilder`` writes it; a string
    of digits, as a store that keeps metadata as text gives it back, is read as that number), else its
    position from 1. Any other ``source_index`` is an error: read by position instead, a marker would name
    another document."""
    if index is None:
        return number
    if isinstance(index, str) and index.strip().isascii() and index.strip().isdigit():
        index = int(index)
    if isinstance(index, int) and not isinstance(index, bool) and index >= 1:
        return index
    raise CitationInputError(
        f"is {index!r}: must be the number the answer cites the document by, a whole number from 1",
        citation=f"#{position}",
        field=f"documents[{number - 1}].meta['source_index']",
    )


def _named(meta: dict[str, Any]) -> dict[str, Any]:
    """Haystack's ``file_path`` names the document where LangChain's loaders write ``source``."""
    if "source" not in meta and isinstance(meta.get("file_path"), str):
        meta["source"] = meta["file_path"]
    return meta
