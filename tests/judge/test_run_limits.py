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
from pathlib import Path
from typing import Any

import httpx2
import pytest
from support import INNER_INI, NOT_A_USERS_PLUGINS, REHEARSAL_OPT_IN

from bench.limited_jev import LimitedJevServer, source_module
from bench.limited_jev import write_suite as write_limited_suite
from pytest_citecheck._judge.pacing import LimiterStateError, Pacing, reserve, schedule, server_key, state_path


def write_suite(pytester: pytest.Pytester, tests: int, per_test: int, *, filler: str = "") -> None:
    """``tests`` tests of ``per_test`` citations each, every citation its own request (``bench.limited_jev``)."""
    write_limited_suite(pytester.path, tests, per_test, filler=filler)
    pytester.makeini(INNER_INI)


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
        server.stop()  # its shared files go with it (``_judge.pacing.forget_server``)


def cassette_count(pytester: pytest.Pytester) -> int:
    return len(list((pytester.path / "cassettes").rglob("*.yaml")))


@pytest.mark.parametrize(
    ("workers", "max_rpm", "concurrency", "hold", "tests", "per_test"),
    [
        # 600 a minute with a burst of 3, and 3 in flight: two workers of 3 threads each would put 6 in
        # flight, and with nothing pacing them would send far faster than 10 a second.
        pytest.param(2, 600, 3, 0.05, 8, 5, id="40 citations on 2 workers"),
        # Jev's 1,200 a minute scaled up to 3,000 so that the run takes under a minute; concurrency 8.
        pytest.param(4, 3000, 8, 0.01, 200, 10, id="2,000 citations on 4 workers", marks=pytest.mark.slow),
    ],
)
def test_the_workers_of_a_run_keep_to_one_rate_and_one_concurrency_bound(
    pytester: pytest.Pytester,
    limited_server: Any,
    workers: int,
    max_rpm: int,
    concurrency: int,
    hold: float,
    tests: int,
    per_test: int,
) -> None:
    server = limited_server(max_rpm=max_rpm, burst=concurrency, max_in_flight=concurrency, hold=hold)
    write_suite(pytester, tests=tests, per_test=per_test)
    options = [f"--citecheck-max-rpm={max_rpm}", f"--citecheck-concurrency={concurrency}"]
    result = pytester.runpytest_subprocess("-n", str(workers), "--citecheck-record-mode=rewrite", *options)
    result.assert_outcomes(passed=tests)
    assert server.refused == []
    assert len(server.systemone_requests) == tests * per_test  # each citation asked once: none was retried
    assert server.most_in_flight <= concurrency
    assert cassette_count(pytester) == tests


@pytest.mark.slow
def test_two_pytest_runs_at_once_on_one_machine_share_the_budget(
    pytester: pytest.Pytester, limited_server: Any
) -> None:
    # Two separate pytest processes (no xdist), started together, asking the same server: 40 requests each,
    # which either alone would send within a second without the limiter.
    server = limited_server(max_rpm=600, burst=2, max_in_flight=2, hold=0.05)
    write_suite(pytester, tests=8, per_test=10)
    env = {**os.environ, "PYTEST_ADDOPTS": " ".join(NOT_A_USERS_PLUGINS + REHEARSAL_OPT_IN)}
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
    pytester.makepyfile(limits_source=source_module(10))
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
    assert {"version", "requests", "tokens"} <= set(json.loads(state.read_text()))


def test_a_run_at_the_usual_rate_does_not_wait_out_the_debt_an_earlier_slower_run_left(
    pytester: pytest.Pytester, limited_server: Any
) -> None:
    # Found by hand: one run with --citecheck-max-tokens-per-second=1 (its request "cost" 400 s of that
    # rate) left the shared bucket 400 s ahead; the next run, at the default 250,000 a second, waited it
    # out and failed at its request deadline ("TypeSafe did not complete its answer"), nothing sent.
    server = limited_server(max_rpm=6000, burst=8)
    write_suite(pytester, tests=1, per_test=1)
    slow = pytester.runpytest("--citecheck-record-mode=rewrite", "--citecheck-max-tokens-per-second=1")
    slow.assert_outcomes(passed=1)
    usual = pytester.runpytest("--citecheck-record-mode=rewrite", "--citecheck-request-deadline=5")
    usual.assert_outcomes(passed=1)
    assert len(server.systemone_requests) == 2 and server.refused == []


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
