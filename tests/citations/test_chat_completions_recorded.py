"""A real OpenAI Chat Completions web-search answer, as the openai SDK returns it (issue 23, new shapes).

``tests/data/payloads/openai_chat_web_search_iceland.json`` is a ``gpt-4o-search-preview`` response
recorded by pydantic-ai's test suite (the README there says where): seven ``url_citation`` annotations,
four of them ``([site](url))`` links that close a paragraph and three that are the items of a list of
links. Built into ``openai.types.chat.ChatCompletion``, it gives the seven claims a reader sees, each
against the page its URL names. The pages are not in the recording: the corpus holds a line per page.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openai.types.chat import ChatCompletion

from pytest_citecheck import CitationInputError, Corpus, Source, Status
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck.testing import JevServer

RECORDED = Path(__file__).resolve().parent.parent / "data" / "payloads" / "openai_chat_web_search_iceland.json"
ERUPTION = "https://www.reuters.com/business/environment/iceland-volcano-erupts-12th-time-since-2021-2025-07-16/"
TALKS = "https://www.reuters.com/world/iceland-launch-negotiations-security-defence-partnership-with-eu-2025-07-17/"
MET_OFFICE = "https://en.vedur.is/about-imo/news"
MONITOR = "https://icelandmonitor.mbl.is/news/latest/"
AP = "https://apnews.com/article/c72f44eb9ecb5f2d87e87fd53ed3b26d"


def recorded() -> dict[str, Any]:
    return json.loads(RECORDED.read_text(encoding="utf-8"))


def pages() -> Corpus:
    """The cited pages, keyed by their URLs as a reader would write them (no ``?utm_source=openai``)."""
    lines = {
        ERUPTION: "A volcano on the Reykjanes Peninsula erupted on July 16, 2025, for the 12th time since 2021.",
        TALKS: "Iceland will launch negotiations with the EU on a security and defence partnership.",
        MET_OFFICE: "The Met Office warns of gas pollution from the eruption.",
        MONITOR: "Hafnarfjörður held its ninth Í hjarta Hafnarfjarðar festival.",
        AP: "The eruption forced the evacuation of Grindavik and the Blue Lagoon spa.",
    }
    return Corpus({url: Source(sections={"page": text}, name=url) for url, text in lines.items()})


def test_the_recorded_answer_gives_the_seven_claims_a_reader_sees() -> None:
    adapted = adapt_answer(ChatCompletion.model_validate(recorded()))
    claims = [(c.id, c.claim.split(". ")[0], c.document.split("?")[0]) for c in adapted.citations]
    assert claims == [
        ("#0.1", "On July 16, 2025, a volcanic eruption occurred on the Reykjanes Peninsula in southwest Iceland", ERUPTION),
        ("#0.2", "Iceland is set to begin negotiations on a security and defense partnership with the European Union", TALKS),
        ("#0.3", "The Icelandic Meteorological Office has issued warnings about air pollution resulting from the recent volcanic eruption", MET_OFFICE),
        ("#0.4", 'The town of Hafnarfjörður recently celebrated the ninth annual "Í hjarta Hafnarfjarðar" ("In the Heart of Hafnarfjörður") festival', MONITOR),
        # The list of links at the end: each link's words are what the reader sees it say.
        ("#0.5", "Iceland to launch negotiations on security, defence partnership with EU", TALKS),
        ("#0.6", "Iceland volcano eruption forces evacuation of town and iconic geothermal spa", AP),
        ("#0.7", "Iceland volcano emits smoke and glowing lava in 12th eruption since 2021", ERUPTION),
    ]  # fmt: skip
    assert adapted.citations[0].claim.endswith("flights at Reykjavik's Keflavik airport remained unaffected.")
    assert all("](" not in c.claim and "utm_source" not in c.claim for c in adapted.citations)
    # Headings ("**Volcanic Activity**", "## Recent Developments in Iceland:") and the lead-in are not claims.
    assert (adapted.uncited, adapted.invalid) == ([], {})


def test_each_claim_is_judged_against_the_page_its_url_names(direct_checker: Any) -> None:
    server = JevServer().start()
    try:
        checker = direct_checker(server)
        results = checker.check(ChatCompletion.model_validate(recorded()), pages(), require_cited_sentences=True)
    finally:
        server.stop()
    assert [(r.id, r.status, r.document) for r in results] == [
        ("#0.1", Status.DOCUMENT_ONLY, ERUPTION),
        ("#0.2", Status.DOCUMENT_ONLY, TALKS),
        ("#0.3", Status.DOCUMENT_ONLY, MET_OFFICE),
        ("#0.4", Status.DOCUMENT_ONLY, MONITOR),
        ("#0.5", Status.DOCUMENT_ONLY, TALKS),
        ("#0.6", Status.DOCUMENT_ONLY, AP),
        ("#0.7", Status.DOCUMENT_ONLY, ERUPTION),
    ]
    asked = {(r.body["state"]["claim"], r.body["state"]["section"]) for r in server.systemone_requests}
    corpus = pages()
    assert {(r.claim, corpus[r.document].text) for r in results} == asked


def test_one_annotation_that_cannot_be_read_never_hides_the_others(direct_checker: Any) -> None:
    payload = recorded()
    message = payload["choices"][0]["message"]
    message["annotations"][2]["url_citation"]["end_index"] = len(message["content"]) + 40  # past the answer
    server = JevServer().start()
    try:
        checker = direct_checker(server)
        with pytest.raises(CitationInputError, match=r"citation '#0\.3', field 'end_index': must be a whole number"):
            checker.check(ChatCompletion.model_validate(payload), pages())
    finally:
        server.stop()
    assert [r.status for r in checker.results] == [Status.DOCUMENT_ONLY] * 2 + [Status.INVALID] + [
        Status.DOCUMENT_ONLY
    ] * 4
    assert len(server.systemone_requests) == 6
