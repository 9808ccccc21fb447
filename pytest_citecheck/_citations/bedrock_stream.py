"""Amazon Bedrock ConverseStream answers: the events boto3's ``converse_stream()`` yields, read as the answer they make.

``converse_stream(...)["stream"]`` yields one dict per event, each of one key (botocore's bedrock-runtime
2023-09-30 model, ``ConverseStreamOutput``): ``messageStart {role}``; for each content block
``contentBlockStart {contentBlockIndex, start}`` (only a ``toolUse``, ``toolResult`` or ``image`` block has one:
a text block begins with its first delta), ``contentBlockDelta {contentBlockIndex, delta}`` and
``contentBlockStop {contentBlockIndex}``; then ``messageStop {stopReason}`` and ``metadata``. A ``delta`` is one of
``text`` (a piece of the block's text), ``citation`` (a ``CitationsDelta``: ``title``, ``source``,
``sourceContent``, ``location``), ``reasoningContent``, ``toolUse``, ``toolResult`` and ``image``.

A block with citation deltas is the ``citationsContent`` block ``converse()`` gives for it (its text the text
deltas joined, its citations the citation deltas in order), one with text alone a ``text`` block; ``bedrock``
reads them as it reads a Converse answer, so the citations are checked as the unstreamed answer's are. Each
``CitationsDelta`` is one whole citation: a logged Bedrock stream shows one delta carrying the title, the
passage and the page, and strands-agents assembles them so. No public recording of a whole streamed answer
with citations was found: were one citation split over several deltas, each piece would lack its passage or
its place and be ``invalid``, never a pass.

Only a whole stream is read: from ``messageStart`` to ``messageStop``, every block stopped, nothing after the
stop but ``metadata``. A stream cut short may lack text or citations, so each departure is an error naming the
event by its position in the list (``stream[5]``) and the field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_citecheck._citations.bedrock import broken_block, shown_members, streamed_block
from pytest_citecheck._errors import CitationInputError

# The events that tell a list of them from anything else (``metadata`` alone is too common a key to).
_TELLING = frozenset({"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop"})
_EVENTS = _TELLING | {"metadata"}
# The exceptions ``ConverseStreamOutput`` may end a stream with (botocore raises them while the stream is read).
_FAILURES = frozenset(
    {
        "internalServerException",
        "modelStreamErrorException",
        "validationException",
        "throttlingException",
        "serviceUnavailableException",
    }
)
# Each kind of delta, as the kind of block it belongs to (a text block's citations are deltas of their own).
_DELTAS = {
    "text": "text",
    "citation": "text",
    "reasoningContent": "reasoningContent",
    "toolUse": "toolUse",
    "toolResult": "toolResult",
    "image": "image",
}
_STARTS = frozenset({"toolUse", "toolResult", "image"})  # ``ContentBlockStart``'s members


def is_converse_stream(items: Sequence[Any]) -> bool:
    """A list holding a ConverseStream event. No content block of a Converse answer, no citation and no other
    SDK's piece is one."""
    return any(converse_event_kind(item) is not None for item in items)


def converse_event_kind(raw: Any) -> str | None:
    """The kind of a ConverseStream event (an object of one key naming one), or None for anything else."""
    if isinstance(raw, Mapping) and len(raw) == 1:
        kind = next(iter(raw))
        return kind if kind in _TELLING else None
    return None


@dataclass
class _Block:
    """One content block as its events build it: its kind, the event that began it and the one that stopped it."""

    kind: str
    began: int
    texts: list[str] = field(default_factory=list)
    citations: list[tuple[str, Any]] = field(default_factory=list)  # each with the path of the event it came in
    stopped: int | None = None


def converse_stream_parts(events: Sequence[Any]) -> list[Any]:
    """The answer's text blocks, in order, as ``bedrock.converse_parts`` gives a Converse answer's."""
    blocks = _Stream().read(events)
    parts: list[Any] = []
    for index in sorted(blocks):
        block = blocks[index]
        text = "".join(block.texts)
        if block.kind != "text":
            continue  # reasoning, a tool's use or result, an image: they cite nothing
        if not block.citations:
            parts.append({"type": "text", "text": text, "citations": None})
        elif not text:
            error = CitationInputError(
                f"cites, but block {index} has no text delta: the claim the citation supports was never streamed",
                field=block.citations[0][0],
            )
            parts.append(broken_block(text, error))
        else:
            parts.append(streamed_block(text, block.citations))
    return parts


