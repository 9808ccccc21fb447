"""Every citation shape from a real payload gives the citations a reader of the answer sees (issue 23).

The payloads are in ``tests/data/payloads`` (``README.md`` there says where each came from). Each test
builds the SDK's own objects where the SDK is installed, checks what each field becomes, and has the
loopback Jev judge each claim against the place its model cited.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_citecheck import (
    CitationInputError,
    CitationsNotSupported,
    Corpus,
    Source,
    Status,
    check_retrieval,
    citations_from_markers,
)
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck.testing import JevServer

DATA = Path(__file__).resolve().parent.parent / "data"
PAYLOADS = DATA / "payloads"


def payload(name: str) -> Any:
    return json.loads((PAYLOADS / name).read_text(encoding="utf-8"))


@pytest.fixture
def judged(direct_checker):
    """``judged(citations, source, **settings)``: the results, and the (claim, section text) pairs Jev was asked."""
    server = JevServer().start()

    def check(citations: Any, source: Any, **settings: Any) -> tuple[list[Any], set[tuple[str, str]]]:
        results = direct_checker(server).check(citations, source, **settings)
        asked = {(r.body["state"]["claim"], r.body["state"]["section"]) for r in server.systemone_requests}
        return results, asked

    yield check
    server.stop()


# --- LangChain AIMessage and standard content blocks (issue 23, found 6) --------------------------------


def test_langchain_ai_message_of_a_claude_answer_gives_its_citation(judged) -> None:
    from langchain_core.messages import AIMessage

    message = AIMessage(**payload("langchain_anthropic_search_result.json"))
    adapted = adapt_answer(message)
    # The standard blocks: the citation with cited_text; the malformed one, which langchain-core leaves as a
    # non_standard_annotation, is invalid as in the Claude message itself (it was dropped: hunt-sdk-shapes).
    assert [(c.id, c.claim, c.quote) for c in adapted.citations] == [
        ("#1.1", "It's sunny.", "The weather is sunny."),
        ("#1.2", "It's sunny.", None),
    ]
    assert str(adapted.invalid["#1.2"]).startswith("citation '#1.2', field 'cited_text': is missing")
    assert adapted.uncited == ["Let's call a tool."]
    # search_result_location names its document by its source: a Corpus keyed by the source.
    corpus = Corpus(
        {"source_123": "# Forecast\n\nThe weather is sunny. Wind from the west.\n", "other": "# Other\n\nRain.\n"}
    )
    with pytest.raises(CitationInputError, match=r"citation '#1.2', field 'cited_text': is missing"):
        judged(message, corpus)
    good = AIMessage(**payload("langchain_anthropic_search_result.json"))
    good.content[3]["citations"].pop()  # type: ignore[index, union-attr]
    results, asked = judged(good, corpus)
    assert [(r.status, r.document) for r in results] == [(Status.FOUND, "source_123")]
    [(claim, section)] = asked
    assert claim == "It's sunny." and "The weather is sunny." in section


def test_the_claude_message_itself_checks_the_good_citation_and_fails_on_the_bad_one(judged) -> None:
    content = payload("langchain_anthropic_search_result.json")["content"]
    corpus = Corpus({"source_123": "# Forecast\n\nThe weather is sunny. Wind from the west.\n"})
    with pytest.raises(CitationInputError, match=r"citation '#1.2', field 'cited_text': is missing"):
        judged({"type": "message", "role": "assistant", "content": content}, corpus)


def test_standard_content_blocks_with_annotations_are_citations_not_zero() -> None:
    from langchain_core.messages import AIMessage

    message = AIMessage(**payload("langchain_anthropic_search_result.json"))
    # Before: read as Anthropic blocks without citations, so nothing was checked.
    blocks = [block for block in message.content_blocks if block["type"] == "text"]
    adapted = adapt_answer(blocks)
    assert [c.quote for c in adapted.citations] == ["The weather is sunny.", None]
    assert list(adapted.invalid) == ["#1.2"]  # the malformed citation, langchain-core's non_standard_annotation


def test_langchain_ai_message_of_a_gemini_grounded_answer_gives_claims_not_quotes(judged) -> None:
    """langchain-core translates Gemini's grounding metadata into ``citation`` annotations whose
    ``cited_text`` is the grounding segment: the answer's own words, not a passage of the page
    (langchain-core 1.8.1, ``messages/block_translators/google_genai.py``; its tests, in the sdist's
    ``tests/unit_tests/messages/block_translators/test_google_genai.py``, MIT, feed it
    ``grounding_metadata`` in snake_case as here). They were read as Claude's ``cited_text``: the
    answer's sentence looked for in the page as a quote (``fabricated`` when the page words it
    otherwise), with the whole answer as the claim. Each segment is a claim-only citation of its page,
    as the same answer read straight from Gemini (``test_gemini_grounding_supports_cite_web_chunks_by_uri``)."""
    from google.genai import types
    from langchain_core.messages import AIMessage

    response = types.GenerateContentResponse.model_validate(payload("gemini_grounding_euro2024.json"))
    [candidate] = response.candidates or []
    text = "".join(part.text or "" for part in candidate.content.parts)  # type: ignore[union-attr]
    message = AIMessage(  # as langchain-google-genai builds it: the metadata as the SDK's model_dump()
        content=text,
        response_metadata={
            "model_provider": "google_genai",
            "grounding_metadata": candidate.grounding_metadata.model_dump(),  # type: ignore[union-attr]
        },
    )
    [block] = message.content_blocks
    assert [a["cited_text"] for a in block["annotations"]] == [  # type: ignore[typeddict-item]
        "Spain won Euro 2024, defeatin...",
        "This victory marks Spain's...",
        "This victory marks Spain's...",
    ]
    uri = "https://vertexaisearch.cloud.google.com....."
    adapted = adapt_answer(message)
    assert [(c.id, c.claim, c.quote, c.document) for c in adapted.citations] == [
        ("#0.1.0", "Spain won Euro 2024, defeatin...", None, uri),
        ("#0.2.0", "This victory marks Spain's...", None, uri),
        ("#0.2.1", "This victory marks Spain's...", None, uri),
    ]
    assert adapted.invalid == {}
    corpus = Corpus({uri: "# Final\n\nSpain beat England 2-1 in the Euro 2024 final, their fourth title.\n"})
    results, asked = judged(message, corpus)
    assert {r.status for r in results} == {Status.DOCUMENT_ONLY}
    assert {claim for claim, _ in asked} == {"Spain won Euro 2024, defeatin...", "This victory marks Spain's..."}


def test_langchain_ai_message_of_a_gemini_answer_in_two_text_blocks_is_read_as_one_answer() -> None:
    """A Gemini answer of two text parts comes to LangChain as two text blocks, and langchain-core 1.8.1
    puts every grounding citation on the first one (``_convert_to_v1_from_genai``: "only the first text
    block"). Read block by block, the second block's sentences were all listed as uncited, the one its
    grounding support cites among them. Read together, as the Gemini response itself is, only the
    sentence no support covers is listed; the same for the message's ``content_blocks`` passed as a list."""
    from google.genai import types
    from langchain_core.messages import AIMessage

    first = "Spain won Euro 2024, defeating England 2-1 in the final. "
    cited = "This victory marks Spain's record fourth European Championship title."
    second = f"{cited} England lost a second final in a row."

    def segment(text: str, start: int) -> types.Segment:
        return types.Segment(start_index=start, end_index=start + len(text.encode("utf-8")), text=text)

    metadata = types.GroundingMetadata(
        web_search_queries=["who won euro 2024"],
        grounding_chunks=[
            types.GroundingChunk(web=types.GroundingChunkWeb(uri="https://uefa.com/euro2024", title="uefa.com"))
        ],
        grounding_supports=[
            types.GroundingSupport(segment=segment(first.strip(), 0), grounding_chunk_indices=[0]),
            types.GroundingSupport(segment=segment(cited, len(first.encode("utf-8"))), grounding_chunk_indices=[0]),
        ],
    )
    message = AIMessage(
        content=[{"type": "text", "text": first}, {"type": "text", "text": second}],
        response_metadata={"model_provider": "google_genai", "grounding_metadata": metadata.model_dump()},
    )
    assert [len(block.get("annotations", [])) for block in message.content_blocks] == [2, 0]
    gemini = types.GenerateContentResponse(
        candidates=[
            types.Candidate(
                content=types.Content(role="model", parts=[types.Part(text=first), types.Part(text=second)]),
                grounding_metadata=metadata,
            )
        ]
    )
    expected = [("#0.1.0", first.strip()), ("#0.2.0", cited)], ["England lost a second final in a row."], {}
    for answer in (message, message.content_blocks, gemini):
        adapted = adapt_answer(answer)
        assert ([(c.id, c.claim) for c in adapted.citations], adapted.uncited, adapted.invalid) == expected


def test_a_langchain_gemini_citation_without_a_url_is_invalid() -> None:
    """langchain-core leaves ``url`` out of a citation whose chunk has none (its
    ``test_translate_grounding_metadata_none``): the claim cites no page, and says so."""
    from langchain_core.messages import AIMessage

    metadata = {
        "grounding_chunks": [{"web": None, "maps": None}],
        "grounding_supports": [
            {"segment": {"start_index": 0, "end_index": 10, "text": "test text"}, "grounding_chunk_indices": [0]}
        ],
    }
    message = AIMessage(
        content="test text", response_metadata={"model_provider": "google_genai", "grounding_metadata": metadata}
    )
    adapted = adapt_answer(message)
    assert [c.id for c in adapted.citations] == ["#0.1.0"]
    assert str(adapted.invalid["#0.1.0"]).startswith("citation '#0.1.0', field 'grounding_chunks': names no document")


def test_langchain_ai_message_of_a_bedrock_converse_answer_checks_its_quotes_and_names_a_bad_citation() -> None:
    """The Bedrock Converse answer of langchain-core's own test (1.8.1 sdist,
    ``tests/unit_tests/messages/block_translators/test_bedrock_converse.py``, MIT): three citations whose
    ``source_content`` becomes ``cited_text``, and a malformed one (``{"bar": "baz"}``), which langchain-core
    translates with no ``cited_text``. It was given an empty one and reported as "is empty: the model cited
    no passage"; it is missing, and the error says so (in Bedrock's terms: ``sourceContent``). Each citation's
    Bedrock ``location`` is read (it was dropped): the first one's characters 58 to 96 lie past the end of
    this 34-character document, so its place cannot be trusted and it is invalid, as a Claude
    ``char_location`` there would be."""
    from langchain_core.messages import AIMessage

    quoted = {"title": "Document Title", "source_content": [{"text": "The weather is sunny."}]}
    message = AIMessage(
        [
            {"type": "text", "text": "Let's call a tool."},
            {
                "type": "text",
                "text": "It's sunny.",
                "citations": [
                    {**quoted, "location": {"document_char": {"document_index": 0, "start": 58, "end": 96}}},
                    {**quoted, "location": {"document_page": {"document_index": 0, "start": 1, "end": 2}}},
                    {**quoted, "location": {"document_chunk": {"document_index": 0, "start": 1, "end": 2}}},
                    {"bar": "baz"},
                ],
            },
        ],
        response_metadata={"model_provider": "bedrock_converse"},
    )
    corpus = Corpus({"Document Title": "# Forecast\n\nThe weather is sunny.\n"})
    adapted = adapt_answer(message, source=corpus)
    assert [(c.id, c.quote, c.document) for c in adapted.citations][1:3] == [
        (f"#1.{n}", "The weather is sunny.", "Document Title") for n in (2, 3)
    ]
    assert list(adapted.invalid) == ["#1.1", "#1.4"]
    assert str(adapted.invalid["#1.1"]).startswith(
        "citation '#1.1', field 'location.documentChar.start': location.documentChar.start 58 and "
        "location.documentChar.end 96 pass the end of the document checked"
    )
    assert str(adapted.invalid["#1.4"]).startswith("citation '#1.4', field 'sourceContent': is missing")


# --- Cohere v2 and v1 ---------------------------------------------------------------------------------


def test_cohere_v2_citations_are_claims_against_the_cited_documents(judged) -> None:
    import cohere

    recorded = payload("cohere_v2_penguins.json")
    corpus = Corpus({name: Source(sections={"snippet": text}) for name, text in recorded.pop("documents").items()})
    answer = cohere.ChatResponse.model_validate(recorded)  # the SDK's V2ChatResponse, as client.chat returns it
    assert type(answer).__name__ == "V2ChatResponse"
    adapted = adapt_answer(answer)
    sentence = "The tallest penguins are the Emperor penguins, which only live in Antarctica."
    assert [(c.claim, c.quote, c.document) for c in adapted.citations] == [
        (sentence, None, "100"),
        (sentence, None, "101"),
    ]
    results, asked = judged(answer, corpus)
    assert [(r.status, r.document) for r in results] == [(Status.DOCUMENT_ONLY, "100"), (Status.DOCUMENT_ONLY, "101")]
    assert asked == {
        (sentence, "Emperor penguins are the tallest."),
        (sentence, "Emperor penguins only live in Antarctica."),
    }


def test_cohere_v1_response_names_documents_by_document_ids() -> None:
    import cohere

    v2 = payload("cohere_v2_penguins.json")
    v1 = {  # the same documented answer in the v1 shape
        "text": v2["message"]["content"][0]["text"],
        "citations": [
            {"start": c["start"], "end": c["end"], "text": c["text"], "document_ids": [s["id"] for s in c["sources"]]}
            for c in v2["message"]["citations"]
        ],
        "documents": [{"id": key, "snippet": text} for key, text in v2["documents"].items()],
    }
    assert [c.document for c in adapt_answer(v1).citations] == ["100", "101"]
    # The SDK's v1 response (client.chat of cohere.Client), built from the same answer.
    response = cohere.NonStreamedChatResponse.model_validate(v1)
    assert [(c.claim, c.document) for c in adapt_answer(response).citations] == [
        (v1["text"], "100"),
        (v1["text"], "101"),
    ]


# --- Gemini grounding metadata ------------------------------------------------------------------------


def test_gemini_grounding_supports_cite_web_chunks_by_uri(judged) -> None:
    from google.genai import types

    # The SDK's own response, validated from the REST JSON the docs show (camelCase, as the API sends it).
    response = types.GenerateContentResponse.model_validate(payload("gemini_grounding_euro2024.json"))
    uri = "https://vertexaisearch.cloud.google.com....."
    adapted = adapt_answer(response)
    assert [(c.id, c.claim, c.quote, c.document) for c in adapted.citations] == [
        ("#0.1.0", "Spain won Euro 2024, defeatin...", None, uri),
        ("#0.2.0", "This victory marks Spain's...", None, uri),
        ("#0.2.1", "This victory marks Spain's...", None, uri),
    ]
    corpus = Corpus({uri: "# Final\n\nSpain beat England 2-1 in the Euro 2024 final, their fourth title.\n"})
    results, asked = judged(response, corpus)
    assert {r.status for r in results} == {Status.DOCUMENT_ONLY}
    assert {claim for claim, _ in asked} == {"Spain won Euro 2024, defeatin...", "This victory marks Spain's..."}


def test_gemini_retrieved_context_text_is_the_quote() -> None:
    from google.genai import types

    response = {
        "candidates": [
            {
                "grounding_metadata": {
                    "grounding_chunks": [
                        {
                            "retrieved_context": {
                                "title": "apache-2.0.txt",
                                "uri": "gs://kb/apache-2.0.txt",
                                "text": "Grant of Patent License.",
                            }
                        }
                    ],
                    "grounding_supports": [
                        {"segment": {"text": "Contributors grant a patent licence."}, "grounding_chunk_indices": [0]}
                    ],
                }
            }
        ]
    }
    expected = ("Contributors grant a patent licence.", "Grant of Patent License.", "apache-2.0.txt")
    for answer in (response, types.GenerateContentResponse.model_validate(response)):
        [citation] = adapt_answer(answer).citations
        assert (citation.claim, citation.quote, citation.document) == expected


def test_gemini_recitation_citations_quote_the_source_their_uri_names(judged) -> None:
    """A Gemini candidate's ``citation_metadata`` says which span of the answer the model "directly quotes,
    at length" (google-genai's ``CitationMetadata``) from which source (``uri``). It was not read: such an
    answer cited nothing, and beside grounding the recited span went unchecked. The span is the quote,
    looked for in the document the ``uri`` names; the sentence holding it is the claim. Offsets are
    UTF-8 bytes: the dashes and curly quotes before the spans take three bytes each. The source is
    ``apache-2.0.txt`` (Debian's /usr/share/common-licenses/Apache-2.0, see tests/data/README.md)."""
    from google.genai import types

    uri = "https://www.apache.org/licenses/LICENSE-2.0"
    recited = (
        "each Contributor hereby grants to You a perpetual, worldwide, non-exclusive, no-charge, royalty-free, "
        "irrevocable (except as stated in this section) patent license"
    )
    invented = "Contributors may revoke this patent license at any time for any reason"
    text = f"Section 3 — \u201cGrant of Patent License\u201d — says that {recited}. {invented}. It is short."

    def span(part: str) -> types.Citation:
        start = text.encode("utf-8").index(part.encode("utf-8"))
        return types.Citation(start_index=start, end_index=start + len(part.encode("utf-8")), uri=uri, license="")

    response = types.GenerateContentResponse(
        candidates=[
            types.Candidate(
                content=types.Content(role="model", parts=[types.Part(text=text)]),
                citation_metadata=types.CitationMetadata(citations=[span(recited), span(invented)]),
            )
        ]
    )
    adapted = adapt_answer(response)
    assert [(c.id, c.claim, c.quote, c.document) for c in adapted.citations] == [
        ("#0.c1", f"Section 3 — \u201cGrant of Patent License\u201d — says that {recited}.", recited, uri),
        ("#0.c2", f"{invented}.", invented, uri),
    ]
    assert adapted.uncited == ["It is short."]

    corpus = Corpus({uri: Source.from_file(DATA / "apache-2.0.txt")})
    results, asked = judged(response, corpus)
    assert [(r.id, r.status, r.section) for r in results] == [
        ("#0.c1", Status.FOUND, "3"),
        ("#0.c2", Status.MISSING, None),
    ]
    assert [section.startswith("3. Grant of Patent License.") for _, section in asked] == [True]


# --- OpenAI Chat Completions ------------------------------------------------------------------------------


def test_chat_completion_url_citations_are_claims_against_the_url(judged) -> None:
    from openai.types.chat import ChatCompletion

    text = "GPL-2 programs come with no warranty ([gnu.org](https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt))."
    start = text.index("[gnu.org]")
    completion = ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1767225600,
            "model": "gpt-4o-search-preview",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {
                        "role": "assistant",
                        "content": text,
                        "annotations": [
                            {
                                "type": "url_citation",
                                "url_citation": {
                                    "url": "https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt",
                                    "title": "GNU General Public License v2.0",
                                    "start_index": start,
                                    "end_index": text.index(")", start) + 1,
                                },
                            }
                        ],
                    },
                }
            ],
        }
    )
    [citation] = adapt_answer(completion).citations
    assert (citation.claim, citation.document) == (
        "GPL-2 programs come with no warranty.",
        "https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt",
    )
    corpus = Corpus({"https://WWW.gnu.org/licenses/old-licenses/gpl-2.0.txt/": Source.from_file(DATA / "gpl-2.0.txt")})
    results, asked = judged(completion, corpus)
    assert [r.document for r in results] == ["https://WWW.gnu.org/licenses/old-licenses/gpl-2.0.txt/"]


