"""A provider's own text block in an ``AIMessage`` without ``model_provider`` keeps its ``citations``.

langchain-core passes such a block through ``content_blocks`` as it came (``{"type": "text", "text": ...,
"citations": [...]}``). Read as a standard block it has no annotations, so its citations were dropped with no
error: a Claude answer's citations were not checked at all, and a Bedrock block whose ``citations`` was no
list hid itself while the message's other citations passed.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage
from support import CLAUDE_CHAR_LOCATION_BLOCK

from pytest_citecheck._citations.adapt import adapt_answer

CLAUDE = CLAUDE_CHAR_LOCATION_BLOCK


def test_a_claude_blocks_citations_are_read_without_model_provider() -> None:
    adapted = adapt_answer(AIMessage(content=[CLAUDE]))  # type: ignore[list-item]
    assert [(citation.id, citation.quote) for citation in adapted.citations] == [("#0.1", "The grass is green.")]
    assert adapted.invalid == {}


def test_a_block_whose_citations_are_no_list_is_invalid_not_dropped() -> None:
    page = {"document_page": {"document_index": 0, "start": 1, "end": 2}}
    good = {"type": "text", "text": "Claim one.", "citations": [{"source_content": [{"text": "q"}], "location": page}]}
    bad = {"type": "text", "text": "Claim two.", "citations": {"source_content": [{"text": "q"}]}}
    adapted = adapt_answer(AIMessage(content=[good, bad]))  # type: ignore[list-item]
    assert [citation.id for citation in adapted.citations] == ["#0.1", "#1"]
    assert adapted.invalid["#1"].field == "citations" and "must be a list of citations" in str(adapted.invalid["#1"])
