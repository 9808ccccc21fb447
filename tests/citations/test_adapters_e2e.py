"""Each SDK shape end to end, as a user of that SDK writes the test: a pytester suite over Debian's
licence texts records Jev's answers through the real typesafe-sdk to the loopback ``JevServer``, then
replays them with no key and no network, and both runs give the same results.

The suites come in two kinds. The single-document ones check against one ``Source`` and run on any
branch. The ``needs_corpus`` ones check against a ``Corpus`` of three licences (search across
documents, ``found-elsewhere``, claim-only citations of a whole document): that is issue 12's
Corpus work, and until it is in, they are expected to fail (strict, so they flag when it lands).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support import INNER_INI, Offline

from pytest_citecheck import CitecheckError, Corpus
from pytest_citecheck._check.checker import Checker
from pytest_citecheck.testing import JevServer

DATA = Path(__file__).parent.parent / "data"
DOCUMENTS = ("apache-2.0.txt", "gpl-2.0.txt", "gfdl-1.3.txt", "apache-2.0.pdf")


def _corpus_is_searched() -> bool:
    """Whether this branch checks citations against a Corpus (a quote nowhere in it: no model asked)."""
    corpus = Corpus({"a": "1. One\n\nThe first section.\n\n2. Two\n\nThe second section.\n"})
    citation = {"id": "probe", "claim": "A claim.", "quote": "a passage that is in no document"}
    try:
        Checker().check([citation], corpus)
    except CitecheckError:
        return False
    return True


needs_corpus = pytest.mark.xfail(
    not _corpus_is_searched(),
    reason="checks against a Corpus: issue 12's Corpus search (branch i12-corpus) must be merged",
    strict=True,
)


@pytest.fixture(scope="module", autouse=True)
def _sdks_imported_before_the_inner_runs() -> None:
    """Import, in this process, what the apps below import inside their pytester runs.

    In-process runs drop every module first imported inside them, so an SDK left to the first inner
    run would be imported afresh by every run (seconds each). A module-scoped fixture runs before
    ``pytester`` takes its snapshot of ``sys.modules``, and only when a test of this module runs:
    collecting the module (which every xdist worker does) imports none of them. The names, not just
    the packages: LangChain and LlamaIndex import most of their submodules on first attribute access.
    """
    from anthropic.types import CitationCharLocation, CitationPageLocation, Message, TextBlock, Usage  # noqa: F401
    from langchain_core.documents import Document
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.vectorstores import InMemoryVectorStore
    from llama_index.core import Settings, SimpleDirectoryReader, VectorStoreIndex  # noqa: F401
    from llama_index.core.base.embeddings.base import BaseEmbedding  # noqa: F401
    from llama_index.core.node_parser import TokenTextSplitter  # noqa: F401
    from llama_index.core.utils import get_tokenizer
    from openai.types.responses import Response  # noqa: F401
    from pypdf import PdfReader

    # A retriever's first invoke() imports LangChain's tracers, a page's first extract_text() pypdf's
    # filters, a TokenTextSplitter's tokenizer tiktoken: made once here, not in the inner runs.
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=8))
    store.add_documents([Document(page_content="warm-up", metadata={"source": "warm-up"})])
    store.as_retriever(search_kwargs={"k": 1}).invoke("warm-up")
    PdfReader(DATA / "apache-2.0.pdf").pages[0].extract_text()
    get_tokenizer()


@pytest.fixture
def app(pytester: pytest.Pytester) -> pytest.Pytester:
    for name in DOCUMENTS:
        shutil.copy(DATA / name, pytester.path / name)
    pytester.makeini(INNER_INI)
    return pytester


def record_then_replay(app: pytest.Pytester, jev_server: JevServer, offline: Offline, passed: int) -> list[dict]:
    recorded = app.runpytest(
        "--citecheck-record-mode=once", "--citecheck-json=record.json", "--citecheck-model=jev-1.12"
    )
    recorded.assert_outcomes(passed=passed)
    assert jev_server.systemone_requests, "the suite asked Jev nothing"
    jev_server.stop()
    offline()
    replayed = app.runpytest("--citecheck-json=replay.json", "--citecheck-model=jev-1.12")
    replayed.assert_outcomes(passed=passed)
    rows = json.loads((app.path / "record.json").read_text())["results"]
    replay_rows = json.loads((app.path / "replay.json").read_text())["results"]
    strip = lambda rows: [{k: v for k, v in row.items() if k != "replayed"} for row in rows]  # noqa: E731
    assert strip(replay_rows) == strip(rows)
    assert all(row["replayed"] for row in replay_rows if row["status"] != "missing")
    return rows


# --- Anthropic ----------------------------------------------------------------------------------

ANTHROPIC_APP = '''
"""The app under test: answers from the documents it sends Claude, with citations enabled.
In the real app ``answer`` calls ``client.messages.create(...)``; here it returns the Message
Claude returned when the test was written."""
from anthropic.types import CitationCharLocation, CitationPageLocation, Message, TextBlock, Usage


def char(source, cited_text, document_index=0, title=None):
    start = source.text.index(cited_text)
    return CitationCharLocation(type="char_location", cited_text=cited_text, document_index=document_index,
                                document_title=title, start_char_index=start, end_char_index=start + len(cited_text))


def page(cited_text, start_page, document_index=0):
    return CitationPageLocation(type="page_location", cited_text=cited_text, document_index=document_index,
                                document_title=None, start_page_number=start_page, end_page_number=start_page + 1)


def message(*blocks):
    content = [TextBlock(type="text", text=text, citations=citations) for text, citations in blocks]
    return Message(id="msg_01", type="message", role="assistant", model="claude-sonnet-4-5", content=content,
                   stop_reason="end_turn", stop_sequence=None, usage=Usage(input_tokens=3000, output_tokens=90))
'''

ANTHROPIC_SINGLE = """
from pathlib import Path

