"""OpenAI Responses API annotations, built with the real ``openai`` package's types: ``file_citation``
(the claim is the sentence its ``index`` closes) and ``url_citation`` (its link markup is taken out of
the claim), mapped to documents by a dict or a function, and the errors a malformed one gets.

``openai`` is imported by the helpers that build its objects, when a test calls them: every xdist
worker collects this module, and collecting it must not cost an import of the SDK."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from pytest_citecheck import Citation, CitationInputError, Corpus, Source, Status, citations_from_openai
from pytest_citecheck._citations.adapt import adapt_citations
from pytest_citecheck.testing import JevServer

if TYPE_CHECKING:
    from openai.types.responses import Response

GPL_URL = "https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt"
ANSWER = (
    "Apache-2.0 grants every user a perpetual patent licence. Contributors are not liable for damages.\n\n"
    f"GPL-2 programs come with no warranty ([gnu.org]({GPL_URL}?utm_source=openai))."
)


def response(text: str, annotations: list[Any]) -> Response:
    """A Responses API answer as the SDK parses it: a file search call, then the message."""
    from openai.types.responses import Response, ResponseOutputMessage, ResponseOutputText

    return Response.model_validate(
        {
            "id": "resp_01",
            "object": "response",
            "created_at": 1767225600,
            "model": "gpt-5",
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "output": [
                {"type": "file_search_call", "id": "fs_01", "status": "completed", "queries": ["licence terms"]},
                ResponseOutputMessage(
                    id="msg_01",
                    type="message",
                    role="assistant",
                    status="completed",
                    content=[ResponseOutputText(type="output_text", text=text, annotations=annotations)],
                ).model_dump(),
            ],
        }
    )


def annotations_for(text: str) -> list[Any]:
    from openai.types.responses.response_output_text import AnnotationFileCitation, AnnotationURLCitation

    link_start = text.index("([gnu.org]")
    return [
        # file_search puts the citation at the end of the sentence it supports.
        AnnotationFileCitation(
            type="file_citation", file_id="file-Apache", filename="apache-2.0.txt", index=text.index(" Contributors")
        ),
        AnnotationFileCitation(
            type="file_citation", file_id="file-Apache", filename="apache-2.0.txt", index=text.index("\n\n")
        ),
        AnnotationURLCitation(
            type="url_citation",
            url=f"{GPL_URL}?utm_source=openai",
            title="GNU General Public License v2.0",
            start_index=link_start + 1,
            end_index=text.index(")", text.index("utm_source")) + 1,
        ),
    ]


def test_each_annotation_is_a_claim_only_citation_of_its_document() -> None:
    answer = response(ANSWER, annotations_for(ANSWER))
    assert answer.output_text == ANSWER  # a real SDK object
    assert adapt_citations(answer) == [
        Citation(
            "#0.1", "Apache-2.0 grants every user a perpetual patent licence.", None, None, document="apache-2.0.txt"
        ),
        Citation("#0.2", "Contributors are not liable for damages.", None, None, document="apache-2.0.txt"),
        Citation("#0.3", "GPL-2 programs come with no warranty.", None, None, document=f"{GPL_URL}?utm_source=openai"),
    ]


def test_the_corpus_knows_files_by_an_alias_and_urls_without_tracking() -> None:
    documents = {"licences/apache-2.0.txt": "1. A\n\nText.\n\n2. B\n\nMore.", GPL_URL: "1. C\n\nText.\n\n2. D\n\nMore."}
    corpus = Corpus(documents, aliases={"apache-2.0.txt": "licences/apache-2.0.txt"})
    adapted = adapt_citations(response(ANSWER, annotations_for(ANSWER)), source=corpus)
    assert [c.document for c in adapted] == ["licences/apache-2.0.txt", "licences/apache-2.0.txt", GPL_URL]
    # Without the alias a file name is not stretched to the id that ends with it (issue 24, item 7).
    adapted = adapt_citations(response(ANSWER, annotations_for(ANSWER)), source=Corpus(documents))
    assert [c.document for c in adapted] == ["apache-2.0.txt", "apache-2.0.txt", GPL_URL]


def test_files_and_urls_are_mapped_with_a_dict_or_a_function() -> None:
    answer = response(ANSWER, annotations_for(ANSWER))
    by_dict = citations_from_openai(
        answer, documents={"file-Apache": ("apache", "3"), f"{GPL_URL}?utm_source=openai": "gpl-2"}
    )
    assert [(c.document, c.section) for c in by_dict] == [("apache", "3"), ("apache", "3"), ("gpl-2", None)]

    def by_title(annotation: Any) -> str:
        return getattr(annotation, "title", None) or annotation.filename

    assert [c.document for c in citations_from_openai(answer, documents=by_title)] == [
        "apache-2.0.txt",
        "apache-2.0.txt",
        "GNU General Public License v2.0",
    ]
    with pytest.raises(
        CitationInputError, match=r"citation '#0.1', field 'file_id': 'file-Apache' / 'apache-2.0.txt' is not in"
    ):
        citations_from_openai(answer, documents={"file-Other": "other"})
    with pytest.raises(
        CitationInputError, match=r"citation '#0.1', field 'file_id': documents\(annotation\) gave None"
    ):
        citations_from_openai(answer, documents=lambda annotation: None)


def test_one_sentence_cited_twice_for_one_file_is_one_citation() -> None:
    from openai.types.responses.response_output_text import AnnotationFileCitation

    text = "Contributors are not liable for damages."
    twice = [
        AnnotationFileCitation(type="file_citation", file_id="file-A", filename="apache-2.0.txt", index=len(text))
    ] * 2
    assert len(adapt_citations(response(text, twice))) == 1


def test_an_answer_without_annotations_cites_nothing_and_file_paths_are_not_sources() -> None:
    text = "Here is the chart you asked for."
    made = {"type": "file_path", "file_id": "file-chart", "index": len(text)}
    assert adapt_citations(response(text, [])) == []
    assert adapt_citations(response(text, [made])) == []


@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        (
            {"type": "file_citation", "file_id": "f", "filename": "a.txt", "index": 999},
            r"'#0.1', field 'index': must be",
        ),
        (
            {"type": "url_citation", "url": "https://x.org", "title": "X", "start_index": 9, "end_index": 3},
            r"'#0.1', field 'end_index': end_index 3 is before start_index 9",
        ),
        ({"type": "url_citation", "url": "", "title": "X", "start_index": 0, "end_index": 3}, r"field 'url'"),
        ({"type": "quote_citation", "index": 3}, r"'#0.1', field 'type': annotation type 'quote_citation' is not one"),
    ],
)
def test_a_malformed_annotation_names_the_citation_and_field(annotation: dict, message: str) -> None:
    part = {"type": "output_text", "text": "Contributors are not liable.", "annotations": [annotation]}
    with pytest.raises(CitationInputError, match=message):
        adapt_citations([part])


def test_an_annotation_on_nothing_but_its_own_link_closes_no_sentence() -> None:
    link = "([x.org](https://x.org))"
    part = {
        "type": "output_text",
        "text": link,
        "annotations": [
            {"type": "url_citation", "url": "https://x.org", "title": "X", "start_index": 0, "end_index": len(link)}
        ],
    }
    with pytest.raises(CitationInputError, match=r"'#0.1', field 'start_index': closes no sentence of the answer"):
        adapt_citations([part])


def test_a_claim_mapped_to_a_section_is_judged_against_it(direct_checker, jev_server: JevServer) -> None:
    from pathlib import Path

    apache = Source.from_file(Path(__file__).parent.parent / "data" / "apache-2.0.txt")
    citations = citations_from_openai(
        response(ANSWER, annotations_for(ANSWER)[:1]), documents={"file-Apache": ("apache-2.0.txt", "3")}
    )
    [result] = direct_checker(jev_server).check(citations, apache)
    assert (result.status, result.section) == (Status.SECTION_ONLY, "3")
    [request] = jev_server.systemone_requests
    assert request.body["state"] == {
        "claim": "Apache-2.0 grants every user a perpetual patent licence.",
        "section": apache.sections["3"],
    }
