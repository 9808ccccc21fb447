"""An ``AIMessage`` whose ``content_blocks`` langchain-core itself cannot translate is read block by block.

langchain-core's translators (``bedrock_converse``, ``anthropic``, ``openai``) raise on a malformed block: a
Bedrock text block whose ``citations`` is an object, not a list, raises ``AttributeError`` inside
``content_blocks``. The whole message then read as "no answer pytest-citecheck knows" (or escaped as a bare
``TypeError`` / ``KeyError``): closed, but naming neither the block nor the field, and none of the message's
good citations was checked. Now the message's own ``content`` is read as its provider gave it, the way a
Converse answer's malformed ``citationsContent`` block is: the bad block is one invalid citation naming
``content[i]`` and its field, and every other citation is located and judged.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage
from support import CLAUDE_CHAR_LOCATION_BLOCK, converse_pdf_pages, refused_with_one_invalid
from test_bedrock_converse import langchain_content

from pytest_citecheck import CitationInputError
from pytest_citecheck._citations.adapt import adapt_answer

CONVERSE = {"model_provider": "bedrock_converse"}


def converse_message(bad: dict[str, Any]) -> AIMessage:
    """langchain-aws's ``ChatBedrockConverse`` content of the recorded Converse answer (page 1 cited), a
    reasoning block, then ``bad``, at ``content[3]``."""
    [aside, cited] = langchain_content(1, 2)
    reasoning = {"type": "reasoning_content", "reasoning_content": {"text": "Let me look.", "signature": "sig"}}
    return AIMessage(content=[aside, cited, reasoning, bad], response_metadata=CONVERSE)  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("citations", "shown"),
    [({"source_content": [{"text": "q"}]}, "dict"), (5, "int"), ("abc", "str")],
    ids=["object", "number", "string"],
)
def test_a_converse_block_whose_citations_are_no_list_is_one_invalid_citation(citations: Any, shown: str) -> None:
    message = converse_message({"type": "text", "text": "Claim two.", "citations": citations})
    adapted = adapt_answer(message, source=converse_pdf_pages())
    assert [citation.id for citation in adapted.citations] == ["#1.1", "#2"]
    error = adapted.invalid.pop("#2")
    assert adapted.invalid == {}
    assert (error.citation, error.field) == ("#2", "content[3].citations")
    assert f"must be a list of citations, got {shown}" in str(error)


@pytest.mark.parametrize("item", [None, 5, "x"], ids=["none", "number", "string"])
def test_a_converse_citation_that_is_no_object_is_one_invalid_citation(item: Any) -> None:
    good = {
        "source_content": [{"text": "q"}],
        "location": {"document_page": {"document_index": 0, "start": 1, "end": 2}},
    }
    message = converse_message({"type": "text", "text": "Claim two.", "citations": [good, item]})
    adapted = adapt_answer(message, source=converse_pdf_pages())
    assert [citation.id for citation in adapted.citations] == ["#1.1", "#2.1", "#2.2"]
    assert list(adapted.invalid) == ["#2.2"]
    assert adapted.invalid["#2.2"].field == "citations" and "must be an object" in str(adapted.invalid["#2.2"])


def test_a_converse_block_whose_text_is_no_string_is_one_invalid_citation() -> None:
    """langchain-core translates this one; its text was refused for the whole answer."""
    message = converse_message({"type": "text", "text": 5, "citations": [{"source_content": [{"text": "q"}]}]})
    adapted = adapt_answer(message, source=converse_pdf_pages())
    assert [citation.id for citation in adapted.citations] == ["#1.1", "#2"]
    assert adapted.invalid["#2"].field == "text" and "must be a string, got int" in str(adapted.invalid["#2"])


def test_the_good_citation_of_a_message_with_a_bad_block_is_judged(direct_checker: Any) -> None:
    message = converse_message({"type": "text", "text": "Claim two.", "citations": {"source_content": []}})
    field = r"citation '#2', field 'content\[3\]\.citations'"
    claims = refused_with_one_invalid(direct_checker, message, converse_pdf_pages(), field)
    assert claims == [langchain_content(1, 2)[1]["text"]]


CLAUDE = CLAUDE_CHAR_LOCATION_BLOCK


@pytest.mark.parametrize(
    ("citations", "invalid", "field"),
    [(5, "#1", "content[1].citations"), ("abc", "#1", "content[1].citations"), ([None], "#1.1", "cited_text")],
    ids=["number", "string", "none-item"],
)
def test_a_claude_message_with_a_malformed_block_keeps_its_other_citations(
    citations: Any, invalid: str, field: str
) -> None:
    """langchain-core raises ``TypeError`` (a number) or ``AttributeError`` on these; a ``None`` citation is read
    as the Anthropic reader reads one in a ``Message``."""
    bad = {"type": "text", "text": "The sky is blue.", "citations": citations}
    message = AIMessage(content=[CLAUDE, bad], response_metadata={"model_provider": "anthropic"})  # type: ignore[list-item]
    adapted = adapt_answer(message)
    assert [(citation.id, citation.quote) for citation in adapted.citations[:1]] == [("#0.1", "The grass is green.")]
    assert [(citation_id, error.field) for citation_id, error in adapted.invalid.items()] == [(invalid, field)]


OPENAI_GOOD = {
    "type": "text",
    "text": "Iceland is cold.",
    "annotations": [
        {
            "type": "url_citation",
            "url": "https://example.org/iceland",
            "title": "Iceland",
            "start_index": 0,
            "end_index": 16,
        }
    ],
}


@pytest.mark.parametrize(
    ("annotation", "field"),
    [({"type": "url_citation", "title": "T", "start_index": 0, "end_index": 3}, "url"), (None, "type")],
    ids=["url-citation-without-url", "none"],
)
def test_an_openai_message_with_a_malformed_annotation_keeps_its_other_citations(annotation: Any, field: str) -> None:
    """langchain-core raises ``KeyError: 'url'`` and ``AttributeError`` on these."""
    bad = {"type": "text", "text": "Oslo is far.", "annotations": [annotation]}
    message = AIMessage(content=[OPENAI_GOOD, bad], response_metadata={"model_provider": "openai"})  # type: ignore[list-item]
    adapted = adapt_answer(message)
    assert [(citation.id, citation.claim) for citation in adapted.citations[:1]] == [("#0.1", "Iceland is cold.")]
    assert [(citation_id, error.field) for citation_id, error in adapted.invalid.items()] == [("#1.1", field)]


def test_an_openai_message_whose_annotations_are_no_list_names_the_block() -> None:
    bad = {"type": "text", "text": "Oslo is far.", "annotations": 5}
    message = AIMessage(content=[OPENAI_GOOD, bad], response_metadata={"model_provider": "openai"})  # type: ignore[list-item]
    adapted = adapt_answer(message)
    assert [citation.id for citation in adapted.citations] == ["#0.1", "#1"]
    assert adapted.invalid["#1"].field == "content[1].annotations"


def test_a_message_no_block_of_which_can_be_read_alone_names_content_blocks_and_the_cause() -> None:
    """Gemini's grounding metadata is in ``response_metadata``, not in a block: the message is refused whole,
    naming what langchain-core said, never a bare ``TypeError``."""
    message = AIMessage(
        content="Hello world.",
        response_metadata={"model_provider": "google_genai", "grounding_metadata": {"grounding_supports": 5}},
    )
    with pytest.raises(CitationInputError) as raised:
        adapt_answer(message)
    assert raised.value.field == "content_blocks"
    assert "google_genai" in str(raised.value) and "TypeError" in str(raised.value)
