"""Within Jev's limits for the whole run (issue 27 item 6): a rate limiter and a concurrency bound shared by
every process of a run, which replay never touches.

Each run records through the real SDK over HTTP to a loopback server that enforces a scaled-down
limit the way Jev does (429 beyond it): requests a minute, tokens a second and requests in flight.
The plugin is configured to the same limit; the server must refuse nothing, so nothing was retried.
Nothing is timed here: the pace against the ideal time is bench/'s (``python -m bench``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
from support import INNER_INI, NOT_A_USERS_PLUGINS

from pytest_citecheck._judge.pacing import LimiterStateError, Pacing, reserve, schedule, server_key, state_path
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


def write_suite(pytester: pytest.Pytester, tests: int, per_test: int, *, filler: str = "") -> None:
    """``tests`` tests of ``per_test`` citations each, every citation its own request."""
    count = tests * per_test
    pytester.makepyfile(limits_source=SOURCE_MODULE.format(count=count, filler=filler))
    body = "from limits_source import SOURCE, cited\n"
    for index in range(tests):
        body += f"\ndef test_{index:04d}(citecheck):\n    citecheck.assert_supported(cited({index * per_test + 1}, {per_test}), SOURCE)\n"
    pytester.makepyfile(test_limited=body)
    pytester.makeini(INNER_INI)


class LimitedJevServer(JevServer):
    """A ``JevServer`` that enforces Jev's kind of limits, scaled down: beyond one it answers 429.

    Requests a minute with a burst (a token bucket on the time each request arrives), tokens a
    second (counted as Jev does, about one per four bytes of the body; the plugin counts one per
    three) and requests in flight. ``slack`` seconds of the bucket allow for requests sent in
    order arriving out of step (the scheduling of several processes on a loaded 2-core machine); a
    client over the rate still exceeds it within the runs below (each fails without the limiter).
    ``hold`` keeps each accepted request in flight that long.
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
        self.most_in_flight = 0
        self._in_flight = 0
        self._full_at = {"requests": 0.0, "tokens": 0.0}
        self._limits = threading.Lock()

    def _handle(self, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        with self._limits:
            self._in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self._in_flight)
            refusal = self._refused(time.monotonic(), len(raw) // 4)
            if refusal is not None:
                self.refused.append(refusal)
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


@pytest.fixture
def limited_server(monkeypatch: pytest.MonkeyPatch, canary_key: str):
    servers: list[LimitedJevServer] = []

    def start(**limits: Any) -> LimitedJevServer:
        server = LimitedJevServer(**limits).start()
        servers.append(server)
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        monkeypatch.setenv("TYPESAFE_API_KEY", canary_key)
        return server

    yield start
    for server in servers:
        key = server_key(httpx2.URL(server.url))  # this server's shared files: its port is not used again soon
        server.stop()
        for path in state_path(key).parent.glob(f"*-{key}*"):
            if path.is_file():
                path.unlink()


def cassette_count(pytester: pytest.Pytester) -> int:
    return len(list((pytester.path / "cassettes").rglob("*.yaml")))


def test_two_workers_keep_to_one_rate_and_one_concurrency_bound_for_the_whole_run(
    pytester: pytest.Pytester, limited_server: Any
) -> None:
    # 600 a minute with a burst of 3, and 3 in flight: two workers of 3 threads each would put 6 in
    # flight, and with nothing pacing them would send far faster than 10 a second.
    server = limited_server(max_rpm=600, burst=3, max_in_flight=3, hold=0.05)
    write_suite(pytester, tests=8, per_test=5)
    result = pytester.runpytest_subprocess(
        "-n", "2", "--citecheck-record-mode=rewrite", "--citecheck-max-rpm=600", "--citecheck-concurrency=3"
    )
    result.assert_outcomes(passed=8)
    assert server.refused == []
    assert len(server.systemone_requests) == 40  # each citation asked once: none was retried
    assert server.most_in_flight <= 3
    assert cassette_count(pytester) == 8


@pytest.mark.slow
def test_two_pytest_runs_at_once_on_one_machine_share_the_budget(
    pytester: pytest.Pytester, limited_server: Any
) -> None:
    # Two separate pytest processes (no xdist), started together, asking the same server: 40 requests each,
    # which either alone would send within a second without the limiter.
    server = limited_server(max_rpm=600, burst=2, max_in_flight=2, hold=0.05)
    write_suite(pytester, tests=8, per_test=10)
    env = {**os.environ, "PYTEST_ADDOPTS": " ".join(NOT_A_USERS_PLUGINS)}
    options = ["--citecheck-record-mode=rewrite", "--citecheck-max-rpm=600", "--citecheck-concurrency=2"]
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *options, "-k", selection],
            cwd=pytester.path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for selection in (
            "test_0000 or test_0001 or test_0002 or test_0003",
            "test_0004 or test_0005 or test_0006 or test_0007",
        )
    ]
    outputs = [run.communicate(timeout=300)[0] for run in runs]
    assert all(run.returncode == 0 for run in runs), outputs
    assert server.refused == []
    assert len(server.systemone_requests) == 80
    assert server.most_in_flight <= 2


