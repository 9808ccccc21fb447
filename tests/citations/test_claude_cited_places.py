"""A Claude citation is checked in the place it names, or fails naming the field (hunt-sdk-shapes).

Three ways a citation lost its place and a quote from elsewhere passed as ``found``:

- a ``page_location`` of pages the document checked does not have (page 5 of a 3-page PDF, page 2 of a
  document whose pages are printed labels) was read without its pages: its quote was looked for anywhere;
- a ``web_search_result_location`` or ``search_result_location`` checked against a single ``Source`` was
  read as a citation of that source, whatever page its ``url`` (result its ``source``) named;
- against a ``Corpus``, a web search citation whose ``url`` named no document was read as the document its
  ``title`` named (two pages of one site share a title).

The answers are the SDK's own ``Message``s of the recorded answers in ``tests/data/payloads``
(``claude_pdf_page_answer.json``: prism-php; ``claude_web_search_weather.json``: pydantic-ai's cassette).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from anthropic.types import Message
from support import checked_or_refused

from pytest_citecheck import Corpus, Source, Status
from pytest_citecheck._citations.adapt import adapt_answer

PAYLOADS = Path(__file__).resolve().parent.parent / "data" / "payloads"
ANSWER_42 = "The Answer to the Ultimate Question of Life, the Universe, and Everything is 42."
CONDITIONS = "https://www.wunderground.com/weather/us/ca/san-francisco"
HOURLY = "https://www.wunderground.com/hourly/us/ca/san-francisco"


def recorded(name: str) -> dict[str, Any]:
    return json.loads((PAYLOADS / name).read_text(encoding="utf-8"))


def pdf_answer(start: int, end: int) -> Message:
    """The recorded PDF answer, its one ``page_location`` moved to ``[start, end)``."""
    answer = recorded("claude_pdf_page_answer.json")
    [cited] = [block for block in answer["content"] if block.get("citations")]
    cited["citations"][0].update(start_page_number=start, end_page_number=end)
    return Message.model_validate(answer)


PAGES = {"page 1": ANSWER_42, "page 2": "Deep Thought took 7.5 million years.", "page 3": "So long."}


@pytest.mark.parametrize("source", [Source(sections=PAGES), Corpus({"guide.pdf": Source(sections=PAGES)})])
def test_a_page_the_document_does_not_have_is_invalid_not_read_without_its_page(direct_checker, source) -> None:
    results, error = checked_or_refused(direct_checker, pdf_answer(5, 6), source)
    # Before: '#1.1' was found on page 1, as if it cited no page.
    assert [(r.id, r.status) for r in results] == [("#1.1", Status.INVALID)]
    assert error is not None and (error.citation, error.field) == ("#1.1", "start_page_number")
    assert "cites page 5, which the document checked does not have (its pages: page 1, page 2, page 3)" in str(error)
    # A page it has is read as before: the quote is on page 1, not the page cited.
    results, error = checked_or_refused(direct_checker, pdf_answer(2, 3), source)
    assert error is None and [(r.status, r.cited_section, r.section) for r in results] == [
        (Status.FOUND_ELSEWHERE, "page 2", "page 1")
    ]


def test_pages_named_by_printed_labels_cannot_be_cited_by_number(direct_checker: Any) -> None:
    labelled = Source(sections={"page i": ANSWER_42, "page ii": "Deep Thought took 7.5 million years."})
    results, error = checked_or_refused(direct_checker, pdf_answer(1, 3), labelled)
    assert [r.status for r in results] == [Status.INVALID]
    assert error is not None and error.field == "start_page_number"
    assert "cites pages 1 to 2, which the document checked does not have (its pages: page i, page ii)" in str(error)


def test_pages_past_the_last_are_read_as_the_pages_there_are(direct_checker: Any) -> None:
    results, error = checked_or_refused(direct_checker, pdf_answer(1, 10**12), Source(sections=PAGES))
    assert error is None and [(r.status, r.section) for r in results] == [(Status.FOUND, "page 1 + page 2 + page 3")]


def weather() -> Message:
    return Message.model_validate(recorded("claude_web_search_weather.json"))


def test_a_web_search_citation_of_another_page_is_not_read_in_a_single_source(direct_checker: Any) -> None:
    # The hourly page also says "Winds W at 10 to 20 mph.", which Claude cited from the conditions page.
    text = "Some clouds in the morning will give way to mainly sunny skies for the afternoon. Winds W at 10 to 20 mph."
    hourly = Source(sections={"page": text}, name=HOURLY)
    adapted = adapt_answer(weather(), source=hourly)
    # Before: no error, and both "Winds W at 10 to 20 mph" citations of the conditions page were found here.
    assert [c.id for c in adapted.citations if c.id not in adapted.invalid] == ["#13.1"]
    assert {error.field for error in adapted.invalid.values()} == {"url"}
    assert f"names {CONDITIONS!r}, but the check was given a single Source named {HOURLY!r}" in str(
        adapted.invalid["#9.1"]
    )
    results, error = checked_or_refused(direct_checker, weather(), hourly)
    assert error is not None
    assert [(r.id, r.status) for r in results if r.status is not Status.INVALID] == [("#13.1", Status.FOUND)]
    # Unnamed, the source names no page: every citation says so.
    unnamed = adapt_answer(weather(), source=Source(sections={"page": text}))
    assert len(unnamed.invalid) == 9 and "a single Source with no name" in str(unnamed.invalid["#13.1"])


def test_a_web_search_url_the_corpus_lacks_is_not_read_as_the_document_its_title_names(direct_checker: Any) -> None:
    answer = recorded("claude_web_search_weather.json")
    [cited] = [block for block in answer["content"] if block.get("citations", [{}])[0].get("url") == HOURLY]
    title = cited["citations"][0]["title"]
    # Another page of the site, with the same title, is in the corpus under that title.
    corpus = Corpus(
        {title: "# Hourly\n\nSome clouds in the morning will give way to mainly sunny skies for the afternoon."}
    )
    results, error = checked_or_refused(direct_checker, Message.model_validate(answer), corpus)
    hourly = [r for r in results if r.id == "#13.1"]
    # Before: found in the document named by the title.
    assert [(r.status, r.document) for r in hourly] == [(Status.INVALID, None)]
    assert error is not None
    adapted = adapt_answer(Message.model_validate(answer), source=corpus)
    assert adapted.invalid["#13.1"].field == "url"
    assert f"url {HOURLY!r}: no document of the corpus" in str(adapted.invalid["#13.1"])


def test_an_openai_url_citation_of_another_page_with_the_same_last_segment_does_not_cite_a_single_source(
    direct_checker: Any,
) -> None:
    """The same hole in OpenAI's annotations: a URL was taken for the single ``Source``'s own document when its
    last segment was the source's. The answer is gpt-5.2's, recorded by pydantic-ai
    (``tests/models/cassettes/test_openai_responses/test_openai_include_raw_annotations_non_streaming.yaml``,
    commit f077d56c, the second response), its URL without OpenAI's ``?utm_source=openai``, which hid the
    last segment from the old match (a URL as Claude gives them, or a proxy strips tracking parameters)."""
    from openai.types.responses import Response

    url = "https://www.britannica.com/place/Mount-Columbia"
    text = f"The tallest mountain in Alberta is **Mount Columbia** (3,747 m / 12,294 ft). ([britannica.com]({url}))"
    annotation = {"type": "url_citation", "url": url, "title": "Mount Columbia | Britannica", "start_index": 77}
    part = {"type": "output_text", "text": text, "annotations": [annotation | {"end_index": len(text)}]}
    response = Response.model_validate(
        {
            "id": "resp_03313d5bfbdedc9200696c45ffbc8c819cb6a3f1f2aac9b0cb",
            "object": "response",
            "created_at": 1768703487,
            "model": "gpt-5.2-2025-12-11",
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "output": [
                {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [part]}
            ],
        }
    )
    page = "Mount Columbia is the highest point in Alberta, at 3,747 m (12,294 ft)."
    other = Source(sections={"page": page}, name="https://www.mountain-forecast.com/peaks/Mount-Columbia")
    results, error = checked_or_refused(direct_checker, response, other)
    # Before: judged against the other site's page, as if the answer cited it.
    assert error is not None and error.field == "document"
    assert [r.status for r in results] == [Status.INVALID]
    own = Source(sections={"page": page}, name=url + "/")
    results, error = checked_or_refused(direct_checker, response, own)
    assert error is None and [r.status for r in results] == [Status.DOCUMENT_ONLY]
