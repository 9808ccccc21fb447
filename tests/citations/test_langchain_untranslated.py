"""A citation langchain-core could not translate is read as its provider gave it, never dropped (hunt-sdk-shapes).

langchain-core 1.8's block translators turn a provider's citation they cannot translate into a
``{"type": "non_standard_annotation", "value": <the citation>}`` (``messages/block_translators/anthropic.py``:
a Claude citation without ``cited_text``, or of a type it does not know; ``openai.py``: anything but a
``url_citation`` or ``file_citation``). Those were dropped: a Claude answer read through LangChain passed
on its good citations while the same answer as a ``Message`` failed on the bad one, and a citation of a
type newer than langchain-core lost its place silently. The messages are langchain-core's own
``AIMessage``s of the recorded Claude PDF answer (``tests/data/payloads/claude_pdf_page_answer.json``,
prism-php) and of pydantic-ai's recorded code-interpreter answer (a ``container_file_citation``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_citecheck import CitationInputError, CitationsNotSupported, Source, Status
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck.testing import JevServer

PAYLOADS = Path(__file__).resolve().parent.parent / "data" / "payloads"
ANSWER_42 = "The Answer to the Ultimate Question of Life, the Universe, and Everything is 42."
PAGES = Source(sections={"page 1": ANSWER_42, "page 2": "Deep Thought took 7.5 million years."})


def claude_message(changed: dict[str, Any] | None = None, dropped: str | None = None) -> Any:
    """The recorded PDF answer as langchain-anthropic gives it: an AIMessage of the Message's content."""
    from langchain_core.messages import AIMessage

    answer = json.loads((PAYLOADS / "claude_pdf_page_answer.json").read_text(encoding="utf-8"))
    [cited] = [block for block in answer["content"] if block.get("citations")]
    cited["citations"][0].update(changed or {})
    cited["citations"][0].pop(dropped, None)
    return AIMessage(content=answer["content"], response_metadata={"model_provider": "anthropic"})


@pytest.mark.parametrize(
    ("changed", "dropped", "field", "message"),
    [
        (
            {"type": "page_locaton"},
            None,
            "type",
            "is 'page_locaton', not a type of Anthropic citation this version knows",
        ),
        ({}, "cited_text", "cited_text", "is missing: an Anthropic citation carries the passage it cites"),
    ],
    ids=["a-type-langchain-core-does-not-know", "no-cited-text"],
)
def test_a_claude_citation_langchain_core_leaves_untranslated_is_invalid_not_dropped(
    direct_checker: Any, changed: dict[str, Any], dropped: str | None, field: str, message: str
) -> None:
    ai_message = claude_message(changed, dropped)
    [block] = [block for block in ai_message.content_blocks if block.get("annotations")]
    assert [a["type"] for a in block["annotations"]] == ["non_standard_annotation"]  # type: ignore[typeddict-item]
    adapted = adapt_answer(ai_message)
    # Before: no citation at all (and with another citation beside it, that one passed alone).
    assert [(c.id, c.claim) for c in adapted.citations] == [("#1.1", ANSWER_42)]
    assert str(adapted.invalid["#1.1"]).startswith(f"citation '#1.1', field '{field}': {message}")
    server = JevServer().start()
    try:
        checker = direct_checker(server)
        with pytest.raises(CitationInputError, match=f"citation '#1.1', field '{field}'"):
            checker.check(ai_message, PAGES)
    finally:
        server.stop()
    assert [r.status for r in checker.results] == [Status.INVALID]


def test_the_translated_claude_citation_is_read_as_before(direct_checker: Any) -> None:
    server = JevServer().start()
    try:
        results = direct_checker(server).check(claude_message(), PAGES)
    finally:
        server.stop()
    assert [(r.id, r.status, r.section) for r in results] == [("#1.1", Status.FOUND, "page 1")]


def test_an_openai_file_the_model_made_is_still_no_citation(direct_checker: Any) -> None:
    """pydantic-ai's recorded gpt-5.5 code-interpreter answer (``tests/models/cassettes/test_openai_responses/
    test_openai_responses_code_execution_download_file.yaml``): its one annotation is a
    ``container_file_citation``, a file the model made, which langchain-core leaves untranslated."""
    from langchain_core.messages import AIMessage

    text = "Done: [Download the CSV file](sandbox:/mnt/data/numbers_and_squares.csv)"
    annotation = {
        "container_id": "cntr_6a4f0ac6e7608190a20742cb2eb8635d0cf302147856297d",
        "end_index": 71,
        "file_id": "cfile_6a4f0acb1f9481918c9f3a5b6c8ab20f",
        "filename": "numbers_and_squares.csv",
        "start_index": 30,
        "type": "container_file_citation",
    }
    message = AIMessage(
        content=[{"type": "text", "text": text, "annotations": [annotation]}],
        response_metadata={"model_provider": "openai"},
    )
    adapted = adapt_answer(message)
    assert (adapted.citations, adapted.invalid) == ([], {})
    server = JevServer().start()
    try:
        with pytest.raises(CitationsNotSupported, match="cites nothing"):
            direct_checker(server).assert_supported(message, Source.from_text("# Numbers\n\n1, 4, 9, 16, 25.\n"))
    finally:
        server.stop()
