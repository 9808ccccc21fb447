"""Step 1 at scale: our locator against the cookbook's algorithm and against one pass over the corpus.

- **Baseline**: the cookbook's ``find_quote``, verbatim: for every quote, sort the sections
  numerically and re-normalise each until one contains the quote. It is linear in the number of
  quotes, so it is timed on an evenly spread sample (same mix of kinds) and scaled to all of them.
- **Floor**: the cookbook's ``normalize`` applied once to every section: anything must read the
  document once.
- **Ours**: ``pytest_citecheck._locate.QuoteLocator`` built fresh, then every quote looked up,
  offsets included. Peak memory is measured with tracemalloc in a separate pass (it slows code down).
"""

from __future__ import annotations

import re
import statistics
import time
import tracemalloc
from dataclasses import dataclass
from typing import Any

from bench.common import Row, median_seconds, ms, secs
from bench.corpus import Corpus, Quote, build_corpus, make_quotes

# --- the cookbook's step 1, word for word ------------------------------------------------------


def cookbook_normalize(text: str) -> str:
    """Collapse whitespace and fold curly quotes, so a quote matches across line wraps."""
    table = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})
    return re.sub(r"\s+", " ", text.translate(table)).strip()


def cookbook_find_quote(sections: dict[str, str], quote: str) -> str | None:
    """The number of the section that contains the quote verbatim, or None."""
    needle = cookbook_normalize(quote)
    for number in sorted(sections, key=lambda n: [int(p) for p in n.split(".")]):
        if needle in cookbook_normalize(sections[number]):
            return number
    return None


def cookbook_locate(sections: dict[str, str], quote: Quote) -> tuple[str, str | None]:
    if quote.quote is None:
        assert quote.section is not None
        sections[quote.section]
        return "section-only", quote.section
    number = cookbook_find_quote(sections, quote.quote)
    return ("missing", None) if number is None else ("found", number)


# --- ours ------------------------------------------------------------------------------------


def our_locate_all(source: Any, quotes: list[Quote]) -> list[tuple[str, str | None, tuple[int, int] | None]]:
    """Step 1 for every quote with a fresh locator: status, section, and offsets in the section."""
    from pytest_citecheck._locate import QuoteLocator

    locator = QuoteLocator(source)
    located: list[tuple[str, str | None, tuple[int, int] | None]] = []
    for quote in quotes:
        if quote.quote is None:
            assert quote.section in source.sections
            located.append(("section-only", quote.section, None))
            continue
        match = locator.find(quote.quote)
        located.append(("missing", None, None) if match is None else ("found", match.section, (match.start, match.end)))
    return located


def floor_pass(sections: dict[str, str]) -> None:
    for text in sections.values():
        cookbook_normalize(text)


@dataclass
class Step1Sizes:
    corpus_characters: int
    quotes: int
    baseline_sample: int
    runs: int


FULL = Step1Sizes(5_000_000, 1_000, 50, 5)
QUICK = Step1Sizes(1_000_000, 200, 20, 3)