import pytest
from app import char, message, page
from pytest_citecheck import CitationsNotSupported, Source, assert_citations_supported

HERE = Path(__file__).parent
APACHE = Source.from_file(HERE / "apache-2.0.txt")
APACHE_PDF = Source.from_file(HERE / "apache-2.0.pdf")


def test_claude_cites_the_licence_text():
    answer = message(
        ("Here is what the licence says:", None),
        ("Every contributor grants you a patent licence.", [char(APACHE, "use, offer to sell, sell, import, and otherwise transfer the Work")]),
    )
    [result] = assert_citations_supported(answer, APACHE)
    assert (result.section, result.verdict.value) == ("3", "verified")


def test_claude_cites_pages_of_the_pdf():
    answer = message(
        ("You may redistribute copies.", [page("You may reproduce and distribute copies of the Work", 2)]),
    )
    [result] = assert_citations_supported(answer, APACHE_PDF)
    assert result.section == "4"


def test_an_invented_passage_fails_without_asking_jev():
    answer = message(("Contributors must pay royalties.", [char(APACHE, "Grant of Patent License")]))
    answer.content[0].citations[0].cited_text = "each Contributor shall pay a royalty to the Licensor"
    with pytest.raises(CitationsNotSupported) as caught:
        assert_citations_supported(answer, APACHE)
    assert caught.value.results[0].verdict.value == "fabricated"
"""

ANTHROPIC_CORPUS = """
from pathlib import Path

from app import char, message
from pytest_citecheck import Corpus, Source, check_citations

HERE = Path(__file__).parent
# The documents the app sends Claude, in the order it sends them.
CORPUS = Corpus({name: Source.from_file(HERE / name) for name in ("apache-2.0.txt", "gpl-2.0.txt", "gfdl-1.3.txt")})


