"""Identical requests are sent once per run and the answer is shared (issue 27 item 7); each test's cassette
still gets its own copy, which replays with no server.

Real pytest runs record through the real SDK over HTTP to the loopback ``JevServer``, which counts
the requests it receives.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

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


def _reported_sending(output: str, report: Path) -> tuple[int, int, int]:
    """What the run says it sent: the cost line's "sent" and "shared", and the report's rows sent."""
    line = re.search(r"^Jev: .*; (\d+) replayed, (\d+) sent(?:, (\d+) shared)? \((\$[0-9.]+) spent", output, re.M)
    assert line is not None, output
    rows = json.loads(report.read_text())["results"]
    sent_rows = [row for row in rows if "input_tokens" in row and not row.get("replayed") and not row.get("shared")]
    # The dollars "spent by this run" are the price of the rows really sent, not of the copies.
    spent = sum(row["input_tokens"] for row in sent_rows) * 0.042 / 1e6
    assert line[4] == f"${spent:.6f}"
    return int(line[2]), int(line[3] or 0), len(sent_rows)


def test_identical_requests_are_sent_once_per_run_and_each_cassette_keeps_its_copy(
    suite: pytest.Pytester, jev_server: JevServer, offline
) -> None:
    suite.makepyfile(test_sharing=SHARING_SUITE)
    result = suite.runpytest("--citecheck-record-mode=once", "--citecheck-json=report.json")
    result.assert_outcomes(passed=5)
    # Three distinct requests of model jev-1.12, and aud_reject again for jev-1.13: a different request.
    assert len(jev_server.systemone_requests) == 4
    # The cost line and the report count what left the machine: 11 citations judged, 4 requests sent, 7 copies.
    assert _reported_sending(result.stdout.str(), suite.path / "report.json") == (4, 7, 4)
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


def test_a_test_whose_key_is_refused_does_not_pass_on_a_copy_of_another_keys_answer(
    suite: pytest.Pytester, jev_server: JevServer
) -> None:
    # Found by hand: a test whose ``citecheck_client`` carried a revoked key passed, and recorded a
    # cassette, on a copy of the answer another test's valid key got; alone it failed with HTTP 401.
    jev_server.refused_keys = frozenset({"sk-revoked-key-0123456789"})
    suite.makepyfile(
        test_a_valid="""
        from cookbook import SOURCE, pick

        def test_valid_key(citecheck):
            citecheck.assert_supported(pick("aud_reject"), SOURCE, model="jev-1.12")
        """,
        test_b_revoked="""
        import pytest
        from typesafe_sdk import TypeSafeClient
        from pytest_citecheck import JudgeError
        from cookbook import SOURCE, pick

        @pytest.fixture
        def citecheck_client():
            client = TypeSafeClient(api_key="sk-revoked-key-0123456789", compression=False)
            yield client
            client.close()

        def test_revoked_key(citecheck):
            with pytest.raises(JudgeError, match="rejected the API key"):
                citecheck.check(pick("aud_reject"), SOURCE, model="jev-1.12")
        """,
    )
    suite.runpytest("--citecheck-record-mode=once", "-p", "no:randomly").assert_outcomes(passed=2)
    assert len(jev_server.systemone_requests) == 2  # each key asked for itself
    assert not (suite.path / "cassettes" / "test_b_revoked" / "test_revoked_key.yaml").exists()


# Two tests asking the identical question, one on each xdist worker (``--dist load`` hands out the
# first tests one by one, in turn); each notes its worker. The inner conftest notes, as each worker's
# session ends, what the run's shared answers directory holds (the controller removes it after).
ACROSS_WORKERS_SUITE = """
import os, pathlib
from cookbook import SOURCE, pick

def ask(citecheck, name):
    pathlib.Path(f"worker-{name}").write_text(os.environ.get("PYTEST_XDIST_WORKER", "none"))
    citecheck.assert_supported(pick("aud_reject"), SOURCE, model="jev-1.12")

def test_first(citecheck):
    ask(citecheck, "first")

