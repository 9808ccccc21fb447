"""A Claude answer citing a page its web fetch tool fetched (sdk-shapes-latest).

``tests/data/payloads/claude_web_fetch_article.json`` is the example response of Anthropic's "Web fetch tool"
documentation (the README there says where): a ``web_fetch_tool_result`` block holding the page fetched from
``https://example.com/article`` as a document titled "Article Title", and a text block citing it with a
``char_location`` of ``document_index`` 0 and that ``document_title``. The page's URL is only in the tool's result
block, which the reader left out: against a ``Corpus`` keyed by URL (as web search pages are) the citation was
read by its ``document_index``, the corpus's first document, whichever that was. It is now read as a citation of
the fetched page's URL: a corpus without that URL fails naming ``document_title``, never another document.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from anthropic.types import Message
from support import checked_or_refused, judged_check

from pytest_citecheck import Corpus, Source, Status

RECORDED = json.loads(
    (Path(__file__).resolve().parent.parent / "data" / "payloads" / "claude_web_fetch_article.json").read_text(
        encoding="utf-8"
    )
)
ARTICLE = "https://example.com/article"
CITED = "Artificial intelligence is poised to revolutionize healthcare delivery..."
CLAIM = "the main argument presented is that artificial intelligence will transform healthcare"


def message() -> Message:
    """The documented response as anthropic's own ``Message``: its usage lacks the ``web_search_requests`` count
    anthropic 2.x requires (usage is never read)."""
    answer = json.loads(json.dumps(RECORDED)) | {"type": "message", "model": "claude-opus-4-8", "stop_sequence": None}
    answer["usage"]["server_tool_use"]["web_search_requests"] = 0
    return Message.model_validate(answer)


def page(words: str, cited: str | None = None) -> Source:
    """A page of 1,500 characters; ``cited`` placed at the citation's ``start_char_index`` (1234)."""
    filler = (words + " ") * 200
    text = filler[:1234] if cited else filler[:1500]
    if cited:
        text += cited + " " + filler[: 1500 - len(text) - 1]
    return Source(sections={"page": text}, text=text)


FETCHED = page("Hospitals adopt new tools.", CITED)
OTHER = page("The weather was mild all week.")


def test_the_citation_is_of_the_fetched_page_not_the_corpus_s_first_document(direct_checker: Any) -> None:
    corpus = Corpus({"https://example.com/weather": OTHER, ARTICLE: FETCHED})
    results, claims = judged_check(direct_checker, message(), corpus)
    # Before: document_index 0, read as the corpus's first document: found-elsewhere, citing the weather page.
    assert [(r.id, r.status, r.document, r.cited_document) for r in results] == [
        ("#2.1", Status.FOUND, ARTICLE, ARTICLE)
    ]
    assert claims == [CLAIM]


def test_a_corpus_without_the_fetched_url_is_refused_naming_document_title(direct_checker: Any) -> None:
    # Before: read as the corpus's first (only) document, the quote looked for in a document not fetched.
    results, error = checked_or_refused(direct_checker, message(), Corpus({"notes.txt": OTHER}))
    assert [(r.id, r.status) for r in results] == [("#2.1", Status.INVALID)]
    assert error is not None and (error.citation, error.field) == ("#2.1", "document_title")
    assert ARTICLE in str(error)


def test_a_title_two_fetched_pages_share_names_neither(direct_checker: Any) -> None:
    answer = json.loads(json.dumps(RECORDED)) | {"type": "message", "model": "claude-opus-4-8", "stop_sequence": None}
    again = json.loads(json.dumps(answer["content"][2]))
    again["content"]["url"] = "https://example.com/article-2"
    answer["content"].insert(3, again)
    corpus = Corpus({ARTICLE: FETCHED, "https://example.com/article-2": FETCHED})
    results, error = checked_or_refused(direct_checker, answer, corpus)
    assert [(r.id, r.status) for r in results] == [("#2.1", Status.INVALID)]
    assert error is not None and (error.citation, error.field) == ("#2.1", "document_title")


def test_through_langchain_the_citation_is_of_the_fetched_page_too(direct_checker: Any) -> None:
    """langchain-core keeps the fetch result as a ``server_tool_result`` block (``extras.block_type``
    ``web_fetch_tool_result``, the result as ``output``) and the citation's ``document_index`` in ``extras``."""
    from langchain_core.messages import AIMessage

    message = AIMessage(content=RECORDED["content"], response_metadata={"model_provider": "anthropic"})
    corpus = Corpus({"https://example.com/weather": OTHER, ARTICLE: FETCHED})
    # Before: the message and its content_blocks read as the corpus's first document; its content refused for
    # its server tool blocks, each read as a citation of the user's own.
    for answer in (message, message.content_blocks, message.content):
        results, claims = judged_check(direct_checker, answer, corpus)
        assert [(r.id, r.status, r.document) for r in results] == [("#2.1", Status.FOUND, ARTICLE)]
        assert claims == [CLAIM]