def test_claude_cites_three_documents():
    answer = message(
        ("Apache contributors grant a patent licence.", [char(CORPUS["apache-2.0.txt"], "use, offer to sell, sell, import, and otherwise transfer the Work", 0)]),
        ("GPL-2 programs come with no warranty.", [char(CORPUS["gpl-2.0.txt"], "THERE IS NO WARRANTY", 1, "gpl-2.0.txt")]),
        ("The GFDL says how to apply it.", [char(CORPUS["gfdl-1.3.txt"], "To use this License in a document you have written", 2)]),
        # Misattributed: the passage is GPL-2's, the citation says the GFDL's.
        ("GFDL documents come with no warranty.", [char(CORPUS["gpl-2.0.txt"], "THERE IS NO WARRANTY", 2)]),
    )
    results = check_citations(answer, CORPUS)
    assert [(r.document, r.section, r.status.value) for r in results] == [
        ("apache-2.0.txt", "3", "found"),
        ("gpl-2.0.txt", "11", "found"),
        ("gfdl-1.3.txt", "ADDENDUM: How to use this License for your documents", "found"),
        ("gpl-2.0.txt", "11", "found-elsewhere"),
    ]
    assert results[3].cited_document == "gfdl-1.3.txt"
"""


# --- OpenAI Responses -------------------------------------------------------------------------

OPENAI_APP = '''
"""The app under test: the Responses API with file search and web search. In the real app ``answer``
calls ``client.responses.create(...)``; here it returns the Response the API returned."""
from openai.types.responses import Response

GPL_URL = "https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt"
TEXT = (
    "Every Apache contributor grants you a perpetual patent licence. It ends if you sue over a patent.\\n\\n"
    f"GPL-2 programs come with no warranty ([gnu.org]({GPL_URL}?utm_source=openai))."
)


def answer(web_search=True):
    link = TEXT.index("[gnu.org]")
    annotations = [
        {"type": "file_citation", "file_id": "file-9Ap", "filename": "apache-2.0.txt", "index": TEXT.index(" It ends")},
        {"type": "file_citation", "file_id": "file-9Ap", "filename": "apache-2.0.txt", "index": TEXT.index("\\n")},
        {"type": "url_citation", "url": f"{GPL_URL}?utm_source=openai", "title": "GPL-2.0",
         "start_index": link, "end_index": TEXT.index(")", link) + 1},
    ][: 3 if web_search else 2]
    return Response.model_validate({
        "id": "resp_01", "object": "response", "created_at": 1767225600, "model": "gpt-5",
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "output": [{"type": "message", "id": "msg_01", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": TEXT, "annotations": annotations}]}],
    })
'''

OPENAI_SINGLE = """
from pathlib import Path

from app import answer
from pytest_citecheck import Source, assert_citations_supported, citations_from_openai

APACHE = Source.from_file(Path(__file__).parent / "apache-2.0.txt")


def test_file_search_citations_are_supported_by_the_patent_section():
    # The vector store holds one file: the licence's patent section.
    citations = citations_from_openai(answer(web_search=False), documents={"file-9Ap": ("apache-2.0.txt", "3")})
    results = assert_citations_supported(citations, APACHE)
    assert [(r.claim, r.section) for r in results] == [
        ("Every Apache contributor grants you a perpetual patent licence.", "3"),
        ("It ends if you sue over a patent.", "3"),
    ]
"""

OPENAI_CORPUS = """
from pathlib import Path

from app import GPL_URL, answer
from pytest_citecheck import Corpus, Source, assert_citations_supported

HERE = Path(__file__).parent
# Files by the names they were uploaded under; web pages by URL.
CORPUS = Corpus({
    "apache-2.0.txt": Source.from_file(HERE / "apache-2.0.txt"),
    GPL_URL: Source.from_file(HERE / "gpl-2.0.txt"),
    "gfdl-1.3.txt": Source.from_file(HERE / "gfdl-1.3.txt"),
})


def test_every_annotation_is_supported_by_its_document():
    results = assert_citations_supported(answer(), CORPUS)
    assert [r.document for r in results] == ["apache-2.0.txt", "apache-2.0.txt", GPL_URL]