# --- LlamaIndex CitationQueryEngine -------------------------------------------------------------------------


def test_llamaindex_citation_query_engine_response(judged) -> None:
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
    from llama_index.core.node_parser import TokenTextSplitter
    from llama_index.core.query_engine import CitationQueryEngine

    class OneAnswer(CustomLLM):
        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata()

        def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
            return CompletionResponse(text="Contributors grant every user a patent licence [1].")

        def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
            raise NotImplementedError

    apache = (DATA / "apache-2.0.txt").read_text()
    splitter = TokenTextSplitter(chunk_size=256, chunk_overlap=0)
    index = VectorStoreIndex.from_documents(
        [Document(text=apache, metadata={"file_name": "apache-2.0.txt"})],
        embed_model=MockEmbedding(embed_dim=8),
        transformations=[splitter],
    )
    engine = CitationQueryEngine.from_args(
        index, llm=OneAnswer(), similarity_top_k=1, citation_chunk_size=128, text_splitter=splitter
    )
    response = engine.query("What does Apache-2.0 grant?")
    assert response.source_nodes[0].node.get_content().startswith("Source 1:\n")
    [citation] = adapt_answer(response).citations
    assert citation.claim == "Contributors grant every user a patent licence."
    assert not citation.quote.startswith("Source") and citation.quote in apache  # the prefix is stripped
    # One section: the mock embedding picks any chunk, and a chunk may run over a numbered section's end.
    whole = Corpus({"apache-2.0.txt": Source(sections={"whole": apache})})
    results, _ = judged(response, whole)
    assert [(r.status, r.document) for r in results] == [(Status.FOUND, "apache-2.0.txt")]
    # The source nodes themselves, as a user passes them: markers over them quote the text, not the prefix,
    # and each is found where its metadata says (before: every node was missing, every marker fabricated).
    [marked] = citations_from_markers(response.response, response.source_nodes)
    assert marked.quote == citation.quote
    assert [r.status for r in check_retrieval(response.source_nodes, whole)] == ["found"]


