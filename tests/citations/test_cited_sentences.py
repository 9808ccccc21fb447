"""``require_cited_sentences`` reads the answer's text of every shape that carries one (issue 23, item 4).

It used to see the text of Anthropic and OpenAI answers only (and LangChain and Chat Completions
through them): a Cohere, Gemini, LlamaIndex or Haystack answer with a sentence citing nothing passed.
Each answer here is built from its SDK's recorded payload (``tests/data/payloads``), as the JSON and
as the SDK's own object (``cohere``, ``google-genai``), or by the framework's own classes, with one sentence added that cites nothing; the check lists that sentence,
and the same answer without it passes.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_citecheck import CitationsNotSupported, Corpus, Source
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck.testing import JevServer

PAYLOADS = Path(__file__).resolve().parent.parent / "data" / "payloads"
EXTRA = "Penguins are also found in zoos."


def payload(name: str) -> Any:
    return json.loads((PAYLOADS / name).read_text(encoding="utf-8"))


def cohere_v2(extra: bool) -> tuple[Any, Corpus]:
    answer = payload("cohere_v2_penguins.json")
    corpus = Corpus({name: Source(sections={"snippet": text}) for name, text in answer.pop("documents").items()})
    if extra:
        answer["message"]["content"][0]["text"] += " " + EXTRA
    return answer, corpus


def cohere_v2_sdk(extra: bool) -> tuple[Any, Corpus]:
    import cohere

    answer, corpus = cohere_v2(extra)
    return cohere.ChatResponse.model_validate(answer), corpus


def cohere_v1(extra: bool) -> tuple[Any, Corpus]:
    v2, corpus = cohere_v2(extra)
    v1 = {
        "text": v2["message"]["content"][0]["text"],
        "citations": [
            {"start": c["start"], "end": c["end"], "text": c["text"], "document_ids": [s["id"] for s in c["sources"]]}
            for c in v2["message"]["citations"]
        ],
    }
    return v1, corpus


def cohere_v1_sdk(extra: bool) -> tuple[Any, Corpus]:
    import cohere

    answer, corpus = cohere_v1(extra)
    return cohere.NonStreamedChatResponse.model_validate(answer), corpus


URI = "https://vertexaisearch.cloud.google.com....."


def gemini(extra: bool) -> tuple[Any, Corpus]:
    response = payload("gemini_grounding_euro2024.json")
    candidate = response["candidates"][0]
    text = candidate["content"]["parts"][0]["text"]
    # The docs abbreviate the segments: their offsets run past the text; here they end where it does.
    candidate["groundingMetadata"]["groundingSupports"][1]["segment"]["endIndex"] = len(text.encode())
    if extra:
        candidate["content"]["parts"][0]["text"] = text + " " + EXTRA
    corpus = Corpus({URI: "# Final\n\nSpain beat England 2-1 in the Euro 2024 final, their fourth title.\n"})
    return response, corpus


def gemini_sdk(extra: bool) -> tuple[Any, Corpus]:
    from google.genai import types

    response, corpus = gemini(extra)
    return types.GenerateContentResponse.model_validate(response), corpus


POLICY = {
    "refunds.md": "# Refunds\n\nRefunds are granted within 30 days of purchase.\n",
    "gifts.md": "# Gifts\n\nGift cards are final and cannot be refunded.\n",
}


def llamaindex(extra: bool) -> tuple[Any, Corpus]:
    from llama_index.core.base.response.schema import Response
    from llama_index.core.schema import NodeWithScore, TextNode

    node = TextNode(
        text="Source 1:\nRefunds are granted within 30 days of purchase.", metadata={"file_name": "refunds.md"}
    )
    answer = "Refunds are granted within 30 days [1]." + (f" {EXTRA}" if extra else "")
    return Response(response=answer, source_nodes=[NodeWithScore(node=node, score=1.0)]), Corpus(POLICY)


def haystack(extra: bool) -> tuple[Any, Corpus]:
    from haystack import Document
    from haystack.components.builders import AnswerBuilder

    documents = [Document(content="Refunds are granted within 30 days of purchase.", meta={"file_path": "refunds.md"})]
    reply = "Refunds are granted within 30 days [1].\n\nSources:\n[1] refunds.md" + (f"\n{EXTRA}" if extra else "")
    built = AnswerBuilder(reference_pattern=r"\[(\d+)\]").run(query="Refunds?", replies=[reply], documents=documents)
    return built["answers"][0], Corpus(POLICY)


SHAPES: dict[str, Callable[[bool], tuple[Any, Corpus]]] = {
    "cohere-v2": cohere_v2,
    "cohere-v2-sdk": cohere_v2_sdk,
    "cohere-v1": cohere_v1,
    "cohere-v1-sdk": cohere_v1_sdk,
    "gemini": gemini,
    "gemini-sdk": gemini_sdk,
    "llamaindex": llamaindex,
    "haystack": haystack,
}


@pytest.fixture
def server() -> Iterator[JevServer]:
    running = JevServer().start()
    yield running
    running.stop()


@pytest.mark.parametrize("shape", SHAPES)
def test_a_sentence_that_cites_nothing_is_listed(shape: str, direct_checker: Any, server: JevServer) -> None:
    answer, corpus = SHAPES[shape](True)
    assert adapt_answer(copy.deepcopy(answer)).uncited == [EXTRA]
    with pytest.raises(CitationsNotSupported) as failure:
        direct_checker(server).assert_supported(answer, corpus, require_cited_sentences=True)
    text = str(failure.value)
    assert f"1 sentence of the answer cites nothing (require_cited_sentences):\n  - {EXTRA!r}" in text


@pytest.mark.parametrize("shape", SHAPES)
def test_an_answer_citing_every_sentence_passes(shape: str, direct_checker: Any, server: JevServer) -> None:
    answer, corpus = SHAPES[shape](False)
    assert adapt_answer(copy.deepcopy(answer)).uncited == []
    assert direct_checker(server).assert_supported(answer, corpus, require_cited_sentences=True)


def test_gemini_segments_are_found_by_their_text_or_their_byte_offsets() -> None:
    text = "Zürich hosts the final. It was sunny. Nobody cited this."
    cited = text.index("It was sunny.")
    response = {
        "candidates": [
            {
                "content": {"parts": [{"text": "thinking…", "thought": True}, {"text": text}]},
                "grounding_metadata": {
                    "grounding_chunks": [{"web": {"uri": "https://example.org/", "title": "example.org"}}],
                    "grounding_supports": [
                        # by text
                        {"segment": {"text": "Zürich hosts the final."}, "grounding_chunk_indices": [0]},
                        # by UTF-8 byte offsets (ü is two bytes), text abbreviated as the docs do
                        {
                            "segment": {
                                "start_index": len(text[:cited].encode()),
                                "end_index": len(text[: cited + 13].encode()),
                                "text": "It was…",
                            },
                            "grounding_chunk_indices": [0],
                        },
                    ],
                },
            }
        ]
    }
    assert adapt_answer(response).uncited == ["Nobody cited this."]


def test_headings_and_lead_ins_are_layout_not_uncited_sentences() -> None:
    from anthropic.types import Message

    cited = {"type": "char_location", "cited_text": "x" * 20, "document_index": 0, "start_char_index": 0}
    message = Message.model_validate(
        {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [
                {"type": "text", "text": "## Refunds\n\n**Volcanic Activity**\n\nHere is what the policy says:\n\n- "},
                {"type": "text", "text": "Refunds take 30 days.", "citations": [{**cited, "end_char_index": 20}]},
                {"type": "text", "text": "\n\nGift cards are final: no refund is given."},
            ],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 10},
        }
    )
    # A colon inside a sentence keeps it a sentence; only text that ends in one is a lead-in.
    assert adapt_answer(message).uncited == ["Gift cards are final: no refund is given."]