def run(sizes: Step1Sizes, log: Any = print) -> tuple[list[Row], dict[str, Any]]:
    from pytest_citecheck import Source

    corpus: Corpus = build_corpus(sizes.corpus_characters)
    quotes = make_quotes(corpus, sizes.quotes)
    source = Source(sections=corpus.sections)
    sections = dict(corpus.sections)
    kinds = {kind: sum(q.kind == kind for q in quotes) for kind in ("found", "missing", "section-only")}
    log(
        f"step 1: corpus {corpus.characters:,} characters in {len(sections):,} sections from {len(corpus.documents)} files; "
        f"{len(quotes)} quotes {kinds}"
    )

    ours = our_locate_all(source, quotes)
    step = len(quotes) // sizes.baseline_sample
    sample = quotes[::step][: sizes.baseline_sample]
    sample_results = [cookbook_locate(sections, q) for q in sample]
    ours_by_id = {q.id: r for q, r in zip(quotes, ours)}
    agree = sum((ours_by_id[q.id][0], ours_by_id[q.id][1]) == r for q, r in zip(sample, sample_results))
    wrong_kind = sum(r[0] != (q.kind if q.kind != "section-only" else "section-only") for q, r in zip(quotes, ours))

    floor = median_seconds(lambda: floor_pass(sections), sizes.runs)
    our_time = median_seconds(lambda: our_locate_all(source, quotes), sizes.runs)
    baseline_sample_times = []
    for _ in range(max(1, sizes.runs // 2)):
        started = time.perf_counter()
        for q in sample:
            cookbook_locate(sections, q)
        baseline_sample_times.append(time.perf_counter() - started)
    baseline = statistics.median(baseline_sample_times) * len(quotes) / len(sample)
    log(
        f"step 1: ours {secs(our_time)}, floor {secs(floor)}, baseline {secs(baseline)} (scaled from {len(sample)} quotes)"
    )

    tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    our_locate_all(source, quotes)
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()

    rows: list[Row] = []
    speedup = baseline / our_time
    rows.append(
        Row(
            f"Step 1: {len(quotes):,} quotes over {corpus.characters / 1e6:.1f} MB, vs the cookbook's algorithm",
            secs(our_time),
            f"{secs(baseline)} (timed on {len(sample)} quotes, scaled)",
            f"{speedup:,.0f}x faster",
            "≥ 100x faster",
            speedup >= 100,
            guard_ok=speedup >= 20,
            guard="≥ 20x faster",
        )
    )
    budget = 3 * floor + 0.0001 * len(quotes)
    rows.append(
        Row(
            "Step 1 vs the floor (one normalisation pass over the corpus), offsets included",
            secs(our_time),
            f"floor {secs(floor)}; budget 3 × floor + 0.1 ms × {len(quotes)} = {secs(budget)}",
            f"{our_time / floor:,.1f}x the floor",
            "≤ 3 × floor + 0.1 ms/quote",
            our_time <= budget,
            guard_ok=our_time <= 3 * budget,
            guard="≤ 3 × the budget",
        )
    )
    rows.append(
        Row(
            "Step 1 peak memory (tracemalloc) vs corpus size",
            f"{peak / 1e6:,.1f} MB",
            f"corpus {corpus.bytes / 1e6:,.1f} MB",
            f"{peak / corpus.bytes:,.1f}x",
            "≤ 4x",
            peak <= 4 * corpus.bytes,
        )
    )
    closest_row = _closest_row(source, quotes, sizes)
    if closest_row is not None:
        rows.append(closest_row)
    rows.append(
        Row(
            "Step 1 answers agree with the cookbook's (status and section)",
            f"{agree}/{len(sample)} sampled agree",
            f"{wrong_kind} of {len(quotes)} quotes got a status other than the one they were built with",
            "",
            "all agree",
            agree == len(sample) and wrong_kind == 0,
            guard_ok=agree == len(sample) and wrong_kind == 0,
            guard="all agree",
        )
    )
    facts = {"corpus": corpus, "quotes": kinds, "sections": len(sections)}
    return rows, facts


def _closest_row(source: Any, quotes: list[Quote], sizes: Step1Sizes) -> Row | None:
    from pytest_citecheck._locate import QuoteLocator

    locator = QuoteLocator(source)
    closest = getattr(locator, "closest", None)
    if closest is None:
        return Row(
            "Closest passage for a fabricated quote",
            "–",
            "–",
            "–",
            "≤ 50 ms per quote",
            None,
            note="QuoteLocator has no closest-passage diagnostic in this build",
        )
    missing = [q.quote for q in quotes if q.kind == "missing" and q.quote is not None][
        : 50 if sizes.quotes >= 1000 else 20
    ]
    for quote in missing[:2]:  # builds whatever index the diagnostic uses, paid once per source
        closest(quote)
    per_quote = median_seconds(lambda: [closest(q) for q in missing], max(1, sizes.runs // 2)) / len(missing)
    return Row(
        f"Closest passage for a fabricated quote (same corpus, {len(missing)} quotes)",
        f"{ms(per_quote)} per quote",
        "goal 50 ms",
        f"{per_quote / 0.05:.2f} of the budget",
        "≤ 50 ms per quote",
        per_quote <= 0.05,
    )