def test_the_tokens_a_second_are_kept_to_from_the_size_of_each_request(
    pytester: pytest.Pytester, limited_server: Any
) -> None:
    # About 1.2 KB a request: what the server counts as ~300 tokens, the plugin as ~400.
    server = limited_server(max_tokens_per_second=2000, slack=0.0)
    write_suite(pytester, tests=2, per_test=6, filler="Padding text for the section. " * 40)
    result = pytester.runpytest(
        "--citecheck-record-mode=rewrite", "--citecheck-max-rpm=none", "--citecheck-max-tokens-per-second=2000"
    )
    result.assert_outcomes(passed=2)
    assert server.refused == []
    assert len(server.systemone_requests) == 12


def test_a_marker_sets_the_limits_for_its_test(pytester: pytest.Pytester, limited_server: Any) -> None:
    server = limited_server(max_rpm=300, burst=2)
    pytester.makepyfile(limits_source=SOURCE_MODULE.format(count=10, filler=""))
    pytester.makeini(INNER_INI)
    pytester.makepyfile(
        test_marked="""
        import pytest
        from limits_source import SOURCE, cited

        @pytest.mark.citecheck(max_rpm=300, concurrency=2)
        def test_paced(citecheck):
            citecheck.assert_supported(cited(1, 10), SOURCE)
        """
    )
    pytester.runpytest("--citecheck-record-mode=rewrite").assert_outcomes(passed=1)
    assert server.refused == []
    assert len(server.systemone_requests) == 10


def test_replay_never_touches_the_limiter_and_a_broken_state_file_fails_recording_naming_it(
    pytester: pytest.Pytester, limited_server: Any
) -> None:
    server = limited_server(max_rpm=6000, burst=8)
    write_suite(pytester, tests=2, per_test=3)
    pytester.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=2)
    state = state_path(server_key(httpx2.URL(server.url)))
    assert json.loads(state.read_text())["version"] == 1
    state.unlink()
    state.mkdir()  # a state file no process can use
    try:
        for mode in ("none", "once"):  # replayed by our reader, and by vcrpy while it may record
            pytester.runpytest(f"--citecheck-record-mode={mode}").assert_outcomes(passed=2)
        asked = len(server.systemone_requests)
        failed = pytester.runpytest("--citecheck-record-mode=rewrite")
        failed.assert_outcomes(failed=2)
        output = failed.stdout.str()
        assert f"the rate limiter's shared state {state} cannot be used (it is a directory" in output
        assert f"-> remove {state} (pytest-citecheck makes it again)" in output
        assert "INTERNALERROR" not in output and "Traceback" not in output
        assert len(server.systemone_requests) == asked  # nothing was sent
    finally:
        state.rmdir()


