"""The pages a citation names, as the sections of a paged document: one rule for every SDK that names pages.

A PDF checked page by page is a ``Source`` whose sections are named by physical page number
(``Corpus.from_documents`` of a loader's pages names them ``"page 3"``). Claude's ``page_location``
(``[start_page_number, end_page_number)``), Gemini File Search's ``retrieved_context.page_number``,
Vertex AI RAG's ``rag_chunk.page_span`` and Bedrock Knowledge Bases' ``x-amz-bedrock-kb-document-page-number``
(in a retrieved reference's metadata, a page index from 0) cite pages of it: ``page_sections`` gives those sections, so the
quote is looked for there first (found on another page, it is ``found-elsewhere``). A document whose
sections are not pages has none to check the numbers against (the quote is looked for in all of it); a
paged document without the cited pages fails closed, naming the field.
"""

from __future__ import annotations

from pytest_citecheck._citations.urls import names_the_source, url_document
from pytest_citecheck._errors import CitationInputError
from pytest_citecheck._sources.corpus import Corpus
from pytest_citecheck._sources.source import Source


def page_sections(
    start: int, end: int, source: Source | Corpus | None, citation_id: str, field: str
) -> tuple[str, ...]:
    """The sections of pages ``[start, end)`` (1-based) of ``source``; none for a source whose sections are not
    its pages; an error naming ``field`` for a paged source without any of them."""
    if not isinstance(source, Source):
        return ()
    # Read from the section names, so a hostile end page costs no more than the pages.
    pages = {int(number): name for name in source.sections if (number := page_number(name)) is not None}
    cited = tuple(pages[page] for page in sorted(pages) if start <= page < end)
    paged = [name for name in source.sections if name.startswith("page ")]
    if not cited and paged:
        # Fails closed: read without its pages, a quote from any page of the document would be ``found``.
        shown = ", ".join(paged[:8]) + (", …" if len(paged) > 8 else "")
        cites = f"page {start}" if end == start + 1 else f"pages {start} to {end - 1}"
        raise CitationInputError(
            f"cites {cites}, which the document checked does not have (its pages: {shown}): check against the "
            "pages the model was given, each a section named by its physical page number (Corpus.from_documents "
            "of the PDF's pages)",
            citation=citation_id,
            field=field,
        )
    return cited


def page_number(name: str) -> int | None:
    """The physical page a section named ``page N`` holds, or None (any other section, a printed label)."""
    number = name.removeprefix("page ")
    return int(number) if number != name and number.isascii() and number.isdigit() else None


def paged_source(source: Source | Corpus | None, document: str | None) -> Source | None:
    """The document a citation names, as the check was given it: the corpus's document by that name (or URL),
    or the single ``Source`` when the name is its own (any other is step 1's error, not a missing page)."""
    if document is None:
        return None
    if isinstance(source, Corpus):
        found = document if document in source else url_document(source, document)
        return None if found is None else source[found]
    if isinstance(source, Source) and source.name and names_the_source(document, source.name):
        return source
    return None