# --- Haystack GeneratedAnswer ---------------------------------------------------------------------------


def test_haystack_generated_answer_from_answer_builder(judged) -> None:
    haystack = pytest.importorskip("haystack")
    from haystack.components.builders import AnswerBuilder

    documents = [
        haystack.Document(content="Gift cards are final and cannot be refunded.", meta={"file_path": "gifts.md"}),
        haystack.Document(content="Refunds are granted within 30 days of purchase.", meta={"file_path": "refunds.md"}),
    ]
    built = AnswerBuilder(reference_pattern=r"\[(\d+)\]").run(
        query="Can I get a refund?", replies=["Refunds are granted within 30 days [2]."], documents=documents
    )
    [answer] = built["answers"]
    [citation] = adapt_answer(answer).citations
    assert (citation.claim, citation.quote, citation.document) == (
        "Refunds are granted within 30 days.",
        "Refunds are granted within 30 days of purchase.",
        "refunds.md",
    )
    corpus = Corpus(
        {
            "refunds.md": "# Refunds\n\nRefunds are granted within 30 days of purchase.\n",
            "gifts.md": "# Gifts\n\nGift cards are final and cannot be refunded.\n",
        }
    )
    results, _ = judged(answer, corpus)
    assert [(r.status, r.document) for r in results] == [(Status.FOUND, "refunds.md")]


