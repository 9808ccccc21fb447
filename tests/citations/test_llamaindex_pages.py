"""LlamaIndex's PDF pages: the physical page from what its reader leaves (issue 23, found 3).

LlamaIndex's ``PDFReader`` names each page by its printed ``page_label`` only, and Claude's
``page_location`` counts physical pages: on a PDF labelled i, ii, 1, 2 a correct citation of physical
page 3 was "found in page 1"; on one labelled 1, 2, 1, 2 the two page 1s merged. The physical page is
recovered from ``SimpleDirectoryReader``'s Document ids (``filename_as_id=True``: ``<path>_part_<i>``) or
its ``file_path`` (the PDF's own page labels, and the page text where a label repeats). The PDFs are
``tests/data/apache-2.0.pdf`` (4 pages) with page labels written by pypdf; the reader is LlamaIndex's
``PDFReader`` as llama-index-readers-file has it (copied below, since that package would raise the
lowest pypdf the test environment can resolve from 4.3.1 to 6.1.3), run by llama-index-core's real
``SimpleDirectoryReader`` and ``TokenTextSplitter``.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from pytest_citecheck import Corpus, Status, check_retrieval
from pytest_citecheck._citations.adapt import adapt_citations
from pytest_citecheck._locate.citations import Located, locate_all
from pytest_citecheck._options import Settings

PDF = Path(__file__).resolve().parent.parent / "data" / "apache-2.0.pdf"
LABELS = {"roman-then-arabic": ["i", "ii", "1", "2"], "restarting": ["1", "2", "1", "2"]}


def labelled(tmp_path: Path, kind: str) -> Path:
    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=PDF)
    if kind == "roman-then-arabic":
        writer.set_page_label(0, 1, style="/r")
        writer.set_page_label(2, 3, style="/D", start=1)
    else:
        writer.set_page_label(0, 1, style="/D", start=1)
        writer.set_page_label(2, 3, style="/D", start=1)
    path = tmp_path / "apache-2.0.pdf"
    with path.open("wb") as out:
        writer.write(out)
    return path


def pdf_reader() -> Any:
    from llama_index.core import Document
    from llama_index.core.readers.base import BaseReader
    from pypdf import PdfReader

    class PDFReader(BaseReader):  # llama-index-readers-file's PDFReader.load_data, one Document per page
        def load_data(self, file: Path, extra_info: dict | None = None, fs: Any = None) -> list[Any]:
            pdf = PdfReader(file)
            docs = []
            for page in range(len(pdf.pages)):
                metadata = {"page_label": pdf.page_labels[page], "file_name": file.name}
                if extra_info is not None:
                    metadata.update(extra_info)
                docs.append(Document(text=pdf.pages[page].extract_text(), metadata=metadata))
            return docs

    return PDFReader()


def retrieved(path: Path, **reader: Any) -> tuple[list[Any], list[int]]:
    """The PDF's chunks as a retriever hands them back (shuffled, as NodeWithScore; none of a few words,
    which two pages may share), and the physical page of each: its Document's place in the reader's
    output, one Document per page in page order."""
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.node_parser import TokenTextSplitter
    from llama_index.core.schema import NodeWithScore

    documents = SimpleDirectoryReader(input_files=[path], file_extractor={".pdf": pdf_reader()}, **reader).load_data()
    assert [d.metadata["page_label"] for d in documents] in LABELS.values()
    page = {document.id_: number for number, document in enumerate(documents, start=1)}
    nodes = TokenTextSplitter(chunk_size=128, chunk_overlap=0).get_nodes_from_documents(documents)
    nodes = [node for node in nodes if len(node.get_content().strip()) >= 40]
    random.Random(7).shuffle(nodes)
    return [NodeWithScore(node=node, score=0.5) for node in nodes], [page[node.source_node.node_id] for node in nodes]


def claude_cites_page(number: int, quote: str) -> dict:
    location = {"type": "page_location", "cited_text": quote, "document_index": 0}
    return {
        "type": "text",
        "text": "The licence says so.",
        "citations": [{**location, "start_page_number": number, "end_page_number": number + 1}],
    }


@pytest.mark.parametrize("kind", LABELS)
@pytest.mark.parametrize("how", ["filename_as_id", "file_path"])
def test_chunks_of_a_labelled_pdf_are_on_their_physical_pages(tmp_path: Path, kind: str, how: str) -> None:
    path = labelled(tmp_path, kind)
    chunks, pages = retrieved(path, filename_as_id=how == "filename_as_id")
    if how == "filename_as_id":
        path.rename(tmp_path / "moved.pdf")  # the ids alone say the page: the file is not read
    corpus = Corpus.from_documents(chunks)
    source = corpus["apache-2.0.pdf"]
    assert set(source.sections) == {f"page {page}" for page in pages} == {"page 1", "page 2", "page 3", "page 4"}
    assert [(r.status, r.section) for r in check_retrieval(chunks, corpus)] == [
        ("found", f"page {page}") for page in pages
    ]
    # Claude cites physical page 3, the page labelled "1": found there, not "found in page 1".
    on_three = chunks[pages.index(3)]
    quote = max(on_three.node.get_content().split("\n"), key=len).strip()
    [citation] = adapt_citations([claude_cites_page(3, quote)], source=source)
    [located] = locate_all([citation], source, Settings())
    assert isinstance(located, Located) and (located.status, located.section) == (Status.FOUND, "page 3")


def test_without_the_reader_s_ids_or_file_the_printed_label_stays(tmp_path: Path) -> None:
    path = labelled(tmp_path, "roman-then-arabic")
    pages = pdf_reader().load_data(path)  # PDFReader alone: page_label and file_name, nothing that counts pages
    assert {key for page in pages for key in page.metadata} == {"page_label", "file_name"}
    source = Corpus.from_documents(pages)["apache-2.0.pdf"]
    assert list(source.sections) == ["page 1", "page 2", "page i", "page ii"]


@pytest.mark.parametrize("content", [b"not a pdf at all", b"%PDF-1.7\n%garbage\x00\xff", None])
def test_a_file_path_that_is_no_readable_pdf_leaves_the_label(tmp_path: Path, content: bytes | None) -> None:
    from llama_index.core.schema import TextNode

    path = tmp_path / "report.pdf"
    if content is None:
        path.mkdir()  # a directory named like a PDF
    else:
        path.write_bytes(content)
    node = TextNode(
        text="Refunds are granted within 30 days of purchase.",
        metadata={"page_label": "ii", "file_name": "report.pdf", "file_path": str(path)},
    )
    assert list(Corpus.from_documents([node])["report.pdf"].sections) == ["page ii"]
