"""One marker that cannot be read as source numbers is one invalid citation, not the whole answer (sdk-leftovers).

A LlamaIndex or Haystack answer with a marker like ``[2-1]`` (a range that runs down) or ``[1-500]`` (wider
than any list of sources) was one invalid stand-in named ``s2``: the error hid every other marker of the
answer, which was never checked (the test failed, but only on the one marker). Now that marker alone is an
``invalid`` citation, named by its sentence and the marker as written (``#0.s2[2-1]``), and the answer's
other markers are checked. The answers are haystack's own ``GeneratedAnswer`` from a real ``AnswerBuilder``
run and llama-index-core's ``Response`` of real ``NodeWithScore``s.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_citecheck import CitationInputError, Corpus, Source, Status, citations_from_markers
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck.testing import JevServer

GREEN = "The grass is green."
BLUE = "The sky is blue."
CORPUS = Corpus({"grass.md": Source(sections={"grass": GREEN}), "sky.md": Source(sections={"sky": BLUE})})
REPLY = "Grass is green [1, 2]. The sky is blue [2-1]. The sky is blue again [2]."


def haystack_answer(reply: str = REPLY) -> Any:
    from haystack import Document
    from haystack.components.builders import AnswerBuilder

    documents = [
        Document(content=GREEN, meta={"file_path": "grass.md"}),
        Document(content=BLUE, meta={"file_path": "sky.md"}),
    ]
    builder = AnswerBuilder(reference_pattern=r"\[(\d+)\]", return_only_referenced_documents=False)
    [answer] = builder.run(query="Colours?", replies=[reply], documents=documents)["answers"]
    return answer


def llamaindex_answer(reply: str = REPLY) -> Any:
    from llama_index.core import Response
    from llama_index.core.schema import NodeWithScore, TextNode

    nodes = [
        NodeWithScore(node=TextNode(text=f"Source 1:\n{GREEN}\n", metadata={"file_name": "grass.md"}), score=1.0),
        NodeWithScore(node=TextNode(text=f"Source 2:\n{BLUE}\n", metadata={"file_name": "sky.md"}), score=0.5),
    ]
    return Response(response=reply, source_nodes=nodes)


@pytest.mark.parametrize("answer", [haystack_answer, llamaindex_answer], ids=["haystack", "llamaindex"])
def test_only_the_unreadable_marker_is_invalid(answer: Any) -> None:
    adapted = adapt_answer(answer(), source=CORPUS)
    # Before: one stand-in 's2' and nothing else: the markers of sentences 1 and 3 were never read.
    assert [c.id for c in adapted.citations] == ["#0.s1[1]", "#0.s1[2]", "#0.s2[2-1]", "#0.s3[2]"]
    assert list(adapted.invalid) == ["#0.s2[2-1]"]
    error = adapted.invalid["#0.s2[2-1]"]
    assert (error.citation, error.field) == ("#0.s2[2-1]", "answer_text")
    assert "cannot read the marker [2-1] as source numbers" in str(error)
    assert adapted.citations[2].claim == "The sky is blue."


def test_the_other_markers_are_checked(direct_checker: Any) -> None:
    server = JevServer().start()
    checker = direct_checker(server)
    try:
        with pytest.raises(CitationInputError, match=r"citation '#0\.s2\[2-1\]', field 'answer_text'"):
            checker.check(haystack_answer(), CORPUS)
    finally:
        server.stop()
    assert [(r.id, r.status) for r in checker.results] == [
        ("#0.s1[1]", Status.FOUND),
        ("#0.s1[2]", Status.FOUND),
        ("#0.s2[2-1]", Status.INVALID),
        ("#0.s3[2]", Status.FOUND),
    ]


@pytest.mark.parametrize("marker", ["[1-500]", "[1-2-3]"])
def test_a_range_too_wide_or_with_two_dashes_is_one_invalid_citation(marker: str) -> None:
    adapted = adapt_answer(llamaindex_answer(f"Grass is green [1]. The sky is blue {marker}."), source=CORPUS)
    assert [c.id for c in adapted.citations] == ["#0.s1[1]", f"#0.s2{marker}"]
    assert list(adapted.invalid) == [f"#0.s2{marker}"]


def test_citations_from_markers_still_raises_naming_the_marker() -> None:
    with pytest.raises(CitationInputError, match=r"citation 's2\[2-1\]', field 'answer_text': cannot read the marker"):
        citations_from_markers(REPLY, ["grass.md", "sky.md"])
