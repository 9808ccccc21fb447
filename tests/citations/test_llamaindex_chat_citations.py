"""A LlamaIndex ``ChatResponse`` whose message carries ``CitationBlock``s is read as the Claude citations they are.

llama-index-llms-anthropic (0.12.3) turns each Claude ``search_result_location`` citation into a llama-index-core
``CitationBlock`` in ``message.blocks``: after the text block it cites in ``chat()``'s response, before it in
``stream_chat()``'s (Claude streams a block's citations before its text). ``chat()`` also keeps the whole
Anthropic ``Message`` as ``raw``. On main such a response was refused whole ("an object read as no answer
pytest-citecheck knows"). The responses here are built as that integration's own code builds them (its
``_get_blocks_and_tool_calls_and_thinking`` and ``stream_chat``, run over the recorded answer below with an
httpx mock transport; see the notes of this change), from real llama-index-core and anthropic objects.

The answer is Claude's response in Anthropic's "Search results" docs (``claude_search_results_acme.json``,
README there): two text blocks, each citing one search result, the documents keyed by their sources.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import pytest
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CitationBlock,
    ImageBlock,
    MessageRole,
    TextBlock,
)
from support import converse_pdf_pages, judged_check
from test_bedrock_converse import recorded  # the recorded Converse answer (haystack's test)

from pytest_citecheck import CitationInputError, Corpus, Source, Status
from pytest_citecheck._citations.adapt import adapt_answer

PAYLOAD = json.loads((Path(__file__).parent.parent / "data/payloads/claude_search_results_acme.json").read_text())
OVERVIEW, PRICING = "https://docs.company.com/overview", "https://docs.company.com/pricing"
# The two search results the request sent (their text as the docs give it), each one text block.
RESULTS = {
    OVERVIEW: "Acme Dashboard is a monitoring tool for distributed systems. It supports real-time alerting and "
    "custom metric dashboards.",
    PRICING: "Acme Dashboard is available on the Starter plan at $10 per user per month and the Enterprise plan "
    "with custom pricing.",
}
EXPECTED = [("#1.1", PAYLOAD["content"][1]["text"], OVERVIEW), ("#3.1", PAYLOAD["content"][3]["text"], PRICING)]


def corpus() -> Corpus:
    return Corpus(
        {url: Source.from_blocks([{"type": "text", "text": text}], name=url) for url, text in RESULTS.items()}
    )


def citation_block(citation: Any) -> CitationBlock:
    """What llama-index-llms-anthropic makes of a Claude ``search_result_location`` citation."""
    return CitationBlock(
        cited_content=TextBlock(text=citation.cited_text),
        source=citation.source,
        title=citation.title,
        additional_location_info={
            "start_block_index": citation.start_block_index,
            "end_block_index": citation.end_block_index,
            "search_result_index": citation.search_result_index,
        },
    )


def blocks(message: anthropic.types.Message, *, streamed: bool) -> list[Any]:
    """``chat()``: each text block, then its citation blocks; ``stream_chat()``: the citations first."""
    made: list[Any] = []
    for block in message.content:
        assert block.type == "text"
        cited = [citation_block(citation) for citation in block.citations or []]
        made.extend([*cited, TextBlock(text=block.text)] if streamed else [TextBlock(text=block.text), *cited])
    return made


def chat_response(*, streamed: bool = False, keep_raw: bool = True) -> ChatResponse:
    message = anthropic.types.Message.model_validate(PAYLOAD)
    raw = dict(message) if keep_raw and not streamed else {"type": "content_block_stop", "index": 3}
    return ChatResponse(
        message=ChatMessage(role=MessageRole.ASSISTANT, blocks=blocks(message, streamed=streamed)),
        raw=raw,
        delta="" if streamed else None,
    )


def read(response: Any) -> list[tuple[str, str, str | None]]:
    adapted = adapt_answer(response, source=corpus())
    assert adapted.invalid == {} and adapted.uncited == []
    for citation in adapted.citations:
        assert citation.quote == RESULTS[citation.document or ""]
    return [(citation.id, citation.claim, citation.document) for citation in adapted.citations]


def test_a_chat_response_is_read_from_the_anthropic_message_it_keeps() -> None:
    assert read(chat_response()) == EXPECTED


def test_a_chat_response_without_its_message_is_read_from_its_citation_blocks() -> None:
    """Each citation block cites the text block before it (``chat()``'s order)."""
    assert read(chat_response(keep_raw=False)) == EXPECTED


def test_a_streamed_chat_response_reads_each_citation_block_with_the_text_after_it() -> None:
    """Read by ``chat()``'s order, each would cite the text before it: the heading, "**Available plans:** "."""
    assert read(chat_response(streamed=True)) == EXPECTED


def test_a_chat_response_serialised_and_loaded_is_read_alike() -> None:
    assert read(json.loads(chat_response(keep_raw=False).model_dump_json())) == EXPECTED


def test_each_citation_is_located_in_its_own_search_result_and_judged(direct_checker: Any) -> None:
    results, claims = judged_check(direct_checker, chat_response(streamed=True), corpus())
    assert [(r.id, r.status) for r in results] == [("#1.1", Status.FOUND), ("#3.1", Status.FOUND)]
    assert sorted(claims) == sorted(claim for _, claim, _ in EXPECTED)  # sent on threads


def with_block(index: int, block: Any) -> ChatResponse:
    response = chat_response(keep_raw=False)
    response.message.blocks[index] = block
    return response


def test_a_citation_block_of_an_image_is_one_invalid_citation_named_by_its_path() -> None:
    image = CitationBlock.model_construct(
        cited_content=ImageBlock(url="https://docs.company.com/a.png"),
        source=OVERVIEW,
        title="Product Overview",
        additional_location_info={},
    )
    adapted = adapt_answer(with_block(2, image), source=corpus())
    assert [citation.id for citation in adapted.citations] == ["#1.1", "#3.1"]
    error = adapted.invalid.pop("#1.1")
    assert adapted.invalid == {}
    assert error.field == "message.blocks[2].cited_content" and "got image" in str(error)


def test_a_bad_search_result_index_names_its_place_in_the_block() -> None:
    response = chat_response(keep_raw=False)
    response.message.blocks[2].additional_location_info["start_block_index"] = -1  # type: ignore[union-attr]
    adapted = adapt_answer(response, source=corpus())
    assert list(adapted.invalid) == ["#1.1"]
    assert adapted.invalid["#1.1"].field == "message.blocks[2].additional_location_info['start_block_index']"


def test_a_citation_block_with_no_text_before_it_is_one_invalid_citation() -> None:
    response = chat_response(keep_raw=False)
    response.message.blocks.insert(0, response.message.blocks[2])
    adapted = adapt_answer(response, source=corpus())
    assert [citation.id for citation in adapted.citations] == ["#0", "#2.1", "#4.1"]
    assert list(adapted.invalid) == ["#0"]
    assert adapted.invalid["#0"].field == "message.blocks[0]" and "cites no text" in str(adapted.invalid["#0"])


def test_a_serialised_citation_block_with_a_bad_source_is_one_invalid_citation() -> None:
    dumped = json.loads(chat_response(keep_raw=False).model_dump_json())
    dumped["message"]["blocks"][5]["source"] = 5
    adapted = adapt_answer(dumped, source=corpus())
    assert list(adapted.invalid) == ["#3.1"]
    assert adapted.invalid["#3.1"].field == "message.blocks[5].source"


def test_a_chat_message_alone_is_refused_with_the_remedy() -> None:
    with pytest.raises(CitationInputError, match="pass the ChatResponse the LLM returned") as raised:
        adapt_answer(chat_response(keep_raw=False).message, source=corpus())
    assert raised.value.field == "blocks"


def test_a_bedrock_converse_response_kept_as_raw_is_read() -> None:
    """llama-index-llms-bedrock-converse keeps the Converse response (``raw=dict(response)``), and its
    ``citationsContent`` nowhere else."""
    response = ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content="answer"), raw=recorded())
    adapted = adapt_answer(response, source=converse_pdf_pages())
    assert [citation.id for citation in adapted.citations] == ["#1.1"] and adapted.invalid == {}
