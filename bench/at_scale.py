"""The run's own work per citation stays flat to 100,000 citations (issue 27: "linear to 100,000 citations:
the stale-decision check and the summary are indexed, not rows × decisions").

What a run does for every citation it checked, apart from checking it, timed in this process at two
sizes, ten times apart: each citation's lookup in the reviews file (a decision under its key, else a
stale one for the same test and citation: ``Reviews.lookup``), the rows taken into the run's report
(``Report.extend_built``, as the session does), the terminal summary (``Report.summary_lines``: counts,
the table of what is not plainly verified, repeats, decisions, cost) and the JSON report written as a
stream (``Report.write``). A tenth of the citations have a decision in the reviews file, a third of
those under an older key (stale). The goal is the CPU time per citation at the larger size over the
smaller: a step that compared every row with every decision would make it ten times larger. The bound
is 1.5x, not 1.0x: Python's cyclic garbage collector walks every object the run holds in each of its
full passes, and a larger heap misses the CPU's caches more (measured here: 1.08x with the collector
off, 1.18x to 1.31x with it on).

Rows are ``report_html.rows``: RFC 7519's example claims and sections, five to a test.
"""

from __future__ import annotations

import gc
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import report_html
from bench.common import Row, at_most_row, secs

FULL = (10_000, 100_000)
QUICK = (2_000, 20_000)


def _reviews(rows: list[dict[str, Any]], path: Path) -> Any:
    """A reviews file deciding one citation in ten: every twentieth under its own key, the others (fewer: a
    fabricated citation is not decided) under an older key."""
    from pytest_citecheck._report.row import ReportRow
    from pytest_citecheck._review.decisions import Reviews

    reviews = Reviews(path)
    for n, row in enumerate(rows):
        if n % 10 == 0 and row["verdict"] != "fabricated":
            decided = ReportRow.built(dict(row))
            if n % 20 == 10:  # recorded for an earlier request of the same citation: stale now
                decided = ReportRow.built({**row, "review_key": f"{n + 1:064x}"[::-1]})
            reviews.record(decided, None, by="bench", at="2026-12-01T00:00:00Z")
    return reviews


def _seconds(rows: list[dict[str, Any]], reviews: Any, out: Path) -> tuple[float, int]:
    """CPU seconds of the run's per-citation work over ``rows``, and how many lookups found a decision."""
    from pytest_citecheck._report.run_report import Report

    gc.collect()
    started = time.process_time()
    found = 0
    for row in rows:
        lookup = reviews.lookup(row["review_key"], row["test"], row["id"])
        found += lookup.decision is not None or lookup.stale is not None
    report = Report()
    report.extend_built(rows)
    report.summary_lines()
    report.write(out)
    return time.process_time() - started, found


def _per_citation(count: int, runs: int, scratch: Path) -> tuple[float, int]:
    rows = report_html.rows(count)
    reviews = _reviews(rows, scratch / f"reviews-{count}.json")
    measured = [_seconds(rows, reviews, scratch / f"report-{count}.json") for _ in range(runs)]
    return statistics.median(seconds for seconds, _ in measured) / count, measured[0][1]


def run(sizes: tuple[int, int], runs: int = 3, log: Any = print) -> list[Row]:
    small, large = sizes
    with tempfile.TemporaryDirectory(prefix="citecheck-bench-scale-") as scratch:
        per_small, found_small = _per_citation(small, runs, Path(scratch))
        per_large, found_large = _per_citation(large, runs, Path(scratch))
    log(
        f"at scale: {per_small * 1e6:.1f} us per citation at {small:,}, {per_large * 1e6:.1f} us at {large:,}; "
        f"decisions found {found_small:,} and {found_large:,}"
    )
    ratio = per_large / per_small
    expected = sum(
        1
        for n in range(large)
        if n % 10 == 0 and report_html.VERDICTS[n % len(report_html.VERDICTS)][0] != "fabricated"
    )
    return [
        at_most_row(
            f"The run's work per citation (reviews lookup with stale decisions, report rows, summary, JSON "
            f"report): {large:,} citations vs {small:,}, a tenth of them decided, a third of those stale",
            f"{per_large * 1e6:.1f} µs per citation ({secs(per_large * large)} CPU in all)",
            f"{per_small * 1e6:.1f} µs per citation ({secs(per_small * small)} CPU)",
            ratio,
            1.5,
            2.0,
        ),
        Row(
            f"Decisions found at {large:,} citations (its own key, or stale)",
            f"{found_large:,}",
            f"{expected:,} decided",
            "",
            "all",
            found_large == expected,
            guard_ok=found_large == expected,
            guard="all",
        ),
    ]
