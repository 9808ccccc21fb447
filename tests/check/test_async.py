"""Async checks: `await citecheck.acheck(...)` / `aassert_supported(...)` with AsyncTypeSafeClient,
under pytest-asyncio and anyio (asyncio and trio), bounded concurrency, results in citation order,
recorded into the same cassettes the sync API replays."""

from __future__ import annotations

import threading
import time

import pytest

from pytest_citecheck.testing import JevServer

ASYNCIO_TEST = """
import pytest
from cookbook import SOURCE, CITATIONS

@pytest.mark.asyncio
async def test_all(citecheck):
    results = await citecheck.acheck(list(CITATIONS.values()), SOURCE, model="jev-1.12")
    assert [r.id for r in results] == list(CITATIONS)
    assert [r.verdict.value for r in results] == EXPECTED
"""

SYNC_TEST = """
from cookbook import SOURCE, CITATIONS

def test_all(citecheck):
    results = citecheck.check(list(CITATIONS.values()), SOURCE, model="jev-1.12")
    assert [r.id for r in results] == list(CITATIONS)
    assert [r.verdict.value for r in results] == EXPECTED
"""

ANYIO_TEST = """
import pytest
from cookbook import SOURCE, pick

@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request):
    return request.param

@pytest.mark.anyio
async def test_supported(citecheck):
    results = await citecheck.aassert_supported(pick("epoch_seconds", "aud_reject", "clock_skew"), SOURCE, model="jev-1.12")
    assert [r.verdict.value for r in results] == ["verified"] * 3

@pytest.mark.anyio
async def test_contradicted(citecheck):
    await citecheck.aassert_supported(pick("clock_skew", "exp_required"), SOURCE, model="jev-1.12")
"""

EXPECTED = ["verified", "verified", "fabricated", "verified", "contradicted", "unsupported", "unsupported", "verified"]
JUDGED = len(EXPECTED) - EXPECTED.count("fabricated")  # a fabricated quote never reaches Jev


class InFlight:
    """A Jev script that counts requests in flight at once and answers later citations first.

    Each request waits until ``expect`` requests are in flight together, or all that are left of
    the ``JUDGED`` are, so a loaded machine that starts them far apart still sees them overlap (up
    to ten seconds). It then stays in flight a little longer: a checker that let more than
    ``expect`` through would show it in ``most``.
    """

    def __init__(self, expect: int, answer) -> None:
        self.expect = expect
        self.answer = answer
        self.changed = threading.Condition()
        self.now = 0
        self.most = 0
        self.finished = 0

    def __call__(self, claim: str, section: str):
        with self.changed:
            self.now += 1
            self.most = max(self.most, self.now)
            self.changed.notify_all()
            self.changed.wait_for(lambda: self.now >= min(self.expect, JUDGED - self.finished), timeout=10.0)
        # Room for one more to arrive, if the bound let it; earlier citations (by the cookbook's order) answer last.
        time.sleep(0.2 + (0.3 if "seconds" in claim else 0.15 if "audience" in claim else 0.0))
        with self.changed:
            self.now -= 1
            self.finished += 1
            self.changed.notify_all()
        return self.answer(claim, section)


@pytest.fixture
def in_flight(monkeypatch, request, canary_key, cookbook_answer):
    script = InFlight(request.param, cookbook_answer)
    server = JevServer(script).start()
    monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
    monkeypatch.setenv("TYPESAFE_API_KEY", canary_key)
    yield script
    server.stop()


@pytest.mark.parametrize("in_flight", [3], indirect=True)
def test_acheck_records_concurrently_in_order_and_sync_replays_the_same_cassette(
    suite, in_flight, offline, canary_key, files_containing
):
    suite.makepyfile(test_async_check=ASYNCIO_TEST.replace("EXPECTED", repr(EXPECTED)))
    result = suite.runpytest("--citecheck-record-mode=once", "--citecheck-concurrency=3", "-W", "error")
    result.assert_outcomes(passed=1)
    assert in_flight.most == 3  # bounded by --citecheck-concurrency
    cassette = suite.path / "cassettes" / "test_async_check" / "test_all.yaml"
    recorded = cassette.read_bytes()
    assert recorded.startswith(b"citecheck_format: 3\n") and recorded.count(b"- request:") == 7
    assert not files_containing(suite.path, canary_key)

    offline()
    suite.runpytest("-W", "error").assert_outcomes(passed=1)  # async replay
    suite.makepyfile(test_async_check=SYNC_TEST.replace("EXPECTED", repr(EXPECTED)))
    suite.runpytest("-W", "error").assert_outcomes(passed=1)  # the sync API replays the async recording
    assert cassette.read_bytes() == recorded


@pytest.mark.parametrize("in_flight", [7], indirect=True)
def test_the_default_concurrency_is_eight(suite, in_flight):
    suite.makepyfile(test_async_check=ASYNCIO_TEST.replace("EXPECTED", repr(EXPECTED)))
    suite.runpytest("--citecheck-record-mode=once", "-W", "error").assert_outcomes(passed=1)
    assert in_flight.most == 7  # seven citations reach Jev, all at once


def test_a_sync_recording_replays_under_async_byte_for_byte(suite, jev_server, monkeypatch):
    suite.makepyfile(test_async_check=SYNC_TEST.replace("EXPECTED", repr(EXPECTED)))
    suite.runpytest("--citecheck-record-mode=once", "--citecheck-concurrency=1").assert_outcomes(passed=1)
    cassette = suite.path / "cassettes" / "test_async_check" / "test_all.yaml"
    recorded = cassette.read_bytes()
    suite.makepyfile(test_async_check=ASYNCIO_TEST.replace("EXPECTED", repr(EXPECTED)))
    suite.runpytest("--citecheck-record-mode=rewrite").assert_outcomes(passed=1)
    assert cassette.read_bytes() == recorded  # re-recorded concurrently through the async client: no diff


def test_anyio_on_asyncio_and_trio_records_replays_and_fails_like_the_sync_api(suite, jev_server, offline):
    suite.makepyfile(test_anyio_check=ANYIO_TEST)
    recorded = suite.runpytest("--citecheck-record-mode=once", "-W", "error")
    recorded.assert_outcomes(passed=2, failed=2)
    offline()
    replayed = suite.runpytest("-W", "error", "-p", "no:randomly")
    replayed.assert_outcomes(passed=2, failed=2)
    replayed.stdout.fnmatch_lines(
        [
            "*CitationsNotSupported: 1 of 2 citations not supported*",
            "*exp_required*contradicted*FAIL*",
        ]
    )
    folder = suite.path / "cassettes" / "test_anyio_check"
    assert sorted(path.name for path in folder.iterdir()) == [
        "test_contradicted[asyncio].yaml",
        "test_contradicted[trio].yaml",
        "test_supported[asyncio].yaml",
        "test_supported[trio].yaml",
    ]


def test_an_async_miss_fails_closed_naming_the_citation(suite, jev_server, offline):
    suite.makepyfile(test_async_check=ASYNCIO_TEST.replace("EXPECTED", repr(EXPECTED)))
    offline()
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*CassetteMissError: citation 'epoch_seconds': no recorded answer matches*"])
