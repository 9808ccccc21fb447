"""The chunks of a streamed Gemini answer (``generate_content_stream``), passed as a list, read as one response.

A recorded stream (pydantic-ai's ``test_google_model_web_search_tool_stream`` cassette, README there): eight
chunks of one ``responseId``, the grounding metadata in the last, its segments indexing the whole joined text.
On main each chunk was read alone: the sentences the grounding covers, split over chunks, were listed as citing
nothing (a false failure under ``require_cited_sentences``). google-genai assembles no stream; the chunks are
joined as the one ``generate_content`` response would hold them, and read exactly as that response is.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from google.genai import types

from pytest_citecheck import CitationInputError
from pytest_citecheck._citations.adapt import adapt_answer

CHUNKS = json.loads((Path(__file__).parent.parent / "data/payloads/gemini_stream_web_search_weather.json").read_text())


def chunks(raw: list[dict[str, Any]] | None = None) -> list[types.GenerateContentResponse]:
    return [types.GenerateContentResponse.model_validate(chunk) for chunk in (raw or CHUNKS)]


def one_response() -> types.GenerateContentResponse:
    """The same answer as ``generate_content`` gives it: one text part, the grounding of the last chunk."""
    last = copy.deepcopy(CHUNKS[-1])
    last["candidates"][0]["content"]["parts"] = [
        {"text": "".join(chunk["candidates"][0]["content"]["parts"][0]["text"] for chunk in CHUNKS)}
    ]
    return types.GenerateContentResponse.model_validate(last)


def read(answer: Any) -> tuple[list[tuple[str, str, str | None]], list[str]]:
    adapted = adapt_answer(answer)
    assert adapted.invalid == {}
    return [(c.id, c.claim, c.document) for c in adapted.citations], adapted.uncited


def test_the_chunks_read_as_the_one_response_they_make() -> None:
    streamed, uncited = read(chunks())
    assert (streamed, uncited) == read(one_response())
    assert len(streamed) == 11 and streamed[0][1].startswith("The morning will begin with mostly cloudy skies")
    # What the grounding does not cover (the headline is layout): the sentence of the high temperature.
    assert uncited == [
        "**San Francisco, CA** - Residents of San Francisco can expect a day of mixed clouds and sun today, with a "
        "high temperature hovering around the low 60s.",
    ]


def test_chunks_as_dicts_read_alike() -> None:
    assert read(CHUNKS) == read(one_response())


def test_a_stream_cut_short_is_refused_naming_the_remedy() -> None:
    with pytest.raises(CitationInputError, match="pass every chunk generate_content_stream yielded") as raised:
        adapt_answer(chunks(CHUNKS[:-1]))
    assert raised.value.field == "finish_reason"


def test_grounding_in_two_chunks_is_refused() -> None:
    raw = copy.deepcopy(CHUNKS)
    raw[3]["candidates"][0]["groundingMetadata"] = raw[-1]["candidates"][0]["groundingMetadata"]
    with pytest.raises(CitationInputError, match=r"holds groundingMetadata as citations\[3\]") as raised:
        adapt_answer(chunks(raw))
    assert (raised.value.citation, raised.value.field) == ("#7", "candidates[0].grounding_metadata")


def test_responses_of_two_calls_are_each_read_alone() -> None:
    other = copy.deepcopy(CHUNKS[-1])
    other["responseId"] = "another-call"
    adapted = adapt_answer([*chunks(), types.GenerateContentResponse.model_validate(other)])
    assert len(adapted.citations) == 22 and adapted.invalid == {}
