"""LangChain messages: an ``AIMessage`` and its standard content blocks (langchain-core 1.x).

``AIMessage.content_blocks`` translates a provider's answer into standard blocks: a ``"text"`` block
with ``annotations``, each a ``"citation"`` (``cited_text``, ``title``, ``url``, ``start_index`` /
``end_index``, and the provider's own fields in ``extras``; one it cannot translate is a
``"non_standard_annotation"`` holding the provider's citation, read as it came). A block whose citations came from Gemini's
grounding metadata (``extras["google_ai_metadata"]``; their ``cited_text`` is the answer's own segment)
is read as the Gemini response it came from; one of a Bedrock Converse answer (``ChatBedrockConverse``: its
citations' ``extras["location"]``, or its raw ``citations``) as the Converse block it came from (``bedrock``);
one whose citations carry ``cited_text`` (Claude's) as the
Anthropic text block it came from; one whose citations mark spans of the answer (OpenAI's) as an
OpenAI ``output_text`` part. A text block without annotations
cites nothing. langchain-core is never imported: the message is read by its attributes. A message whose
``content_blocks`` langchain-core cannot translate (its translator raises on a malformed block) is read from
its ``content``, each text block as its provider's own (``untranslated_parts``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_citecheck._citations.bedrock import (
    bedrock_citation,
    bedrock_text_block,
    broken_block,
    is_bedrock_annotation,
    is_bedrock_text_block,
    standard_bedrock_block,
)
from pytest_citecheck._citations.model import MISSING, field_of
from pytest_citecheck._citations.web_fetch import fetched_pages_cited
from pytest_citecheck._errors import CitationInputError


def is_langchain_message(raw: Any) -> bool:
    """A LangChain ``AIMessage`` (or ``AIMessageChunk``): ``type == "ai"`` with ``content_blocks``.

    Told without reading ``content_blocks``: langchain-core translates the content on each read, and its
    translator raises on a malformed block (``langchain_parts`` then reads the content itself)."""
    if field_of(raw, "type") not in ("ai", "AIMessageChunk"):
        return False
    if isinstance(raw, Mapping):
        return "content_blocks" in raw
    return hasattr(type(raw), "content_blocks") or "content_blocks" in getattr(raw, "__dict__", {})


def langchain_parts(raw: Any) -> list[Any]:
    """The text blocks of an ``AIMessage``'s standard content, each as the shape its provider gave it."""
    metadata = field_of(raw, "response_metadata")
    provider = metadata.get("model_provider") if isinstance(metadata, Mapping) else None
    try:
        blocks = raw["content_blocks"] if isinstance(raw, Mapping) else raw.content_blocks
    except Exception as error:  # langchain-core's translator fails on a malformed block, by any error
        return untranslated_parts(raw, provider, error)
    blocks = list(blocks or ())
    refuse_textless_citations(blocks, "content_blocks")
    parts = standard_parts([block for block in blocks if field_of(block, "type") == "text"], provider)
    # Claude's web fetch results, which langchain-core keeps as ``server_tool_result`` blocks: a citation of a
    # fetched page is read by the page's URL (``fetched_pages_cited``), as in the Message they came from.
    fetched = [block for block in blocks if field_of(block, "type") == "server_tool_result"]
    return fetched_pages_cited(fetched + parts)[len(fetched) :] if fetched else parts


def refuse_textless_citations(blocks: list[Any], where: str) -> None:
    """A message with a text block that carries citations but no text is refused whole: its text is elsewhere
    in the message, so no citation of it can be read with the words it supports (langchain-anthropic streams
    a citation with its block's index and the text with index 0, or as plain strings, so a merged stream puts
    every text in the first block and leaves the citations of the others with none). Gemini's blocks are read
    together (``standard_parts``), their citations all on the first."""
    if any(is_gemini_text_block(block) for block in blocks):
        return
    for index, block in enumerate(blocks):
        text = field_of(block, "text")
        cites = _annotations(block) or field_of(block, "citations") not in (MISSING, None, [], ())
        if field_of(block, "type") == "text" and isinstance(text, str) and not text.strip() and cites:
            raise CitationInputError(
                "carries citations but no text: the text they cite is elsewhere in the message, as in a stream "
                "LangChain merged chunk by chunk (langchain-anthropic streams a citation apart from its text), so "
                "no citation of this message can be read with the words it supports; pass the answer of a call "
                "that does not stream (streaming=False, then .invoke(...)), or the provider's own final message "
                "(anthropic's stream.get_final_message())",
                field=f"{where}[{index}]",
            )