def test_an_answer_of_any_shape_that_cites_nothing_fails(direct_checker) -> None:
    from langchain_core.messages import AIMessage

    with pytest.raises(CitationsNotSupported, match="the answer cites nothing"):
        direct_checker().assert_supported(AIMessage(content="It is sunny today."), "# Weather\n\nSunny.\n")


# --- Claude web search results (issue 23, found 8 and 9) ----------------------------------------------


def test_claude_web_search_citations_match_a_corpus_keyed_by_url_and_an_empty_cited_text_is_checked(judged) -> None:
    from anthropic.types import Message

    message = Message.model_validate(
        {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "output_tokens": 20},
            "content": [
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_01",
                    "name": "web_search",
                    "input": {"query": "gpl warranty"},
                },
                {
                    "type": "text",
                    "text": "GPL-2 programs come with no warranty.",
                    "citations": [
                        {
                            "type": "web_search_result_location",
                            "url": "https://WWW.gnu.org/licenses/old-licenses/gpl-2.0.txt",
                            "title": "GNU General Public License v2.0",
                            "encrypted_index": "Eo8BCioIAhgB",
                            "cited_text": "BECAUSE THE PROGRAM IS LICENSED FREE OF CHARGE, THERE IS NO WARRANTY FOR THE PROGRAM",
                        }
                    ],
                },
                {
                    "type": "text",
                    "text": "You may redistribute copies.",
                    "citations": [
                        {
                            "type": "web_search_result_location",
                            "url": "https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt/",
                            "title": "GNU General Public License v2.0",
                            "encrypted_index": "Eo8BCioIAhgC",
                            "cited_text": "",
                        }
                    ],
                },
            ],
        }
    )
    url = "https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt"
    corpus = Corpus({url: Source.from_file(DATA / "gpl-2.0.txt"), "https://www.gnu.org/other": "# Other\n\nNothing.\n"})
    results, asked = judged(message, corpus)
    assert [(r.id, r.status, r.document) for r in results] == [
        ("#0.1", Status.FOUND, url),
        ("#1.1", Status.DOCUMENT_ONLY, url),  # before: an empty cited_text stopped the whole check
    ]
    assert {claim for claim, _ in asked} == {"GPL-2 programs come with no warranty.", "You may redistribute copies."}
