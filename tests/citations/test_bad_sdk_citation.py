"""One citation of an SDK answer that cannot be read never hides the others (issue 23, item 5).

A Cohere or Gemini answer used to be read whole: its first bad citation (a span past the answer, a
grounding chunk index that names no chunk) made the whole answer one ``invalid`` stand-in, and none of
its other citations was judged. Each answer here is its SDK's own object built from the recorded
payload (``tests/data/payloads``), with one citation broken.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_citecheck import CitationInputError, Corpus, Source, Status
from pytest_citecheck.testing import JevServer

PAYLOADS = Path(__file__).resolve().parent.parent / "data" / "payloads"
URI = "https://vertexaisearch.cloud.google.com....."


def payload(name: str) -> Any:
    return json.loads((PAYLOADS / name).read_text(encoding="utf-8"))


def checked(direct_checker: Any, answer: Any, corpus: Corpus, message: str) -> tuple[list[Any], list[str]]:
    server = JevServer().start()
    try:
        checker = direct_checker(server)
        with pytest.raises(CitationInputError, match=message):
            checker.check(answer, corpus)
    finally:
        server.stop()
    return checker.results, [request.body["state"]["claim"] for request in server.systemone_requests]


def test_a_cohere_span_past_the_answer_is_invalid_and_the_other_citation_is_judged(direct_checker: Any) -> None:
    import cohere

    recorded = payload("cohere_v2_penguins.json")
    corpus = Corpus({name: Source(sections={"snippet": text}) for name, text in recorded.pop("documents").items()})
    recorded["message"]["citations"][1]["end"] = 500  # past the answer's text
    answer = cohere.ChatResponse.model_validate(recorded)
    results, asked = checked(direct_checker, answer, corpus, r"citation '#0\.2', field 'start': start 66 and end 500")
    assert [(r.id, r.status) for r in results] == [("#0.1.1", Status.DOCUMENT_ONLY), ("#0.2", Status.INVALID)]
    assert asked == ["The tallest penguins are the Emperor penguins, which only live in Antarctica."]


def test_a_gemini_chunk_index_that_names_no_chunk_is_invalid_and_the_others_are_judged(direct_checker: Any) -> None:
    from google.genai import types

    recorded = payload("gemini_grounding_euro2024.json")
    recorded["candidates"][0]["groundingMetadata"]["groundingSupports"][0]["groundingChunkIndices"] = [7]
    response = types.GenerateContentResponse.model_validate(recorded)
    corpus = Corpus({URI: "# Final\n\nSpain beat England 2-1 in the Euro 2024 final, their fourth title.\n"})
    results, asked = checked(
        direct_checker,
        response,
        corpus,
        r"citation '#0\.1\.7', field 'grounding_chunk_indices': grounding chunk index 7",
    )
    assert [(r.id, r.status) for r in results] == [
        ("#0.1.7", Status.INVALID),
        ("#0.2.0", Status.DOCUMENT_ONLY),
        ("#0.2.1", Status.DOCUMENT_ONLY),
    ]
    assert set(asked) == {"This victory marks Spain's..."}


def test_a_llamaindex_marker_naming_no_source_is_invalid_and_the_others_are_judged(direct_checker: Any) -> None:
    from llama_index.core.base.response.schema import Response
    from llama_index.core.schema import NodeWithScore, TextNode

    node = TextNode(
        text="Source 1:\nRefunds are granted within 30 days of purchase.", metadata={"file_name": "refunds.md"}
    )
    # The LLM cites a [2] that the engine never retrieved, a mistake CitationQueryEngine answers can make.
    answer = Response(
        response="Refunds are granted within 30 days [1]. Gift cards can be refunded too [2].",
        source_nodes=[NodeWithScore(node=node, score=1.0)],
    )
    corpus = Corpus({"refunds.md": "# Refunds\n\nRefunds are granted within 30 days of purchase.\n"})
    results, asked = checked(
        direct_checker,
        answer,
        corpus,
        r"citation '#0\.s2\[2\]', field 'sources': cites \[2\], but there is no source 2",
    )
    assert [(r.id, r.status) for r in results] == [("#0.s1[1]", Status.FOUND), ("#0.s2[2]", Status.INVALID)]
    assert asked == ["Refunds are granted within 30 days."]