"""


# --- Inline markers -----------------------------------------------------------------------------

MARKERS_SINGLE = '''
from pathlib import Path

from pytest_citecheck import Source, assert_citations_supported, citations_from_markers

APACHE = Source.from_file(Path(__file__).parent / "apache-2.0.txt")
# The app numbers the passages it puts in the prompt and asks the model to cite them as [n].
PASSAGES = [("apache-2.0.txt", "3"), ("apache-2.0.txt", "4"), ("apache-2.0.txt", "8")]
ANSWER = """Contributors grant you a patent licence [1]. You may redistribute copies [2].
Contributors are not liable for damages [3]. Both rights come from the licence [1, 2].

Sources:
[1] Apache-2.0, section 3
[2] Apache-2.0, section 4
[3] Apache-2.0, section 8
"""


def test_every_marked_sentence_is_supported():
    results = assert_citations_supported(citations_from_markers(ANSWER, PASSAGES), APACHE)
    assert [r.id for r in results] == ["s1[1]", "s2[2]", "s3[3]", "s4[1]", "s4[2]"]
'''

MARKERS_CORPUS = """
from pathlib import Path

from pytest_citecheck import Corpus, Source, assert_citations_supported, citations_from_markers

HERE = Path(__file__).parent
SOURCES = ["apache-2.0.txt", "gpl-2.0.txt", "gfdl-1.3.txt"]
CORPUS = Corpus({name: Source.from_file(HERE / name) for name in SOURCES})
ANSWER = "Apache-2.0 includes a patent licence [1]. GPL-2 and the GFDL are copyleft licences [2][3]."


def test_every_marked_sentence_is_supported_by_its_documents():
    results = assert_citations_supported(citations_from_markers(ANSWER, SOURCES), CORPUS)
    assert [(r.id, r.document) for r in results] == [
        ("s1[1]", "apache-2.0.txt"), ("s2[2]", "gpl-2.0.txt"), ("s2[3]", "gfdl-1.3.txt"),
    ]
"""


# --- LangChain ----------------------------------------------------------------------------------

LANGCHAIN_RAG = '''
"""The app's retriever: the licences' pages in a vector store, as LangChain's PyPDFLoader and
a text splitter cuts them (an in-memory store with deterministic embeddings stands in for the real one)."""
import re
from pathlib import Path

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore
from pypdf import PdfReader

HERE = Path(__file__).parent


def load(names):
    docs = []
    for name in names:
        if name.endswith(".pdf"):
            for number, page in enumerate(PdfReader(HERE / name).pages):
                docs.append(Document(page_content=page.extract_text(), metadata={"source": str(HERE / name), "page": number}))
        else:  # paragraphs, with their offsets, as a text splitter with add_start_index=True gives them
            text = (HERE / name).read_text()
            for match in re.finditer(r"\\S(?:.|\\n(?!\\s*\\n))*", text):
                docs.append(Document(page_content=match.group(), metadata={"source": str(HERE / name), "start_index": match.start()}))
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=32))
    store.add_documents(docs)
    return store.as_retriever(search_kwargs={"k": 3})
'''

LANGCHAIN_SINGLE = """
from rag import load
from pytest_citecheck import Corpus, assert_citations_supported, check_retrieval, citations_from_markers

RETRIEVER = load(["apache-2.0.pdf"])


def test_the_answer_is_supported_by_the_retrieved_pages():
    docs = RETRIEVER.invoke("Can I redistribute the software?")
    corpus = Corpus.from_documents(docs)
    assert all(result.ok for result in check_retrieval(docs, corpus))
    answer = "The licence lets you redistribute copies of the Work [1][2]."
    [document] = corpus
    results = assert_citations_supported(citations_from_markers(answer, docs), corpus[document])
    assert {r.section for r in results} <= {"page 1", "page 2", "page 3", "page 4"}
"""

LANGCHAIN_CORPUS = """
from rag import HERE, load
from pytest_citecheck import Corpus, Source, assert_citations_supported, check_retrieval, citations_from_markers

