"""Tests whose own body runs on several threads at once (pytest-run-parallel's ``--parallel-threads``).

The plugin's fixtures are set up once, in pytest's thread, and the test's body then runs on N
threads at once. A helper (``assert_citations_supported``) called first on two of them once raced:
both registered the session's plugins ("Plugin name already registered: citecheck-run"), both built
the test's checker (two cassettes for one file, the last saved replacing the other's answers), and
both set up the session's client fixture through pytest, which is not made for two threads. One
checker per test now, built once, shared by its threads: its cassette gets every thread's
requests, and replays under one thread or several.

Real runs: the real pytest-run-parallel, the SDK over HTTP to the loopback Jev, real cassettes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

pytest.importorskip("pytest_run_parallel")

# The same answers every thread checks (a helper, the fixture), and one check per thread (``thread_index``).
SUITE = """
from cookbook import SOURCE, pick
from pytest_citecheck import assert_citations_supported

def test_helper():
    assert_citations_supported(pick("epoch_seconds", "aud_reject"), SOURCE)

def test_fixture(citecheck):
    citecheck.assert_supported(pick("clock_skew"), SOURCE)

def test_per_thread(thread_index):
    assert_citations_supported(pick(("epoch_seconds", "duplicate_names")[thread_index]), SOURCE)
"""

PARALLEL = ("-p", "run-parallel")


def _claims(cassette: Path) -> list[str]:
    interactions = yaml.safe_load(cassette.read_text())["interactions"]
    return sorted(json.loads(entry["request"]["body"])["state"]["claim"][:20] for entry in interactions)


def _record(suite: pytest.Pytester) -> pytest.RunResult:
    suite.makepyfile(test_app=SUITE)
    return suite.runpytest(
        *PARALLEL, "--parallel-threads=2", "--citecheck-record-mode=once", "--citecheck-json=report.json"
    )


def test_two_threads_record_one_cassette_per_test_with_every_threads_requests(suite, jev_server):
    result = _record(suite)
    output = result.stdout.str()
    assert "already registered" not in output, output
    result.assert_outcomes(passed=3)
    # Identical requests are sent once per run, whichever thread asks first: four distinct ones.
    assert len(jev_server.systemone_requests) == 4
    cassettes = suite.path / "cassettes" / "test_app"
    assert sorted(path.name for path in cassettes.iterdir()) == [
        "test_fixture.yaml",
        "test_helper.yaml",
        "test_per_thread.yaml",
    ]
    # One cassette per test, holding every thread's requests, each once.
    assert _claims(cassettes / "test_helper.yaml") == ["If a validator does ", "JWT date fields are "]
    assert _claims(cassettes / "test_per_thread.yaml") == ["A parser that sees t", "JWT date fields are "]
    assert _claims(cassettes / "test_fixture.yaml") == ["Expiration checks ar"]
    # Each thread's check is a check: the JSON report keeps every one (a row per citation per thread),
    # the terminal counts each citation of a test once.
    rows = json.loads((suite.path / "report.json").read_text())["results"]
    assert sorted((row["test"].split("::")[1], row["id"]) for row in rows) == [
        ("test_fixture", "clock_skew"),
        ("test_fixture", "clock_skew"),
        ("test_helper", "aud_reject"),
        ("test_helper", "aud_reject"),
        ("test_helper", "epoch_seconds"),
        ("test_helper", "epoch_seconds"),
        ("test_per_thread", "duplicate_names"),
        ("test_per_thread", "epoch_seconds"),
    ]
    result.stdout.fnmatch_lines(["*5 citations checked in 3 tests: 5 verified*"])


@pytest.mark.parametrize("threads", [1, 2])
def test_a_cassette_recorded_by_two_threads_replays_under_one_or_two(suite, jev_server, offline, threads):
    _record(suite).assert_outcomes(passed=3)
    jev_server.stop()
    offline()
    replayed = suite.runpytest(*PARALLEL, f"--parallel-threads={threads}", "--citecheck-json=replay.json")
    output = replayed.stdout.str()
    replayed.assert_outcomes(passed=3)
    rows = json.loads((suite.path / "replay.json").read_text())["results"]
    assert rows and all(row["replayed"] for row in rows)
    assert len(rows) == 4 * threads
    if threads == 1:
        # Thread 1's own citation is not checked by one thread: its recording is named as unused.
        assert "duplicate_names" not in {row["id"] for row in rows}
        assert "unused" in output.lower() and "test_per_thread" in output, output
    else:
        assert "unused" not in output.lower(), output


def test_a_thread_whose_own_citation_was_never_recorded_fails_as_a_cassette_miss(suite, jev_server, offline):
    suite.makepyfile(test_app=SUITE)
    suite.runpytest(*PARALLEL, "--parallel-threads=1", "--citecheck-record-mode=once").assert_outcomes(passed=3)
    jev_server.stop()
    offline()
    replayed = suite.runpytest(*PARALLEL, "--parallel-threads=2")
    # pytest-run-parallel counts a test failed on a thread as an error.
    replayed.assert_outcomes(passed=2, errors=1)
    replayed.stdout.fnmatch_lines(
        [
            "*ERROR at call of test_per_thread*",
            "*CassetteMissError*duplicate_names*",
            "*PARALLEL FAILED*test_per_thread*",
        ]
    )


def test_each_citation_is_listed_once_in_junit_and_a_review_xfails_on_every_thread(suite, jev_server):
    suite.makepyfile(
        test_app="""
        import pytest
        from cookbook import SOURCE, pick
        from pytest_citecheck import assert_citations_supported

        def test_listed():
            assert_citations_supported(pick("epoch_seconds", "aud_reject"), SOURCE)

        def test_review():
            assert_citations_supported(pick("pii_encryption"), SOURCE, review="xfail")
        """
    )
    result = suite.runpytest(*PARALLEL, "--parallel-threads=3", "--citecheck-record-mode=once", "--junitxml=junit.xml")
    result.assert_outcomes(passed=1, xfailed=1)
    junit = (suite.path / "junit.xml").read_text()
    for name in ("epoch_seconds", "aud_reject"):
        assert junit.count(f'name="citecheck.{name}.verdict"') == 1, junit
    result.stdout.fnmatch_lines(["*6 repeated checks counted once (the last check stands)*(3 times)*"])


LEFT_RUNNING = """
import threading

