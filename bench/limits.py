"""Within Jev's limits: a suite re-recorded on four xdist workers against a server enforcing a scaled-down limit.

The server (``JevServer``, in this process: the pytest run and its workers are other processes)
answers 429 beyond ``max_rpm`` with a burst of ``concurrency`` (a token bucket on each request's
arrival, allowing 0.3 s of arrival jitter), and notes when each request arrived. The plugin is
configured to the same limit. Ideal: the first ``concurrency`` requests at once, then one every
``60 / max_rpm`` seconds, i.e. ``(requests - concurrency) / rate``; measured: the first request's
arrival to the last one's (workers starting up are not the limiter's). Goal: at most 1.15x the
ideal, and no 429 (a 429 would be retried and the span would still look fine, so it is a goal of
its own).
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.common import Row, at_most_row, clean_env, run_measured, secs

SOURCE_MODULE = """
from pytest_citecheck import Source

SECTIONS = {{str(n): f"{{n}}.  Section {{n}}\\n\\n   Rule {{n}} says that value {{n}} is allowed." for n in range(1, {count} + 1)}}
SOURCE = Source(sections=SECTIONS)

def cited(first, count):
    return [
        {{"id": f"c{{n}}", "claim": f"claim {{n}}", "quote": f"value {{n}} is allowed", "section": str(n)}}
        for n in range(first, first + count)
    ]
"""


def _server(max_rpm: int, burst: int) -> Any:
    from pytest_citecheck.testing import JevServer, Reply

    class Limited(JevServer):
        def __init__(self) -> None:
            super().__init__()
            self.arrivals: list[float] = []
            self.refused = 0
            self._full_at = 0.0
            self._limit = threading.Lock()

        def _handle(self, path: str, headers: dict[str, str], raw: bytes) -> Reply:
            with self._limit:
                now = time.monotonic()
                cost, depth = 60.0 / max_rpm, burst * 60.0 / max_rpm + 0.3
                if max(self._full_at, now) + cost - now > depth:
                    self.refused += 1
                    return Reply(429, {"detail": "over the limit"}, {"retry-after": "0.5"})
                self._full_at = max(self._full_at, now) + cost
                self.arrivals.append(now)
            return super()._handle(path, headers, raw)

    return Limited()


def _write_suite(root: Path, tests: int, per_test: int) -> None:
    (root / "limits_source.py").write_text(SOURCE_MODULE.format(count=tests * per_test))
    body = "from limits_source import SOURCE, cited\n"
    for index in range(tests):
        first = index * per_test + 1
        body += (
            f"\ndef test_{index:04d}(citecheck):\n    citecheck.assert_supported(cited({first}, {per_test}), SOURCE)\n"
        )
    (root / "test_limited.py").write_text(body)
    (root / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")


def run(citations: int, max_rpm: int = 3000, concurrency: int = 8, workers: int = 4, log: Any = print) -> list[Row]:
    tests, per_test = citations // 10, 10
    log(
        f"limits: {citations} citations re-recorded on {workers} workers at {max_rpm:,} a minute, concurrency {concurrency}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _write_suite(root, tests, per_test)
        server = _server(max_rpm, concurrency).start()
        try:
            env = clean_env(TYPESAFE_BASE_URL=server.url, TYPESAFE_API_KEY="sk-bench-limits")
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", str(workers)]
            options = (f"--citecheck-max-rpm={max_rpm}", f"--citecheck-concurrency={concurrency}")
            done = run_measured([*command, "--citecheck-record-mode=rewrite", *options], root, env)
        finally:
            server.stop()
    arrivals = sorted(server.arrivals)
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
        str(server.refused),
        "0",
        "",
        "0",
        server.refused == 0,
        guard_ok=server.refused == 0,
        guard="0",
        miss=f"+{server.refused}" if server.refused else "",
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
