"""A Cohere v2 citation is read in the content item it marks (hunt-sdk-shapes).

cohere 7.3's ``Citation`` has ``content_index`` ("index of the content block in which this citation
appears") and ``type`` (``TEXT_CONTENT``, ``THINKING_CONTENT``, ``PLAN``). A reasoning model
(``command-a-reasoning``: Cohere's "Reasoning Capabilities" page) answers with a ``thinking`` content item
before the ``text`` one, and its citations may mark the thinking; ``start`` / ``end`` count characters of
the item ``content_index`` names (crmne/ruby_llm's Cohere reader, ``lib/ruby_llm/protocols/cohere/chat.rb``,
moves a text citation by the start of its block, and leaves a thinking or plan citation out of the answer).
The adapter read every citation at offsets of the answer's text items run together: a citation of the
thinking became a claim of whatever answer sentence sat at its offsets, and a citation of a second text
item claimed the first item's sentence. Each answer here is the SDK's own ``V2ChatResponse``, built from
the recorded penguin answer (``tests/data/payloads/cohere_v2_penguins.json``, Cohere's documentation)
with a thinking item and ``content_index`` added as the reasoning model returns them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_citecheck import CitationInputError, Corpus, Source, Status
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck.testing import JevServer

PAYLOADS = Path(__file__).resolve().parent.parent / "data" / "payloads"
THINKING = "Document 100 says that emperor penguins are the tallest. Document 101 is about where they live."
ANSWER = "The tallest penguins are the Emperor penguins, which only live in Antarctica."


def recorded() -> tuple[dict[str, Any], Corpus]:
    answer = json.loads((PAYLOADS / "cohere_v2_penguins.json").read_text(encoding="utf-8"))
    corpus = Corpus({name: Source(sections={"snippet": text}) for name, text in answer.pop("documents").items()})
    return answer, corpus


def reasoning_answer() -> tuple[dict[str, Any], Corpus]:
    """The penguin answer as a reasoning model gives it: its thinking first, each citation naming its item."""
    answer, corpus = recorded()
    message = answer["message"]
    message["content"].insert(0, {"type": "thinking", "thinking": THINKING})
    for citation in message["citations"]:
        citation["content_index"] = 1
    thought = {**message["citations"][0], "type": "THINKING_CONTENT", "content_index": 0}
    thought.update(start=THINKING.index("emperor"), end=THINKING.index("emperor") + 16, text="emperor penguins")
    message["citations"].insert(0, thought)
    return answer, corpus


def judged(direct_checker: Any, answer: Any, corpus: Corpus) -> tuple[list[Any], list[tuple[str, str]]]:
    server = JevServer().start()
    try:
        results = direct_checker(server).check(answer, corpus)
    finally:
        server.stop()
    return results, [(r.body["state"]["claim"], r.body["state"]["section"]) for r in server.systemone_requests]


def test_a_citation_of_the_thinking_is_not_read_as_a_claim_of_the_answer(direct_checker: Any) -> None:
    import cohere

    payload, corpus = reasoning_answer()
    answer = cohere.ChatResponse.model_validate(payload)
    assert [c.type for c in answer.message.citations or []] == ["THINKING_CONTENT", "TEXT_CONTENT", "TEXT_CONTENT"]
    # Before: '#0.1' (the thinking's "emperor penguins", at 23..39) was the answer's sentence at 23..39.
    assert [(c.id, c.claim, c.document) for c in adapt_answer(answer).citations] == [
        ("#0.2.1", ANSWER, "100"),
        ("#0.3.1", ANSWER, "101"),
    ]
    results, asked = judged(direct_checker, answer, corpus)
    assert [(r.id, r.status) for r in results] == [("#0.2.1", Status.DOCUMENT_ONLY), ("#0.3.1", Status.DOCUMENT_ONLY)]
    assert sorted(asked) == [
        (ANSWER, "Emperor penguins are the tallest."),
        (ANSWER, "Emperor penguins only live in Antarctica."),
    ]
    assert adapt_answer(answer).uncited == []


def test_a_citation_of_a_second_text_item_claims_that_item_s_sentence(direct_checker: Any) -> None:
    import cohere

    payload, corpus = reasoning_answer()
    message = payload["message"]
    second = "Emperor penguins only live in Antarctica."
    message["content"][1]["text"] = "The tallest penguins are the Emperor penguins. "
    message["content"].append({"type": "text", "text": second})
    message["citations"] = [
        {**message["citations"][1], "start": 29, "end": 45},
        {**message["citations"][2], "start": 0, "end": 16, "text": "Emperor penguins", "content_index": 2},
    ]
    answer = cohere.ChatResponse.model_validate(payload)
    adapted = adapt_answer(answer)
    # Before: the second item's citation, read at 0..16 of the items run together, claimed the first sentence.
    assert [(c.claim, c.document) for c in adapted.citations] == [
        ("The tallest penguins are the Emperor penguins.", "100"),
        (second, "101"),
    ]
    assert adapted.uncited == []
    results, asked = judged(direct_checker, answer, corpus)
    assert [r.status for r in results] == [Status.DOCUMENT_ONLY, Status.DOCUMENT_ONLY]
    assert (second, "Emperor penguins only live in Antarctica.") in asked


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"content_index": 0}, "content_index", "is 0, which names no text item of the answer's 2 content items"),
        ({"content_index": 7}, "content_index", "is 7, which names no text item"),
        ({"end": 500}, "start", "start 29 and end 500 must be offsets of content item 1's text"),
        ({"type": "QUOTE"}, "type", "is 'QUOTE', not a type of Cohere citation this version knows"),
    ],
)
def test_a_citation_whose_item_or_type_cannot_be_read_is_invalid_and_the_other_is_judged(
    direct_checker: Any, change: dict[str, Any], field: str, message: str
) -> None:
    import cohere

    payload, corpus = reasoning_answer()
    payload["message"]["citations"][1].update(change)
    answer = cohere.ChatResponse.model_validate(payload)
    server = JevServer().start()
    try:
        checker = direct_checker(server)
        with pytest.raises(CitationInputError, match=rf"citation '#0\.2', field '{field}': {message}"):
            checker.check(answer, corpus)
    finally:
        server.stop()
    assert [(r.id, r.status) for r in checker.results] == [("#0.2", Status.INVALID), ("#0.3.1", Status.DOCUMENT_ONLY)]
