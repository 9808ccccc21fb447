"""Pieces of a streamed answer, passed where an answer belongs: named, with what to pass instead.

A test that keeps what a stream yielded (``list(stream)``: Claude's stream events, OpenAI chat completion
chunks or Responses API events, Cohere ``chat_stream`` events) holds pieces, none of them an answer (a list of
Bedrock ConverseStream events is read whole, by ``bedrock_stream``; one such event alone is a piece). Read
as citations they failed as something else ("field 'claim': is missing", a duplicate id when every chunk
carries the completion's ``id``), naming neither the cause nor the remedy. Each SDK assembles its stream
into the answer a check reads; no SDK is imported here: the pieces are known by their ``type`` / ``object``.
"""

from __future__ import annotations

from typing import Any

from pytest_citecheck._citations.bedrock_stream import converse_event_kind
from pytest_citecheck._citations.model import MISSING, field_of
from pytest_citecheck._errors import CitationInputError

# Claude's raw stream events, and the events of the SDK's ``messages.stream(...)`` helper (these carry the
# ``snapshot`` of the message so far; a ``"text"`` one without it is a text block).
_CLAUDE_EVENTS = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
    }
)
_CLAUDE_HELPER_EVENTS = frozenset({"text", "citation", "thinking", "signature", "input_json"})
_COHERE_EVENTS = frozenset(
    {
        "message-start",
        "content-start",
        "content-delta",
        "content-end",
        "citation-start",
        "citation-end",
        "message-end",
        "tool-plan-delta",
        "tool-call-start",
        "tool-call-delta",
        "tool-call-end",
        "debug",
    }
)


def streamed_piece(raw: Any) -> str | None:
    """What a piece of a stream is and what to pass instead, or None for anything that is no such piece."""
    converse = converse_event_kind(raw)
    if converse is not None:
        return (
            f"a {converse!r} event of a streamed Bedrock Converse answer, not an answer: pass the list of all the "
            "stream's events (list(converse_stream(...)['stream'])), read as the answer they make"
        )
    kind, kind_of_object = field_of(raw, "type"), field_of(raw, "object")
    if kind_of_object == "chat.completion.chunk":
        return (
            "a chunk of a streamed OpenAI chat completion, not an answer: pass the ChatCompletion the SDK "
            "assembles (client.chat.completions.stream(...), then stream.get_final_completion())"
        )
    if not isinstance(kind, str):
        return None
    if kind.startswith("response.") and field_of(raw, "sequence_number") is not MISSING:
        return (
            f"a {kind!r} event of a streamed OpenAI Response, not an answer: pass the Response the SDK assembles "
            "(client.responses.stream(...), then stream.get_final_response())"
        )
    if kind in _CLAUDE_EVENTS or (kind in _CLAUDE_HELPER_EVENTS and field_of(raw, "snapshot") is not MISSING):
        return (
            f"a {kind!r} event of a streamed Claude answer, not an answer: pass the Message the SDK assembles "
            "(client.messages.stream(...), then stream.get_final_message())"
        )
    if kind in _COHERE_EVENTS:
        return (
            f"a {kind!r} event of a streamed Cohere answer (chat_stream), not an answer: Cohere's SDK does not "
            "assemble a stream, so check the response of co.chat(...)"
        )
    return None


def refuse_streamed_piece(raw: Any, position: int) -> None:
    """A ``CitationInputError`` naming the piece by its position and its ``type`` (``object``), when it is one."""
    piece = streamed_piece(raw)
    if piece is not None:
        field = "object" if field_of(raw, "object") == "chat.completion.chunk" else converse_event_kind(raw) or "type"
        raise CitationInputError(f"is {piece}", citation=f"#{position}", field=field)