def test_second(citecheck):
    ask(citecheck, "second")
"""

ANSWERS_PROBE = """
import json, os, pathlib, stat
import pytest

@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    config = session.config
    if not hasattr(config, "workerinput"):
        return
    from pytest_citecheck._judge.run_answers import run_directory

    directory = run_directory(config.workerinput["testrunuid"])
    files = {path.name: path.read_bytes().decode("latin-1") for path in directory.iterdir() if path.is_file()}
    seen = {"directory": str(directory), "mode": stat.S_IMODE(os.lstat(directory).st_mode), "files": files}
    pathlib.Path(f"seen-{config.workerinput['workerid']}.json").write_text(json.dumps(seen))
"""


def _run_on_two_workers(
    suite: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Any:
    """The suite recorded on two workers (a pytest process of its own, in a temporary directory of its own)."""
    monkeypatch.setenv("TMPDIR", str(tmp_path_factory.mktemp("tmpdir")))
    suite.makepyfile(test_across=ACROSS_WORKERS_SUITE)
    suite.makeconftest(ANSWERS_PROBE)
    return suite.runpytest_subprocess(
        "-n", "2", "--dist=load", "--citecheck-record-mode=once", "--citecheck-json=report.json"
    )


def test_an_identical_request_on_two_xdist_workers_is_sent_once_and_each_cassette_keeps_its_copy(
    suite: pytest.Pytester, jev_server: JevServer, offline, tmp_path_factory, monkeypatch, canary_key: str
) -> None:
    result = _run_on_two_workers(suite, tmp_path_factory, monkeypatch)
    result.assert_outcomes(passed=2)
    workers = {(suite.path / f"worker-{name}").read_text() for name in ("first", "second")}
    assert workers == {"gw0", "gw1"}
    assert len(jev_server.systemone_requests) == 1  # the other worker took the answer its twin was given
    # The controller's cost line and report say so: 1 sent, 1 shared (not "2 sent").
    assert _reported_sending(result.stdout.str(), suite.path / "report.json") == (1, 1, 1)
    folder = suite.path / "cassettes" / "test_across"
    for name in ("test_first", "test_second"):
        assert len(read_interactions(folder / f"{name}.yaml")) == 1
    # What the workers shared: one answer, in a private directory; no key, no header but its type.
    seen = [json.loads(path.read_text()) for path in sorted(suite.path.glob("seen-gw*.json"))]
    assert len(seen) == 2 and seen[0]["mode"] == 0o700
    answers = {name: text for name, text in seen[-1]["files"].items() if name.endswith(".json")}
    assert len(answers) == 1
    (answer,) = answers.values()
    assert canary_key not in answer and "authorization" not in answer.lower()
    assert set(json.loads(answer)) == {"version", "status", "content_type", "body"}
    assert not Path(seen[0]["directory"]).exists()  # removed at the end of the run
    offline()
    suite.runpytest("--citecheck-unused=fail", "-p", "no:xdist").assert_outcomes(passed=2)


def test_a_failed_answer_is_not_shared_with_the_other_worker(
    suite: pytest.Pytester, jev_server: JevServer, offline, tmp_path_factory, monkeypatch
) -> None:
    calls = {"n": 0}
    real = jev_server.answer

    def answer(claim: str, section: str):
        calls["n"] += 1
        return Reply(500, {"detail": "down"}) if calls["n"] == 1 else real(claim, section)

    jev_server.answer = answer
    result = _run_on_two_workers(suite, tmp_path_factory, monkeypatch)
    result.assert_outcomes(passed=2)
    # The 500 went to one worker only (and its retry, or the other worker, asked again): once asked, shared.
    assert len(jev_server.systemone_requests) == 2
    # The 500 is no answer (no row); one row's request was answered, the other's was sent or shared.
    sent, shared, sent_rows = _reported_sending(result.stdout.str(), suite.path / "report.json")
    assert sent == sent_rows and sent + shared == 2
    offline()
    suite.runpytest("--citecheck-unused=fail", "-p", "no:xdist").assert_outcomes(passed=2)
