"""llama-index-llms-anthropic makes one ``CitationBlock`` per cited passage per answer (sdk-leftovers-4).

Its ``chat()`` and ``stream_chat()`` keep a set of the citations already made into blocks: a second text block
citing the very same search-result passage gets no block, so read from the blocks its sentences would be uncited
(a false failure under ``require_cited_sentences``). ``chat()`` keeps Claude's whole ``Message`` as ``raw``, which
is read instead of the blocks, so each text block has its own citation. The streamed response keeps only the last
event as ``raw``: the duplicate is lost upstream, its sentence reads as uncited, as docs/sources.md says.

The responses (``llamaindex_anthropic_duplicate_citation.json``, README there) are what the real integration
(llama-index-llms-anthropic 0.12.3, anthropic 0.125.0) returned, ``model_dump_json()``, for the recorded Acme
answer (``claude_search_results_acme.json``) with a closing text block citing its overview passage again, served
to it by an httpx MockTransport (JSON to ``chat()``, server-sent events to ``stream_chat()``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatResponse
from test_llamaindex_chat_citations import OVERVIEW, PRICING, corpus

from pytest_citecheck._citations.adapt import adapt_answer

RECORDED = json.loads(
    (Path(__file__).parent.parent / "data/payloads/llamaindex_anthropic_duplicate_citation.json").read_text()
)
AGAIN = "Acme Dashboard is a monitoring tool for distributed systems."


@pytest.mark.parametrize("loaded", [ChatResponse.model_validate, dict], ids=["ChatResponse", "json"])
def test_chat_s_response_reads_the_repeated_citation_from_the_message_it_keeps(loaded: Any) -> None:
    response = loaded(RECORDED["chat"])
    assert [block["block_type"] for block in RECORDED["chat"]["message"]["blocks"]].count("citation") == 2
    adapted = adapt_answer(response, source=corpus())
    assert adapted.invalid == {} and adapted.uncited == []
    assert [(c.id, c.document) for c in adapted.citations] == [
        ("#1.1", OVERVIEW),
        ("#3.1", PRICING),
        ("#5.1", OVERVIEW),
    ]
    assert adapted.citations[2].claim == AGAIN


def test_a_streamed_response_loses_the_repeated_citation_upstream_and_its_sentence_is_uncited() -> None:
    assert RECORDED["stream_chat"]["raw"]["type"] == "message_delta"  # the last event, not the Message
    adapted = adapt_answer(ChatResponse.model_validate(RECORDED["stream_chat"]), source=corpus())
    assert adapted.invalid == {}
    assert [(c.id, c.document) for c in adapted.citations] == [("#1.1", OVERVIEW), ("#3.1", PRICING)]
    assert adapted.uncited == [f"**In short:** {AGAIN}"]
