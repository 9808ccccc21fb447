"""A LlamaIndex ``ChatResponse`` block of a type llama-index-core does not have fails closed (sdk-leftovers-4).

Read from its ``CitationBlock``s (no Anthropic ``Message`` kept as ``raw``), a response's blocks other than text
and citation blocks were skipped, whatever their ``block_type``: a ``CitationBlock`` whose ``block_type`` was
corrupted (a response edited or loaded from JSON), or a block a later llama-index adds, vanished with the
citation it may carry, and its text read as uncited or its passage unchecked. Now a block of a type that is not
one of llama-index-core 0.14's ``ContentBlock`` union is one invalid part naming ``message.blocks[i].block_type``;
the real block types (thinking, tool call, image, audio, video, document, cache point, citable) still cite
nothing and change nothing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from llama_index.core.base.llms.types import (
    AudioBlock,
    CacheControl,
    CachePoint,
    CitableBlock,
    DocumentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    VideoBlock,
)
from pydantic import BaseModel
from test_llamaindex_chat_citations import EXPECTED, chat_response, corpus, read

from pytest_citecheck._citations.adapt import adapt_answer

LEGIT = [
    ThinkingBlock(content="The user asks about Acme's plans.", additional_information={"signature": "EqQBCgIYAhIM"}),
    ToolCallBlock(tool_call_id="toolu_01A09q90qw90lq917835lq9", tool_name="search", tool_kwargs={"q": "acme"}),
    ImageBlock(url="https://docs.company.com/a.png"),
    AudioBlock(url="https://docs.company.com/a.mp3"),
    VideoBlock(url="https://docs.company.com/a.mp4"),
    DocumentBlock(data=b"%PDF-1.4", document_mimetype="application/pdf", title="a.pdf"),
    CachePoint(cache_control=CacheControl(type="ephemeral")),
    CitableBlock(content=[TextBlock(text="Acme")], source="https://docs.company.com/overview", title="Overview"),
]


@pytest.mark.parametrize("block", LEGIT, ids=[type(block).__name__ for block in LEGIT])
def test_every_real_block_type_of_llama_index_core_cites_nothing_and_changes_nothing(block: Any) -> None:
    response = chat_response(keep_raw=False)
    response.message.blocks.insert(0, block)
    response.message.blocks.insert(3, block)
    assert read(response) == EXPECTED
    assert read(json.loads(response.model_dump_json())) == EXPECTED


@pytest.mark.parametrize("kind", ["Citation", "citation ", "citations", "", "search_result", None, 5, ["citation"]])
def test_a_citation_block_whose_block_type_was_corrupted_is_invalid_naming_it(kind: Any) -> None:
    dumped = json.loads(chat_response(keep_raw=False).model_dump_json())
    assert dumped["message"]["blocks"][2]["block_type"] == "citation"
    dumped["message"]["blocks"][2]["block_type"] = kind
    adapted = adapt_answer(dumped, source=corpus())
    # Before: skipped; the first text read as citing nothing and only #3.1 checked.
    assert [citation.id for citation in adapted.citations] == ["#2", "#4.1"]
    assert list(adapted.invalid) == ["#2"]
    error = adapted.invalid["#2"]
    assert (error.citation, error.field) == ("#2", "message.blocks[2].block_type")
    shown = repr(kind) if isinstance(kind, str) else f"a {type(kind).__name__}"
    assert f"is {shown}, no block type of llama-index-core (" in str(error)
    assert "pass the ChatResponse the LLM returned, unchanged" in str(error)


class SearchResultBlock(BaseModel):
    """A block type llama-index-core does not have, as a later release or another integration could add."""

    block_type: str = "search_result_citation"
    cited_text: str = "Acme Dashboard is a monitoring tool for distributed systems."
    source: str = "https://docs.company.com/overview"


def test_a_block_object_of_an_unknown_type_is_invalid() -> None:
    response = chat_response(keep_raw=False)
    response.message.blocks.append(SearchResultBlock())  # pydantic does not validate an append
    adapted = adapt_answer(response, source=corpus())
    assert [citation.id for citation in adapted.citations] == ["#1.1", "#3.1", "#4"]
    assert list(adapted.invalid) == ["#4"]
    assert "'search_result_citation', no block type" in str(adapted.invalid["#4"])


def _installed_block_types() -> set[str]:
    """Every ``block_type`` of the installed llama-index-core: the ``Literal`` of each pydantic model in
    ``llama_index.core.base.llms.types`` that has the field (the ``ContentBlock`` union's members, and any
    block a later version defines outside it)."""
    import inspect
    import typing

    from llama_index.core.base.llms import types

    found: set[str] = set()
    for model in vars(types).values():
        if inspect.isclass(model) and issubclass(model, BaseModel) and "block_type" in model.model_fields:
            annotation = model.model_fields["block_type"].annotation
            assert typing.get_origin(annotation) is typing.Literal, (model, annotation)
            found.update(typing.get_args(annotation))
    return found


def test_the_block_types_read_are_those_of_the_installed_llama_index_core() -> None:
    # A block type upstream adds fails here: decide whether it can carry a citation (read it) or not (add it).
    from pytest_citecheck._citations.llamaindex_chat import _BLOCK_TYPES

    installed = _installed_block_types()
    assert {"text", "citation"} <= installed
    assert set(_BLOCK_TYPES) == installed
