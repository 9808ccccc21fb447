"""Identical requests are sent once per run and the answer is shared (issue 27 item 7); each test's cassette
still gets its own copy, which replays with no server.

Real pytest runs record through the real SDK over HTTP to the loopback ``JevServer``, which counts
the requests it receives.
"""

from __future__ import annotations

import pytest

from pytest_citecheck._recording.cassette_file import read_interactions
from pytest_citecheck.testing import JevServer, Reply

SHARING_SUITE = """
import pytest
from cookbook import SOURCE, pick

def test_one(citecheck):
    citecheck.assert_supported(pick("aud_reject", "epoch_seconds"), SOURCE, model="jev-1.12")

def test_two(citecheck):
    citecheck.assert_supported(pick("epoch_seconds", "clock_skew"), SOURCE, model="jev-1.12")

def test_same_claim_under_two_ids(citecheck):
    twice = [dict(c, id=f"{c['id']}_{n}") for n in range(4) for c in pick("aud_reject")]
    citecheck.assert_supported(twice, SOURCE, model="jev-1.12", concurrency=4)

@pytest.mark.asyncio
async def test_async(citecheck):
    await citecheck.aassert_supported(pick("clock_skew", "aud_reject"), SOURCE, model="jev-1.12")

def test_other_model(citecheck):
    citecheck.assert_supported(pick("aud_reject"), SOURCE, model="jev-1.13")
"""


def test_identical_requests_are_sent_once_per_run_and_each_cassette_keeps_its_copy(
    suite: pytest.Pytester, jev_server: JevServer, offline
) -> None:
    suite.makepyfile(test_sharing=SHARING_SUITE)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=5)
    # Three distinct requests of model jev-1.12, and aud_reject again for jev-1.13: a different request.
    assert len(jev_server.systemone_requests) == 4
    models = sorted(r.body["model"] for r in jev_server.systemone_requests)
    assert models == ["jev-1.12", "jev-1.12", "jev-1.12", "jev-1.13"]
    folder = suite.path / "cassettes" / "test_sharing"
    recorded = {path.stem: len(read_interactions(path)) for path in sorted(folder.glob("*.yaml"))}
    assert recorded == {
        "test_one": 2,
        "test_two": 2,
        "test_same_claim_under_two_ids": 1,
        "test_async": 2,
        "test_other_model": 1,
    }
    offline()
    suite.runpytest("--citecheck-unused=fail").assert_outcomes(passed=5)


def test_an_answer_that_failed_is_not_shared_the_next_identical_request_is_sent(
    suite: pytest.Pytester, jev_server: JevServer
) -> None:
    calls = {"n": 0}
    real = jev_server.answer

    def answer(claim: str, section: str):
        calls["n"] += 1
        return Reply(500, {"detail": "down"}) if calls["n"] <= 3 else real(claim, section)

    jev_server.answer = answer
    suite.makepyfile(
        test_retry="""
        import pytest
        from pytest_citecheck import JudgeError
        from cookbook import SOURCE, pick

        def test_first(citecheck):
            with pytest.raises(JudgeError, match="HTTP 500"):
                citecheck.check(pick("aud_reject"), SOURCE, model="jev-1.12")

        def test_second(citecheck):
            citecheck.assert_supported(pick("aud_reject"), SOURCE, model="jev-1.12")
        """
    )
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=2)
    # Three attempts (the SDK's two retries) failed for the first test; the second asked again.
    assert len(jev_server.systemone_requests) == 4
    assert not (suite.path / "cassettes" / "test_retry" / "test_first.yaml").exists()
    assert len(read_interactions(suite.path / "cassettes" / "test_retry" / "test_second.yaml")) == 1
