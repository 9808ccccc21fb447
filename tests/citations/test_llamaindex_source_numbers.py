"""A LlamaIndex answer's ``[n]`` reads the node whose text says ``Source n:`` (sdk-leftovers, from hunt-sdk-shapes).

``CitationQueryEngine`` numbers the source nodes it shows the model, writing ``"Source N:\\n"`` before each
node's text, and keeps them in that order in ``Response.source_nodes``. An app that re-sorts them after the
query (by score, for display; a reranker run on the response) kept the prefixes but not the order: the nodes
were numbered by position, so ``[1]`` read another node's text, and its claim was judged against the wrong
passage. The prefix is now the number when every node has one; a set of prefixes that contradicts itself (two
nodes "Source 1", a numbered node out of place among unnumbered ones) is an error naming the field.

The answers are real: llama-index-core's ``CitationQueryEngine`` over two documents, with an LLM that reads
the numbered prompt the engine wrote and cites each document by the number it was given there.
"""

from __future__ import annotations

import re
from typing import Any

from pytest_citecheck import CitationInputError, Corpus, Source
from pytest_citecheck._citations.adapt import adapt_answer

REFUNDS = "Refunds are granted within 30 days of purchase."
GIFTS = "Gift cards are final and cannot be refunded."
CORPUS = Corpus({"refunds.md": Source(sections={"refunds": REFUNDS}), "gifts.md": Source(sections={"gifts": GIFTS})})


def engine_answer() -> Any:
    """What ``CitationQueryEngine.query`` returns for a question over both documents: the model cites the refund
    sentence by the number the prompt gave refunds.md, the gift-card sentence by gifts.md's."""
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
    from llama_index.core.query_engine import CitationQueryEngine

    class ReadsItsSources(CustomLLM):
        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata()

        def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
            numbers = {text: number for number, text in re.findall(r"Source (\d+):\n(.+)", prompt)}
            return CompletionResponse(
                text=f"Refunds are granted for 30 days [{numbers[REFUNDS]}]. "
                f"Gift cards cannot be refunded [{numbers[GIFTS]}]."
            )

        def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
            raise NotImplementedError

    index = VectorStoreIndex.from_documents(
        [
            Document(text=REFUNDS, metadata={"file_name": "refunds.md"}),
            Document(text=GIFTS, metadata={"file_name": "gifts.md"}),
        ],
        embed_model=MockEmbedding(embed_dim=8),
    )
    engine = CitationQueryEngine.from_args(index, llm=ReadsItsSources(), similarity_top_k=2)
    return engine.query("Can I get my money back?")


def read(response: Any) -> dict[str, tuple[str | None, str | None]]:
    adapted = adapt_answer(response, source=CORPUS)
    assert adapted.invalid == {}
    return {c.claim: (c.quote, c.document) for c in adapted.citations}


EXPECTED = {
    "Refunds are granted for 30 days.": (REFUNDS, "refunds.md"),
    "Gift cards cannot be refunded.": (GIFTS, "gifts.md"),
}


def test_the_engine_s_own_order_reads_each_marker_as_its_source() -> None:
    assert read(engine_answer()) == EXPECTED


def test_nodes_resorted_after_the_query_are_read_by_their_source_prefix() -> None:
    response = engine_answer()
    response.source_nodes.reverse()  # as sorting by score for display, or a reranker run on the response, does
    assert response.source_nodes[0].node.get_content().startswith("Source 2:\n")
    # Before: [1] read the node now first ("Source 2:"), so each claim was given the other document's passage.
    assert read(response) == EXPECTED


def test_two_nodes_with_the_same_source_number_are_an_error_naming_the_field() -> None:
    response = engine_answer()
    second = response.source_nodes[1].node
    second.set_content(re.sub(r"\ASource \d+:", "Source 1:", second.get_content()))
    adapted = adapt_answer(response, source=CORPUS)
    [error] = adapted.invalid.values()
    assert error.field == "source_nodes[1].node.text"
    assert "says 'Source 1:', as source_nodes[0]'s does" in str(error)
    assert isinstance(error, CitationInputError) and error.citation == "#0"


def test_a_numbered_node_out_of_place_among_unnumbered_ones_is_an_error() -> None:
    from llama_index.core.schema import NodeWithScore, TextNode

    response = engine_answer()
    response.source_nodes.reverse()
    # A node without the prefix (added by the app): positions cannot be trusted, and numbers are not all there.
    response.source_nodes.append(NodeWithScore(node=TextNode(text=GIFTS, metadata={"file_name": "gifts.md"})))
    adapted = adapt_answer(response, source=CORPUS)
    [error] = adapted.invalid.values()
    assert error.field == "source_nodes[0].node.text"
    assert "says 'Source 2:' but is source 1 by position" in str(error)


def test_nodes_without_the_prefix_are_numbered_by_position() -> None:
    from llama_index.core import Response
    from llama_index.core.schema import NodeWithScore, TextNode

    nodes = [
        NodeWithScore(node=TextNode(text=REFUNDS, metadata={"file_name": "refunds.md"}), score=0.5),
        NodeWithScore(node=TextNode(text=GIFTS, metadata={"file_name": "gifts.md"}), score=0.9),
    ]
    response = Response(
        response="Refunds are granted for 30 days [1]. Gift cards cannot be refunded [2].", source_nodes=nodes
    )
    assert read(response) == EXPECTED
