"""A Gemini File Search chunk is checked on the page it names (sdk-leftovers, from hunt-sdk-shapes).

Google's File Search answers name the page of a paged document (a PDF) a retrieved chunk came from:
``grounding_chunks[].retrieved_context.page_number`` (google-genai 3.6.1's ``GroundingChunkRetrievedContext``;
the REST API's ``retrievedContext.pageNumber``, as ai.google.dev/gemini-api/docs/file-search shows it, "Page
numbers"); Vertex AI's RAG Engine names a range, ``retrieved_context.rag_chunk.page_span`` (``first_page`` to
``last_page``, inclusive, 1-based). Both were ignored: a chunk whose text is on another page than the one
named passed as ``found``, where Claude's ``page_location`` of the same page is ``found-elsewhere``. They are
now read as Claude's pages are (``_citations/pages.py``, one rule for both).

The document is the real text of ``tests/data/apache-2.0.pdf`` (4 pages, read with pypdf, as LangChain's
PyPDFLoader returns it); the answers are google-genai's own ``GenerateContentResponse``.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types
from support import checked_or_refused, pdf_pages

from pytest_citecheck import Corpus, Source, Status
from pytest_citecheck._citations.adapt import adapt_answer

DOCUMENTS = pdf_pages("apache-2.0.pdf")
# The first lines of page 3: "5. Submission of Contributions. ...", on no other page.
CHUNK = " ".join(DOCUMENTS[2].page_content.split("\n")[:3]).strip()
CLAIM = "Contributions submitted for inclusion in the Work are under the License's terms."


def answer(context: dict[str, Any], *, camel: bool = False) -> dict[str, Any]:
    """A File Search answer whose one support cites one retrieved chunk of apache-2.0.pdf (its text ``CHUNK``)."""
    chunk = {"title": "apache-2.0.pdf", "text": CHUNK} | context
    if camel:
        return {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": CLAIM}]},
                    "groundingMetadata": {
                        "groundingChunks": [{"retrievedContext": chunk}],
                        "groundingSupports": [{"segment": {"text": CLAIM}, "groundingChunkIndices": [0]}],
                    },
                }
            ]
        }
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": CLAIM}]},
                "grounding_metadata": {
                    "grounding_chunks": [{"retrieved_context": chunk}],
                    "grounding_supports": [{"segment": {"text": CLAIM}, "grounding_chunk_indices": [0]}],
                },
            }
        ]
    }


def sdk(context: dict[str, Any]) -> types.GenerateContentResponse:
    return types.GenerateContentResponse.model_validate(answer(context))


def corpus() -> Corpus:
    return Corpus.from_documents(DOCUMENTS)


def named_pages() -> Source:
    """The PDF as one Source, its pages its sections, named as the chunks name it."""
    return Source(sections={f"page {n + 1}": d.page_content for n, d in enumerate(DOCUMENTS)}, name="apache-2.0.pdf")


@pytest.mark.parametrize("source", [corpus, named_pages], ids=["corpus", "named-source"])
def test_a_chunk_from_another_page_than_its_page_number_is_found_elsewhere(direct_checker: Any, source: Any) -> None:
    results, error = checked_or_refused(direct_checker, sdk({"page_number": 2}), source())
    # Before: found on page 3, as if the chunk named no page.
    assert error is None
    assert [(r.status, r.cited_section, r.section) for r in results] == [(Status.FOUND_ELSEWHERE, "page 2", "page 3")]
    # The page it is on: found there.
    results, error = checked_or_refused(direct_checker, sdk({"page_number": 3}), source())
    assert error is None and [(r.status, r.section) for r in results] == [(Status.FOUND, "page 3")]


def test_the_rest_api_spelling_page_number_is_read_alike(direct_checker: Any) -> None:
    results, error = checked_or_refused(direct_checker, answer({"pageNumber": 1}, camel=True), corpus())
    assert error is None
    assert [(r.status, r.cited_section, r.section) for r in results] == [(Status.FOUND_ELSEWHERE, "page 1", "page 3")]


def test_a_page_the_document_does_not_have_is_invalid_naming_page_number(direct_checker: Any) -> None:
    results, error = checked_or_refused(direct_checker, sdk({"page_number": 7}), corpus())
    assert [(r.id, r.status) for r in results] == [("#0.1.0", Status.INVALID)]
    assert error is not None and (error.citation, error.field) == ("#0.1.0", "page_number")
    assert "cites page 7, which the document checked does not have (its pages: page 1, page 2, page 3, page 4)" in str(
        error
    )


@pytest.mark.parametrize("page", [0, -1, True, 2.0, "2"])
def test_a_page_number_that_is_no_page_is_invalid(page: Any) -> None:
    adapted = adapt_answer(answer({"page_number": page}), source=corpus())
    assert list(adapted.invalid) == ["#0.1.0"]
    assert adapted.invalid["#0.1.0"].field == "page_number"
    assert f"is {page!r}: a page is a whole number of 1 or more" in str(adapted.invalid["#0.1.0"])


def test_a_page_number_against_a_document_whose_sections_are_not_pages_looks_in_the_whole_document() -> None:
    # As Claude's page_location: a document split by headings has no pages to check the number against.
    text = Corpus({"apache-2.0.pdf": Source(sections={"Terms": "\n".join(d.page_content for d in DOCUMENTS)})})
    [citation] = adapt_answer(sdk({"page_number": 2}), source=text).citations
    assert (citation.section, citation.quote, citation.document) == (None, CHUNK, "apache-2.0.pdf")


@pytest.mark.parametrize(
    ("span", "expected"),
    [
        ({"first_page": 2, "last_page": 2}, [(Status.FOUND_ELSEWHERE, "page 2", "page 3")]),
        ({"first_page": 2, "last_page": 3}, [(Status.FOUND, None, "page 2 + page 3")]),
    ],
)
def test_a_vertex_rag_chunk_page_span_names_its_pages(direct_checker: Any, span: Any, expected: Any) -> None:
    results, error = checked_or_refused(direct_checker, sdk({"rag_chunk": {"page_span": span}}), corpus())
    assert error is None
    assert [(r.status, r.cited_section, r.section) for r in results] == expected


def test_a_page_span_that_ends_before_it_starts_is_invalid() -> None:
    adapted = adapt_answer(answer({"rag_chunk": {"page_span": {"first_page": 3, "last_page": 2}}}), source=corpus())
    assert adapted.invalid["#0.1.0"].field == "page_span"


def test_a_chunk_of_another_document_is_not_read_as_the_single_source_s_pages() -> None:
    # The chunk names apache-2.0.pdf; a Source named otherwise is not its document, pages or not: the check
    # says the citation names another document (step 1), never that page 7 is missing from this one.
    other = Source(sections={"page 1": "Other text."}, name="other.pdf")
    adapted = adapt_answer(sdk({"page_number": 7}), source=other)
    assert adapted.invalid == {}
    [citation] = adapted.citations
    assert (citation.document, citation.section) == ("apache-2.0.pdf", None)
