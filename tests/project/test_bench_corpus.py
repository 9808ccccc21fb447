"""The corpus benchmark's harness is right: its documents and citations are what it says, and the
plugin's step 1 over the Corpus puts every quote where the harness expects it.

No timing here (the 1,000-document, 20 MB figure lives in ``bench/corpus_step1.py``).
"""

from __future__ import annotations

from bench.corpus_step1 import SMALL, agreement, build_case, locate_over_corpus, locate_over_source


def test_the_case_has_the_documents_and_the_kinds_of_citation_it_claims() -> None:
    case = build_case(SMALL)
    assert len(case.documents) == SMALL.documents
    assert case.characters >= SMALL.corpus_characters
    statuses = [status for status, _, _ in case.expected.values()]
    assert len(statuses) == SMALL.quotes
    assert {"found", "missing", "section-only", "found-elsewhere"} <= set(statuses)
    assert all(c["document"] in case.documents for c in case.corpus_citations)


def test_step_1_over_the_corpus_agrees_with_the_harness_and_the_single_source_finds_the_same_quotes() -> None:
    case = build_case(SMALL)
    assert agreement(case, locate_over_corpus(case)) == []
    single = [item.status.value for item in locate_over_source(case)]
    corpus = [status for status, _, _ in case.expected.values()]
    # One source, each citation naming the section it was drawn from: found where the corpus finds it.
    assert ["found" if s in ("found-elsewhere", "found-or-elsewhere") else s for s in corpus] == single
