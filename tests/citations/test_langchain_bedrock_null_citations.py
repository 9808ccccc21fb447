"""langchain-aws turns a Converse ``citationsContent`` block whose ``citations`` is ``null`` into plain text.

langchain-aws 1.9.1's ``ChatBedrockConverse`` (its ``_parse_response``, run over the recorded Converse answer with
such a block appended; see the notes of this change) gives ``{"type": "text", "text": ...}`` for it: the citations
are gone before the message reaches the check. Read from ``converse()`` directly, the block is one invalid
citation; in the ``AIMessage`` it is uncited text. Nothing passes as verified: its sentence is not judged, and
``require_cited_sentences`` lists it (docs/sources.md says so).
"""

from __future__ import annotations

import copy

from langchain_core.messages import AIMessage
from support import converse_pdf_pages
from test_bedrock_converse import langchain_content, recorded

from pytest_citecheck._citations.adapt import adapt_answer

CLAIM = "PDF was invented by Microsoft in 1975."


def test_the_block_is_uncited_text_in_the_message_and_invalid_in_the_converse_answer() -> None:
    message = AIMessage(
        content=[*langchain_content(1, 2), {"type": "text", "text": CLAIM}],  # type: ignore[list-item]
        response_metadata={"model_provider": "bedrock_converse"},
    )
    adapted = adapt_answer(message, source=converse_pdf_pages())
    assert [citation.id for citation in adapted.citations] == ["#1.1"] and adapted.invalid == {}
    assert CLAIM in adapted.uncited

    answer = copy.deepcopy(recorded())
    answer["output"]["message"]["content"].append(
        {"citationsContent": {"content": [{"text": CLAIM}], "citations": None}}
    )
    direct = adapt_answer(answer, source=converse_pdf_pages())
    assert list(direct.invalid) == ["#2"]
