"""A Claude custom-content document as the app sent it: one section per content block.

Claude cites a custom-content document (``{"type": "document", "source": {"type": "content",
"content": [...]}}``) by block index (``content_block_location``): ``start_block_index`` and
``end_block_index`` count the ``content`` list. ``Source.from_blocks`` makes each text block a section
and keeps which section each block index is (``Source.blocks``), so the adapter can say which
section a citation's blocks are, and a quote found in another one is ``found-elsewhere``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pytest_citecheck._errors import SourceError


def content_of(document: Any) -> list[Any]:
    """The ``content`` list of a custom-content document: given as the list itself, as the document
    block, or as its ``source`` (``{"type": "content", "content": [...]}``); a string is one block."""
    if isinstance(document, Mapping):
        if document.get("type") == "document":
            document = document.get("source")
        if isinstance(document, Mapping):
            if document.get("type") != "content" or "content" not in document:
                raise SourceError(
                    "expected a custom-content document ({'type': 'content', 'content': [...]}, or the document "
                    f"block holding it), got a mapping of type {document.get('type')!r}",
                    field="blocks",
                )
            document = document["content"]
    if isinstance(document, str):
        return [document]
    if isinstance(document, (bytes, Mapping)) or not isinstance(document, Iterable):
        raise SourceError(
            f"expected the content blocks the app sent (a list), got {type(document).__name__}", field="blocks"
        )
    return list(document)


def block_text(block: Any, index: int) -> str | None:
    """A content block's text: a string, or a ``{"type": "text", "text": ...}`` block (dict or SDK
    object); None for a block that is not text (an image), which no citation can quote."""
    if isinstance(block, str):
        return block
    kind = block.get("type") if isinstance(block, Mapping) else getattr(block, "type", None)
    if kind != "text":
        if kind is None:
            raise SourceError(
                f"block {index} must be a text block ({{'type': 'text', 'text': ...}}) or a string, "
                f"got {type(block).__name__}",
                field="blocks",
            )
        return None
    text = block.get("text") if isinstance(block, Mapping) else getattr(block, "text", None)
    if not isinstance(text, str):
        raise SourceError(f"block {index}'s text must be a string, got {type(text).__name__}", field="blocks")
    return text


def block_sections(document: Any, ids: Sequence[str] | None) -> tuple[dict[str, str], tuple[str | None, ...]]:
    """The sections of a custom-content document (id -> text) and, by block index, each block's section
    id (None for a block that is not text). Ids are ``ids[i]`` or ``"block i"``."""
    blocks = content_of(document)
    if not blocks:
        raise SourceError("the custom-content document has no blocks", field="blocks")
    if ids is not None:
        ids = list(ids)
        if len(ids) != len(blocks):
            raise SourceError(
                f"ids has {len(ids)} names for {len(blocks)} blocks: give one section id per block", field="ids"
            )
        if len(set(ids)) != len(ids):
            repeated = sorted({name for name in ids if ids.count(name) > 1})
            raise SourceError(f"ids must be distinct; repeated: {', '.join(map(repr, repeated))}", field="ids")
    sections: dict[str, str] = {}
    by_index: list[str | None] = []
    for index, block in enumerate(blocks):
        text = block_text(block, index)
        name = ids[index] if ids is not None else f"block {index}"
        if text is None:
            by_index.append(None)
            continue
        sections[name] = text
        by_index.append(name)
    if not sections:
        raise SourceError("the custom-content document has no text block", field="blocks")
    return sections, tuple(by_index)