NAMES = ["apache-2.0.txt", "gpl-2.0.txt", "gfdl-1.3.txt"]
RETRIEVER = load(NAMES)
KNOWLEDGE_BASE = Corpus({name: Source.from_file(HERE / name) for name in NAMES})


def test_the_retriever_returns_the_current_text_of_the_right_documents():
    docs = RETRIEVER.invoke("warranty")
    assert [str(r) for r in check_retrieval(docs, KNOWLEDGE_BASE) if not r.ok] == []


def test_the_answer_is_supported_by_what_was_retrieved():
    docs = RETRIEVER.invoke("warranty")
    answer = "The licences say what they cover [1]. They are published by their authors [2][3]."
    results = assert_citations_supported(citations_from_markers(answer, docs), Corpus.from_documents(docs))
    assert {r.document for r in results} == {doc.metadata["source"] for doc in docs}
"""


# --- LlamaIndex ---------------------------------------------------------------------------------

LLAMA_RAG = '''
"""The app's index: the licences read with SimpleDirectoryReader, split into token windows, and
embedded by a bag of hashed words (a stand-in for the real model that retrieves the same nodes every run)."""
import re
import zlib
from pathlib import Path

from llama_index.core import Settings, SimpleDirectoryReader, VectorStoreIndex
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.node_parser import TokenTextSplitter

HERE = Path(__file__).parent


class HashedWords(BaseEmbedding):
    def _get_text_embedding(self, text):
        vector = [0.0] * 64
        for word in re.findall(r"[a-z]+", text.lower()):
            vector[zlib.crc32(word.encode()) % 64] += 1.0
        return vector

    def _get_query_embedding(self, query):
        return self._get_text_embedding(query)

    async def _aget_query_embedding(self, query):
        return self._get_text_embedding(query)


Settings.embed_model = HashedWords()


def retriever(names, top_k=3):
    # Each node's metadata is its file's name alone: the default (the file's path, size and dates)
    # is embedded with the text and shortens the token windows, so retrieval would depend on where
    # the files are (a path's words moved a chunk across two GFDL sections into the top six).
    file_name = lambda path: {"file_name": Path(path).name}
    documents = SimpleDirectoryReader(input_files=[str(HERE / name) for name in names], file_metadata=file_name).load_data()
    # Node ids by file and position, not llama-index's random ones: retrieval breaks ties in
    # similarity by node id, so random ids retrieve different nodes from run to run.
    splitter = TokenTextSplitter(chunk_size=200, chunk_overlap=20, id_func=lambda i, doc: f"{doc.metadata['file_name']}#{i:04d}")
    nodes = splitter.get_nodes_from_documents(documents)
    return VectorStoreIndex(nodes).as_retriever(similarity_top_k=top_k)
'''

LLAMA_SINGLE = """
from rag import retriever
from pytest_citecheck import Corpus, assert_citations_supported, check_retrieval, citations_from_markers

RETRIEVER = retriever(["gpl-2.0.txt"])


def test_the_answer_is_supported_by_the_retrieved_nodes():
    nodes = RETRIEVER.retrieve("Is there a warranty?")
    corpus = Corpus.from_documents(nodes)
    assert all(result.ok for result in check_retrieval(nodes, corpus))
    answer = "The GPL covers copying and distribution [1]. It comes from the Free Software Foundation [2]."
    results = assert_citations_supported(citations_from_markers(answer, nodes), corpus["gpl-2.0.txt"])
    assert [r.status.value for r in results] == ["found", "found"]
"""

LLAMA_CORPUS = """
from rag import HERE, retriever
from pytest_citecheck import Corpus, Source, assert_citations_supported, check_retrieval, citations_from_markers

NAMES = ["apache-2.0.txt", "gpl-2.0.txt", "gfdl-1.3.txt"]
RETRIEVER = retriever(NAMES, top_k=6)
KNOWLEDGE_BASE = Corpus({name: Source.from_file(HERE / name) for name in NAMES})


