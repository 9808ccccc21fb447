"""The physical page of a LlamaIndex chunk whose metadata names only the page's printed label.

LlamaIndex's ``PDFReader`` gives each page's Document the metadata ``page_label`` (the label as printed:
``i``, ``ii``, ``1``, ``2``, or ``1``, ``2``, ``1``, ``2`` where the numbering restarts) and ``file_name``,
and nothing that counts pages; Claude's ``page_location`` counts physical pages. Two things the reader
leaves recover the physical page:

1. ``SimpleDirectoryReader(filename_as_id=True)`` names the i-th Document a reader made of a file
   ``"<path>_part_<i>"``, and ``PDFReader`` makes one Document per page, in order: a chunk's source
   Document id (``node.source_node.node_id``), or a page Document's own ``id_``, says page ``i + 1``.
2. ``SimpleDirectoryReader`` also records the file's ``file_path``: when that PDF can still be read
   (through pypdf, the ``pdf`` extra), its page labels say which physical page carries the label: the
   one page with it, or, where the numbering restarts, the one of those pages whose text holds the chunk's.

Failing both (``PDFReader().load_data`` without ``SimpleDirectoryReader``: no id and no path; a file
since moved; a label two pages share whose texts both hold the chunk), the printed label stays the
section (``"page ii"``): the reader's metadata has nothing else that counts pages.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from typing import Any

_PART = re.compile(r"_part_(\d+)\Z")
_SPACE = re.compile(r"\s+")


def physical_page(node: Any, metadata: Mapping[str, Any], label: str, text: str) -> int | None:
    """The 1-based physical page of a chunk labelled ``label``, or None when nothing says it."""
    if isinstance(node, Mapping):
        return None
    for document_id in _document_ids(node):
        match = _PART.search(document_id)
        if match is not None:
            return int(match[1]) + 1
    path = metadata.get("file_path")
    if not isinstance(path, str) or not path.lower().endswith(".pdf") or not os.path.isfile(path):
        return None
    stat = os.stat(path)
    version = (path, stat.st_mtime_ns, stat.st_size)
    candidates = [number for number, page_label in enumerate(_labels(*version), start=1) if page_label == label]
    if len(candidates) > 1:  # the numbering restarts: the page whose text holds the chunk's
        words = _SPACE.sub(" ", text).strip()
        candidates = [number for number in candidates if words and words in _page_words(*version, number - 1)]
    return candidates[0] if len(candidates) == 1 else None


def _document_ids(node: Any) -> list[str]:
    """The id of the Document a node was parsed from, and the node's own id (a page Document's)."""
    ids = []
    source = getattr(node, "source_node", None)
    source_id = getattr(source, "node_id", None)
    if isinstance(source_id, str):
        ids.append(source_id)
    own = getattr(node, "id_", None)
    if isinstance(own, str):
        ids.append(own)
    return ids


def _reader(path: str) -> Any:
    """pypdf's reader of ``path``, or None when pypdf is not installed or the file is not a PDF it can read."""
    try:
        from pypdf import PdfReader
    except ImportError:
        return None
    try:
        return PdfReader(path)
    except Exception:  # a damaged or hostile file: the label stays the section
        return None


@functools.lru_cache(maxsize=32)
def _labels(path: str, mtime_ns: int, size: int) -> tuple[str, ...]:
    """Each physical page's printed label, read once per version of the file; none when it cannot be read."""
    reader = _reader(path)
    try:
        return tuple(reader.page_labels) if reader is not None else ()
    except Exception:
        return ()


@functools.lru_cache(maxsize=256)
def _page_words(path: str, mtime_ns: int, size: int, index: int) -> str:
    """A page's text as pypdf extracts it (as PDFReader did), white space collapsed."""
    reader = _reader(path)
    try:
        return _SPACE.sub(" ", reader.pages[index].extract_text() or "").strip() if reader is not None else ""
    except Exception:
        return ""
