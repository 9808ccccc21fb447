"""Inline markers: ``citations_from_markers(answer_text, sources)`` for ``[1]``, ``[2][3]``, ``[1, 2]``
and ``[1-3]``, with sources given as document ids, ``(document, section)`` pairs, or real LangChain
and LlamaIndex chunks.

LangChain and LlamaIndex are imported by the test that builds their chunks, when it runs: every xdist
worker collects this module, and collecting it must not cost an import of either framework."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_citecheck import Citation, CitationInputError, Source, Status, citations_from_markers
from pytest_citecheck.testing import JevServer

DATA = Path(__file__).parent.parent / "data"

ANSWER = """Apache-2.0 grants a patent licence to every user [1]. It ends for anyone who sues over patents.[1]
GPL-2 programs come with no warranty [2][3]. The GFDL can be applied to your own documents [1, 3].
Some licences are copyleft [2-3]. This sentence cites nothing.

Sources:
[1] apache-2.0.txt
[2] gpl-2.0.txt
[3] gfdl-1.3.txt
"""


def test_each_marked_sentence_cites_its_sources() -> None:
    citations = citations_from_markers(ANSWER, ["apache-2.0.txt", "gpl-2.0.txt", "gfdl-1.3.txt"])
    assert [(c.id, c.claim, c.document) for c in citations] == [
        ("s1[1]", "Apache-2.0 grants a patent licence to every user.", "apache-2.0.txt"),
        ("s2[1]", "It ends for anyone who sues over patents.", "apache-2.0.txt"),
        ("s3[2]", "GPL-2 programs come with no warranty.", "gpl-2.0.txt"),
        ("s3[3]", "GPL-2 programs come with no warranty.", "gfdl-1.3.txt"),
        ("s4[1]", "The GFDL can be applied to your own documents.", "apache-2.0.txt"),
        ("s4[3]", "The GFDL can be applied to your own documents.", "gfdl-1.3.txt"),
        ("s5[2]", "Some licences are copyleft.", "gpl-2.0.txt"),
        ("s5[3]", "Some licences are copyleft.", "gfdl-1.3.txt"),
    ]
    assert all(c.quote is None and c.section is None for c in citations)


def test_a_marker_after_the_full_stop_and_space_belongs_to_the_sentence_before() -> None:
    [citation] = citations_from_markers("Refunds take 30 days. [1] Ask support for the rest.", ["refunds.md"])
    assert (citation.id, citation.claim) == ("s1[1]", "Refunds take 30 days.")


def test_sources_as_sections_and_as_a_numbered_dict() -> None:
    citations = citations_from_markers(
        "Patents are licensed [4]. Warranty is disclaimed [7].",
        {4: ("apache-2.0.txt", 3), "7": {"document": "apache-2.0.txt", "section": "7"}},
    )
    assert [(c.document, c.section) for c in citations] == [("apache-2.0.txt", "3"), ("apache-2.0.txt", "7")]


def test_chunks_as_sources_quote_their_text() -> None:
    from langchain_core.documents import Document
    from llama_index.core.schema import NodeWithScore, TextNode

    langchain = Document(
        page_content="Grant of Patent License. Subject to the terms and conditions of this License",
        metadata={"source": "/srv/kb/apache-2.0.txt", "start_index": 4120},
    )
    llama = NodeWithScore(
        node=TextNode(text="BECAUSE THE PROGRAM IS LICENSED FREE OF CHARGE", metadata={"file_name": "gpl-2.0.txt"}),
        score=0.82,
    )
    citations = citations_from_markers(
        "Contributors license their patents [1]. There is no warranty [2].", [langchain, llama]
    )
    assert citations == [
        Citation(
            "s1[1]",
            "Contributors license their patents.",
            langchain.page_content,
            None,
            document="/srv/kb/apache-2.0.txt",
        ),
        Citation("s2[2]", "There is no warranty.", llama.node.text, None, document="gpl-2.0.txt"),
    ]


def test_no_markers_no_citations() -> None:
    assert citations_from_markers("I could not find that in the documents.", ["a.md"]) == []


@pytest.mark.parametrize(
    ("answer", "sources", "message"),
    [
        (
            "Refunds take 30 days [4].",
            ["a.md", "b.md"],
            r"citation 's1\[4\]', field 'sources': cites \[4\], but there is no source 4 \(sources: 1, 2\)",
        ),
        (
            "Refunds take 30 days [1].",
            [42],
            r"citation 's1\[1\]', field 'sources': source 1 is 42: expected a document id",
        ),
        ("Refunds take 30 days [1].", "a.md", r"field 'sources': must be a list of sources"),
        (b"Refunds [1].", ["a.md"], r"field 'answer_text': must be the answer's text, got bytes"),
        (
            "Refunds take 30 days [1].",
            [{"page_content": "x", "metadata": {}}],
            r"citation 's1\[1\]', field 'metadata': chunk #1 has no 'source' or 'file_name' metadata",
        ),
    ],
)
def test_bad_input_names_the_citation_and_field(answer, sources, message: str) -> None:
    with pytest.raises(CitationInputError, match=message):
        citations_from_markers(answer, sources)


def test_marked_claims_are_judged_against_their_sections(direct_checker, jev_server: JevServer) -> None:
    apache = Source.from_file(DATA / "apache-2.0.txt")
    citations = citations_from_markers(
        "Contributors grant a patent licence [1]. Contributors are not liable for damages [2].",
        [("apache-2.0.txt", "3"), ("apache-2.0.txt", "8")],
    )
    results = direct_checker(jev_server).check(citations, apache)
    assert [(r.id, r.status, r.section) for r in results] == [
        ("s1[1]", Status.SECTION_ONLY, "3"),
        ("s2[2]", Status.SECTION_ONLY, "8"),
    ]
    judged = {
        request.body["state"]["claim"]: request.body["state"]["section"] for request in jev_server.systemone_requests
    }
    assert judged == {
        "Contributors grant a patent licence.": apache.sections["3"],
        "Contributors are not liable for damages.": apache.sections["8"],
    }


def test_against_one_named_source_the_document_it_names_is_that_source() -> None:
    from pytest_citecheck._citations.adapt import adapt_citation, adapt_citations

    citations = citations_from_markers(
        "Patents are licensed [1]. Trademarks are not [2].", ["/srv/kb/apache-2.0.txt", "gpl-2.0.txt"]
    )
    apache = Source.from_file(DATA / "apache-2.0.txt")  # named "apache-2.0.txt"
    assert [c.document for c in adapt_citations(citations, source=apache)] == [None, "gpl-2.0.txt"]
    unnamed = Source.from_text((DATA / "apache-2.0.txt").read_text(), format="numbered")
    assert [c.document for c in adapt_citations(citations, source=unnamed)] == ["/srv/kb/apache-2.0.txt", "gpl-2.0.txt"]
    # A document a user writes in a dict is checked as written.
    written = {"id": "w", "claim": "Patents are licensed.", "quote": None, "section": "3", "document": "apache-2.0.txt"}
    assert adapt_citations([written], source=apache) == [adapt_citation(written, 0)]
