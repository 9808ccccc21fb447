"""Two Gemini responses of several candidates each, in one list, get ids that do not collide (sdk-leftovers).

A Gemini citation's id is ``#<n>.<support>.<chunk>``, ``n`` the response's position in the list plus its
candidate's index. A list of two responses with two candidates each gave the first's second candidate and
the second's first candidate one ``n``: ``#1.1.0`` twice, and a legitimate input failed with "is used by more
than one citation". The ids users have recorded (a response with one candidate, anywhere; several candidates
alone, or with nothing after them that they collide with) stay what they were: only a response whose ids
would repeat an earlier one's is numbered on, from the next number free. The responses are google-genai's
own ``GenerateContentResponse``.
"""

from __future__ import annotations

from typing import Any

from google.genai import types

from pytest_citecheck import Corpus, Source, Status
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck.testing import JevServer

CORPUS = Corpus(
    {
        "grass.md": Source(sections={"grass": "The grass is green."}),
        "sky.md": Source(sections={"sky": "The sky is blue."}),
    }
)


def candidate(claim: str, document: str, quote: str) -> dict[str, Any]:
    return {
        "content": {"role": "model", "parts": [{"text": claim}]},
        "grounding_metadata": {
            "grounding_chunks": [{"retrieved_context": {"title": document, "text": quote}}],
            "grounding_supports": [{"segment": {"text": claim}, "grounding_chunk_indices": [0]}],
        },
    }


def response(count: int) -> types.GenerateContentResponse:
    candidates = [
        candidate("Grass is green.", "grass.md", "The grass is green."),
        candidate("The sky is blue.", "sky.md", "The sky is blue."),
    ]
    return types.GenerateContentResponse.model_validate({"candidates": candidates[:count]})


def ids(answer: Any) -> list[str]:
    adapted = adapt_answer(answer, source=CORPUS)
    assert adapted.invalid == {}
    return [c.id for c in adapted.citations]


def test_two_responses_of_two_candidates_each_are_numbered_on() -> None:
    # Before: CitationInputError "citation '#1.1.0', field 'id': is used by more than one citation".
    assert ids([response(2), response(2)]) == ["#0.1.0", "#1.1.0", "#2.1.0", "#3.1.0"]
    assert ids([response(2), response(1), response(2)]) == ["#0.1.0", "#1.1.0", "#2.1.0", "#3.1.0", "#4.1.0"]


def test_ids_that_did_not_collide_are_kept() -> None:
    assert ids(response(2)) == ["#0.1.0", "#1.1.0"]
    assert ids([response(1), response(1), response(2)]) == ["#0.1.0", "#1.1.0", "#2.1.0", "#3.1.0"]
    assert ids([response(1), response(2)]) == ["#0.1.0", "#1.1.0", "#2.1.0"]


def test_every_candidate_of_both_responses_is_checked(direct_checker: Any) -> None:
    server = JevServer().start()
    try:
        results = direct_checker(server).check([response(2), response(2)], CORPUS)
    finally:
        server.stop()
    assert [(r.id, r.status, r.document) for r in results] == [
        ("#0.1.0", Status.FOUND, "grass.md"),
        ("#1.1.0", Status.FOUND, "sky.md"),
        ("#2.1.0", Status.FOUND, "grass.md"),
        ("#3.1.0", Status.FOUND, "sky.md"),
    ]
