"""One citation of an SDK answer that cannot be read never hides the others (issue 23, item 5).

A Cohere or Gemini answer used to be read whole: its first bad citation (a span past the answer, a
grounding chunk index that names no chunk) made the whole answer one ``invalid`` stand-in, and none of
its other citations was judged. Each answer here is its SDK's own object built from the recorded
payload (``tests/data/payloads``), with one citation broken.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support import refused_check

from pytest_citecheck import CitationInputError, CitationsNotSupported, Corpus, Source, Status

PAYLOADS = Path(__file__).resolve().parent.parent / "data" / "payloads"
URI = "https://vertexaisearch.cloud.google.com....."


def payload(name: str) -> Any:
    return json.loads((PAYLOADS / name).read_text(encoding="utf-8"))


def test_a_cohere_span_past_the_answer_is_invalid_and_the_other_citation_is_judged(direct_checker: Any) -> None:
    import cohere

    recorded = payload("cohere_v2_penguins.json")
    corpus = Corpus({name: Source(sections={"snippet": text}) for name, text in recorded.pop("documents").items()})
    recorded["message"]["citations"][1]["end"] = 500  # past the answer's text
    answer = cohere.ChatResponse.model_validate(recorded)
    results, asked = refused_check(
        direct_checker, answer, corpus, r"citation '#0\.2', field 'start': start 66 and end 500"
    )
    assert [(r.id, r.status) for r in results] == [("#0.1.1", Status.DOCUMENT_ONLY), ("#0.2", Status.INVALID)]
    assert asked == ["The tallest penguins are the Emperor penguins, which only live in Antarctica."]


def test_a_gemini_chunk_index_that_names_no_chunk_is_invalid_and_the_others_are_judged(direct_checker: Any) -> None:
    from google.genai import types

    recorded = payload("gemini_grounding_euro2024.json")
    recorded["candidates"][0]["groundingMetadata"]["groundingSupports"][0]["groundingChunkIndices"] = [7]
    response = types.GenerateContentResponse.model_validate(recorded)
    corpus = Corpus({URI: "# Final\n\nSpain beat England 2-1 in the Euro 2024 final, their fourth title.\n"})
    results, asked = refused_check(
        direct_checker,
        response,
        corpus,
        r"citation '#0\.1\.7', field 'grounding_chunk_indices': grounding chunk index 7",
    )
    assert [(r.id, r.status) for r in results] == [
        ("#0.1.7", Status.INVALID),
        ("#0.2.0", Status.DOCUMENT_ONLY),
        ("#0.2.1", Status.DOCUMENT_ONLY),
    ]
    assert set(asked) == {"This victory marks Spain's..."}


def test_a_llamaindex_marker_naming_no_source_is_invalid_and_the_others_are_judged(direct_checker: Any) -> None:
    from llama_index.core.base.response.schema import Response
    from llama_index.core.schema import NodeWithScore, TextNode

    node = TextNode(
        text="Source 1:\nRefunds are granted within 30 days of purchase.", metadata={"file_name": "refunds.md"}
    )
    # The LLM cites a [2] that the engine never retrieved, a mistake CitationQueryEngine answers can make.
    answer = Response(
        response="Refunds are granted within 30 days [1]. Gift cards can be refunded too [2].",
        source_nodes=[NodeWithScore(node=node, score=1.0)],
    )
    corpus = Corpus({"refunds.md": "# Refunds\n\nRefunds are granted within 30 days of purchase.\n"})
    results, asked = refused_check(
        direct_checker,
        answer,
        corpus,
        r"citation '#0\.s2\[2\]', field 'sources': cites \[2\], but there is no source 2",
    )
    assert [(r.id, r.status) for r in results] == [("#0.s1[1]", Status.FOUND), ("#0.s2[2]", Status.INVALID)]
    assert asked == ["Refunds are granted within 30 days."]


# --- Found by hunting with the SDKs' own objects (hunt-payloads) ---------------------------------------


def test_gemini_grounding_metadata_with_search_queries_only_is_no_traceback(direct_checker: Any) -> None:
    """A Gemini answer that searched but grounded nothing: its ``grounding_metadata`` holds only
    ``web_search_queries``. The shape is google-genai's own (its ``tests/chats/test_continuation_token.py``,
    google-genai 3.6.1, Apache-2.0, builds ``GroundingMetadata(web_search_queries=['query 1'])``). The SDK's
    object has ``grounding_supports=None`` and no camelCase attribute: reading it raised
    ``TypeError: 'object' object is not iterable``. It cites nothing, and the check says so."""
    from google.genai import types

    from pytest_citecheck._citations.adapt import adapt_answer

    response = types.GenerateContentResponse(
        candidates=[
            types.Candidate(
                content=types.Content(role="model", parts=[types.Part(text="Spain won Euro 2024.")]),
                grounding_metadata=types.GroundingMetadata(web_search_queries=["query 1"]),
            )
        ]
    )
    adapted = adapt_answer(response)
    assert (adapted.citations, adapted.invalid, adapted.uncited) == ([], {}, ["Spain won Euro 2024."])
    with pytest.raises(CitationsNotSupported, match="the answer cites nothing"):
        direct_checker().assert_supported(response, Source(sections={"final": "Spain won Euro 2024."}))


@pytest.mark.parametrize(
    ("indices", "field"),
    [([], "grounding_chunk_indices"), (None, "grounding_chunk_indices")],
    ids=["empty", "none"],
)
def test_a_gemini_support_naming_no_chunk_is_invalid_not_dropped(indices: Any, field: str) -> None:
    """google-genai's own tests (``tests/models/test_gc_continuation_token.py``) build a support with
    ``grounding_chunk_indices=[]``: it cites nothing, and was dropped without a word."""
    from google.genai import types

    from pytest_citecheck._citations.adapt import adapt_answer

    recorded = payload("gemini_grounding_euro2024.json")
    recorded["candidates"][0]["groundingMetadata"]["groundingSupports"][1]["groundingChunkIndices"] = indices
    adapted = adapt_answer(types.GenerateContentResponse.model_validate(recorded))
    assert [c.id for c in adapted.citations] == ["#0.1.0", "#0.2"]
    assert str(adapted.invalid["#0.2"]).startswith(f"citation '#0.2', field '{field}': names no grounding chunk")


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda c: c["sources"][0].update(id=None), r"field 'sources\[0\]\.id': must be the cited document's id"),
        (lambda c: c["sources"][0].pop("id"), r"field 'sources\[0\]\.id': .*got nothing \(the field is missing\)"),
        (lambda c: c.update(sources=[]), r"field 'sources': must be a non-empty list"),
        (lambda c: c.pop("sources"), r"field 'sources': must be a non-empty list.*missing"),
    ],
    ids=["id-none", "id-missing", "sources-empty", "sources-missing"],
)
def test_a_cohere_citation_naming_no_document_is_invalid_not_dropped(mangle: Any, message: str) -> None:
    """A Cohere citation whose source has no readable id, or that has no sources, was dropped without a
    word (its sentence still counted as cited); ``sources`` missing raised a TypeError."""
    from pytest_citecheck._citations.adapt import adapt_answer

    recorded = payload("cohere_v2_penguins.json")
    recorded.pop("documents")
    mangle(recorded["message"]["citations"][1])
    adapted = adapt_answer(recorded)
    assert [c.id for c in adapted.citations] == ["#0.1.1", "#0.2"]
    assert list(adapted.invalid) == ["#0.2"]
    assert re.search(r"citation '#0\.2', " + message, str(adapted.invalid["#0.2"]))


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda a: a.update(type="url_citaton"), r"field 'type': annotation type 'url_citaton' is not one"),
        (lambda a: a["url_citation"].pop("url"), r"field 'url': must be a non-empty string, got missing"),
        (lambda a: a.pop("url_citation"), r"field 'start_index': .* got missing"),
    ],
    ids=["misspelt-type", "no-url", "no-url-citation-object"],
)
def test_a_chat_completion_annotation_that_cannot_be_read_is_invalid_not_dropped(mangle: Any, message: str) -> None:
    """The recorded ``gpt-4o-search-preview`` answer with one annotation broken: a misspelt type or a
    missing ``url_citation`` object was dropped without a word (six citations checked of seven), and a
    missing field was shown as ``<object object at 0x…>``."""
    from pytest_citecheck._citations.adapt import adapt_answer

    recorded = payload("openai_chat_web_search_iceland.json")
    mangle(recorded["choices"][0]["message"]["annotations"][0])
    adapted = adapt_answer(recorded)
    assert len(adapted.citations) == 7
    assert list(adapted.invalid) == ["#0.1"]
    assert re.search(r"citation '#0\.1', " + message, str(adapted.invalid["#0.1"]))


def test_a_flat_chat_completion_annotation_is_read_as_the_nested_one() -> None:
    """An annotation without the nested ``url_citation`` object but with its fields (the Responses API's
    shape) was dropped; it is read."""
    from pytest_citecheck._citations.adapt import adapt_answer

    recorded = payload("openai_chat_web_search_iceland.json")
    annotations = recorded["choices"][0]["message"]["annotations"]
    nested = adapt_answer(recorded).citations
    annotations[0] = {"type": "url_citation", **annotations[0]["url_citation"]}
    assert adapt_answer(recorded).citations == nested


@pytest.mark.parametrize(
    ("kind", "fields", "field"),
    [
        ("page_location", {"start_page_number": 1, "end_page_nr": 2}, "end_page_number"),
        ("content_block_location", {"start_block_idx": 0, "end_block_index": 1}, "start_block_index"),
        ("char_location", {"start_char_idx": 0, "end_char_index": 20}, "start_char_index"),
    ],
)
def test_a_misspelt_claude_location_field_is_named_and_shown_as_missing(kind: str, fields: Any, field: str) -> None:
    """The recorded Claude answer over "The grass is green. The sky is blue." with a location field
    misspelt: the error named the start field when the end was missing, and showed the missing value as
    ``<object object at 0x…>``."""
    from pytest_citecheck._citations.adapt import adapt_answer

    recorded = payload("claude_text_document_grass.json")
    citation = recorded["content"][1]["citations"][0]
    for name in ("start_char_index", "end_char_index"):
        citation.pop(name)
    citation.update(type=kind, **fields)
    adapted = adapt_answer(recorded, source=Source(sections={"grass": "The grass is green."}))
    error = str(adapted.invalid["#1.1"])
    assert error.startswith(f"citation '#1.1', field '{field}': ") and " missing " in error
    assert "object at 0x" not in error


def _gemini_without_grounding() -> Any:
    from google.genai import types

    # As google-genai's own tests build a candidate (tests/chats/test_continuation_token.py), without
    # metadata: no grounding, no recitation citation (``citation_metadata`` is read: see
    # test_a_gemini_recitation_citation_that_cannot_be_placed_or_named_is_invalid).
    return types.GenerateContentResponse(
        candidates=[
            types.Candidate(content=types.Content(role="model", parts=[types.Part(text="Spain won Euro 2024.")]))
        ]
    )


def _chat_message_without_annotations() -> Any:
    from openai.types.chat import ChatCompletionMessage

    return ChatCompletionMessage(role="assistant", content="Spain won Euro 2024.")


def _cohere_v1_without_citations() -> Any:
    import cohere

    return cohere.NonStreamedChatResponse(text="Spain won Euro 2024.", generation_id="g-1")


@pytest.mark.parametrize(
    "answer", [_gemini_without_grounding, _chat_message_without_annotations, _cohere_v1_without_citations]
)
def test_an_sdk_answer_without_citations_cites_nothing_not_its_fields(answer: Any, direct_checker: Any) -> None:
    """The SDK's pydantic object of an answer without citations was not recognised, so it was iterated as
    a list of citations, field by field: a dozen "citation '#0', field 'claim': is missing" errors. It is
    an answer that cites nothing."""
    from pytest_citecheck._citations.adapt import adapt_answer

    adapted = adapt_answer(answer())
    assert (adapted.citations, adapted.invalid, adapted.uncited) == ([], {}, ["Spain won Euro 2024."])
    with pytest.raises(CitationsNotSupported, match="the answer cites nothing"):
        direct_checker().assert_supported(answer(), Source(sections={"final": "Spain won Euro 2024."}))


def test_one_claude_text_block_passed_alone_is_read_and_another_sdk_object_is_a_clear_error() -> None:
    """A ``TextBlock`` of the recorded Claude answer passed without a list around it was iterated field by
    field (three "claim is missing" errors); any other SDK object not read as an answer was too."""
    from anthropic.types import Message

    from pytest_citecheck._citations.adapt import adapt_answer

    message = Message.model_validate(payload("claude_text_document_grass.json"))
    source = Source(
        sections={"grass": "The grass is green.", "sky": "The sky is blue."},
        text="The grass is green. The sky is blue.",
    )
    assert [(c.claim, c.quote) for c in adapt_answer(message.content[1], source=source).citations] == [
        ("the grass is green", "The grass is green. ")
    ]
    with pytest.raises(
        CitationInputError, match=r"field 'citations': citations must be a list of citations, got Usage"
    ):
        adapt_answer(message.usage)


def _page_answer_typed(kind: str) -> dict[str, Any]:
    recorded = payload("claude_pdf_page_answer.json")  # cites page 1 ([1, 2)) of the PDF
    recorded["content"][1]["citations"][0]["type"] = kind
    return recorded


def test_a_claude_citation_of_an_unknown_type_is_invalid_naming_type_not_read_without_its_place() -> None:
    """The recorded Claude PDF answer cites page 1; here the quote is on page 2, so the real citation is
    ``found-elsewhere``. With its type misspelt (``page_locaton``) the dict (the message's JSON or
    ``model_dump()``) lost its page range silently: the quote was looked for anywhere and ``found``. The
    SDK's own object (``construct_type``, as the client builds a response it does not know) named
    ``start_char_index`` instead. Both are now ``invalid`` naming ``type`` and the types known."""
    from anthropic._models import construct_type
    from anthropic.types import Message

    from pytest_citecheck._citations.adapt import adapt_answer
    from pytest_citecheck._locate.citations import locate_all
    from pytest_citecheck._options import Settings

    quote = "The Answer to the Ultimate Question of Life, the Universe, and Everything is 42."
    pages = Source(sections={"page 1": "Deep Thought computed it over 7.5 million years.", "page 2": quote})
    right = adapt_answer(Message.model_validate(_page_answer_typed("page_location")), source=pages)
    [result] = locate_all(right.citations, pages, Settings())
    assert (result.status, result.section) == (Status.FOUND_ELSEWHERE, "page 2")  # type: ignore[union-attr]

    for answer in (
        _page_answer_typed("page_locaton"),
        construct_type(type_=Message, value=_page_answer_typed("page_locaton")),
    ):
        adapted = adapt_answer(answer, source=pages)
        error = str(adapted.invalid["#1.1"])
        assert error.startswith("citation '#1.1', field 'type': is 'page_locaton', not a type of Anthropic citation")
        assert "page_location" in error and "search_result_location" in error


def _sdk_citation_types() -> list[str]:
    import typing

    from anthropic.types import TextCitation
    from anthropic.types.beta import BetaTextCitation

    models = [
        model for union in (TextCitation, BetaTextCitation) for model in typing.get_args(typing.get_args(union)[0])
    ]
    return sorted({kind for model in models for kind in typing.get_args(model.model_fields["type"].annotation)})


@pytest.mark.parametrize("kind", _sdk_citation_types())
def test_every_citation_type_the_anthropic_sdk_defines_is_known(kind: str) -> None:
    """The types are the installed SDK's (``TextCitation``, ``BetaTextCitation``): none is refused as unknown
    (a citation lacking that type's fields is still an error, naming those fields)."""
    from pytest_citecheck._citations.adapt import adapt_answer

    adapted = adapt_answer(_page_answer_typed(kind), source=Source(sections={"page 1": "A page."}))
    assert all(error.field != "type" for error in adapted.invalid.values())


def test_a_llamaindex_source_node_naming_no_file_is_an_error_that_names_its_citation_first() -> None:
    """LlamaIndex's own objects: a ``CitationQueryEngine`` answer whose source node has no ``file_name`` /
    ``source`` metadata (a node built by hand or by a reader that sets neither). Its error began
    ``field 'metadata': chunk #1 ...``, without the citation id every other citation error begins with,
    and told the user to pass ``document_id=``, which no check of an answer takes."""
    from llama_index.core.base.response.schema import Response
    from llama_index.core.schema import NodeWithScore, TextNode

    from pytest_citecheck._citations.adapt import adapt_answer

    node = NodeWithScore(node=TextNode(text="Source 1:\nThe grass is green."), score=1.0)
    adapted = adapt_answer(Response(response="The grass is green [1].", source_nodes=[node]))
    error = adapted.invalid["#0.s1[1]"]
    assert (error.citation, error.field) == ("#0.s1[1]", "metadata")
    assert str(error).startswith("citation '#0.s1[1]', field 'metadata': chunk #1 has no 'source' or 'file_name'")
    assert "document_id=" not in str(error)


def _recitation(citations: list[Any], text: str = "Spain won Euro 2024.") -> Any:
    from google.genai import types

    return types.GenerateContentResponse(
        candidates=[
            types.Candidate(
                content=types.Content(role="model", parts=[types.Part(text=text)]),
                citation_metadata=types.CitationMetadata(citations=citations),
            )
        ]
    )


def _recitation_from_batch_json() -> Any:
    from google.genai import types

    # Verbatim from google-genai 3.6.1's own tests (tests/types/test_types.py,
    # test_instantiate_response_from_batch_json; Apache-2.0): the Gemini API's REST JSON, whose
    # ``citationSources`` the SDK renames ``citations``. Its span, bytes 1880 to 2009, is past the
    # 53 bytes of the answer's text.
    return types.GenerateContentResponse.model_validate_json(
        json.dumps(
            {
                "candidates": [
                    {
                        "citationMetadata": {
                            "citationSources": [{"endIndex": 2009, "startIndex": 1880, "uri": "http://someurl.com"}]
                        },
                        "content": {
                            "parts": [{"text": ("This recipe makes a moist and delicious banana bread!")}],
                            "role": "model",
                        },
                        "finishReason": "STOP",
                    }
                ],
                "modelVersion": "gemini-1.5-flash-002@default",
            }
        )
    )


def _recitation_without_end() -> Any:
    from google.genai import types

    # As google-genai's own tests/models/test_gc_continuation_token.py builds one: a title and a start only.
    return _recitation([types.Citation(title="Source 1", start_index=0)])


def _recitation_without_source() -> Any:
    from google.genai import types

    return _recitation([types.Citation(start_index=0, end_index=20, license="CC-BY-4.0")])


def _recitation_start_after_end() -> Any:
    from google.genai import types

    return _recitation([types.Citation(start_index=12, end_index=4, uri="https://uefa.com/euro2024")])


@pytest.mark.parametrize(
    ("answer", "field", "message"),
    [
        (
            _recitation_from_batch_json,
            "end_index",
            r"is 2009: a recitation citation's span must end .* within the answer's text \(1 to 53\)",
        ),
        (
            _recitation_without_end,
            "end_index",
            r"is None: a recitation citation's span must end at a whole number of UTF-8 bytes",
        ),
        (_recitation_without_source, "uri", r"is missing \(and so is title\): the recitation names no source"),
        (_recitation_start_after_end, "start_index", r"is 12: must be a whole number of 0 or more, before end_index 4"),
    ],
)
def test_a_gemini_recitation_citation_that_cannot_be_placed_or_named_is_invalid(
    answer: Any, field: str, message: str, direct_checker: Any
) -> None:
    """Gemini's recitation citations (``candidate.citation_metadata.citations``: a span of the answer the
    model quotes from a source, by ``uri``) were not read: the answer cited nothing, or, beside grounding,
    the recited span went unchecked. One whose span is not in the answer or that names no source cannot be
    checked: it is ``invalid``, naming its id and the field; the answer's other citations are still checked."""
    from pytest_citecheck._citations.adapt import adapt_answer

    adapted = adapt_answer(answer())
    assert list(adapted.invalid) == ["#0.c1"]
    error = adapted.invalid["#0.c1"]
    assert (error.citation, error.field) == ("#0.c1", field)
    assert re.search(message, str(error)), str(error)
    assert str(error).startswith(f"citation '#0.c1', field '{field}': ")
    # A span in the answer covers its sentence (the citation is still invalid); one that is not leaves it uncited.
    assert len(adapted.uncited) == (0 if field == "uri" else 1)
    with pytest.raises(CitationInputError, match=f"citation '#0.c1', field '{field}'"):
        direct_checker().assert_supported(
            answer(), Corpus({"http://someurl.com": Source(sections={"1": "Spain won."})})
        )


def _without_type(citation: Any) -> dict[str, Any]:
    return citation.model_dump(exclude={"type"})


def test_a_claude_citation_without_type_is_read_by_its_location_fields() -> None:
    """A Claude citation with no ``type`` was read as a quote with char offsets only: one carrying
    ``start_page_number``/``end_page_number`` lost its page range, so a quote from another page came out
    ``found``. Its type is now read from the fields only one type has (anthropic's own citation classes,
    ``type`` left out of their dump); fields of two types are an error naming ``type``. The pages are the
    real text of ``tests/data/apache-2.0.pdf`` (the Debian Apache-2.0 licence, printed to PDF)."""
    from anthropic.types import CitationCharLocation, CitationContentBlockLocation, CitationPageLocation
    from support import pdf_pages

    from pytest_citecheck._citations.adapt import adapt_answer
    from pytest_citecheck._locate.citations import locate_all
    from pytest_citecheck._options import Settings

    documents = pdf_pages("apache-2.0.pdf", ["1", "2", "3", "4"])
    corpus = Corpus.from_documents(documents)
    quote = documents[2].page_content.split("\n")[3].strip()  # a line of page 3

    def located(*pages: int) -> tuple[Any, Any]:
        citation = CitationPageLocation(
            type="page_location",
            cited_text=quote,
            document_index=0,
            document_title="apache-2.0.pdf",
            start_page_number=pages[0],
            end_page_number=pages[1],
        )
        block = {"type": "text", "text": "The licence says so.", "citations": [_without_type(citation)]}
        adapted = adapt_answer([block], source=corpus)
        assert adapted.invalid == {}
        [result] = locate_all(adapted.citations, corpus, Settings())
        return result.status, result.section  # type: ignore[union-attr]

    assert located(1, 2) == (Status.FOUND_ELSEWHERE, "page 3")  # was ("found", "page 3")
    assert located(3, 4) == (Status.FOUND, "page 3")

    # A content block range without its type: its end past the blocks sent is named, as a typed one's is.
    blocks = Source.from_blocks([{"type": "text", "text": quote}])
    ranged = CitationContentBlockLocation(
        type="content_block_location", cited_text=quote, document_index=0, start_block_index=0, end_block_index=3
    )
    adapted = adapt_answer([{"type": "text", "text": "So.", "citations": [_without_type(ranged)]}], source=blocks)
    assert adapted.invalid["#0.1"].field == "end_block_index"

    # The fields of two types, and no type: which place it cites is unknown.
    both = _without_type(
        CitationCharLocation(
            type="char_location", cited_text=quote, document_index=0, start_char_index=0, end_char_index=10
        )
    ) | {"start_page_number": 3, "end_page_number": 4}
    adapted = adapt_answer([{"type": "text", "text": "So.", "citations": [both]}], source=corpus)
    error = adapted.invalid["#0.1"]
    assert (error.citation, error.field) == ("#0.1", "type")
    assert "char_location and page_location (start_char_index, end_char_index, start_page_number" in str(error)