# A provider's own text block in ``AIMessage.content``: the key that holds its citations, and the provider's
# block it is read as (Claude's and Bedrock's by ``anthropic``, OpenAI's by ``openai``), when langchain-core
# cannot translate the message.
_OWN_BLOCKS: dict[str, tuple[str, Any]] = {
    "bedrock_converse": ("citations", lambda text, cited: bedrock_text_block({"text": text, "citations": cited})),
    "anthropic": ("citations", lambda text, cited: {"type": "text", "text": text, "citations": cited}),
    "openai": ("annotations", lambda text, cited: {"type": "output_text", "text": text, "annotations": cited}),
}


def untranslated_parts(raw: Any, provider: Any, error: Exception) -> list[Any]:
    """An ``AIMessage`` whose ``content_blocks`` langchain-core could not translate (``error``), read from its
    ``content`` as the provider gave it: each text block as the provider's own block, one that cannot be read
    one invalid citation naming ``content[i]`` and its field, as a Converse answer's malformed block is. A
    message whose citations are not in its blocks (Gemini's are in ``response_metadata``), or of a provider
    whose blocks are not read here, is refused whole, naming what langchain-core said."""
    content = field_of(raw, "content")
    own = _OWN_BLOCKS.get(provider) if isinstance(provider, str) else None
    if own is None or not isinstance(content, (list, tuple)):
        raise CitationInputError(
            f"langchain-core could not translate this AIMessage (model_provider {provider!r}): "
            f"{type(error).__name__}: {str(error)[:200]}; fix the message's content or response_metadata, or pass the "
            "provider's own response instead",
            field="content_blocks",
        )
    key, read = own
    return [
        _own_block(block, f"content[{index}]", key, read)
        for index, block in enumerate(content)
        if isinstance(block, Mapping) and block.get("type") == "text"  # as langchain-core keeps them
    ]


def _own_block(block: Mapping[str, Any], where: str, key: str, read: Any) -> Any:
    text, cited = block.get("text"), block.get(key)
    try:
        if not isinstance(text, str):
            raise CitationInputError(f"must be a string, got {type(text).__name__}", field=f"{where}.text")
        if cited is not None and not isinstance(cited, (list, tuple)):
            raise CitationInputError(f"must be a list of citations, got {type(cited).__name__}", field=f"{where}.{key}")
    except CitationInputError as error:  # one bad block never hides the message's other citations
        return broken_block(text if isinstance(text, str) else "", error)
    return read(text, list(cited or ()))


def is_gemini_text_block(raw: Any) -> bool:
    """A standard text block carrying citations translated from Gemini's grounding metadata."""
    return is_standard_text_block(raw) and any(_grounding(item) is not None for item in _cited(raw))


def standard_parts(texts: list[Any], provider: Any = None) -> list[Any]:
    """Standard text blocks of one answer, each as the shape its provider gave it.

    A Gemini answer's text blocks are read together, as the one response they came from: langchain-core
    puts every grounding citation on the first text block, and a segment's offsets count bytes of the
    whole answer, so block by block the sentences of the later blocks would be listed as uncited."""
    if not any(is_gemini_text_block(block) for block in texts):
        return [standard_part(block, provider) for block in texts]
    together = [block for block in texts if isinstance(field_of(block, "text"), str)]
    unreadable = [block for block in texts if not isinstance(field_of(block, "text"), str)]
    answer = "".join(field_of(block, "text") for block in together)
    cited = [item for block in together for item in _cited(block)]
    return [_gemini_response(answer, cited)] + [standard_part(block, provider) for block in unreadable]


