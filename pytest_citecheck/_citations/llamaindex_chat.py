"""LlamaIndex chat answers: a ``ChatResponse`` (``llm.chat()``, ``llm.stream_chat()``) and the citations it carries.

llama-index-llms-anthropic puts Claude's ``search_result_location`` citations into the answer's
``message.blocks`` as llama-index-core ``CitationBlock``s (``cited_content`` the passage as a ``TextBlock``,
``source`` and ``title`` the search result's, ``additional_location_info`` its ``search_result_index`` and
``start_block_index`` / ``end_block_index``), beside the ``TextBlock``s of the answer's text. A citation
block says nothing of the text it cites but by where it stands: ``chat()`` puts it after that text block,
``stream_chat()`` before it (Claude streams a block's citations before its text; the last streamed response,
whose ``delta`` is a string, holds every block). Each citation block is read as the Claude citation it came
from, on the text block it cites (``anthropic`` reads it: one reading of search results for both), so a
check against a ``Corpus`` keyed by the search results' sources locates each quote in its own document.

``chat()``'s response also keeps the provider's answer as ``raw``: the whole Anthropic ``Message`` (every
citation, ``char_location`` and ``page_location`` of documents too, which become no ``CitationBlock``), or a
Bedrock Converse response (llama-index-llms-bedrock-converse keeps its ``citationsContent`` nowhere else).
When ``raw`` is one, it is read instead of the blocks: each citation on the exact text it was given for.

Fails closed: a citation block that cannot be read (its passage an image, no text, its source no string) is
one invalid citation named by its path (``message.blocks[3].cited_content``); one with no text block to cite
is invalid too, and so is a block of a type llama-index-core does not have (a ``CitationBlock`` whose
``block_type`` was corrupted would cite text unseen: ``ThinkingBlock``, ``ToolCallBlock``, ``ImageBlock`` and the
other types of ``ContentBlock`` are read as citing nothing, as they are); a ``ChatMessage`` alone, whose order of blocks cannot say which text a citation cites, is
refused whole with the remedy (pass the ``ChatResponse``). llama-index is not imported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_citecheck._citations.bedrock import ConverseBlock, converse_parts, is_converse_answer
from pytest_citecheck._citations.containers import citing_parts
from pytest_citecheck._citations.model import MISSING, field_of
from pytest_citecheck._errors import CitationInputError

# ``additional_location_info``'s keys that llama-index-llms-anthropic writes, each the Claude field it holds.
_LOCATION_KEYS = ("search_result_index", "start_block_index", "end_block_index")
# Every ``block_type`` of llama-index-core 0.14's ``ContentBlock`` union (tests/citations/test_llamaindex_chat_blocks.py
# compares them with the installed version's). Only text and citation blocks bear on the
# check; the others cite nothing. A block of any other type is not skipped: it may be a citation made unreadable.
_BLOCK_TYPES = frozenset(
    {"text", "citation", "image", "audio", "video", "document", "cache", "citable", "thinking", "tool_call"}
)


def is_llamaindex_chat(raw: Any) -> bool:
    """A LlamaIndex ``ChatResponse`` (its ``message`` a ``ChatMessage`` of ``blocks``), or a ``ChatMessage``
    whose blocks hold a ``CitationBlock``."""
    message = field_of(raw, "message")
    if message is not MISSING:
        return _blocks(message) is not None and field_of(raw, "raw") is not MISSING
    blocks = _blocks(raw)
    return blocks is not None and any(field_of(block, "block_type") == "citation" for block in blocks)


def llamaindex_chat_parts(raw: Any) -> list[Any]:
    """The answer's text blocks, each an Anthropic text block with the citations it carries, in order."""
    message = field_of(raw, "message")
    if message is MISSING:
        raise CitationInputError(
            "a ChatMessage does not say which text its citation blocks cite (chat() puts each after the text it "
            "cites, stream_chat() before): pass the ChatResponse the LLM returned",
            field="blocks",
        )
    provider = field_of(raw, "raw")
    if field_of(provider, "type") == "message" and isinstance(field_of(provider, "content"), (list, tuple)):
        return citing_parts(provider)  # the whole Anthropic Message chat() was given
    if is_converse_answer(provider) and isinstance(provider, Mapping) and "output" in provider:
        return converse_parts(provider)  # the Bedrock Converse response
    delta = field_of(raw, "delta")
    return _text_blocks(_blocks(message) or [], streamed=delta is not None and delta is not MISSING)


def _blocks(message: Any) -> list[Any] | None:
    blocks = field_of(message, "blocks")
    if isinstance(blocks, (list, tuple)) and all(field_of(block, "block_type") is not MISSING for block in blocks):
        return list(blocks)
    return None