from cookbook import SOURCE, pick

LATE = {}
ENDED = threading.Event()


def test_leaves_a_thread_running(citecheck):
    citecheck.assert_supported(pick("epoch_seconds"), SOURCE)

    def late():
        ENDED.wait(10)
        try:
            citecheck.check(pick("aud_reject"), SOURCE)
            LATE["outcome"] = "checked"
        except Exception as error:
            LATE["outcome"] = f"{type(error).__name__}: {error}"

    LATE["thread"] = threading.Thread(target=late)
    LATE["thread"].start()


def test_next():
    ENDED.set()  # the first test has ended: its cassette was closed
    LATE["thread"].join(10)
    print("LATE CHECK:", LATE["outcome"])
"""


def test_a_check_from_a_thread_left_running_after_its_test_ended_is_refused(suite, jev_server):
    # Not pytest-run-parallel's (it joins its threads): a test's own thread that outlives it. Its
    # answer would be recorded in a cassette already saved, and never written.
    suite.makepyfile(test_app=LEFT_RUNNING)
    result = suite.runpytest("--citecheck-record-mode=once", "-s")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*LATE CHECK: CassetteError: citation 'aud_reject': checked after its test ended*never be recorded",
            "  -> wait for the check before the test ends: join its thread, or take future.result() in the test",
        ]
    )
    assert len(jev_server.systemone_requests) == 1  # the late check was refused before anything was sent
    assert _claims(suite.path / "cassettes" / "test_app" / "test_leaves_a_thread_running.yaml") == [
        "JWT date fields are "
    ]
