"""A Bedrock Knowledge Bases ``retrieve_and_generate_stream()`` answer is refused whole, with the remedy (sdk-leftovers-4).

botocore's model (bedrock-agent-runtime 2023-07-26, ``RetrieveAndGenerateStreamResponseOutput``) gives the stream
three events, ``output`` (a piece of text), ``citation`` (a ``Citation`` with its span in the whole text, and the
deprecated same ``Citation`` nested as ``citation``) and ``guardrail``, and no event saying the answer is complete:
a stream cut short (a loop left early, a dropped connection that was not raised) cannot be told from a whole one.
A recorded stream (Arize-ai/openinference's cassette ``test_retrieve_and_generate_stream.yaml``, a real call over a
PDF: 156 ``output`` pieces, three ``citation`` events, spans ``[0, 401]``, ``[402, 752]``, ``[753, 1139]``, nothing
after the last) ends with a citation event, as a cut-short one could. On main a list of them was read as plain
citations ("'output': a citation's keys are id, claim, ...") and the response dict as "a single citation? wrap it
in a list": closed, but with no remedy. The events here have that recording's shape.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_citecheck import CitationInputError
from pytest_citecheck._citations.adapt import adapt_answer

TEXT = "\nTelos is a knowledge representation language."
PART = {"textResponsePart": {"span": {"start": 0, "end": len(TEXT) - 1}, "text": TEXT}}
REFERENCES = [
    {
        "content": {"text": "The representation language adopted for the KBMS design is Telos."},
        "location": {"s3Location": {"uri": "s3://bedrock-az-kb/knowledge_bases/VLDBJ96.pdf"}, "type": "S3"},
    }
]
EVENTS: list[dict[str, Any]] = [
    {"output": {"text": "\nT"}},
    {"output": {"text": "elos is a knowledge representation language."}},
    {
        "citation": {
            "citation": {"generatedResponsePart": PART, "retrievedReferences": REFERENCES},
            "generatedResponsePart": PART,
            "retrievedReferences": REFERENCES,
        }
    },
]
REMEDY = "check the response of retrieve_and_generate() (the same request, not streamed)"


@pytest.mark.parametrize(
    "events",
    [EVENTS, EVENTS[:2], [*EVENTS, {"guardrail": {"action": "NONE"}}], tuple(EVENTS)],
    ids=["whole", "cut-before-its-citation", "with-guardrail", "tuple"],
)
def test_a_list_of_stream_events_is_refused_whole_with_the_remedy(events: Any) -> None:
    with pytest.raises(CitationInputError) as raised:
        adapt_answer(events)
    assert raised.value.field == "citations"
    assert f"got {len(events)} retrieve_and_generate_stream() events, which is not read" in str(raised.value)
    assert "a stream cut short cannot be told from a whole one" in str(raised.value) and REMEDY in str(raised.value)


def test_the_stream_response_itself_is_refused_whole_with_the_remedy() -> None:
    response = {"ResponseMetadata": {"HTTPStatusCode": 200}, "sessionId": "5a4e", "stream": iter(EVENTS)}
    with pytest.raises(CitationInputError, match="got a retrieve_and_generate_stream\\(\\) response") as raised:
        adapt_answer(response)
    assert raised.value.field == "citations" and REMEDY in str(raised.value)


def test_the_same_answer_not_streamed_is_read() -> None:
    response = {"sessionId": "5a4e", "output": {"text": TEXT}, "citations": [EVENTS[2]["citation"]["citation"]]}
    [citation] = adapt_answer(response).citations
    assert (citation.id, citation.claim, citation.document) == (
        "#0.1.1",
        TEXT,
        REFERENCES[0]["location"]["s3Location"]["uri"],
    )


def test_a_list_mixing_events_with_citations_is_not_taken_for_a_stream() -> None:
    mixed = [{"output": {"text": "x"}}, {"id": "a", "claim": "Telos is a language.", "quote": "Telos"}]
    adapted = adapt_answer(mixed)
    assert "#0" in adapted.invalid and "retrieve_and_generate_stream" not in str(adapted.invalid["#0"])
