"""The benchmark's harness is right: its inputs are what it says, and its baseline agrees with us.

No timing here (speed goals live in ``bench/``): only that the cookbook's algorithm as the bench
runs it and ``pytest_citecheck._locate`` give the same step-1 answers on the bench's corpus, and
that the quotes have the kinds they claim.
"""

from __future__ import annotations

import pytest

from bench.corpus import build_corpus, make_quotes
from bench.step1 import cookbook_locate, our_locate_all
from pytest_citecheck import Source


@pytest.fixture(scope="module")
def corpus_and_quotes():
    corpus = build_corpus(150_000)
    return corpus, make_quotes(corpus, 120)


def test_the_corpus_is_real_text_cut_into_numbered_sections(corpus_and_quotes) -> None:
    corpus, _ = corpus_and_quotes
    assert corpus.characters >= 150_000
    assert all(len(key.split(".")) == 2 and key.replace(".", "").isdigit() for key in corpus.sections)
    assert corpus.documents and all(not path.endswith(".gz") for path in corpus.documents)


def test_quotes_come_in_the_stated_proportions(corpus_and_quotes) -> None:
    _, quotes = corpus_and_quotes
    kinds = [q.kind for q in quotes]
    assert (kinds.count("found"), kinds.count("missing"), kinds.count("section-only")) == (90, 18, 12)


def test_the_cookbook_baseline_and_our_locator_give_identical_step_1_results(corpus_and_quotes) -> None:
    corpus, quotes = corpus_and_quotes
    ours = our_locate_all(Source(sections=corpus.sections), quotes)
    baseline = [cookbook_locate(dict(corpus.sections), quote) for quote in quotes]
    assert [(status, section) for status, section, _ in ours] == baseline
    assert [status for status, _ in baseline] == [q.kind for q in quotes]


def test_our_offsets_point_at_the_quoted_passage(corpus_and_quotes) -> None:
    corpus, quotes = corpus_and_quotes
    ours = our_locate_all(Source(sections=corpus.sections), quotes)
    for quote, (status, section, span) in zip(quotes, ours):
        if status == "found":
            assert section is not None and span is not None
            passage = corpus.sections[section][span[0] : span[1]]
            assert " ".join(passage.split()) == " ".join(
                quote.quote.replace("\u201c", '"').replace("\u201d", '"').split()
            )