def _text_blocks(blocks: list[Any], *, streamed: bool) -> list[Any]:
    """Each text block with the citation blocks that cite it (after it, or before it when ``streamed``)."""
    texts = [index for index, block in enumerate(blocks) if field_of(block, "block_type") == "text"]
    cites, orphans = _cited_by(blocks, texts, streamed=streamed)
    unknown = [index for index, block in enumerate(blocks) if not _known(field_of(block, "block_type"))]
    parts: list[Any] = []
    for index in sorted([*texts, *orphans, *unknown]):
        if index in unknown:
            parts.append(_unknown(index, field_of(blocks[index], "block_type")))
        elif index in orphans:
            parts.append(_orphan(index, streamed))
        else:
            parts.append(_text_block(blocks, index, cites[index]))
    return parts


def _cited_by(blocks: list[Any], texts: list[int], *, streamed: bool) -> tuple[dict[int, list[int]], list[int]]:
    """The citation blocks citing each text block, and those with no text block to cite."""
    cites: dict[int, list[int]] = {index: [] for index in texts}
    orphans: list[int] = []
    for index, block in enumerate(blocks):
        if field_of(block, "block_type") != "citation":
            continue
        near = [text for text in texts if text > index] if streamed else [text for text in texts if text < index]
        if near:
            cites[near[0] if streamed else near[-1]].append(index)
        else:
            orphans.append(index)
    return cites, orphans


def _known(kind: Any) -> bool:
    return isinstance(kind, str) and kind in _BLOCK_TYPES


def _unknown(index: int, kind: Any) -> ConverseBlock:
    shown = repr(kind) if isinstance(kind, str) else f"a {type(kind).__name__}"
    error = CitationInputError(
        f"is {shown[:60]}, no block type of llama-index-core ({', '.join(sorted(_BLOCK_TYPES))}): it may be a "
        "citation, which cannot be read; pass the ChatResponse the LLM returned, unchanged",
        field=f"message.blocks[{index}].block_type",
    )
    return ConverseBlock({"type": "text", "text": "", "citations": None}, {}, {}, broken=error)


def _orphan(index: int, streamed: bool) -> ConverseBlock:
    where = "after it (stream_chat() sends a citation before its text)" if streamed else "before it (chat())"
    error = CitationInputError(
        f"cites no text: no text block stands {where}; pass the whole ChatResponse the LLM returned",
        field=f"message.blocks[{index}]",
    )
    return ConverseBlock({"type": "text", "text": "", "citations": None}, {}, {}, broken=error)


def _text_block(blocks: list[Any], index: int, cited_by: list[int]) -> ConverseBlock:
    """A text block as Claude's, each citation block citing it one of its citations (``#<part>.<n>``)."""
    text = field_of(blocks[index], "text")
    if not isinstance(text, str):
        error = CitationInputError(
            f"must be a string, got {type(text).__name__}", field=f"message.blocks[{index}].text"
        )
        return ConverseBlock({"type": "text", "text": "", "citations": None}, {}, {}, broken=error)
    citations: list[Any] = []
    unreadable: dict[int, CitationInputError] = {}
    fields: dict[int, dict[str, str]] = {}
    block = ConverseBlock({"type": "text", "text": text}, fields, unreadable)
    for number, cited in enumerate(cited_by, start=1):
        path = f"message.blocks[{cited}]"
        block.places[number] = path
        fields[number] = {"cited_text": "cited_content.text", "source": "source", "title": "title"} | {
            key: f"additional_location_info['{key}']" for key in _LOCATION_KEYS
        }
        try:
            citations.append(_claude_citation(blocks[cited]))
        except CitationInputError as error:
            unreadable[number] = error
            citations.append({"type": "unreadable"})  # keeps its place; ``unreadable`` says why
    block["citations"] = citations or None
    return block


def _claude_citation(block: Any) -> dict[str, Any]:
    """A ``CitationBlock`` as the Claude ``search_result_location`` it was made from."""
    content = field_of(block, "cited_content")
    if field_of(content, "block_type") != "text" or not isinstance(field_of(content, "text"), str):
        kind = field_of(content, "block_type")
        raise CitationInputError(
            f"must be a text block of the passage cited, got {kind if isinstance(kind, str) else type(content).__name__}"
            ": only text can be located in the source",
            field="cited_content",
        )
    citation: dict[str, Any] = {"type": "search_result_location", "cited_text": field_of(content, "text")}
    for name in ("source", "title"):
        value = field_of(block, name)
        if value is MISSING or value is None:
            continue
        if not isinstance(value, str):
            raise CitationInputError(f"must be a string, got {type(value).__name__}", field=name)
        citation[name] = value
    info = field_of(block, "additional_location_info")
    if info is not MISSING and info is not None and not isinstance(info, Mapping):
        raise CitationInputError(
            f"must be a mapping of the search result's indices, got {type(info).__name__}",
            field="additional_location_info",
        )
    citation.update({key: info[key] for key in _LOCATION_KEYS if isinstance(info, Mapping) and key in info})
    return citation
