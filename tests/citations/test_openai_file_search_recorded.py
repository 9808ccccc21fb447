"""A real OpenAI Responses file-search exchange, as the openai SDK returns it (issue 23, found 7 and item 4).

``tests/data/payloads/openai_responses_file_search_paris.json`` holds what pydantic-ai's test suite
recorded (the README there says where): the one file it uploaded, and the two answers ``gpt-4o`` gave.
The first answer cites nothing; the second is the one of issue 23's found 7: a ``file_citation`` whose
``index`` is its only position, after "It is widely recognized and serves as an iconic symbol of the city".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openai.types.responses import Response

from pytest_citecheck import CitationsNotSupported, Corpus, Source, Status
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck.testing import JevServer

RECORDED = json.loads(
    (
        Path(__file__).resolve().parent.parent / "data" / "payloads" / "openai_responses_file_search_paris.json"
    ).read_text(encoding="utf-8")
)
FILE = RECORDED["uploaded_file"]
ANSWER = (
    "The Eiffel Tower is a famous landmark in Paris, the capital of France. "
    "It is widely recognized and serves as an iconic symbol of the city."
)


def response(number: int) -> Response:
    # openai 3.x requires usage fields that this 2025 recording predates; usage is never read.
    return Response.model_validate({k: v for k, v in RECORDED["responses"][number].items() if k != "usage"})


def corpus() -> Corpus:
    return Corpus({FILE["filename"]: Source(sections={"file": FILE["text"]}, name=FILE["filename"])})


def test_the_claim_of_the_file_citation_is_the_text_it_annotates_not_its_last_sentence() -> None:
    [citation] = adapt_answer(response(1)).citations
    assert (citation.claim, citation.quote, citation.document) == (ANSWER, None, "tmp2zuepgia.txt")


def test_it_is_judged_against_the_uploaded_file_and_the_answer_without_citations_fails(direct_checker: Any) -> None:
    server = JevServer().start()
    try:
        checker = direct_checker(server)
        [result] = checker.assert_supported(response(1), corpus(), require_cited_sentences=True)
        with pytest.raises(CitationsNotSupported, match="the answer cites nothing"):
            checker.assert_supported(response(0), corpus())
    finally:
        server.stop()
    assert (result.status, result.document) == (Status.DOCUMENT_ONLY, "tmp2zuepgia.txt")
    [request] = server.systemone_requests
    assert (request.body["state"]["claim"], request.body["state"]["section"]) == (ANSWER, FILE["text"])
