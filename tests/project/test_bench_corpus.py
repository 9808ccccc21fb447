"""The corpus benchmark's harness is right: its documents and citations are what it says, and the
plugin's step 1 over the Corpus puts every quote where the harness expects it.

No timing here (the 1,000-document, 20 MB figure lives in ``bench/corpus_step1.py``).
"""

from __future__ import annotations

from bench.corpus_step1 import SMALL, agreement, build_case, interleaved_cpu, locate_over_corpus, locate_over_source


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


def test_each_runs_ratio_is_kept_beside_the_medians() -> None:
    calls = {"first": 0, "second": 0}

    def costs(name: str, seconds: list[float]):  # type: ignore[no-untyped-def]
        def action() -> None:
            import time

            started = time.process_time()
            while time.process_time() - started < seconds[calls[name]]:
                pass
            calls[name] += 1

        return action

    timed = interleaved_cpu(costs("first", [0.02, 0.02, 0.02]), costs("second", [0.02, 0.04, 0.02]), 3)
    assert calls == {"first": 3, "second": 3}
    assert len(timed.ratios) == 3
    assert timed.ratios[1] > 1.6 and max(timed.ratios[0], timed.ratios[2]) < 1.4  # the slowed run stands out
    assert timed.second < 0.03  # the median is not moved by it