def test_the_answer_is_supported_by_the_retrieved_nodes():
    nodes = RETRIEVER.retrieve("license")
    assert [str(r) for r in check_retrieval(nodes, KNOWLEDGE_BASE) if not r.ok] == []
    # Nodes 1, 2 and 6 each lie within one section (3, 4 and 5 are token windows across two, and a
    # quote is looked for within one section: they would be reported missing).
    answer = "These licences govern copying [1][2]. They set conditions [6]."
    results = assert_citations_supported(citations_from_markers(answer, nodes), KNOWLEDGE_BASE)
    assert {r.document for r in results} <= set(NAMES)
"""


# --- each shape, recorded then replayed ---------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """A user's suite (module name to source) and what its run must give."""

    files: dict[str, str]
    passed: int
    # What the recorded report rows must show: a projection of them, and its expected value.
    project: Callable[[list[dict[str, Any]]], object] = lambda rows: None
    expected: object = None


SHAPES = [
    pytest.param(
        Shape(
            {"app": ANTHROPIC_APP, "test_claude": ANTHROPIC_SINGLE},
            passed=3,
            project=lambda rows: [(row["id"], row["status"], row["section"]) for row in rows],
            expected=[("#1.1", "found", "3"), ("#0.1", "found", "4"), ("#0.1", "missing", None)],
        ),
        id="anthropic-message-single-document",
    ),
    pytest.param(
        Shape({"app": ANTHROPIC_APP, "test_claude": ANTHROPIC_CORPUS}, passed=1),
        id="anthropic-message-across-a-corpus",
        marks=needs_corpus,
    ),
    pytest.param(
        Shape(
            {"app": OPENAI_APP, "test_openai": OPENAI_SINGLE},
            passed=1,
            project=lambda rows: [(row["status"], row["section"]) for row in rows],
            expected=[("section-only", "3"), ("section-only", "3")],
        ),
        id="openai-response-single-document",
    ),
    pytest.param(
        Shape({"app": OPENAI_APP, "test_openai": OPENAI_CORPUS}, passed=1),
        id="openai-response-across-a-corpus",
        marks=needs_corpus,
    ),
    pytest.param(
        Shape(
            {"test_markers": MARKERS_SINGLE},
            passed=1,
            project=lambda rows: [row["section"] for row in rows],
            expected=["3", "4", "8", "3", "4"],
        ),
        id="inline-markers-single-document",
    ),
    pytest.param(
        Shape({"test_markers": MARKERS_CORPUS}, passed=1), id="inline-markers-across-a-corpus", marks=needs_corpus
    ),
    pytest.param(
        Shape(
            {"rag": LANGCHAIN_RAG, "test_langchain": LANGCHAIN_SINGLE},
            passed=1,
            project=lambda rows: [row["status"] for row in rows],
            expected=["found", "found"],
        ),
        id="langchain-documents-single-document",
    ),
    pytest.param(
        Shape({"rag": LANGCHAIN_RAG, "test_langchain": LANGCHAIN_CORPUS}, passed=2),
        id="langchain-documents-across-a-corpus",
        marks=needs_corpus,
    ),
    pytest.param(
        Shape({"rag": LLAMA_RAG, "test_llama": LLAMA_SINGLE}, passed=1), id="llamaindex-nodes-single-document"
    ),
    pytest.param(
        Shape({"rag": LLAMA_RAG, "test_llama": LLAMA_CORPUS}, passed=1),
        id="llamaindex-nodes-across-a-corpus",
        marks=needs_corpus,
    ),
]


@pytest.mark.parametrize("shape", SHAPES)
def test_each_sdk_shape_records_then_replays_the_same_results(
    app: pytest.Pytester, jev_server: JevServer, offline: Offline, shape: Shape
) -> None:
    app.makepyfile(**shape.files)
    rows = record_then_replay(app, jev_server, offline, passed=shape.passed)
    assert shape.project(rows) == shape.expected
