"""Whether a text block's citations are Bedrock's is told by their keys, never by a copy of each citation.

LangChain's ``AIMessage.content`` holds Claude text blocks and, from ``ChatBedrockConverse``, text blocks whose
``citations`` are Bedrock's (snake-case keys). ``is_bedrock_text_block`` is asked about every such block, so it
reads each citation's keys (and its ``location``'s one key), as ``_camel`` would name them, and walks no value:
the answer is the one the camel-cased copy gave (the property test holds it to that copy).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pytest_citecheck._citations.bedrock import (
    _LOCATIONS,
    _camel,
    is_bedrock_annotation,
    is_bedrock_citation,
    is_bedrock_text_block,
)

PAYLOADS = Path(__file__).resolve().parent.parent / "data" / "payloads"


class Untouchable(Mapping[str, Any]):
    """A value that must not be walked: reading any of it fails the test."""

    def __getitem__(self, key: str) -> Any:
        raise AssertionError("a citation's value was walked")

    def __iter__(self) -> Iterator[str]:
        raise AssertionError("a citation's value was walked")

    def __len__(self) -> int:
        raise AssertionError("a citation's value was walked")


def test_a_claude_blocks_citations_are_told_by_their_keys_alone() -> None:
    recorded = json.loads((PAYLOADS / "claude_pdf_page_answer.json").read_text(encoding="utf-8"))
    block = next(block for block in recorded["content"] if block.get("citations"))
    for citation in block["citations"]:
        citation["extras"] = Untouchable()  # a value a Claude citation might carry: never walked
    assert not is_bedrock_text_block(block)


def test_a_bedrock_citation_is_told_by_its_keys_and_its_locations_key() -> None:
    page = {"document_page": Untouchable()}  # the location's one key says what it is; its body is not read
    assert is_bedrock_citation({"title": "a.pdf", "location": page})
    assert is_bedrock_citation({"source_content": Untouchable()})
    assert is_bedrock_text_block({"type": "text", "text": "x", "citations": [{"cited_text": "y"}, {"location": page}]})
    assert is_bedrock_annotation({"extras": {"location": page}}, lambda item, name: item.get(name))


_keys = st.sampled_from(
    [
        "location",
        "sourceContent",
        "source_content",
        "source__content_",
        "source_Content",
        "_source_content",
        "Source_content",
        "sourcecontent",
        "sourceContent_",
        "title",
        "cited_text",
        "type",
        "document_page",
        "documentPage",
        "document_char",
        "web",
        "search_result_location",
        "documentSpan",
        "location_",
    ]
)
_values = st.recursive(
    st.none() | st.integers() | st.text(max_size=3), lambda inner: st.dictionaries(_keys, inner, max_size=3)
)


def _is_location(copied: Any) -> bool:
    """The check the copy was put to (a camel-cased ``location``)."""
    return isinstance(copied, Mapping) and len(copied) == 1 and next(iter(copied)) in _LOCATIONS


@given(st.dictionaries(_keys, _values, max_size=4) | _values)
def test_the_key_check_answers_as_the_camel_cased_copy_did(item: Any) -> None:
    copied = _camel(item) if isinstance(item, Mapping) else None
    expected = isinstance(copied, Mapping) and (_is_location(copied.get("location")) or "sourceContent" in copied)
    assert is_bedrock_citation(item) == expected
    extras = {"location": item}
    assert is_bedrock_annotation({"extras": extras}, lambda raw, name: raw.get(name)) == _is_location(
        _camel(extras).get("location")
    )