def test_a_state_file_that_is_not_json_is_started_afresh(pytester: pytest.Pytester, limited_server: Any) -> None:
    server = limited_server(max_rpm=6000, burst=8)
    state = state_path(server_key(httpx2.URL(server.url)))
    state.write_bytes(b'{"version": 1, "requests": 17')  # cut short by a process that died writing it
    write_suite(pytester, tests=1, per_test=3)
    pytester.runpytest("--citecheck-record-mode=rewrite").assert_outcomes(passed=1)
    assert server.refused == []
    assert set(json.loads(state.read_text())) == {"version", "requests", "tokens"}


HOSTILE_STATES = {
    "not UTF-8": b"\xff\xfe\x00garbage",
    "nested 2,000 deep": b"[" * 2000 + b"]" * 2000,
    "a list": b"[1, 2, 3]",
    "NaN": b'{"version": 1, "requests": NaN}',
    "a year ahead (the clock was set back)": b'{"version": 1, "requests": 1e12, "tokens": -1e308}',
    "true for a time": b'{"version": 1, "requests": true}',
}


@pytest.mark.parametrize("content", HOSTILE_STATES.values(), ids=HOSTILE_STATES)
def test_a_state_file_of_any_other_content_is_started_afresh_and_nothing_waits(
    content: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    state_path("k").write_bytes(content)
    assert reserve("k", Pacing(max_rpm=60, max_tokens_per_second=1000, concurrency=2), tokens=10) == 0.0
    assert json.loads(state_path("k").read_text())["version"] == 1


@pytest.mark.parametrize("kind", ["a symbolic link to /dev/zero", "a FIFO", "larger than 4 KB"])
def test_a_state_file_that_cannot_be_read_as_a_file_is_an_error_naming_it(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    path = state_path("k")
    if kind == "a FIFO":
        os.mkfifo(path)
    elif kind == "larger than 4 KB":
        path.write_text(" " * 5000)
    else:
        path.symlink_to("/dev/zero")
    with pytest.raises(LimiterStateError) as caught:
        reserve("k", Pacing(max_rpm=60, max_tokens_per_second=None, concurrency=2), tokens=10)
    assert caught.value.cause.startswith(f"the rate limiter's shared state {path} cannot be used (it is ")
    assert caught.value.remedy.startswith(f"remove {path}")


def test_the_bucket_allows_a_burst_of_the_concurrency_then_spaces_requests_at_the_rate() -> None:
    pacing = Pacing(max_rpm=600, max_tokens_per_second=None, concurrency=4)
    state: dict[str, float] = {}
    sends = []
    for _ in range(7):
        send_at, state = schedule(state, 100.0, pacing, tokens=10)
        sends.append(round(send_at - 100.0, 6))
    assert sends == [0.0, 0.0, 0.0, 0.0, 0.1, 0.2, 0.3]
    tokens = Pacing(max_rpm=None, max_tokens_per_second=1000, concurrency=8)
    send_at, state = schedule({}, 0.0, tokens, tokens=1500)  # more than the bucket holds: goes when it is full
    assert send_at == 0.0 and state["tokens"] == 1.5
    send_at, _ = schedule(state, 0.0, tokens, tokens=500)  # once half a second's debt is left
    assert send_at == 1.0


@pytest.mark.slow
def test_two_thousand_citations_re_recorded_on_four_workers_meet_no_429(
    pytester: pytest.Pytester, limited_server: Any
) -> None:
    # Jev's 1,200 a minute scaled up to 3,000 so that the run takes under a minute; concurrency 8.
    server = limited_server(max_rpm=3000, burst=8, max_in_flight=8, hold=0.01)
    write_suite(pytester, tests=200, per_test=10)
    result = pytester.runpytest_subprocess(
        "-n", "4", "--citecheck-record-mode=rewrite", "--citecheck-max-rpm=3000", "--citecheck-concurrency=8"
    )
    result.assert_outcomes(passed=200)
    assert server.refused == []
    assert len(server.systemone_requests) == 2000
    assert server.most_in_flight <= 8
    assert cassette_count(pytester) == 200
