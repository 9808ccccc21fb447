"""Retrieved chunks as sources, built by the real frameworks: LangChain ``Document``s from an
``InMemoryVectorStore`` retriever, LlamaIndex ``NodeWithScore``s from a ``VectorStoreIndex`` over
``SimpleDirectoryReader`` files. ``Corpus.from_documents`` (document ids, page and chunk sections)
and ``check_retrieval`` (stale index, wrong document, wrong page; no model asked).

The frameworks (and pypdf) are imported by the tests and helpers that use them, when they run: every
xdist worker collects this module, and collecting it must not cost an import of either framework."""

from __future__ import annotations

import functools
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import support

from pytest_citecheck import Corpus, RetrievalResult, Source, SourceError, check_retrieval

if TYPE_CHECKING:
    from langchain_core.documents import Document
    from llama_index.core.schema import TextNode

DATA = Path(__file__).parent.parent / "data"
LICENCES = ("apache-2.0.txt", "gpl-2.0.txt", "gfdl-1.3.txt")


@pytest.fixture(scope="module")
def knowledge_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("kb")
    for name in LICENCES:
        shutil.copy(DATA / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def corpus(knowledge_base: Path) -> Corpus:
    """The knowledge base as it is now, ids relative to its folder (as ``Corpus.from_dir`` makes them)."""
    return Corpus({name: Source.from_file(knowledge_base / name) for name in LICENCES})


def document(page_content: str, metadata: dict[str, Any]) -> Document:
    """A LangChain ``Document``, LangChain imported when it is first made."""
    from langchain_core.documents import Document

    return Document(page_content=page_content, metadata=metadata)


def made_when_run(make: Callable[[], Any]) -> Callable[[], Any]:
    """A parametrized case's chunks, made when its test runs (Documents built at collection would
    import LangChain in every xdist worker). A partial, not the lambda: pytest ids a function by its
    name (``<lambda>``), other values by their argument's name and index (``docs0``, as before)."""
    return functools.partial(make)


def pdf_pages() -> list[Document]:
    """What LangChain's PyPDFLoader returns for the Apache licence PDF kept at /srv/kb/."""
    return support.pdf_pages("/srv/kb/apache-2.0.pdf")


def llama_nodes(folder: Path) -> list[TextNode]:
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.node_parser import TokenTextSplitter

    documents = SimpleDirectoryReader(input_dir=str(folder)).load_data()
    # Token windows (tiktoken's encoding ships with llama-index-core); the default sentence splitter
    # needs NLTK's data files, which NLTK refuses to open when an installer hard-linked them.
    splitter = TokenTextSplitter(chunk_size=160, chunk_overlap=24)
    return splitter.get_nodes_from_documents(documents)


# --- Corpus.from_documents --------------------------------------------------------------------


def test_langchain_retrieved_pages_make_a_document_with_page_sections() -> None:
    from langchain_core.documents import Document
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents(pdf_pages())
    retrieved = store.as_retriever(search_kwargs={"k": 3}).invoke("patent licence")
    assert all(isinstance(doc, Document) for doc in retrieved)
    corpus = Corpus.from_documents(retrieved)
    [document] = list(corpus)
    assert document == "/srv/kb/apache-2.0.pdf"
    pages = sorted(doc.metadata["page"] + 1 for doc in retrieved)
    assert list(corpus[document].sections) == [f"page {n}" for n in pages]
    for doc in retrieved:
        assert corpus[document].sections[f"page {doc.metadata['page_label']}"] == doc.page_content


def test_llamaindex_retrieved_nodes_are_grouped_by_file_name(knowledge_base: Path) -> None:
    from llama_index.core import Settings, VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.schema import NodeWithScore

    Settings.embed_model = MockEmbedding(embed_dim=8)
    index = VectorStoreIndex(llama_nodes(knowledge_base))
    retrieved = index.as_retriever(similarity_top_k=6).retrieve("warranty")
    assert all(isinstance(item, NodeWithScore) for item in retrieved)
    corpus = Corpus.from_documents(retrieved)
    assert set(corpus) == {item.node.metadata["file_name"] for item in retrieved}
    for name in corpus:
        chunks = [item for item in retrieved if item.node.metadata["file_name"] == name]
        # No page metadata: each chunk is a section, in the order of the document.
        ordered = sorted(chunks, key=lambda item: item.node.start_char_idx)
        assert list(corpus[name].sections.values()) == [item.node.text for item in ordered]
        assert list(corpus[name].sections) == [f"chunk {n}" for n in range(1, len(chunks) + 1)]


def test_overlapping_chunks_of_a_page_are_joined_once_and_duplicates_dropped() -> None:
    from langchain_core.documents import Document

    page = "Refunds are issued within 30 days. Gifts can be returned for store credit."
    first, second = page[:40], page[30:]  # ten characters of overlap, as splitters make them
    docs = [
        Document(page_content=second, metadata={"source": "policy.pdf", "page": 4, "start_index": 30}),
        Document(page_content=first, metadata={"source": "policy.pdf", "page": 4, "start_index": 0}),
        Document(page_content=first, metadata={"source": "policy.pdf", "page": 4, "start_index": 0}),
        Document(page_content="Shipping is free.", metadata={"source": "policy.pdf", "page": 9}),
        Document(page_content="Terms apply.", metadata={"source": "terms.md", "chunk_index": 7}),
    ]
    corpus = Corpus.from_documents(docs)
    assert dict(corpus["policy.pdf"].sections) == {"page 5": page, "page 10": "Shipping is free."}
    assert dict(corpus["terms.md"].sections) == {"chunk 7": "Terms apply."}


def test_document_id_from_another_metadata_key_or_a_function() -> None:
    from langchain_core.documents import Document

    docs = [Document(page_content="Refunds take 30 days.", metadata={"url": "https://shop.example/refunds"})]
    assert list(Corpus.from_documents(docs, document_id="url")) == ["https://shop.example/refunds"]
    assert list(Corpus.from_documents(docs, document_id=lambda doc: doc.metadata["url"].rsplit("/", 1)[-1])) == [
        "refunds"
    ]


@pytest.mark.parametrize(
    ("docs", "message"),
    [
        (
            made_when_run(lambda: [document(page_content="Refunds.", metadata={})]),
            r"field 'metadata': chunk #0 has no 'source' or 'file_name'",
        ),
        (
            made_when_run(lambda: [document(page_content="  ", metadata={"source": "a.md"})]),
            r"field 'page_content': chunk #0 has no text",
        ),
        (made_when_run(lambda: ["just a string"]), r"field 'chunks': chunk #0 is a str, not a retrieved chunk"),
        (
            made_when_run(lambda: document(page_content="x", metadata={"source": "a"})),
            r"a single chunk\? wrap it in a list",
        ),
        (made_when_run(lambda: []), r"the corpus has no documents"),
    ],
)
def test_chunks_that_cannot_make_a_corpus_are_clear_errors(docs: Callable[[], Any], message: str) -> None:
    chunks = docs()
    with pytest.raises(SourceError, match=message):
        Corpus.from_documents(chunks)


# --- check_retrieval --------------------------------------------------------------------------


def test_every_chunk_of_real_splitters_is_found_in_the_current_corpus(knowledge_base: Path, corpus: Corpus) -> None:
    nodes = llama_nodes(knowledge_base)
    results = check_retrieval(nodes, corpus)
    assert len(results) == len(nodes) > 30
    assert [str(r) for r in results if not r.ok] == []
    # The metadata's file name is matched to the corpus id; the section is where the chunk starts.
    assert {r.document for r in results} == set(LICENCES)
    assert all(r.section in corpus[r.document].sections for r in results if r.section is not None)


def test_a_stale_index_a_wrong_document_and_a_wrong_page_are_caught(corpus: Corpus) -> None:
    from langchain_core.documents import Document

    apache = corpus["apache-2.0.txt"]
    stale = Document(
        page_content="each Contributor hereby grants to You a perpetual, worldwide, exclusive, royalty-bearing patent license",
        metadata={"source": "/srv/kb/apache-2.0.txt"},
    )
    wrong_document = Document(
        page_content="BECAUSE THE PROGRAM IS LICENSED FREE OF CHARGE, THERE IS NO WARRANTY",
        metadata={"source": "/srv/kb/gfdl-1.3.txt"},
    )
    good = Document(page_content=apache.sections["3"], metadata={"source": "/srv/kb/apache-2.0.txt"})
    results = check_retrieval([stale, wrong_document, good], corpus)
    assert [(r.status, r.cited_document, r.document) for r in results] == [
        ("missing", "/srv/kb/apache-2.0.txt", None),
        ("found-elsewhere", "/srv/kb/gfdl-1.3.txt", "gpl-2.0.txt"),
        ("found", "/srv/kb/apache-2.0.txt", "apache-2.0.txt"),
    ]
    assert results[0].closest is not None
    assert results[0].closest.text.startswith("each Contributor hereby grants to You a perpetual")
    assert "is in no document of the corpus (a stale or wrong index?); the closest passage" in str(results[0])
    assert "is not where its metadata says: it is in gpl-2.0.txt, 11" in str(results[1])
    assert [r.ok for r in results] == [False, False, True]

    pages = pdf_pages()
    on_page_2 = pages[1]
    mislabelled = Document(
        page_content=on_page_2.page_content, metadata={**on_page_2.metadata, "page": 2, "page_label": "3"}
    )
    by_page = Corpus.from_documents(pages)
    [right, wrong] = check_retrieval([on_page_2, mislabelled], by_page)
    assert (right.status, right.section) == ("found", "page 2")
    assert (wrong.status, wrong.cited_section, wrong.section) == ("found-elsewhere", "page 3", "page 2")


def test_a_single_source_takes_every_chunk_whatever_its_metadata_says(corpus: Corpus) -> None:
    from llama_index.core.schema import TextNode

    chunk = TextNode(text="Grant of Patent License", metadata={"file_name": "LICENSE"})
    [result] = check_retrieval([chunk], corpus["apache-2.0.txt"])
    assert isinstance(result, RetrievalResult) and result.ok and result.section == "3"
