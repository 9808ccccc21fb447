"""Within Jev's limits: a suite re-recorded on four xdist workers against a server enforcing a scaled-down limit.

The server (``bench.limited_jev.LimitedJevServer``, in this process: the pytest run and its workers
are other processes) answers 429 beyond ``max_rpm`` with a burst of ``concurrency`` (a token bucket
on each request's arrival, allowing 0.3 s of arrival jitter), and notes when each request arrived. The plugin is
configured to the same limit. Ideal: the first ``concurrency`` requests at once, then one every
``60 / max_rpm`` seconds, i.e. ``(requests - concurrency) / rate``; measured: the first request's
arrival to the last one's (workers starting up are not the limiter's). Goal: at most 1.15x the
ideal, and no 429 (a 429 would be retried and the span would still look fine, so it is a goal of
its own).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common import Row, at_most_row, clean_env, run_measured, secs


def run(citations: int, max_rpm: int = 3000, concurrency: int = 8, workers: int = 4, log: Any = print) -> list[Row]:
    tests, per_test = citations // 10, 10
    log(
        f"limits: {citations} citations re-recorded on {workers} workers at {max_rpm:,} a minute, concurrency {concurrency}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        from bench.limited_jev import LimitedJevServer, write_suite

        write_suite(root, tests, per_test)
        # The loopback server's answers carry its rehearsal mark: the suite opts in to them.
        (root / "pytest.ini").write_text(
            "[pytest]\nasyncio_default_fixture_loop_scope = function\ncitecheck_rehearsal = true\n"
        )
        server = LimitedJevServer(max_rpm=max_rpm, burst=concurrency, slack=0.3).start()
        try:
            env = clean_env(TYPESAFE_BASE_URL=server.url, TYPESAFE_API_KEY="sk-bench-limits")
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", str(workers)]
            options = (f"--citecheck-max-rpm={max_rpm}", f"--citecheck-concurrency={concurrency}")
            done = run_measured([*command, "--citecheck-record-mode=rewrite", *options], root, env)
        finally:
            server.stop()
    arrivals, refused_count = sorted(server.arrivals), len(server.refused)
    if done.returncode != 0 or len(arrivals) != citations:
        raise RuntimeError(
            f"bench.limits: the run failed ({len(arrivals)} of {citations} answered)\n{done.stdout[-2000:]}"
        )
    span = arrivals[-1] - arrivals[0]
    ideal = (citations - concurrency) * 60.0 / max_rpm
    measure = f"Re-record {citations:,} citations on {workers} workers at {max_rpm:,}/min: first to last request vs the limit's ideal"
    paced = at_most_row(measure, secs(span), f"ideal {secs(ideal)}", span / ideal, 1.15, 1.3)
    refused = Row(
        f"Re-record {citations:,} citations on {workers} workers: requests the server refused (429)",
        str(refused_count),
        "0",
        "",
        "0",
        refused_count == 0,
        guard_ok=refused_count == 0,
        guard="0",
        miss=f"+{refused_count}" if refused_count else "",
    )
    wall = Row(
        f"Re-record {citations:,} citations on {workers} workers: the run's wall time",
        secs(done.wall),
        "",
        "",
        "",
        None,
    )
    return [paced, refused, wall]
