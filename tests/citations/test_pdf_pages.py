"""Pages are physical, whatever their printed labels say (issue 23, found 3 and 4).

Claude's ``page_location`` counts physical pages; PyPDFLoader gives each page its 0-based ``page`` and
its printed ``page_label``. On a PDF labelled i, ii, 1, 2 a correct citation of physical page 3 was
reported "cited page 3, found in page 1"; on one labelled 1, 2, 1, 2 ``Corpus.from_documents`` merged
the two page 1s into one garbled text, and ``check_retrieval`` reported chunks of it missing.
The pages here are the real text of ``tests/data/apache-2.0.pdf`` (4 pages), read with pypdf.
"""

from __future__ import annotations

import pytest
from support import pdf_pages

from pytest_citecheck import Corpus, Status, check_retrieval
from pytest_citecheck._citations.adapt import adapt_citations


def pages(labels: list[str]) -> list:
    return pdf_pages("apache-2.0.pdf", labels)


@pytest.mark.parametrize(
    "labels", [["i", "ii", "1", "2"], ["1", "2", "1", "2"]], ids=["roman-then-arabic", "restarting"]
)
def test_each_physical_page_is_its_own_section(labels: list[str]) -> None:
    documents = pages(labels)
    corpus = Corpus.from_documents(documents)
    source = corpus["apache-2.0.pdf"]
    assert list(source.sections) == ["page 1", "page 2", "page 3", "page 4"]
    assert [source.sections[f"page {n + 1}"] for n in range(4)] == [d.page_content for d in documents]
    # Every chunk of the corpus is found where its metadata says.
    assert [(r.status, r.section) for r in check_retrieval(documents, corpus)] == [
        ("found", f"page {n + 1}") for n in range(4)
    ]


def page_citation(quote: str, start: int, end: int, title: str | None = None) -> dict:
    """A Claude text block citing ``quote`` on physical pages ``start`` to ``end`` (end exclusive) of document 0."""
    location = {"type": "page_location", "cited_text": quote, "document_index": 0}
    if title is not None:
        location["document_title"] = title
    return {
        "type": "text",
        "text": "The licence says so.",
        "citations": [location | {"start_page_number": start, "end_page_number": end}],
    }


def test_a_claude_citation_of_physical_page_3_cites_the_page_labelled_1() -> None:
    documents = pages(["i", "ii", "1", "2"])
    corpus = Corpus.from_documents(documents)
    quote = documents[2].page_content.split("\n")[3].strip()
    block = page_citation(quote, 3, 4, title="apache-2.0.pdf")
    [citation] = adapt_citations([block], source=corpus)
    assert (citation.document, citation.section) == ("apache-2.0.pdf", "page 3")
    from pytest_citecheck._locate.citations import Located, locate_all
    from pytest_citecheck._options import Settings

    [located] = locate_all([citation], corpus, Settings())
    assert isinstance(located, Located) and located.section == "page 3"
    assert located.status is Status.FOUND


def test_a_page_that_disagrees_with_the_cited_text_is_found_elsewhere_naming_both_pages() -> None:
    # Issue 23, found 2: the page is where the model cited, cited_text what it quoted.
    from pytest_citecheck._locate.citations import Located, locate_all
    from pytest_citecheck._options import Settings

    documents = pages(["i", "ii", "1", "2"])
    corpus = Corpus.from_documents(documents)
    quote = documents[2].page_content.split("\n")[3].strip()
    block = page_citation(quote, 2, 3)
    [citation] = adapt_citations([block], source=corpus)
    [located] = locate_all([citation], corpus, Settings())
    assert isinstance(located, Located)
    assert (located.status, citation.section, located.section) == (Status.FOUND_ELSEWHERE, "page 2", "page 3")


def located_range(quote: str, start: int, end: int):
    """A Claude citation of physical pages ``start`` to ``end`` (exclusive), located in the PDF's corpus."""
    from pytest_citecheck._locate.citations import locate_all
    from pytest_citecheck._options import Settings

    corpus = Corpus.from_documents(pages(["i", "ii", "1", "2"]))
    [citation] = adapt_citations([page_citation(quote, start, end)], source=corpus)
    [located] = locate_all([citation], corpus, Settings())
    return located


def test_a_page_range_cites_its_pages_and_a_quote_outside_them_is_found_elsewhere() -> None:
    documents = pages(["i", "ii", "1", "2"])
    on_page_4 = documents[3].page_content.split("\n")[3].strip()
    outside = located_range(on_page_4, 1, 3)  # pages 1 and 2; the quote is on page 4
    assert (outside.status, outside.cited, outside.sections) == (
        Status.FOUND_ELSEWHERE,
        ("page 1", "page 2"),
        ("page 1", "page 2", "page 4"),
    )
    inside = located_range(on_page_4, 3, 5)  # pages 3 and 4
    assert (inside.status, inside.sections) == (Status.FOUND, ("page 3", "page 4"))


def test_a_quote_running_from_one_page_of_the_range_onto_the_next_is_found() -> None:
    documents = pages(["i", "ii", "1", "2"])
    end_of_2, start_of_3 = documents[1].page_content[-60:], documents[2].page_content[:60]
    located = located_range(end_of_2 + start_of_3, 2, 4)
    assert (located.status, located.sections) == (Status.FOUND, ("page 2", "page 3"))
    assert located.text[located.spans[0][0] : located.spans[0][1]].startswith(end_of_2.strip()[:20])


def test_a_hostile_end_page_number_costs_no_more_than_the_pages() -> None:
    documents = pages(["i", "ii", "1", "2"])
    located = located_range(documents[1].page_content.split("\n")[3].strip(), 1, 10**12)
    assert (located.status, located.sections) == (Status.FOUND, ("page 1", "page 2", "page 3", "page 4"))
