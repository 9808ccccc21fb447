"""Drift: a rewrite compares each re-recorded answer with the one it replaces (flip vs shift)."""

from __future__ import annotations

import json

import pytest

from pytest_citecheck.testing import JevServer

TEST_FILE = """
from cookbook import SOURCE, pick

def test_three(citecheck):
    citecheck.check(pick("epoch_seconds", "aud_reject", "clock_skew"), SOURCE, model="jev-1.12")
"""


def answers(table):
    def answer(claim, section):
        for word, reply in table.items():
            if word in claim:
                return reply
        return ("supports", 0.96)

    return answer


@pytest.fixture
def record_with(suite, monkeypatch):
    suite.makepyfile(test_drift=TEST_FILE)

    def run(table, *args):
        with JevServer(answers(table)) as server:
            monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
            monkeypatch.setenv("TYPESAFE_API_KEY", "sk-test")
            return suite.runpytest("--citecheck-record-mode=rewrite", "--citecheck-json=report.json", *args)

    return run


def rows(suite):
    return {row["id"]: row for row in json.loads((suite.path / "report.json").read_text())["results"]}


def test_a_flip_and_a_shift_are_reported_in_the_summary_and_the_json(suite, record_with):
    record_with({"seconds": ("supports", 0.96), "audience": ("supports", 0.96), "clock skew": ("supports", 0.96)})
    first = rows(suite)
    assert all(row["previous"] is None for row in first.values())  # nothing recorded before
    result = record_with({"seconds": ("supports", 0.96), "audience": ("contradicts", 0.9), "leeway": ("supports", 0.8)})
    assert result.ret == 0
    after = rows(suite)
    assert after["epoch_seconds"]["previous"]["drift"] == "same"
    assert after["aud_reject"]["previous"] == {
        "verdict": "verified",
        "choice": "supports",
        "confidence": first["aud_reject"]["confidence"],
        "probabilities": first["aud_reject"]["probabilities"],
        "model": "jev-1.12",
        "drift": "flip",
    }
    assert after["clock_skew"]["previous"]["drift"] == "shift"
    result.stdout.fnmatch_lines(
        [
            "Drift since the previous recording: 1 flip, 1 shift",
            "  flip   test_drift.py::test_three 'aud_reject': verified 0.94 (jev-1.12) -> contradicted 0.85 (jev-1.12)",
            "  shift  test_drift.py::test_three 'clock_skew': verified 0.94 (jev-1.12) -> verified 0.70 (jev-1.12)",
            "A flip changes what the test decides*--citecheck-fail-on-flip makes a flip fail the run*",
        ]
    )


def test_a_move_within_the_tolerance_is_not_a_shift(suite, record_with):
    record_with({"leeway": ("supports", 0.96)})
    result = record_with({"leeway": ("supports", 0.9)}, "--citecheck-drift-tolerance=0.1")  # confidence 0.94 -> 0.85
    assert rows(suite)["clock_skew"]["previous"]["drift"] == "same"
    result.stdout.no_fnmatch_line("*Drift since*")
    record_with({"leeway": ("supports", 0.96)})
    assert rows(suite)["clock_skew"]["previous"]["drift"] == "shift"  # the default tolerance is 0.05


def test_fail_on_flip_fails_the_run(suite, record_with):
    record_with({})
    same = record_with({}, "--citecheck-fail-on-flip")
    assert same.ret == 0
    flipped = record_with({"audience": ("says_nothing", 0.9)}, "--citecheck-fail-on-flip")
    flipped.assert_outcomes(passed=1)
    assert flipped.ret == pytest.ExitCode.TESTS_FAILED
    # Every test passed, so the run says why it failed: which flips, and which flag.
    flipped.stdout.fnmatch_lines(
        [
            "The run fails (--citecheck-fail-on-flip): 1 re-recorded verdict flipped: "
            "test_drift.py::test_three 'aud_reject' verified -> unsupported",
            "*1 passed*",
        ]
    )
