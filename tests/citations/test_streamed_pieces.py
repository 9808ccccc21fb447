"""What a stream yielded, passed where an answer belongs, is refused naming what to pass (hunt-sdk-shapes).

A test that keeps the pieces of a stream (``list(stream)``) instead of the answer the SDK assembles failed
as something else: Claude's events and OpenAI's Responses API events with "field 'claim': is missing", a
list of chat completion chunks with "citation 'chatcmpl-…', field 'id': is used by more than one citation"
(every chunk carries the completion's id). Each piece is now named by its position and ``type`` / ``object``,
with the call that assembles the answer. The Claude events are the anthropic SDK's own, parsed from the
recorded stream (``tests/data/payloads/claude_stream_text_document_grass.sse``, prism-php) by its client;
the chunks are openai's ``ChatCompletionChunk``s, whose assembled ``ChatCompletion`` is checked as before.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from support import recorded_claude_stream_client

from pytest_citecheck import CitationInputError, Corpus, Source, Status
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck.testing import JevServer

SENT = "The grass is green. The sky is blue."
GPL = "https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt"


def claude_events() -> list[Any]:
    """The recorded stream as anthropic's client yields it: ``client.messages.create(..., stream=True)``."""
    client = recorded_claude_stream_client("claude_stream_text_document_grass.sse")
    document: Any = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": SENT}}
    with warnings.catch_warnings():  # the SDK warns of each model it lists as retiring: not this test's concern
        warnings.simplefilter("ignore", DeprecationWarning)
        stream = client.messages.create(
            model="claude-haiku-4-5",
            max_tokens=64,
            messages=[{"role": "user", "content": [document, {"type": "text", "text": "What color is the grass?"}]}],
            stream=True,
        )
    return list(stream)


def chat_chunks() -> list[Any]:
    """A web search answer streamed as chat completion chunks (the annotation in the last delta)."""
    from openai.types.chat import ChatCompletionChunk

    text, link = "GPL-2 programs come with no warranty ", f"([gnu.org]({GPL}?utm_source=openai))."
    annotation = {"url": f"{GPL}?utm_source=openai", "title": "GPL", "start_index": len(text)}
    annotation["end_index"] = len(text + link) - 1
    deltas = [
        {"role": "assistant", "content": ""},
        {"content": text},
        {"content": link},
        {"annotations": [{"type": "url_citation", "url_citation": annotation}]},
    ]
    return [
        ChatCompletionChunk.model_validate(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "gpt-4o-search-preview",
                "choices": [{"index": 0, "delta": delta, "finish_reason": "stop" if n == 3 else None}],
            }
        )
        for n, delta in enumerate(deltas)
    ]


def test_claude_stream_events_are_refused_naming_the_final_message() -> None:
    events = claude_events()
    assert {event.type for event in events} >= {"message_start", "content_block_delta", "message_stop"}
    adapted = adapt_answer(events)
    # Before: "citation '#0', field 'claim': is missing: every citation needs the claim it supports".
    assert len(adapted.invalid) == len(events)
    error = adapted.invalid["#0"]
    assert (error.citation, error.field) == ("#0", "type")
    assert "'message_start' event of a streamed Claude answer, not an answer" in str(error)
    assert "stream.get_final_message()" in str(error)


def test_chat_completion_chunks_are_refused_naming_the_final_completion(direct_checker: Any) -> None:
    from openai.lib.streaming.chat import ChatCompletionStreamState

    chunks = chat_chunks()
    corpus = Corpus({GPL: "# GPL\n\nBECAUSE THE PROGRAM IS LICENSED FREE OF CHARGE, THERE IS NO WARRANTY.\n"})
    server = JevServer().start()
    try:
        checker = direct_checker(server)
        # Before: "citation 'chatcmpl-1', field 'id': is used by more than one citation; ids must be unique".
        with pytest.raises(CitationInputError, match=r"citation '#0', field 'object': is a chunk of a streamed"):
            checker.check(chunks, corpus)
        with pytest.raises(CitationInputError, match=r"field 'citations': .*got a chunk of a streamed OpenAI"):
            checker.check(chunks[-1], corpus)
        # What the SDK assembles from the same chunks is read as before.
        state = ChatCompletionStreamState()
        for chunk in chunks:
            state.handle_chunk(chunk)
        results = checker.check(state.get_final_completion(), corpus)
    finally:
        server.stop()
    assert [(r.claim, r.status, r.document) for r in results] == [
        ("GPL-2 programs come with no warranty.", Status.DOCUMENT_ONLY, GPL)
    ]


def test_a_responses_api_stream_event_is_refused_and_a_text_block_is_still_a_text_block() -> None:
    from openai.types.responses import ResponseOutputTextAnnotationAddedEvent

    event = ResponseOutputTextAnnotationAddedEvent.model_validate(
        {
            "type": "response.output_text.annotation.added",
            "annotation": {"type": "url_citation", "url": GPL, "title": "GPL", "start_index": 0, "end_index": 5},
            "annotation_index": 0,
            "content_index": 0,
            "item_id": "msg_1",
            "output_index": 1,
            "sequence_number": 5,
        }
    )
    error = adapt_answer([event]).invalid["#0"]
    assert (error.field, "stream.get_final_response()" in str(error)) == ("type", True)
    # A Claude text block (type "text", no snapshot) is no stream event.
    block = {"type": "text", "text": "The grass is green.", "citations": None}
    assert adapt_answer([block], source=Source(sections={"s": SENT})).invalid == {}
