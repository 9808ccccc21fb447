"""Chat completions of OpenAI-compatible providers: read, or refused naming what to pass (hunt-wrong-passes-4 F3).

``tests/data/payloads/perplexity_sonar_stars.json`` is a real Perplexity ``sonar`` answer (the README
there says where): an OpenAI-shaped ``chat.completion`` whose message has no ``annotations`` at all; it
cites a top-level ``citations`` list of URLs by ``[1]`` markers. On main the raw JSON (as ``requests``
returns it) raised ``TypeError: '_Missing' object is not iterable``; the same answer built into the
openai SDK's ``ChatCompletion`` gave no citation, so checked beside other citations it was dropped and the
test passed on the others. Now both are refused naming the field and the call that reads them
(``citations_from_markers``), which reads every marker. A provider's answer with no citations at all
(vLLM, Ollama) "cites nothing"; a message whose content is a list of chunks (Mistral's reference chunks)
is refused naming the content.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openai.types.chat import ChatCompletion

from pytest_citecheck import (
    CitationInputError,
    CitationsNotSupported,
    Corpus,
    Source,
    citations_from_markers,
)
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck.testing import JevServer

RECORDED = Path(__file__).resolve().parent.parent / "data" / "payloads" / "perplexity_sonar_stars.json"
NASA = "https://imagine.gsfc.nasa.gov/science/objects/milkyway1.html"


def recorded() -> dict[str, Any]:
    return json.loads(RECORDED.read_text(encoding="utf-8"))


@pytest.mark.parametrize("build", [dict, ChatCompletion.model_validate], ids=["raw-json", "openai-sdk"])
def test_an_answer_citing_a_top_level_list_by_markers_is_refused_naming_the_call_that_reads_it(build) -> None:
    with pytest.raises(CitationInputError) as raised:
        adapt_answer(build(recorded()))
    assert raised.value.field == "citations"
    message = str(raised.value)
    assert "5 URLs" in message and "[n] markers" in message
    assert "citations_from_markers(response.choices[0].message.content, response.citations)" in message


def test_the_remedy_reads_every_marker_of_the_recorded_answer() -> None:
    answer = recorded()
    cited = citations_from_markers(answer["choices"][0]["message"]["content"], answer["citations"])
    assert [(c.id, c.document) for c in cited][:1] == [("s2[1]", NASA)]
    assert [c.id for c in cited] == ["s2[1]", "s2[2]", "s2[3]", "s2[4]", "s4[1]", "s4[3]"]


def test_beside_other_citations_it_is_not_dropped(direct_checker, jev_server: JevServer) -> None:
    corpus = Corpus({NASA: Source(sections={"page": "The Milky Way has 100 to 400 billion stars."}, name=NASA)})
    checked = {
        "id": "stars",
        "claim": "The galaxy has billions of stars.",
        "quote": "100 to 400 billion stars",
        "document": NASA,
    }
    with pytest.raises(CitationInputError, match="citations_from_markers"):
        direct_checker(jev_server).assert_supported([checked, ChatCompletion.model_validate(recorded())], corpus)


def test_a_provider_answer_with_no_citations_cites_nothing(direct_checker) -> None:
    answer = {
        "object": "chat.completion",
        "model": "llama3",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Refunds take 30 days."}}],
    }
    with pytest.raises(CitationsNotSupported, match="the answer cites nothing"):
        direct_checker().assert_supported(answer, Source(sections={"1": "Refunds take 30 days."}))


def test_a_message_whose_content_is_a_list_of_chunks_is_refused_naming_it() -> None:
    answer = {
        "object": "chat.completion",
        "model": "mistral-large-latest",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Refunds take 90 days."},
                        {"type": "reference", "reference_ids": [0]},
                    ],
                },
            }
        ],
    }
    with pytest.raises(CitationInputError) as raised:
        adapt_answer(answer)
    assert raised.value.field == "choices[0].message.content"
    assert "a list of 2 content chunks" in str(raised.value)