def _annotations(block: Any) -> list[Any]:
    annotations = field_of(block, "annotations")
    return list(annotations) if isinstance(annotations, (list, tuple)) else []


def _cited(block: Any) -> list[Any]:
    """A standard block's ``"citation"`` annotations."""
    return [item for item in _annotations(block) if field_of(item, "type") == "citation"]


# What langchain-core makes of a provider's citation it cannot translate (a Claude citation without
# ``cited_text`` or of a type it does not know, OpenAI's ``container_file_citation``): the citation as the
# provider gave it, in ``value``. It is read as that provider's citation, never dropped: the Anthropic reader
# makes a malformed or unknown one ``invalid``, the OpenAI reader skips the files a model made.
_UNTRANSLATED = "non_standard_annotation"
_CLAUDE_TYPES = ("char_location", "page_location", "content_block_location", "search_result_location")


def _untranslated(item: Any) -> Any:
    value = field_of(item, "value")
    return {} if value is MISSING or value is None else value


def _in_order(block: Any, translate: Any) -> list[Any]:
    """The block's citations as its provider gave them, in order: each standard ``citation`` translated back,
    each one langchain-core could not translate as it came."""
    items = []
    for item in _annotations(block):
        kind = field_of(item, "type")
        if kind == "citation":
            items.append(translate(item))
        elif kind == _UNTRANSLATED:
            items.append(_untranslated(item))
    return items


def _from_claude(cited: list[Any], block: Any, provider: Any) -> bool:
    """Whether a standard block's citations came from Claude: the message says so, or a citation carries
    ``cited_text`` (OpenAI's never do), or an untranslated one is of a Claude citation's type."""
    if provider == "anthropic" or any(isinstance(field_of(item, "cited_text"), str) for item in cited):
        return True
    untranslated = [_untranslated(item) for item in _annotations(block) if field_of(item, "type") == _UNTRANSLATED]
    return any(
        field_of(value, "type") in _CLAUDE_TYPES + ("web_search_result_location",)
        or field_of(value, "cited_text") is not MISSING
        for value in untranslated
    )


def is_standard_text_block(raw: Any) -> bool:
    """A standard content block: ``{"type": "text", "text": ..., "annotations": [...]}``."""
    return (
        field_of(raw, "type") == "text"
        and isinstance(field_of(raw, "text"), str)
        and isinstance(field_of(raw, "annotations"), (list, tuple))
        and field_of(raw, "citations") is MISSING
    )


def standard_part(block: Any, provider: Any = None) -> dict[str, Any]:
    """A standard text block as the provider's shape it came from: a Gemini response (citations from
    grounding metadata), an Anthropic text block (citations with ``cited_text``) or an OpenAI part.
    ``provider`` is the message's ``model_provider``, when the block came in one."""
    if is_bedrock_text_block(block):  # a Converse answer's block as it came (no model_provider to translate it)
        return bedrock_text_block(block)
    text = field_of(block, "text")
    cited = _cited(block)
    if any(_grounding(item) is not None for item in cited):
        return _gemini_response(text, cited)
    if provider == "bedrock_converse" or any(is_bedrock_annotation(item, field_of) for item in cited):
        # Before Claude's: these carry ``cited_text`` too, and their page or offsets are in Bedrock's ``location``.
        return standard_bedrock_block(text, _in_order(block, lambda item: bedrock_citation(item, field_of)))
    if _from_claude(cited, block, provider):
        return {"type": "text", "text": text, "citations": _in_order(block, _anthropic_citation)}
    raw_citations = field_of(block, "citations")
    if raw_citations is not MISSING and raw_citations is not None:
        # A provider's own block langchain-core passed through (no model_provider to translate it): its citations
        # are Claude's, or malformed; the Anthropic reader reads them or makes them invalid, never drops them.
        return {"type": "text", "text": text, "citations": raw_citations}
    return {"type": "output_text", "text": text, "annotations": _in_order(block, _openai_annotation)}


