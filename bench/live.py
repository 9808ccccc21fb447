"""Live checking: citations judged against the Jev-compatible test server with added latency.

The real ``Checker`` records into a real cassette (record mode ``once``, a fresh file each run)
through the real SDK over loopback HTTP. Baseline: the same check with ``concurrency=1``, one
request after another. Ideal: ``ceil(citations / concurrency)`` rounds of the server's latency.
A third run answers the first requests with 429 + Retry-After: it must pass, only slower.

The server runs in a process of its own (``python -m pytest_citecheck.testing``), as TypeSafe's API
does: in the benchmark's process it would compete with the checker's threads for the GIL.
"""

from __future__ import annotations

import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.common import Row, secs


def _source_and_citations(count: int) -> tuple[Any, list[dict[str, Any]]]:
    from pytest_citecheck import Source

    sections = {
        str(n): f"{n}.  Section {n}\n\n   Rule {n}: a token with value {n} MUST be accepted by the verifier."
        for n in range(1, count + 1)
    }
    citations = [
        {
            "id": f"c{n}",
            "claim": f"Tokens carrying value {n} are accepted.",
            "quote": f"a token with value {n} MUST be accepted",
            "section": None,
        }
        for n in range(1, count + 1)
    ]
    return Source(sections=sections), citations


def _check(
    url: str, source: Any, citations: list[dict[str, Any]], concurrency: int, directory: Path
) -> tuple[float, list[Any]]:
    from typesafe_sdk import TypeSafeClient

    from pytest_citecheck._check.checker import checker_for
    from pytest_citecheck._judge.retry import patient_retry_policy
    from pytest_citecheck._options import Settings
    from pytest_citecheck._recording.cassette import TestCassette

    path = Path(tempfile.mkstemp(dir=directory, suffix=".yaml")[1])
    path.unlink()
    client = TypeSafeClient(api_key="sk-bench", base_url=url, compression=False, retry=patient_retry_policy())
    checker = checker_for(
        # No rate limit: this measures latency against concurrency (bench.limits measures the limiter's pace).
        settings=Settings(
            concurrency=concurrency,
            record_mode="once",
            model="jev-1.13.0",
            max_rpm=None,
            max_tokens_per_second=None,
            rehearsal=True,  # the loopback server's answers carry its mark: taken, as a rehearsal
        ),
        client_factory=lambda: client,
        cassette=TestCassette(path, "once"),
    )
    started = time.perf_counter()
    try:
        results = checker.check(citations, source)
    finally:
        checker.close()
        client.close()
    return time.perf_counter() - started, results


@contextmanager
def _server(*args: str) -> Iterator[tuple[str, list[int]]]:
    """A Jev-compatible server in another process; yields its URL and, once it stopped, [requests served]."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest_citecheck.testing", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    served: list[int] = []
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip(), served
    finally:
        _, errors = process.communicate(input="", timeout=60)
        served.extend(int(word) for word in errors.split() if word.isdigit())


def run(count: int, latency: float, concurrency: int, runs: int, log: Any = print) -> list[Row]:
    source, citations = _source_and_citations(count)
    ids = [c["id"] for c in citations]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp, _server("--latency", f"{latency * 1000:g}") as (url, _):
        directory = Path(tmp)
        _check(url, source, citations[:4], concurrency, directory)  # warm up imports and the connection pool
        concurrent_times, sequential_times, in_order = [], [], True
        for _ in range(runs):
            elapsed, results = _check(url, source, citations, concurrency, directory)
            concurrent_times.append(elapsed)
            in_order &= [r.id for r in results] == ids and all(r.verdict.value == "verified" for r in results)
        for _ in range(max(1, runs // 2)):
            sequential_times.append(_check(url, source, citations, 1, directory)[0])
    ours, sequential = statistics.median(concurrent_times), statistics.median(sequential_times)
    ideal = math.ceil(count / concurrency) * latency
    log(f"live: concurrent {secs(ours)}, sequential {secs(sequential)}, ideal {secs(ideal)}")
    rows.append(
        Row(
            f"Live: {count} citations, {latency * 1000:.0f} ms latency, concurrency {concurrency}, vs the ideal",
            secs(ours),
            f"ideal {math.ceil(count / concurrency)} rounds × {latency * 1000:.0f} ms = {secs(ideal)}",
            f"{ours / ideal:.2f}x the ideal",
            "≤ 1.5x the ideal",
            ours <= 1.5 * ideal,
            guard_ok=ours <= 2.5 * ideal,
            guard="≤ 2.5x the ideal",
            miss=f"{ours / ideal - 1.5:+.2f}x" if ours > 1.5 * ideal else "",
        )
    )
    speedup = sequential / ours
    rows.append(
        Row(
            "Live: vs one request after another",
            secs(ours),
            f"sequential {secs(sequential)}",
            f"{speedup:.1f}x faster",
            "≥ 5x faster",
            speedup >= 5,
            guard_ok=speedup >= 3,
            guard="≥ 3x faster",
            miss=f"{speedup:.1f}x, {5 - speedup:.1f}x short" if speedup < 5 else "",
        )
    )
    rows.append(
        Row(
            "Live: results in the citations' order",
            "yes" if in_order else "NO",
            "",
            "",
            "always",
            in_order,
            guard_ok=in_order,
            guard="always",
            miss="" if in_order else "results out of order or not verified",
        )
    )

    limited, retry_after = concurrency * 2, 0.2
    limits = ("--latency", f"{latency * 1000:g}", "--limit-first", str(limited), "--retry-after", str(retry_after))
    with tempfile.TemporaryDirectory() as tmp, _server(*limits) as (url, served):
        try:
            elapsed, results = _check(url, source, citations, concurrency, Path(tmp))
            passed = [r.id for r in results] == ids and all(r.verdict.value == "verified" for r in results)
            outcome = f"passed in {secs(elapsed)}"
        except Exception as error:  # the goal is precisely that this does not happen
            passed, outcome = False, f"FAILED: {type(error).__name__}: {error}"
    requests = served[0] if served else 0
    log(f"live with 429s: {outcome}; server saw {requests} requests for {count} citations")
    rows.append(
        Row(
            f"Live: the first {limited} requests answered 429, Retry-After {retry_after:g} s",
            outcome,
            f"server saw {requests} requests for {count} citations",
            "",
            "passes (slower)",
            passed,
            guard_ok=passed,
            guard="passes",
            miss="" if passed else outcome,
        )
    )
    return rows
