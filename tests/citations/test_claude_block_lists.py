"""A Claude answer's blocks passed as a list (``message.content``), and blocks of a kind the reader does not know.

A ``Message`` is read by its text blocks: thinking, tool use and the server tools' results cite nothing and are
passed over. Its ``content`` passed as a list was read item by item, each of those blocks as a citation of the
user's own, and refused (``field 'claim': is missing``, ``field 'type': ... a citation's keys are ...``): an answer
with extended thinking or tools failed whatever its citations. The same blocks in a list are now passed over as in
the message (the kinds anthropic 2.17's ``ContentBlock`` and ``BetaContentBlock`` unions and langchain-core 1.8's
standard content blocks have); one that carries citations is not.

A block of a ``Message`` that is not text but carries citations (a kind newer than this version) was left out with
its citations, unread: it is now one ``invalid`` citation naming ``content[i].citations``.

The answer is the recorded ``char_location`` answer of ``claude_text_document_grass.json`` (the README there says
where), with a thinking block and a tool use block put before it, as extended thinking and tools give them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from anthropic.types import Message
from support import checked_or_refused, judged_check

from pytest_citecheck import Source, Status

RECORDED = json.loads(
    (Path(__file__).resolve().parent.parent / "data" / "payloads" / "claude_text_document_grass.json").read_text(
        encoding="utf-8"
    )
)
SENT = "The grass is green. The sky is blue."
THINKING = {"type": "thinking", "thinking": "The document says both colours.", "signature": "EqQBCgIYAhIM"}
TOOL_USE = {"type": "tool_use", "id": "toolu_01A", "name": "lookup", "input": {"q": "grass"}}


def answer(*before: dict[str, Any]) -> dict[str, Any]:
    recorded = json.loads(json.dumps(RECORDED))
    return recorded | {"content": [*before, *recorded["content"]]}


def sentences() -> Source:
    return Source(sections={"grass": "The grass is green.", "sky": "The sky is blue."}, text=SENT)


def test_message_content_with_thinking_and_tool_use_reads_as_the_message(direct_checker: Any) -> None:
    message = Message.model_validate(answer(THINKING, TOOL_USE))
    whole, whole_claims = judged_check(direct_checker, message, sentences())
    assert [(r.status, r.section) for r in whole] == [(Status.FOUND, "grass"), (Status.FOUND, "sky")]
    for blocks in (message.content, [block.model_dump() for block in message.content]):
        # Before: '#0' and 'toolu_01A' invalid, each read as a citation of the user's own.
        results, claims = judged_check(direct_checker, blocks, sentences())
        assert [(r.id, r.status, r.section) for r in results] == [(r.id, r.status, r.section) for r in whole]
        assert sorted(claims) == sorted(whole_claims)  # Jev is asked concurrently


def test_a_block_of_a_new_kind_with_citations_is_invalid_not_left_out(direct_checker: Any) -> None:
    new = {
        "type": "quoted_text",
        "text": "The sky is blue.",
        "citations": [{"type": "char_location", "cited_text": "The sky is blue.", "document_index": 0}],
    }
    results, error = checked_or_refused(direct_checker, answer(new), sentences())
    # Before: left out, and the answer passed on its other citations.
    assert [r.status for r in results].count(Status.INVALID) == 1
    assert error is not None and (error.citation, error.field) == ("#0", "content[0].citations")
    assert "'quoted_text'" in str(error)


def test_a_block_whose_citations_are_not_a_list_is_invalid_not_left_out(direct_checker: Any) -> None:
    """Citations that are no list (text, or one citation not in a list): no shape this version reads, and still
    citations: refused with their block (found trying hostile answers: a string was passed over as no citations)."""
    for citations in ("The sky is blue.", {"type": "char_location", "cited_text": "The sky is blue."}):
        new = {"type": "quoted_text", "text": "The sky is blue.", "citations": citations}
        results, error = checked_or_refused(direct_checker, answer(new), sentences())
        assert [r.status for r in results].count(Status.INVALID) == 1
        assert error is not None and (error.citation, error.field) == ("#0", "content[0].citations")
    # None and an empty list are no citations: the block is passed over as before.
    for nothing in (None, []):
        quiet = {"type": "quoted_text", "text": "The sky is blue.", "citations": nothing}
        results, error = checked_or_refused(direct_checker, answer(quiet), sentences())
        assert error is None and Status.INVALID not in [r.status for r in results]
