"""The benchmark's harness is right: its inputs are what it says, and its checks judge what they claim.

No timing here (speed goals live in ``bench/``): only that the generated corpus is deterministic,
non-ASCII where it says, and read from the repository; that its quotes have the kinds they claim
(a fabricated one is absent by the independent letters-and-digits rule); that the cookbook's
algorithm as the bench runs it agrees with our locator where the cookbook's normalisation applies;
and that the bench's correctness check catches a wrong answer.
"""

from __future__ import annotations

import pytest

from bench.corpus import build_corpus, letters_and_digits, make_quotes
from bench.step1 import cookbook_find_quote, our_step1, wrong_answers
from pytest_citecheck import Source


@pytest.fixture(scope="module")
def corpus_and_quotes():
    corpus = build_corpus(150_000)
    return corpus, make_quotes(corpus, 120)


def test_the_corpus_is_generated_the_same_everywhere_from_the_repository(corpus_and_quotes) -> None:
    corpus, _ = corpus_and_quotes
    assert corpus.characters >= 150_000
    assert build_corpus(150_000).sections == corpus.sections  # a fixed seed, nothing read from the machine
    assert all(len(key.split(".")) == 2 and key.replace(".", "").isdigit() for key in corpus.sections)


def test_half_the_sections_are_non_ascii_and_lines_break_at_hyphens(corpus_and_quotes) -> None:
    corpus, _ = corpus_and_quotes
    assert abs(corpus.non_ascii_sections - len(corpus.sections) / 2) <= 1
    typeset = "".join(text for text in corpus.sections.values() if not text.isascii())
    for character in (
        "\u201c",
        "\u2019",
        "\u2014",
        "\u00a0",
        "\ufb01",
        "\u00ad",
        "\u041b",
        "\u03ac",
        "\u8bb8",
        "\u30e9",
    ):
        assert character in typeset, f"{character!r} (U+{ord(character):04X}) is missing from the corpus"
    assert "-\n   " in "".join(corpus.sections.values())


def test_quotes_come_in_the_stated_proportions_and_kinds(corpus_and_quotes) -> None:
    corpus, quotes = corpus_and_quotes
    kinds = [q.kind for q in quotes]
    assert (kinds.count("found"), kinds.count("missing")) == (108, 12)
    everything = "\n".join(letters_and_digits(text) for text in corpus.sections.values())
    for quote in quotes:
        present = letters_and_digits(quote.quote) in letters_and_digits(corpus.sections[quote.section])
        assert present == (quote.kind == "found"), quote
        if quote.kind == "missing":
            assert letters_and_digits(quote.quote) not in everything


def test_our_step1_gets_every_quote_right_by_the_independent_rule(corpus_and_quotes) -> None:
    corpus, quotes = corpus_and_quotes
    located = our_step1(Source(sections=corpus.sections), quotes)
    assert wrong_answers(corpus, quotes, located) == []


def test_the_correctness_check_catches_a_wrong_answer(corpus_and_quotes) -> None:
    corpus, quotes = corpus_and_quotes
    located = our_step1(Source(sections=corpus.sections), quotes)
    found = next(i for i, q in enumerate(quotes) if q.kind == "found")
    missing = next(i for i, q in enumerate(quotes) if q.kind == "missing")
    status, section, span = located[found]
    assert span is not None
    located[found] = (status, section, (span[0], span[1] - 5))  # offsets that lose the quote's end
    located[missing] = ("found", quotes[missing].section, (0, 10))  # a fabricated quote "found"
    assert [line.split(":")[0] for line in wrong_answers(corpus, quotes, located)] == sorted(
        [quotes[found].id, quotes[missing].id], key=lambda qid: [q.id for q in quotes].index(qid)
    )


def test_the_cookbook_baseline_agrees_with_us_where_its_normalisation_applies(corpus_and_quotes) -> None:
    corpus, quotes = corpus_and_quotes
    located = our_step1(Source(sections=corpus.sections), quotes)
    # The cookbook folds whitespace and four curly quotes only: on an ASCII quote with single spaces
    # cut from an ASCII section, its answer and ours must be the same section.
    compared = 0
    for quote, (_, section, _) in zip(quotes, located):
        text = corpus.sections[quote.section]
        if quote.kind == "found" and text.isascii() and quote.quote.isascii() and "-" not in quote.quote:
            assert cookbook_find_quote(dict(corpus.sections), quote.quote) == section, quote
            compared += 1
    assert compared >= 10


def test_quick_names_each_goal_missed_beyond_its_guard_and_by_how_much() -> None:
    from bench.common import Row
    from bench.run import regressions

    rows = [
        Row(
            "Replay is linear",
            "2.1 ms",
            "1.0 ms",
            "2.10x",
            "≤ 1.3x",
            False,
            guard_ok=False,
            guard="≤ 1.6x",
            miss="+0.80x",
        ),
        Row(
            "Step 1 vs the fold",
            "0.6 s",
            "0.4 s",
            "1.70x",
            "≤ 1.5x",
            False,
            guard_ok=True,
            guard="≤ 2.0x",
            miss="+0.20x",
        ),
        Row("Peak memory", "80 MB", "30 MB", "", "reported", None),
    ]
    assert regressions(rows) == [
        "REGRESSION: Replay is linear: 2.10x; goal ≤ 1.3x, missed by +0.80x; outside its guard margin (≤ 1.6x)"
    ]
