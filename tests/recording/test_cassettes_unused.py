"""Unused recordings: interactions a test that ran to the end did not play, and cassettes of no test."""

from __future__ import annotations

import json

import pytest

TWO = """
from cookbook import SOURCE, pick

def test_two(citecheck):
    citecheck.check(pick("epoch_seconds", "aud_reject"), SOURCE, model="jev-1.12")

def test_other(citecheck):
    citecheck.check(pick("clock_skew"), SOURCE, model="jev-1.12")
"""

ONE = """
from cookbook import SOURCE, pick

def test_two(citecheck):
    citecheck.check(pick("epoch_seconds"), SOURCE, model="jev-1.12")

def test_other(citecheck):
    citecheck.check(pick("clock_skew"), SOURCE, model="jev-1.12")
"""


@pytest.fixture
def recorded(suite, jev_server, offline, recorded_once):
    """Record TWO (once per module: later tests get a copy of that recording), then go offline."""
    suite.makepyfile(test_unused=TWO)
    recorded_once(suite, lambda: suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=2))
    offline()
    return suite


def cassette(suite, name: str):
    return suite.path / "cassettes" / "test_unused" / f"{name}.yaml"


def test_a_fully_played_run_reports_nothing(recorded):
    result = recorded.runpytest()
    result.assert_outcomes(passed=2)
    result.stdout.no_fnmatch_line("*Unused recordings*")


def test_an_interaction_no_longer_asked_for_is_reported_with_the_command(recorded):
    recorded.makepyfile(test_unused=ONE)
    result = recorded.runpytest("--citecheck-json=report.json")
    assert result.ret == 0  # warn is the default
    result.stdout.fnmatch_lines(
        [
            "Unused recordings: 1 recorded interaction in 1 cassette not played by tests that ran to the end",
            "  unused  test_unused.py::test_two: *If a validator does not find itself in a token's audience*(model jev-1.12)",
            "Remove them: run the same pytest command again with --citecheck-unused=delete",
        ]
    )
    report = json.loads((recorded.path / "report.json").read_text())
    assert [entry["test"] for entry in report["unused"]] == ["test_unused.py::test_two"]
    assert report["orphans"] == []


def test_fail_makes_the_run_fail(recorded):
    recorded.makepyfile(test_unused=ONE)
    result = recorded.runpytest("--citecheck-unused=fail")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["The run fails (--citecheck-unused=fail): 1 unused recording", "*2 passed*"])


def test_a_test_that_did_not_run_to_the_end_raises_no_alarm(recorded):
    recorded.makepyfile(
        test_unused=ONE.replace(
            'SOURCE, model="jev-1.12")\n\ndef test_other',
            'SOURCE, model="jev-1.12")\n    assert False\n\ndef test_other',
        )
    )
    result = recorded.runpytest("--citecheck-unused=fail")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.no_fnmatch_line("*Unused recordings*")


# test_two is flaky: its first try asks what TWO asks and fails, its rerun asks only epoch_seconds.
FLAKY = """
import pathlib
from cookbook import SOURCE, pick

def test_two(citecheck):
    tries = pathlib.Path("tries")
    first = not tries.exists()
    tries.write_text("1")
    if first:
        citecheck.check(pick("epoch_seconds", "aud_reject"), SOURCE, model="jev-1.12")
        assert False, "the app's first answer was wrong"
    citecheck.check(pick("epoch_seconds"), SOURCE, model="jev-1.12")

def test_other(citecheck):
    citecheck.check(pick("clock_skew"), SOURCE, model="jev-1.12")
"""


def test_what_an_earlier_try_of_a_rerun_test_played_is_not_unused(recorded, plugin_or_skip):
    # Found with pytest-rerunfailures 16.7 on a user-like suite: the passing rerun had not played the
    # recording the failed first try played, and --citecheck-unused=fail failed a run whose tests passed.
    plugin_or_skip("pytest_rerunfailures", "pytest-rerunfailures")
    recorded.makepyfile(test_unused=FLAKY)
    result = recorded.runpytest("-p", "rerunfailures", "--reruns", "1", "--citecheck-unused=fail")
    assert result.parseoutcomes() == {"passed": 2, "rerun": 1}
    assert result.ret == pytest.ExitCode.OK
    result.stdout.no_fnmatch_line("*Unused recordings*")


