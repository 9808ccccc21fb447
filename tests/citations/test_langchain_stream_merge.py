"""A LangChain message merged from a Claude stream, whose citations lost their text, is refused, not misread.

``tests/data/payloads/langchain_anthropic_stream_chunks.json`` holds the chunks langchain-anthropic 1.7.10's
own ``ChatAnthropic.stream`` yielded (langchain-core 1.8.3, anthropic 2.17.0) over prism-php's recorded Claude
stream (``claude_stream_text_document_grass.sse``: two cited sentences), with ``output_version`` "v0" and
"v1"; the test merges them with langchain-core's own ``+``, as a user who keeps the whole streamed message does.
langchain-anthropic gives a streamed citation its block's ``index`` but every text delta index 0 (v1), or
plain strings (v0), so the merged message holds citations with no text: v0 reads as two citations with an
empty claim, v1 as the first citation claiming the whole answer ("The grass is green. The sky is blue.",
sent so to Jev) and the second with an empty claim. No claim of such a message can be trusted: it is refused
whole, naming the block, the cause and what to pass instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk

from pytest_citecheck import CitationInputError, Source
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck.testing import JevServer

CHUNKS = Path(__file__).resolve().parent.parent / "data" / "payloads" / "langchain_anthropic_stream_chunks.json"
SOURCE = Source(sections={"1": "The grass is green. The sky is blue."})


def merged(version: str) -> AIMessageChunk:
    """The recorded chunks of one ``output_version``, merged as a LangChain user merges a stream."""
    chunks = [
        AIMessageChunk(content=chunk["content"], response_metadata=chunk["response_metadata"])
        for chunk in json.loads(CHUNKS.read_text(encoding="utf-8"))[version]
    ]
    message = chunks[0]
    for chunk in chunks[1:]:
        message = message + chunk  # type: ignore[assignment]
    return message


@pytest.mark.parametrize(("version", "block"), [("v0", 0), ("v1", 1)])
def test_a_merged_claude_stream_is_refused_naming_the_textless_block(version: str, block: int) -> None:
    with pytest.raises(CitationInputError) as raised:
        adapt_answer(merged(version), source=SOURCE)
    error = raised.value
    assert error.field == f"content_blocks[{block}]"
    assert "carries citations but no text" in str(error)
    assert "stream" in str(error) and "get_final_message()" in str(error)


@pytest.mark.parametrize("part", ["content", "content_blocks"])
def test_the_merged_messages_content_passed_alone_is_refused_too(part: str) -> None:
    with pytest.raises(CitationInputError, match="carries citations but no text") as raised:
        adapt_answer(getattr(merged("v1"), part), source=SOURCE)
    assert raised.value.field == "citations[1]"


def test_no_claim_of_a_merged_claude_stream_is_judged(direct_checker: Any) -> None:
    """On main, v1's first citation was sent to Jev claiming the whole answer."""
    server = JevServer().start()
    try:
        with pytest.raises(CitationInputError, match="carries citations but no text"):
            direct_checker(server).check(merged("v1"), SOURCE)
    finally:
        server.stop()
    assert server.systemone_requests == []


def test_the_same_claude_answer_not_streamed_is_read() -> None:
    """Each block with its own text: langchain-core's translation of the recorded whole answer."""
    from langchain_core.messages import AIMessage

    recorded = json.loads((CHUNKS.parent / "claude_text_document_grass.json").read_text(encoding="utf-8"))
    message = AIMessage(content=recorded["content"], response_metadata={"model_provider": "anthropic"})
    adapted = adapt_answer(message, source=SOURCE)
    assert [(citation.claim, citation.quote) for citation in adapted.citations] == [
        ("the grass is green", "The grass is green. "),
        ("the sky is blue", "The sky is blue."),
    ]
