"""Whole answers split into the parts that cite: an Anthropic ``Message``, an OpenAI ``Response``.

A test may pass the SDK's whole response object (or a dict shaped like it) where citations are
expected. An Anthropic ``Message`` (``type == "message"``) holds content blocks, and its ``text``
blocks carry the citations. An OpenAI ``Response`` (``object == "response"``) holds output items, and
its ``message`` items hold ``output_text`` parts with annotations. Other blocks and items (thinking,
tool use, a file search call, a refusal) cite nothing and are left out. Neither SDK is imported.
"""

from __future__ import annotations

from typing import Any

from pytest_citecheck._citations.model import MISSING, field_of
from pytest_citecheck._citations.web_fetch import fetched_pages_cited

CITING_PARTS = frozenset({"text", "output_text"})
# The blocks of an answer that cite nothing: Anthropic's (anthropic 2.17's ``ContentBlock`` and ``BetaContentBlock``
# unions, text aside) and LangChain's standard ones (langchain-core 1.8's content blocks, text and ``non_standard``
# aside). In a list of an answer's blocks (``message.content``, ``content_blocks``) they are passed over, as in the
# whole answer; one of them that carries citations is not (it is read, and refused, as a citation).
QUIET_BLOCK_TYPES = frozenset(
    {
        # Anthropic
        "thinking",
        "redacted_thinking",
        "tool_use",
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "container_upload",
        "advisor_tool_result",
        "compaction",
        "mcp_tool_listing",
        "mcp_tool_use",
        "mcp_tool_result",
        # LangChain
        "reasoning",
        "tool_call",
        "tool_call_chunk",
        "invalid_tool_call",
        "server_tool_call",
        "server_tool_call_chunk",
        "server_tool_result",
        "image",
        "audio",
        "video",
        "file",
        "refusal",
    }
)


class UnreadBlock:
    """A block of a ``Message`` that is not text but carries citations (a kind newer than this version): refused
    as one invalid citation naming ``content[index].citations``, never left out with its citations."""

    def __init__(self, block: Any, index: int) -> None:
        self.block = block
        self.index = index
        self.kind = field_of(block, "type")


def is_quiet_block(raw: Any) -> bool:
    """A block of an answer that cites nothing: a kind of ``QUIET_BLOCK_TYPES`` without citations or annotations."""
    kind = field_of(raw, "type")
    return (
        isinstance(kind, str)
        and kind in QUIET_BLOCK_TYPES
        and not _cites(raw)
        and field_of(raw, "claim") is MISSING  # a citation of the user's own, whatever its other keys
    )


def _kind(raw: Any) -> str | None:
    kind = field_of(raw, "type")
    return kind if isinstance(kind, str) else None


def _cites(raw: Any) -> bool:
    """The part carries citations or annotations: any value but None or an empty list (a string or a dict
    is no shape we read, and is refused with the part rather than passed over)."""
    return any(
        (value := field_of(raw, name)) is not None and value is not MISSING and value != [] and value != ()
        for name in ("citations", "annotations")
    )


def is_answer(raw: Any) -> bool:
    """A whole Anthropic ``Message``, OpenAI ``Response`` or OpenAI output message."""
    if field_of(raw, "object") == "response" and isinstance(field_of(raw, "output"), (list, tuple)):
        return True
    return field_of(raw, "type") == "message" and isinstance(field_of(raw, "content"), (list, tuple))


def citing_parts(raw: Any) -> list[Any]:
    """The parts of a whole answer that may carry citations, in order."""
    if field_of(raw, "object") == "response":
        parts = []
        for item in field_of(raw, "output"):
            if is_answer(item):
                parts.extend(citing_parts(item))
        return parts
    # A Claude citation of a page its web fetch tool fetched is read by the page's URL, which only the tool's
    # result block (left out below) names.
    content = fetched_pages_cited(list(field_of(raw, "content")))
    return [
        part if _kind(part) in CITING_PARTS else UnreadBlock(part, index)
        for index, part in enumerate(content)
        if _kind(part) in CITING_PARTS or _cites(part)
    ]