def test_delete_removes_unused_interactions_and_orphans_then_the_run_is_clean(recorded):
    orphan = cassette(recorded, "test_removed")
    orphan.write_text(cassette(recorded, "test_other").read_text())
    recorded.makepyfile(test_unused=ONE)
    before = cassette(recorded, "test_two").read_text()
    result = recorded.runpytest("--citecheck-unused=delete")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["Deleted 1 recorded interaction in 1 cassette *; 1 cassette of no collected test"])
    assert not orphan.exists()
    after = cassette(recorded, "test_two").read_text()
    assert after.count("- request:") == 1 and before.count("- request:") == 2
    assert "seconds since the Unix epoch" in after and "audience" not in after
    clean = recorded.runpytest("--citecheck-unused=fail")
    assert clean.ret == 0
    clean.stdout.no_fnmatch_line("*Unused recordings*")


def test_a_test_that_asks_nothing_any_more_leaves_its_whole_cassette_unused(recorded):
    recorded.makepyfile(
        test_unused=TWO.replace('citecheck.check(pick("clock_skew"), SOURCE, model="jev-1.12")', "pass")
    )
    result = recorded.runpytest("--citecheck-unused=delete")
    assert result.ret == 0
    assert not cassette(recorded, "test_other").exists()
    assert cassette(recorded, "test_two").exists()


def test_orphans_are_cassettes_of_no_collected_test(recorded):
    orphan = cassette(recorded, "test_removed")
    orphan.write_text(cassette(recorded, "test_other").read_text())
    foreign = cassette(recorded, "test_app_http")  # pytest-recording's, not ours: never an orphan of ours
    foreign.write_text("interactions: []\nversion: 1\n")
    result = recorded.runpytest("--citecheck-unused=fail")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["Unused recordings: 1 cassette of no collected test", "  orphan  cassettes/test_unused/test_removed.yaml"]
    )
    result.stdout.no_fnmatch_line("*test_app_http*")


@pytest.mark.parametrize(
    "selection", [["-k", "test_two"], ["-m", "not slow"], ["test_unused.py::test_two"], ["test_other_module.py"]]
)
def test_a_partial_run_raises_no_false_alarm(recorded, selection):
    recorded.makepyfile(test_other_module="def test_plain():\n    pass\n")
    result = recorded.runpytest("--citecheck-unused=fail", *selection)
    assert result.ret == 0, result.stdout.str()
    result.stdout.no_fnmatch_line("*Unused recordings*")


def test_a_partial_run_still_finds_what_its_tests_did_not_play(recorded):
    recorded.makepyfile(test_unused=ONE)
    result = recorded.runpytest("--citecheck-unused=fail", "-k", "test_two")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["Unused recordings: 1 recorded interaction in 1 cassette *"])


def test_the_cassettes_of_a_deleted_test_module_are_orphans_and_delete_removes_them(recorded):
    recorded.makepyfile(test_kept="def test_plain():\n    pass\n")
    (recorded.path / "test_unused.py").unlink()  # the module was deleted (or renamed): its cassettes are left over
    folder = recorded.path / "cassettes" / "test_unused"
    foreign = folder / "test_app_http.yaml"  # pytest-recording's, not ours: never an orphan of ours
    foreign.write_text("interactions: []\nversion: 1\n")

    for selection in ([], ["test_kept.py"]):
        result = recorded.runpytest("--citecheck-unused=fail", *selection)
        assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
        result.stdout.fnmatch_lines(
            [
                "Unused recordings: 2 cassettes of no collected test",
                "  orphan  cassettes/test_unused/test_other.yaml",
                "  orphan  cassettes/test_unused/test_two.yaml",
            ]
        )
        result.stdout.no_fnmatch_line("*test_app_http*")

    deleted = recorded.runpytest("--citecheck-unused=delete")
    assert deleted.ret == 0
    deleted.stdout.fnmatch_lines(["Deleted 2 cassettes of no collected test"])
    assert sorted(path.name for path in folder.iterdir()) == ["test_app_http.yaml"]
    clean = recorded.runpytest("--citecheck-unused=fail")
    assert clean.ret == 0
    clean.stdout.no_fnmatch_line("*Unused recordings*")


def test_an_emptied_cassette_directory_of_a_deleted_module_is_removed(recorded):
    recorded.makepyfile(test_kept="def test_plain():\n    pass\n")
    (recorded.path / "test_unused.py").unlink()
    assert recorded.runpytest("--citecheck-unused=delete").ret == 0
    assert not (recorded.path / "cassettes" / "test_unused").exists()
