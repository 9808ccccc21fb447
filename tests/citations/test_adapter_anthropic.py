"""Anthropic Messages API citations, built with the real ``anthropic`` package's types: a whole
``Message`` across several documents, ``char_location``, ``page_location`` (a real PDF) and
``content_block_location``, and how ``document_index`` / ``document_title`` select a document of a
``Corpus``. Checked on the adapter's output, and through the checker for one document."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

# anthropic is imported by the tests that use it, not at collection: every xdist worker collects
# every module, and importing the SDK costs seconds.
if TYPE_CHECKING:
    from anthropic.types import CitationCharLocation, Message, TextBlock

from pytest_citecheck import CitationInputError, Corpus, Source, Status
from pytest_citecheck._citations.adapt import adapt_citations
from pytest_citecheck.testing import JevServer

DATA = Path(__file__).parent.parent / "data"
PATENT = "each Contributor hereby grants to You a perpetual"
NO_WARRANTY = "BECAUSE THE PROGRAM IS LICENSED FREE OF CHARGE, THERE IS NO WARRANTY"
ADDENDUM = "To use this License in a document you have written"


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus(
        {
            "apache-2.0.txt": Source.from_file(DATA / "apache-2.0.txt"),
            "gpl-2.0.txt": Source.from_file(DATA / "gpl-2.0.txt"),
            "gfdl-1.3.txt": Source.from_file(DATA / "gfdl-1.3.txt"),
        }
    )


def message(*content: object) -> Message:
    from anthropic.types import Message, Usage

    return Message(
        id="msg_01",
        type="message",
        role="assistant",
        model="claude-sonnet-4-5",
        content=list(content),
        stop_reason="end_turn",
        stop_sequence=None,
        usage=Usage(input_tokens=2048, output_tokens=120),
    )


def char_citation(source: Source, quote: str, index: int, title: str | None) -> CitationCharLocation:
    from anthropic.types import CitationCharLocation

    start = source.text.index(quote)
    return CitationCharLocation(
        type="char_location",
        cited_text=quote,
        document_index=index,
        document_title=title,
        start_char_index=start,
        end_char_index=start + len(quote),
    )


def cited_pages(claim: str, quote: str, title: str, start: int, end: int) -> Message:
    """A message whose one text block cites ``quote`` on pages ``start`` to ``end`` (exclusive) of document 0."""
    from anthropic.types import CitationPageLocation, TextBlock

    return message(
        TextBlock(
            type="text",
            text=claim,
            citations=[
                CitationPageLocation(
                    type="page_location",
                    cited_text=quote,
                    document_index=0,
                    document_title=title,
                    start_page_number=start,
                    end_page_number=end,
                )
            ],
        )
    )


def test_a_whole_message_across_three_documents(corpus: Corpus) -> None:
    from anthropic.types import CitationContentBlockLocation, TextBlock, ThinkingBlock, ToolUseBlock

    answer = message(
        ThinkingBlock(type="thinking", thinking="The user asks about three licences.", signature="sig"),
        TextBlock(type="text", text="Here is what the licences say:", citations=None),
        TextBlock(
            type="text",
            text="Apache-2.0 grants a patent licence.",
            citations=[char_citation(corpus["apache-2.0.txt"], PATENT, 0, "Apache License 2.0")],
        ),
        TextBlock(
            type="text",
            text="GPL-2 programs come with no warranty.",
            # The title names the corpus id: it wins over the index.
            citations=[char_citation(corpus["gpl-2.0.txt"], NO_WARRANTY, 7, "gpl-2.0.txt")],
        ),
        TextBlock(
            type="text",
            text="The GFDL says how to apply it to your own documents.",
            citations=[
                CitationContentBlockLocation(
                    type="content_block_location",
                    cited_text=ADDENDUM,
                    document_index=2,
                    document_title="GNU Free Documentation License",
                    start_block_index=3,
                    end_block_index=4,
                )
            ],
        ),
        ToolUseBlock(type="tool_use", id="toolu_01", name="search", input={"q": "licence"}),
    )
    adapted = adapt_citations(answer, source=corpus)
    assert [(c.id, c.document, c.quote) for c in adapted] == [
        ("#1.1", "apache-2.0.txt", PATENT),
        ("#2.1", "gpl-2.0.txt", NO_WARRANTY),
        ("#3.1", "gfdl-1.3.txt", ADDENDUM),
    ]
    assert adapted[0].claim == "Apache-2.0 grants a patent licence."
    start = corpus["apache-2.0.txt"].text.index(PATENT)
    assert adapted[0].location == (start, start + len(PATENT))
    assert adapted[2].location is None and adapted[2].section is None
    # The same message as JSON (what a recorded response or a cached dict holds) adapts the same way.
    assert adapt_citations(answer.model_dump(), source=corpus) == adapted
    # A list of messages works too.
    assert adapt_citations([answer], source=corpus) == adapted


def test_page_location_cites_a_page_of_a_corpus_built_from_pages() -> None:
    from langchain_core.documents import Document
    from pypdf import PdfReader

    # What LangChain's PyPDFLoader returns for a PDF: a Document per page, "page" 0-based.
    reader = PdfReader(DATA / "apache-2.0.pdf")
    pages = [
        Document(page_content=page.extract_text(), metadata={"source": "apache-2.0.pdf", "page": number})
        for number, page in enumerate(reader.pages)
    ]
    corpus = Corpus.from_documents(pages)
    assert list(corpus["apache-2.0.pdf"].sections) == ["page 1", "page 2", "page 3", "page 4"]
    on_page_2 = "Grant of Patent License"
    assert on_page_2 in corpus["apache-2.0.pdf"].sections["page 2"]

    def cite(start: int, end: int) -> Message:
        return cited_pages("Contributors grant a patent licence.", on_page_2, "Apache License", start, end)

    [one_page] = adapt_citations(cite(2, 3), source=corpus)
    assert (one_page.document, one_page.section, one_page.quote) == ("apache-2.0.pdf", "page 2", on_page_2)
    # Over two pages the quote may be on either: no section is cited, the whole document is searched.
    [two_pages] = adapt_citations(cite(2, 4), source=corpus)
    assert two_pages.section is None
    with pytest.raises(CitationInputError, match=r"citation '#0.1', field 'start_page_number': .* 1 <= start < end"):
        adapt_citations(cite(3, 3), source=corpus)


def test_page_location_against_a_pdf_source_is_found_and_judged(direct_checker, jev_server: JevServer) -> None:
    pdf = Source.from_file(DATA / "apache-2.0.pdf")
    quote = "You may reproduce and distribute copies of the Work or Derivative Works thereof"
    answer = cited_pages("Copies of the Work may be redistributed.", quote, "apache-2.0.pdf", 2, 3)
    [result] = direct_checker(jev_server).check(answer, pdf)
    assert (result.status, result.section) == (Status.FOUND, "4")
    [request] = jev_server.systemone_requests
    assert request.body["state"]["section"] == pdf.sections["4"]


QUOTED = {"apache-2.0.txt": PATENT, "gpl-2.0.txt": NO_WARRANTY, "gfdl-1.3.txt": ADDENDUM}


def citing(corpus: Corpus, cited: str, index: int, title: str, claim: str) -> TextBlock:
    """A text block quoting document ``cited`` of ``corpus``, named by ``index`` and ``title`` the way the request did."""
    from anthropic.types import TextBlock

    return TextBlock(type="text", text=claim, citations=[char_citation(corpus[cited], QUOTED[cited], index, title)])


@pytest.mark.parametrize(
    ("cited", "index", "title", "single_source", "claim", "document"),
    [
        pytest.param(
            "gfdl-1.3.txt",
            2,
            "GNU Free Documentation License 1.3",
            False,
            "The GFDL can be applied to your documents.",
            "gfdl-1.3.txt",
            id="by-position-when-the-title-names-no-document",
        ),
        # The first document against a single Source is that Source: no document to name.
        pytest.param(
            "gpl-2.0.txt",
            0,
            "GPL-2",
            True,
            "GPL-2 programs come with no warranty.",
            None,
            id="the-first-document-against-a-single-source",
        ),
    ],
)
def test_document_index_selects_the_document(
    corpus: Corpus, cited: str, index: int, title: str, single_source: bool, claim: str, document: str | None
) -> None:
    block = citing(corpus, cited, index, title, claim)
    [citation] = adapt_citations([block], source=corpus[cited] if single_source else corpus)
    assert citation.document == document


@pytest.mark.parametrize(
    ("cited", "index", "title", "single_source", "claim", "error"),
    [
        pytest.param(
            "apache-2.0.txt",
            5,
            "Employee handbook",
            False,
            "Some claim.",
            r"document_index 5, document_title 'Employee handbook': "
            r"no document of the corpus \(3 documents: apache-2.0.txt, gpl-2.0.txt, gfdl-1.3.txt\) is named so",
            id="a-document-the-corpus-lacks",
        ),
        pytest.param(
            "gpl-2.0.txt",
            1,
            "GPL-2",
            True,
            "GPL-2 programs come with no warranty.",
            r"cites document 1 \('GPL-2'\) of the request, but the check was given a single Source: pass a Corpus",
            id="a-second-document-against-a-single-source",
        ),
    ],
)
def test_a_document_it_cannot_select_is_an_error_naming_citation_and_field(
    corpus: Corpus, cited: str, index: int, title: str, single_source: bool, claim: str, error: str
) -> None:
    block = citing(corpus, cited, index, title, claim)
    with pytest.raises(CitationInputError, match=r"citation '#0.1', field 'document_index': " + error):
        adapt_citations([block], source=corpus[cited] if single_source else corpus)


@pytest.mark.parametrize(
    ("location", "message_"),
    [
        (
            {"type": "content_block_location", "start_block_index": 2, "end_block_index": 1},
            r"field 'start_block_index': .* 0 <= start < end",
        ),
        (
            {"type": "page_location", "start_page_number": 0, "end_page_number": 1},
            r"field 'start_page_number': .* 1 <= start < end",
        ),
        ({"type": "char_location", "document_index": -1}, r"field 'document_index': must be a whole number"),
    ],
    ids=["content-block-end-before-start", "page-number-zero", "negative-document-index"],
)
def test_malformed_locations_name_the_citation_and_field(corpus: Corpus, location: dict, message_: str) -> None:
    block = {"type": "text", "text": "A claim.", "citations": [{"cited_text": PATENT, "document_index": 0, **location}]}
    with pytest.raises(CitationInputError, match=r"citation '#0.1', " + message_):
        adapt_citations([block], source=corpus)