class _Stream:
    """Reads the events in order, and refuses any that a whole stream would not have where it stands."""

    def __init__(self) -> None:
        self.blocks: dict[int, _Block] = {}
        self.started: int | None = None  # the event of the messageStart, and of the messageStop
        self.stopped: int | None = None

    def read(self, events: Sequence[Any]) -> dict[int, _Block]:
        for number, event in enumerate(events):
            kind, body = _event(event, f"stream[{number}]")
            self._in_order(kind, number)
            _READERS[kind](self, body, number)
        if self.stopped is None:
            raise CitationInputError(
                "has no messageStop event: the stream was not read to its end, so the answer may lack text or "
                "citations; pass every event of converse_stream(...)['stream'], read to its end",
                field="stream",
            )
        return self.blocks

    def _in_order(self, kind: str, number: int) -> None:
        if kind == "messageStart" and self.started is not None:
            message = f"is a second messageStart (the first is stream[{self.started}]): pass one answer's events"
        elif kind != "messageStart" and self.started is None:
            message = "comes before messageStart: pass every event of the stream, from its first"
        elif self.stopped is not None and kind != "metadata":
            message = f"comes after the messageStop at stream[{self.stopped}]: the answer had ended"
        else:
            return
        raise CitationInputError(f"a {kind!r} event {message}", field=f"stream[{number}]")

    def _message_start(self, body: Mapping[str, Any], number: int) -> None:
        if body.get("role") != "assistant":
            raise CitationInputError(
                f"must be 'assistant', got {body.get('role')!r}: the answer is the assistant's message",
                field=f"stream[{number}].messageStart.role",
            )
        self.started = number

    def _block_start(self, body: Mapping[str, Any], number: int) -> None:
        where = f"stream[{number}].contentBlockStart"
        index = _index(body, where)
        if index in self.blocks:
            raise CitationInputError(
                f"begins block {index} again (it began at stream[{self.blocks[index].began}])",
                field=f"{where}.contentBlockIndex",
            )
        start = body.get("start")
        if not isinstance(start, Mapping) or len(start) != 1 or next(iter(start)) not in _STARTS:
            raise CitationInputError(
                f"must hold one of {', '.join(sorted(_STARTS))}, got {shown_members(start)}", field=f"{where}.start"
            )
        self.blocks[index] = _Block(next(iter(start)), number)

    def _block_delta(self, body: Mapping[str, Any], number: int) -> None:
        where = f"stream[{number}].contentBlockDelta"
        index = _index(body, where)
        delta = body.get("delta")
        if not isinstance(delta, Mapping) or len(delta) != 1 or next(iter(delta)) not in _DELTAS:
            raise CitationInputError(
                f"must hold one of {', '.join(sorted(_DELTAS))}, got {shown_members(delta)} (a delta of another kind may carry "
                "citations this version would not read)",
                field=f"{where}.delta",
            )
        ((kind, value),) = delta.items()
        block = self._open(index, _DELTAS[kind], number, where)
        if kind == "text":
            if not isinstance(value, str):
                raise CitationInputError(f"must be a string, got {type(value).__name__}", field=f"{where}.delta.text")
            block.texts.append(value)
        elif kind == "citation":
            block.citations.append((f"{where}.delta.citation", value))

    def _open(self, index: int, kind: str, number: int, where: str) -> _Block:
        """Block ``index``, begun by this delta if no event began it; refused if it stopped or is of another kind."""
        block = self.blocks.setdefault(index, _Block(kind, number))
        if block.stopped is not None:
            raise CitationInputError(
                f"is a delta of block {index}, which stopped at stream[{block.stopped}]",
                field=f"{where}.contentBlockIndex",
            )
        if block.kind != kind:
            raise CitationInputError(
                f"is a {kind} delta of block {index}, which is a {block.kind} block (begun at stream[{block.began}])",
                field=f"{where}.delta",
            )
        return block

    def _block_stop(self, body: Mapping[str, Any], number: int) -> None:
        where = f"stream[{number}].contentBlockStop"
        index = _index(body, where)
        block = self.blocks.get(index)
        if block is None or block.stopped is not None:
            cause = "which no event began" if block is None else f"again (it stopped at stream[{block.stopped}])"
            raise CitationInputError(f"stops block {index}, {cause}", field=f"{where}.contentBlockIndex")
        block.stopped = number

    def _message_stop(self, body: Mapping[str, Any], number: int) -> None:
        for index, block in sorted(self.blocks.items()):
            if block.stopped is None:
                raise CitationInputError(
                    f"ends the message while block {index} (begun at stream[{block.began}]) has no contentBlockStop: "
                    "the stream's events must be passed whole",
                    field=f"stream[{number}]",
                )
        self.stopped = number

    def _metadata(self, body: Mapping[str, Any], number: int) -> None:
        """Usage and timings: nothing the answer says."""


_READERS: dict[str, Callable[[_Stream, Mapping[str, Any], int], None]] = {
    "messageStart": _Stream._message_start,
    "contentBlockStart": _Stream._block_start,
    "contentBlockDelta": _Stream._block_delta,
    "contentBlockStop": _Stream._block_stop,
    "messageStop": _Stream._message_stop,
    "metadata": _Stream._metadata,
}


def _event(event: Any, where: str) -> tuple[str, Mapping[str, Any]]:
    """An event's kind and body; an exception event, an unknown kind or a malformed event is refused."""
    if not isinstance(event, Mapping) or len(event) != 1:
        raise CitationInputError(
            f"must be one ConverseStream event (an object of one key: {', '.join(sorted(_EVENTS))}), got "
            f"{shown_members(event)}",
            field=where,
        )
    ((kind, body),) = event.items()
    if kind in _FAILURES:
        detail = body.get("message") if isinstance(body, Mapping) else None
        raise CitationInputError(
            f"is a {kind!r}: the stream failed"
            + (f" ({detail})" if isinstance(detail, str) else "")
            + " before its answer was complete; check the answer of a stream that completed",
            field=where,
        )
    if kind not in _EVENTS:
        raise CitationInputError(
            f"is a {kind!r} event, which this version does not know (it may carry text or citations it would not "
            f"read): the events it reads are {', '.join(sorted(_EVENTS))}",
            field=where,
        )
    if not isinstance(body, Mapping):
        raise CitationInputError(f"must be an object, got {type(body).__name__}", field=f"{where}.{kind}")
    return kind, body


def _index(body: Mapping[str, Any], where: str) -> int:
    """The block an event belongs to: ``contentBlockIndex``, a whole number, required."""
    index = body.get("contentBlockIndex")
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        got = "it is missing" if "contentBlockIndex" not in body else f"got {index!r}"
        raise CitationInputError(
            f"must be a whole number >= 0 ({got}): it says which content block the event belongs to",
            field=f"{where}.contentBlockIndex",
        )
    return index