# langchain-core drops a Claude citation's ``type``, keeping its other fields in ``extras``: the type is read
# back from them. A search result's citation also has block indices, so its ``search_result_index`` goes first.
_LOCATIONS = (
    ("start_char_index", "char_location"),
    ("start_page_number", "page_location"),
    ("search_result_index", "search_result_location"),
    ("start_block_index", "content_block_location"),
)


def _anthropic_citation(item: Any) -> dict[str, Any]:
    extras = field_of(item, "extras")
    citation: dict[str, Any] = dict(extras) if isinstance(extras, Mapping) else {}
    cited_text = field_of(item, "cited_text")
    if isinstance(cited_text, str):
        citation["cited_text"] = cited_text
    else:  # left out, so the error says it is missing (Bedrock's translator leaves it out of a malformed one)
        citation.pop("cited_text", None)
    for standard, anthropic in (("title", "document_title"), ("url", "url")):
        value = field_of(item, standard)
        if isinstance(value, str):
            citation[anthropic] = value
    kind = next((name for key, name in _LOCATIONS if key in citation), None)
    citation["type"] = kind or ("web_search_result_location" if "url" in citation else "char_location")
    return citation


def _openai_annotation(item: Any) -> dict[str, Any]:
    extras = field_of(item, "extras")
    extras = extras if isinstance(extras, Mapping) else {}
    url, title = field_of(item, "url"), field_of(item, "title")
    start, end = field_of(item, "start_index"), field_of(item, "end_index")
    if isinstance(url, str):
        return {"type": "url_citation", "url": url, "title": title, "start_index": start, "end_index": end}
    point = extras.get("index", end)
    return {"type": "file_citation", "filename": title, "file_id": extras.get("file_id"), "index": point}


def _grounding(item: Any) -> Mapping[str, Any] | None:
    """The Gemini grounding a citation came from (``extras["google_ai_metadata"]``), or None."""
    extras = field_of(item, "extras")
    metadata = extras.get("google_ai_metadata") if isinstance(extras, Mapping) else None
    return metadata if isinstance(metadata, Mapping) else None


def _gemini_response(text: Any, cited: list[Any]) -> dict[str, Any]:
    """Gemini grounding citations as the ``GenerateContentResponse`` they were translated from.

    langchain-core makes one citation per (grounding support, chunk): its ``cited_text`` is the support's
    segment, the answer's own words (the claim, not a passage of the page), and ``url`` / ``title`` the
    chunk's. Read as Anthropic's ``cited_text``, the answer's words would be looked for in the page as a
    quote. Rebuilt here, each segment is a claim-only citation of its chunk's page, as Gemini's own
    response is read (``gemini``).
    """
    chunks: dict[Any, dict[str, Any]] = {}
    supports: list[dict[str, Any]] = []
    for item in cited:
        grounding = _grounding(item) or {}
        index = grounding.get("grounding_chunk_index")
        if isinstance(index, int) and not isinstance(index, bool) and index >= 0:
            chunks.setdefault(index, {"web": {"uri": field_of(item, "url"), "title": field_of(item, "title")}})
        segment = {name: field_of(item, name) for name in ("start_index", "end_index")}
        segment["text"] = field_of(item, "cited_text")
        if supports and supports[-1]["segment"] == segment:
            supports[-1]["grounding_chunk_indices"].append(index)  # one support citing several chunks
        else:
            supports.append({"segment": segment, "grounding_chunk_indices": [index]})
    # A chunk no citation names is never cited: an empty one keeps the indices of the others in place.
    listed = [chunks.get(number, {}) for number in range(max(chunks, default=-1) + 1)]
    metadata = {"grounding_chunks": listed, "grounding_supports": supports}
    return {"candidates": [{"content": {"parts": [{"text": text}]}, "grounding_metadata": metadata}]}
