"""RAG framework answers that cite their retrieved sources with inline markers.

- LlamaIndex: a ``Response`` (``response``, ``source_nodes``). ``CitationQueryEngine`` numbers its
  source nodes and writes ``[1]``, ``[2]`` into the answer; each node's text begins with
  ``"Source N:\\n"``, which is taken off, so the rest is the quote, looked for in the node's document.
  When every node has it, N is the node's number (nodes re-sorted after the query keep it); else the
  node's position from 1.
- Haystack: a ``GeneratedAnswer`` (``data``, ``query``, ``documents``). ``AnswerBuilder`` with a
  ``reference_pattern`` keeps the documents the answer cites; a document's ``meta["source_index"]``
  (else its position, from 1) is its number. A ``Document``'s ``content`` is the quote, its
  ``meta`` names its document (``file_path``, ``source``, ``file_name``).

Both are read with ``citations_from_markers``: each marked sentence is a claim, one citation per
source it cites (ids ``#<position>.s<sentence>[<n>]``); a marker naming no source is ``invalid`` and
the others are still checked. Neither framework is imported.
"""

from __future__ import annotations

import re
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
    read: list[tuple[Any, Any, str]] = []  # each node's text, metadata, and the field its text is in
    for index, scored in enumerate(field_of(raw, "source_nodes")):
        node = field_of(scored, "node")
        wrapped = node is not MISSING and node is not None
        node = node if wrapped else scored
        read.append(
            (
                field_of(node, "text"),
                field_of(node, "metadata"),
                f"source_nodes[{index}]{'.node' if wrapped else ''}.text",
            )
        )
    nodes = {
        number: {"text": without_source_prefix(text) if isinstance(text, str) else text, "metadata": metadata}
        for number, (text, metadata, _) in zip(_node_numbers(read, position), read)
    }
    answer = field_of(raw, "response")
    return marker_citations(answer, nodes, f"#{position}.", invalid), uncited_by_markers(answer, nodes)


def _node_numbers(read: list[tuple[Any, Any, str]], position: int) -> list[int]:
    """The number the answer cites each node by: the ``Source N:`` its text opens with (``CitationQueryEngine``
    writes it), when every node's does, so nodes re-sorted after the query (by score, by a reranker) are still
    read as the model was shown them; else its position from 1. Fails closed on prefixes that contradict each
    other: two nodes saying one number, or a numbered node out of its place among unnumbered ones."""
    said = [_source_prefix(text) for text, _, _ in read]
    numbers = [number for number in said if number is not None]
    if said and len(numbers) == len(said):
        first: dict[int, int] = {}
        for index, (number, (_, _, field)) in enumerate(zip(numbers, read)):
            if number in first:
                raise CitationInputError(
                    f"says 'Source {number}:', as source_nodes[{first[number]}]'s does: the answer's [{number}] "
                    "names neither node for sure",
                    citation=f"#{position}",
                    field=field,
                )
            first[number] = index
        return numbers
    for place, (stated, (_, _, field)) in enumerate(zip(said, read), start=1):
        if stated is not None and stated != place:
            raise CitationInputError(
                f"says 'Source {stated}:' but is source {place} by position, and not every node says its number: "
                f"the answer's [{stated}] names no node for sure; pass the source_nodes in the order the query "
                "engine returned them, each with its 'Source N:' text",
                citation=f"#{position}",
                field=field,
            )
    return list(range(1, len(read) + 1))


def _source_prefix(text: Any) -> int | None:
    """The N of the ``Source N:`` line a node's text opens with, or None."""
    match = _SOURCE_NUMBER.match(text) if isinstance(text, str) else None
    return None if match is None else int(match[1])


# What CitationQueryEngine writes before each node's text (``without_source_prefix`` takes it off).
_SOURCE_NUMBER = re.compile(r"\ASource ([0-9]+):\n")


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
