"""A Bedrock Knowledge Bases chunk of a PDF is checked on the page its metadata names (sdk-leftovers-4).

Knowledge Bases writes a PDF chunk's page in the retrieved reference's ``metadata`` as
``x-amz-bedrock-kb-document-page-number``, a page INDEX from 0 and a JSON number (recorded answers hold
``16.0`` for a chunk whose text ends in the printed page number 17, and ``5.0`` for one ending in 6). It was not
read: the chunk's text was looked for in the whole document, so a chunk found on another page than the one
named passed as ``found``. Now it is read as Claude's ``page_location`` and Gemini File Search's
``page_number`` are (``_citations/pages.py``): found elsewhere, the citation is ``found-elsewhere``.

The document is the real text of ``tests/data/apache-2.0.pdf`` (4 pages, read with pypdf as LangChain's
PyPDFLoader returns them), keyed by the S3 URI the reference's location names.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from support import checked_or_refused, pdf_pages

from pytest_citecheck import Corpus, Source, Status
from pytest_citecheck._citations.adapt import adapt_answer

URI = "s3://kb-bucket/legal/apache-2.0.pdf"
DOCUMENTS = pdf_pages(URI)
# The first lines of page 3 (index 2): "5. Submission of Contributions. ...", on no other page.
CHUNK = " ".join(DOCUMENTS[2].page_content.split("\n")[:3]).strip()
CLAIM = "Contributions submitted for inclusion in the Work are under the License's terms."
FIELD = "citations[0].retrievedReferences[0].metadata.x-amz-bedrock-kb-document-page-number"


def answer(page: Any = None, **metadata: Any) -> dict[str, Any]:
    """A ``retrieve_and_generate()`` dict as boto3 parses it: one citation of one chunk of the PDF."""
    if page is not None:
        metadata["x-amz-bedrock-kb-document-page-number"] = page
    return {
        "ResponseMetadata": {"HTTPStatusCode": 200, "RetryAttempts": 0},
        "sessionId": "6f6e2a54-0d7e-4a9a-9e57-5c3c2f3f8a11",
        "output": {"text": CLAIM},
        "citations": [
            {
                "generatedResponsePart": {
                    "textResponsePart": {"text": CLAIM, "span": {"start": 0, "end": len(CLAIM) - 1}}
                },
                "retrievedReferences": [
                    {
                        "content": {"text": CHUNK, "type": "TEXT"},
                        "location": {"type": "S3", "s3Location": {"uri": URI}},
                        "metadata": {
                            "x-amz-bedrock-kb-source-uri": URI,
                            "x-amz-bedrock-kb-chunk-id": "1%3A0%3AbH5yRJIBeqvVn9qM2pmK",
                            "x-amz-bedrock-kb-data-source-id": "4HILUSLBPF",
                            **metadata,
                        },
                    }
                ],
            }
        ],
    }


def corpus() -> Corpus:
    return Corpus.from_documents(DOCUMENTS)


def named_pages() -> Source:
    """The PDF as one Source, its pages its sections, named by the S3 URI the chunk names."""
    return Source(sections={f"page {n + 1}": d.page_content for n, d in enumerate(DOCUMENTS)}, name=URI)


@pytest.mark.parametrize("source", [corpus, named_pages], ids=["corpus", "named-source"])
def test_a_chunk_from_another_page_than_its_page_index_is_found_elsewhere(direct_checker: Any, source: Any) -> None:
    # Index 1.0 is page 2; the chunk is on page 3. Before: found, as if the reference named no page.
    results, error = checked_or_refused(direct_checker, answer(1.0), source())
    assert error is None
    assert [(r.status, r.cited_section, r.section) for r in results] == [(Status.FOUND_ELSEWHERE, "page 2", "page 3")]
    # Index 2.0 (the float Knowledge Bases writes) and 2 are page 3, where the chunk is: found there.
    for index in (2.0, 2):
        results, error = checked_or_refused(direct_checker, answer(index), source())
        assert error is None and [(r.status, r.section) for r in results] == [(Status.FOUND, "page 3")]


def test_the_first_page_is_index_zero() -> None:
    [citation] = adapt_answer(answer(0.0), source=corpus()).citations
    assert (citation.document, citation.section, citation.quote) == (URI, "page 1", CHUNK)


def test_a_page_the_document_does_not_have_is_invalid_naming_the_metadata_field(direct_checker: Any) -> None:
    results, error = checked_or_refused(direct_checker, answer(6.0), corpus())
    assert [(r.id, r.status) for r in results] == [("#0.1.1", Status.INVALID)]
    assert error is not None and (error.citation, error.field) == ("#0.1.1", FIELD)
    assert "cites page 7, which the document checked does not have (its pages: page 1, page 2, page 3, page 4)" in str(
        error
    )


@pytest.mark.parametrize(
    "page", [-1, -1.0, 2.5, True, False, "2", "", [2], {"n": 2}, math.nan, math.inf, -math.inf, 1e400, b"2"]
)
def test_a_page_index_that_is_no_page_is_one_invalid_citation(page: Any) -> None:
    adapted = adapt_answer(answer(page), source=corpus())
    assert list(adapted.invalid) == ["#0.1.1"]
    error = adapted.invalid["#0.1.1"]
    assert (error.citation, error.field) == ("#0.1.1", FIELD)
    assert f"is {page!r}: the page index Knowledge Bases writes is a whole number of 0 or more" in str(error)


@pytest.mark.parametrize("page", [10**30, 1e300, 2**63])
def test_a_huge_page_index_is_a_page_the_document_does_not_have(page: Any) -> None:
    adapted = adapt_answer(answer(page), source=corpus())
    assert list(adapted.invalid) == ["#0.1.1"] and adapted.invalid["#0.1.1"].field == FIELD
    assert "which the document checked does not have" in str(adapted.invalid["#0.1.1"])


@pytest.mark.parametrize("metadata", [[], "x", 3])
def test_metadata_that_is_no_object_is_one_invalid_citation(metadata: Any) -> None:
    response = answer()
    response["citations"][0]["retrievedReferences"][0]["metadata"] = metadata
    adapted = adapt_answer(response, source=corpus())
    error = adapted.invalid["#0.1.1"]
    assert error.field == "citations[0].retrievedReferences[0].metadata"
    assert f"must be an object, got {type(metadata).__name__}" in str(error)


def test_a_page_index_against_a_document_whose_sections_are_not_pages_looks_in_the_whole_document() -> None:
    # As Claude's page_location: a document split by headings has no pages to check the index against.
    text = Corpus({URI: Source(sections={"Terms": "\n".join(d.page_content for d in DOCUMENTS)})})
    adapted = adapt_answer(answer(1.0), source=text)
    assert adapted.invalid == {}
    [citation] = adapted.citations
    assert (citation.section, citation.quote, citation.document) == (None, CHUNK, URI)


def test_a_reference_without_a_page_index_is_looked_for_in_the_whole_document() -> None:
    [citation] = adapt_answer(answer(), source=corpus()).citations
    assert (citation.section, citation.document) == (None, URI)
