"""Amazon Bedrock ConverseStream answers: the list of events ``converse_stream()`` yields, read as its answer.

No public recording of a whole streamed Converse answer with citations was found (the payloads README says
where we looked). The streams here are the recorded ``converse()`` answer
(``tests/data/payloads/bedrock_converse_pdf_page.json``) sent as Bedrock streams an answer, by botocore's
bedrock-runtime model (``ConverseStreamOutput``: text and each citation a ``contentBlockDelta`` of their block),
and one citation delta as a Bedrock stream logged it (``bedrock_converse_stream_citation_delta.json``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import converse_pdf_pages, located_places

from pytest_citecheck import CitationInputError, Corpus, Source, Status
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck.testing import JevServer

PAYLOADS = Path(__file__).resolve().parent.parent / "data" / "payloads"


def payload(name: str) -> Any:
    return json.loads((PAYLOADS / name).read_text(encoding="utf-8"))


def streamed(answer: dict[str, Any], *, citations_first: bool = False) -> list[dict[str, Any]]:
    """``answer`` (a ``converse()`` response) as ``converse_stream()`` sends it: each block's text in pieces of
    seven characters and each of its citations one ``citation`` delta, a reasoning block's text as reasoning
    deltas; then the stop and the metadata."""
    events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    for index, block in enumerate(answer["output"]["message"]["content"]):
        ((kind, body),) = block.items()
        text = body if kind == "text" else "".join(part["text"] for part in body.get("content", []))
        deltas = [{"text": text[start : start + 7]} for start in range(0, len(text), 7)]
        if kind == "citationsContent":
            cited = [{"citation": citation} for citation in body["citations"]]
            deltas = cited + deltas if citations_first else deltas + cited
        elif kind == "reasoningContent":
            deltas = [{"reasoningContent": {"text": body["reasoningText"]["text"]}}]
        events += [{"contentBlockDelta": {"contentBlockIndex": index, "delta": delta}} for delta in deltas]
        events.append({"contentBlockStop": {"contentBlockIndex": index}})
    usage = {"inputTokens": 1500, "outputTokens": 60, "totalTokens": 1560}
    return [*events, {"messageStop": {"stopReason": "end_turn"}}, {"metadata": {"usage": usage, "metrics": {}}}]


@pytest.mark.parametrize("citations_first", [False, True], ids=["text-then-citation", "citation-then-text"])
def test_the_recorded_answer_streamed_reads_as_the_answer_itself(citations_first: bool) -> None:
    answer = payload("bedrock_converse_pdf_page.json")
    events = streamed(answer, citations_first=citations_first)
    whole, pieces = adapt_answer(answer, source=converse_pdf_pages()), adapt_answer(events, source=converse_pdf_pages())
    assert pieces.citations == whole.citations and len(whole.citations) == 1
    assert pieces.uncited == whole.uncited == ["No, this is not a paper on Large Language Models."]
    assert located_places(events, converse_pdf_pages()) == [(Status.FOUND, "page 1")]


def test_a_streamed_citation_of_another_page_is_found_elsewhere_never_found() -> None:
    answer = payload("bedrock_converse_pdf_page.json")
    place = answer["output"]["message"]["content"][1]["citationsContent"]["citations"][0]["location"]
    place["documentPage"] |= {"start": 2, "end": 3}
    assert located_places(streamed(answer), converse_pdf_pages()) == [(Status.FOUND_ELSEWHERE, "page 1")]


def test_a_citation_delta_as_a_bedrock_stream_logged_it() -> None:
    """The logged delta (block 3, page 1 of the first document) after a reasoning block and a text block."""
    logged = payload("bedrock_converse_stream_citation_delta.json")
    events = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "The PDF..."}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "c2ln"}}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"text": "Here is what it says. "}}},
        {"contentBlockStop": {"contentBlockIndex": 1}},
        {"contentBlockDelta": {"contentBlockIndex": 3, "delta": {"text": "The document holds the content."}}},
        logged,
        {"contentBlockStop": {"contentBlockIndex": 3}},
        {"messageStop": {"stopReason": "end_turn"}},
    ]
    corpus = Corpus({"document-1": Source(sections={"page 1": "CONTENT_OF_PDF", "page 2": "Other text."})})
    [citation] = adapt_answer(events, source=corpus).citations
    assert (citation.id, citation.claim, citation.quote) == (
        "#1.1",
        "The document holds the content.",
        "CONTENT_OF_PDF",
    )
    assert located_places(events, corpus) == [(Status.FOUND, "page 1")]


def test_the_streamed_answer_passes_a_whole_check(direct_checker: Any) -> None:
    server = JevServer().start()
    try:
        events = streamed(payload("bedrock_converse_pdf_page.json"))
        [result] = direct_checker(server).assert_supported(events, converse_pdf_pages())
    finally:
        server.stop()
    assert (result.status, result.section, result.verdict) == (Status.FOUND, "page 1", "verified")


def test_a_bad_streamed_citation_names_its_event_and_hides_no_other(direct_checker: Any) -> None:
    answer = payload("bedrock_converse_pdf_page.json")
    content = answer["output"]["message"]["content"]
    good = content[1]["citationsContent"]["citations"][0]
    content[1]["citationsContent"]["citations"] = [good, {**good, "location": {"documentSpan": {"start": 1}}}]
    events = streamed(answer)
    bad = next(n for n, event in enumerate(events) if "documentSpan" in json.dumps(event))
    server = JevServer().start()
    try:
        checker = direct_checker(server)
        message = rf"citation '#1\.2', field 'stream\[{bad}\]\.contentBlockDelta\.delta\.citation\.location': "
        with pytest.raises(CitationInputError, match=message + ".*documentSpan"):
            checker.check(events, converse_pdf_pages())
    finally:
        server.stop()
    assert [(r.id, r.status) for r in checker.results] == [("#1.1", Status.FOUND), ("#1.2", Status.INVALID)]
    assert len(server.systemone_requests) == 1


def test_a_bad_place_in_a_streamed_citation_is_named_by_its_event_and_bedrocks_field() -> None:
    answer = payload("bedrock_converse_pdf_page.json")
    citation = answer["output"]["message"]["content"][1]["citationsContent"]["citations"][0]
    citation["location"]["documentPage"]["start"] = 0
    events = streamed(answer)
    [error] = adapt_answer(events, source=converse_pdf_pages()).invalid.values()
    number = next(
        n for n, event in enumerate(events) if "citation" in event.get("contentBlockDelta", {}).get("delta", {})
    )
    assert error.field == f"stream[{number}].contentBlockDelta.delta.citation.location.documentPage.start"
    assert "location.documentPage.start 0" in error.message


def test_a_place_botocore_does_not_know_is_named_by_its_name() -> None:
    answer = payload("bedrock_converse_pdf_page.json")
    citation = answer["output"]["message"]["content"][1]["citationsContent"]["citations"][0]
    citation["location"] = {"SDK_UNKNOWN_MEMBER": {"name": "documentSpan"}}  # as botocore parses a newer member
    [error] = adapt_answer(streamed(answer), source=converse_pdf_pages()).invalid.values()
    assert error.field is not None and error.field.endswith(".contentBlockDelta.delta.citation.location")
    assert "got 'documentSpan' (botocore's SDK_UNKNOWN_MEMBER" in error.message


def test_a_citation_delta_of_a_block_with_no_text_is_one_invalid_citation() -> None:
    events = streamed(payload("bedrock_converse_pdf_page.json"))
    citing = [n for n, e in enumerate(events) if e.get("contentBlockDelta", {}).get("contentBlockIndex") == 1]
    cited_alone = [e for n, e in enumerate(events) if n not in citing or "citation" in e["contentBlockDelta"]["delta"]]
    adapted = adapt_answer(cited_alone, source=converse_pdf_pages())
    [(citation_id, error)] = adapted.invalid.items()
    assert citation_id == "#1" and error.field.endswith(".contentBlockDelta.delta.citation")
    assert "no text delta" in error.message


def _recorded_stream() -> list[dict[str, Any]]:
    return streamed(payload("bedrock_converse_pdf_page.json"))


def _without_index(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    del events[1]["contentBlockDelta"]["contentBlockIndex"]
    return events, r"stream\[1\]\.contentBlockDelta\.contentBlockIndex': must be a whole number >= 0 \(it is missing\)"


def _after_stop(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    events.insert(-1, {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"text": " And more."}}})
    at = len(events) - 2
    return events, rf"stream\[{at}\]': a 'contentBlockDelta' event comes after the messageStop at stream\[{at - 1}\]"


def _after_block_stop(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    citation = events[-4]["contentBlockDelta"]["delta"]  # the citation delta, just before block 1 stops
    events.insert(-2, {"contentBlockDelta": {"contentBlockIndex": 1, "delta": dict(citation)}})
    return events, r"contentBlockIndex': is a delta of block 1, which stopped at stream\[\d+\]"


def _stop_never_begun(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    events.insert(-2, {"contentBlockStop": {"contentBlockIndex": 7}})
    return events, r"contentBlockStop\.contentBlockIndex': stops block 7, which no event began"


def _no_message_stop(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    return events[:-2], r"field 'stream': has no messageStop event: the stream was not read to its end"


def _no_message_start(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    return events[1:], r"stream\[0\]': a 'contentBlockDelta' event comes before messageStart"


def _unknown_delta(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    events[1]["contentBlockDelta"]["delta"] = {"citationsV2": [{"title": "x"}]}
    return events, r"stream\[1\]\.contentBlockDelta\.delta': must hold one of .*got 'citationsV2' \(a delta"


def _unknown_to_botocore(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """A delta kind newer than the botocore that read the stream: botocore marks it, and it is named by its name."""
    events[1]["contentBlockDelta"]["delta"] = {"SDK_UNKNOWN_MEMBER": {"name": "citationsV2"}}
    return events, r"delta': must hold one of .*got 'citationsV2' \(botocore's SDK_UNKNOWN_MEMBER"


def _failure(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    events.insert(3, {"modelStreamErrorException": {"message": "Model stream ended early", "originalStatusCode": 500}})
    return events, r"stream\[3\]': is a 'modelStreamErrorException': the stream failed \(Model stream ended early\)"


def _block_never_stopped(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    stop = next(n for n, e in enumerate(events) if e.get("contentBlockStop", {}).get("contentBlockIndex") == 1)
    del events[stop]
    return events, r"ends the message while block 1 \(begun at stream\[\d+\]\) has no contentBlockStop"


def _text_in_a_tool_block(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    tool = {"toolUse": {"toolUseId": "t1", "name": "search"}}
    events[1:1] = [
        {"contentBlockStart": {"contentBlockIndex": 9, "start": tool}},
        {"contentBlockDelta": {"contentBlockIndex": 9, "delta": {"text": "not a tool's"}}},
    ]
    return events, r"stream\[2\]\.contentBlockDelta\.delta': is a text delta of block 9, which is a toolUse block"


def _not_an_event(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    events.insert(2, {"id": "a", "claim": "c", "quote": "q"})
    return events, r"stream\[2\]': must be one ConverseStream event"


@pytest.mark.parametrize(
    "broken",
    [
        _without_index,
        _after_stop,
        _after_block_stop,
        _stop_never_begun,
        _no_message_stop,
        _no_message_start,
        _unknown_delta,
        _unknown_to_botocore,
        _failure,
        _block_never_stopped,
        _text_in_a_tool_block,
        _not_an_event,
    ],
    ids=lambda broken: broken.__name__.strip("_").replace("_", "-"),
)
def test_a_stream_that_is_not_whole_and_in_order_is_refused_naming_the_event(broken: Any) -> None:
    events, message = broken(_recorded_stream())
    with pytest.raises(CitationInputError, match=message):
        adapt_answer(events, source=converse_pdf_pages())


def test_one_event_passed_alone_says_to_pass_the_whole_stream() -> None:
    event = _recorded_stream()[1]
    with pytest.raises(CitationInputError, match=r"a 'contentBlockDelta' event of a streamed Bedrock Converse answer"):
        adapt_answer(event)
