"""Amazon Bedrock Knowledge Bases: the dict boto3's ``bedrock-agent-runtime`` ``retrieve_and_generate()`` returns.

On main it was refused whole ("a single citation? wrap it in a list"). Now each retrieved reference of each
citation is one citation: the claim is the answer's text the citation's ``span`` marks, the quote the retrieved
chunk's ``content.text``, its document the S3 URI (or URL) of its ``location``. The recorded answer is a real
call's (``bedrock_kb_retrieve_and_generate_toolpad.json``, README there), whose spans are inclusive:
``{start 0, end 222}`` marks the first 223 characters. boto3 1.44.18 parses that body to this very dict
(botocore's bedrock-agent-runtime model 2023-07-26; tried with a before-send hook, see this change's notes).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from support import judged_check

from pytest_citecheck import Corpus, Source, Status
from pytest_citecheck._citations.adapt import adapt_answer

RECORDED = json.loads(
    (Path(__file__).parent.parent / "data/payloads/bedrock_kb_retrieve_and_generate_toolpad.json").read_text()
)
THEME_JS = "s3://fern-ali-media/toolpad-docs/data/toolpad/core/components/app-provider/AppProviderTheme.js"
THEME_TS = "s3://fern-ali-media/toolpad-examples/tutorial/theme.ts"
THEME_TSX = "s3://fern-ali-media/toolpad-docs/data/toolpad/core/components/app-provider/AppProviderTheme.tsx"
PARTS = [citation["generatedResponsePart"]["textResponsePart"]["text"] for citation in RECORDED["citations"]]


def response() -> dict[str, Any]:
    """The answer as boto3 gives it (its ``ResponseMetadata`` in place of the JavaScript SDK's ``$metadata``)."""
    answer = {key: value for key, value in copy.deepcopy(RECORDED).items() if key != "$metadata"}
    return {"ResponseMetadata": {"HTTPStatusCode": 200, "RetryAttempts": 0}, **answer}


def corpus() -> Corpus:
    """The knowledge base's documents, keyed by their S3 URIs: each the chunk retrieved of it."""
    texts = {
        reference["location"]["s3Location"]["uri"]: reference["content"]["text"]
        for citation in RECORDED["citations"]
        for reference in citation["retrievedReferences"]
    }
    return Corpus({uri: Source(sections={"chunk": text}, name=uri) for uri, text in texts.items()})


def test_each_retrieved_reference_is_a_citation_of_the_text_its_span_marks() -> None:
    adapted = adapt_answer(response(), source=corpus())
    assert adapted.invalid == {} and adapted.uncited == []
    assert [(c.id, c.claim, c.document) for c in adapted.citations] == [
        ("#0.1.1", PARTS[0], THEME_JS),
        ("#0.1.2", PARTS[0], THEME_TS),
        ("#0.2.1", PARTS[1], THEME_JS),
        ("#0.2.2", PARTS[1], THEME_TSX),
    ]
    assert [c.quote for c in adapted.citations] == [
        reference["content"]["text"]
        for citation in RECORDED["citations"]
        for reference in citation["retrievedReferences"]
    ]


def test_the_recorded_answer_is_located_and_judged(direct_checker: Any) -> None:
    results, claims = judged_check(direct_checker, response(), corpus())
    assert [(r.id, r.status) for r in results] == [
        ("#0.1.1", Status.FOUND),
        ("#0.1.2", Status.FOUND),
        ("#0.2.1", Status.FOUND),
        ("#0.2.2", Status.FOUND),
    ]
    assert sorted(claims) == sorted([PARTS[0]] * 2 + [PARTS[1]] * 2)  # sent on threads


def test_a_chunk_of_another_document_is_not_found_in_the_one_its_location_names(direct_checker: Any) -> None:
    answer = response()
    answer["citations"][0]["retrievedReferences"][1]["location"]["s3Location"]["uri"] = THEME_JS
    results, _ = judged_check(direct_checker, answer, corpus())
    assert results[1].id == "#0.1.2" and results[1].status != Status.FOUND


def test_an_exclusive_end_is_read_when_only_it_gives_the_part_text() -> None:
    answer = response()
    answer["citations"][1]["generatedResponsePart"]["textResponsePart"]["span"]["end"] = 469
    adapted = adapt_answer(answer, source=corpus())
    assert adapted.invalid == {} and adapted.citations[2].claim == PARTS[1]


def test_a_span_that_marks_other_text_than_the_part_is_one_invalid_citation() -> None:
    answer = response()
    answer["citations"][1]["generatedResponsePart"]["textResponsePart"]["span"] = {"start": 0, "end": 222}
    adapted = adapt_answer(answer, source=corpus())
    assert [c.id for c in adapted.citations] == ["#0.1.1", "#0.1.2", "#0.2"]
    error = adapted.invalid.pop("#0.2")
    assert adapted.invalid == {}
    assert error.field == "citations[1].generatedResponsePart.textResponsePart.span"
    assert "the claim is unknown" in str(error)


@pytest.mark.parametrize(
    ("span", "shown"), [({"start": 224, "end": 470}, "470"), ({"start": -1, "end": 3}, "-1"), (None, "missing")]
)
def test_a_span_out_of_the_answer_is_one_invalid_citation(span: Any, shown: str) -> None:
    answer = response()
    part = answer["citations"][1]["generatedResponsePart"]["textResponsePart"]
    part["span"] = span
    part["text"] = "not in the answer" if span is None else part["text"]
    adapted = adapt_answer(answer, source=corpus())
    assert list(adapted.invalid) == ["#0.2"]
    assert adapted.invalid["#0.2"].field == "citations[1].generatedResponsePart.textResponsePart.span"
    assert shown in str(adapted.invalid["#0.2"])


@pytest.mark.parametrize(
    ("content", "field", "said"),
    [
        ({"type": "IMAGE", "byteContent": "data:image/png;base64,AAAA"}, "content.type", "'IMAGE'"),
        ({"type": "TEXT"}, "content.text", "got nothing"),
        ({"type": "TEXT", "text": "  "}, "content.text", "got '  '"),
    ],
    ids=["image", "no-text", "blank"],
)
def test_a_reference_that_cannot_be_located_is_one_invalid_citation(content: Any, field: str, said: str) -> None:
    answer = response()
    answer["citations"][0]["retrievedReferences"][1]["content"] = content
    adapted = adapt_answer(answer, source=corpus())
    assert [c.id for c in adapted.citations] == ["#0.1.1", "#0.1.2", "#0.2.1", "#0.2.2"]
    assert list(adapted.invalid) == ["#0.1.2"]
    assert adapted.invalid["#0.1.2"].field == f"citations[0].retrievedReferences[1].{field}"
    assert said in str(adapted.invalid["#0.1.2"])


def test_a_citation_without_references_leaves_its_text_uncited() -> None:
    answer = response()
    answer["citations"][1]["retrievedReferences"] = []
    adapted = adapt_answer(answer, source=corpus())
    assert [c.id for c in adapted.citations] == ["#0.1.1", "#0.1.2"]
    assert adapted.uncited == [PARTS[1]]


def test_an_answer_without_citations_cites_nothing() -> None:
    answer = response()
    del answer["citations"]
    adapted = adapt_answer(answer, source=corpus())
    assert adapted.citations == [] and len(adapted.uncited) == 3


def test_citations_that_are_no_list_are_one_invalid_citation() -> None:
    answer = response()
    answer["citations"] = {"generatedResponsePart": {}}
    adapted = adapt_answer(answer, source=corpus())
    assert list(adapted.invalid) == ["#0"] and adapted.invalid["#0"].field == "citations"


def test_a_web_location_names_its_url_and_no_location_the_metadata_source() -> None:
    answer = response()
    first, second = answer["citations"][0]["retrievedReferences"]
    first["location"] = {"type": "WEB", "webLocation": {"url": "https://mui.com/toolpad/core/theme"}}
    del second["location"]
    adapted = adapt_answer(answer)
    assert [c.document for c in adapted.citations[:2]] == ["https://mui.com/toolpad/core/theme", THEME_TS]
