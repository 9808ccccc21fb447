"""A suite of distinct citations and a loopback Jev that enforces a scaled-down limit, as Jev does (429 beyond it).

Shared by the bench of the run's limits (``bench/limits.py``: how close to the limit's ideal time a
re-recording comes) and its tests (``tests/judge/test_run_limits.py``: that nothing is refused).
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from pytest_citecheck.testing import JevServer, Reply

SOURCE_MODULE = """
from pytest_citecheck import Source

SECTIONS = {{str(n): f"{{n}}.  Section {{n}}\\n\\n   {filler}Rule {{n}} says that value {{n}} is allowed." for n in range(1, {count} + 1)}}
SOURCE = Source(sections=SECTIONS)

def cited(first, count):
    return [
        {{"id": f"c{{n}}", "claim": f"claim {{n}}", "quote": f"value {{n}} is allowed", "section": str(n)}}
        for n in range(first, first + count)
    ]
"""


def source_module(count: int, filler: str = "") -> str:
    """``limits_source.py``: ``count`` sections, and ``cited(first, count)``, one citation of each."""
    return SOURCE_MODULE.format(count=count, filler=filler)


def suite_module(tests: int, per_test: int) -> str:
    """``test_limited.py``: ``tests`` tests of ``per_test`` citations each, every citation its own request."""
    body = "from limits_source import SOURCE, cited\n"
    for index in range(tests):
        first = index * per_test + 1
        body += (
            f"\ndef test_{index:04d}(citecheck):\n    citecheck.assert_supported(cited({first}, {per_test}), SOURCE)\n"
        )
    return body


def write_suite(root: Path, tests: int, per_test: int, *, filler: str = "") -> None:
    """Both modules in ``root`` (the ini file is the caller's)."""
    (root / "limits_source.py").write_text(source_module(tests * per_test, filler))
    (root / "test_limited.py").write_text(suite_module(tests, per_test))


class LimitedJevServer(JevServer):
    """A ``JevServer`` that enforces Jev's kind of limits, scaled down: beyond one it answers 429.

    Requests a minute with a burst (a token bucket on the time each request arrives), tokens a
    second (counted as Jev does, about one per four bytes of the body; the plugin counts one per
    three) and requests in flight. ``slack`` seconds of the bucket allow for requests sent in
    order arriving out of step (the scheduling of several processes on a loaded 2-core machine); a
    client over the rate still exceeds it within the tests' runs (each fails without the limiter).
    ``hold`` keeps each accepted request in flight that long. ``arrivals``: when each accepted
    request arrived (``time.monotonic``); ``refused``: why each refused one was.
    """

    def __init__(
        self,
        *,
        max_rpm: int | None = None,
        burst: int = 1,
        max_tokens_per_second: int | None = None,
        max_in_flight: int | None = None,
        hold: float = 0.0,
        slack: float = 0.5,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.max_rpm, self.burst, self.max_tps = max_rpm, burst, max_tokens_per_second
        self.max_in_flight, self.hold, self.slack = max_in_flight, hold, slack
        self.refused: list[str] = []
        self.arrivals: list[float] = []
        self.most_in_flight = 0
        self._in_flight = 0
        self._full_at = {"requests": 0.0, "tokens": 0.0}
        self._limits = threading.Lock()

    def _handle(self, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        with self._limits:
            self._in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self._in_flight)
            now = time.monotonic()
            refusal = self._refused(now, len(raw) // 4)
            if refusal is not None:
                self.refused.append(refusal)
            else:
                self.arrivals.append(now)
        try:
            if refusal is not None:
                self.requests.append(self._received(path, headers, raw))
                return Reply(429, {"detail": refusal}, {"retry-after": "0.5"})
            if self.hold:
                time.sleep(self.hold)
            return super()._handle(path, headers, raw)
        finally:
            with self._limits:
                self._in_flight -= 1

    def _refused(self, now: float, tokens: int) -> str | None:
        if self.max_in_flight is not None and self._in_flight > self.max_in_flight:
            return f"more than {self.max_in_flight} requests in flight"
        depth = (self.burst * 60.0 / self.max_rpm if self.max_rpm else 1.0) + self.slack
        costs = {}
        if self.max_rpm:
            costs["requests"] = 60.0 / self.max_rpm
        if self.max_tps:
            costs["tokens"] = tokens / self.max_tps
        for name, cost in costs.items():
            if max(self._full_at[name], now) + cost - now > depth + 1e-9:
                return f"over the {name} limit"
        for name, cost in costs.items():
            self._full_at[name] = max(self._full_at[name], now) + cost
        return None

    @staticmethod
    def _received(path: str, headers: dict[str, str], raw: bytes) -> Any:
        from pytest_citecheck.testing.server import ReceivedRequest

        return ReceivedRequest(path, headers, json.loads(raw))
