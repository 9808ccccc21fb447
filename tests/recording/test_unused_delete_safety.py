"""``--citecheck-unused=delete`` deletes only after a complete, clean run, and never crashes the session.

Issue 25 items 2 and 9:

- After a run where a test failed, a run that was interrupted or whose xdist worker crashed, or a
  run under pytest-repeat (``--count 2`` renames every test, so every cassette looked orphaned: 7
  committed cassettes were deleted by a run that failed) or pytest-rerunfailures, nothing is deleted,
  and the run says why.
- A file the deletion cannot change (a full or read-only file system) is a warning; the session goes
  on, and the JSON report is still written (it once crashed at session end with no report).
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from pytest_citecheck import _files

TWO = """
from cookbook import SOURCE, pick

def test_two(citecheck):
    citecheck.check(pick("epoch_seconds", "aud_reject"), SOURCE, model="jev-1.12")

def test_other(citecheck):
    citecheck.check(pick("clock_skew"), SOURCE, model="jev-1.12")
"""
# test_two no longer asks about aud_reject (its recording is unused); test_other fails after its check.
ONE_FAILING = TWO.replace('pick("epoch_seconds", "aud_reject")', 'pick("epoch_seconds")').replace(
    'citecheck.check(pick("clock_skew"), SOURCE, model="jev-1.12")',
    'citecheck.check(pick("clock_skew"), SOURCE, model="jev-1.12")\n    assert False, "an unrelated failure"',
)
ONE = TWO.replace('pick("epoch_seconds", "aud_reject")', 'pick("epoch_seconds")')


@pytest.fixture
def recorded(suite: pytest.Pytester, jev_server: Any, offline: Any, recorded_once: Any) -> pytest.Pytester:
    suite.makepyfile(test_unused=TWO)
    recorded_once(suite, lambda: suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=2))
    offline()
    return suite


def cassettes(suite: pytest.Pytester) -> dict[str, bytes]:
    return {str(p.relative_to(suite.path)): p.read_bytes() for p in sorted((suite.path / "cassettes").rglob("*.yaml"))}


def with_orphan(suite: pytest.Pytester) -> dict[str, bytes]:
    folder = suite.path / "cassettes" / "test_unused"
    (folder / "test_removed.yaml").write_bytes((folder / "test_other.yaml").read_bytes())
    return cassettes(suite)


def test_nothing_is_deleted_after_a_run_in_which_a_test_failed(recorded: pytest.Pytester) -> None:
    before = with_orphan(recorded)
    recorded.makepyfile(test_unused=ONE_FAILING)
    result = recorded.runpytest("--citecheck-unused=delete")
    result.assert_outcomes(passed=1, failed=1)
    assert cassettes(recorded) == before
    result.stdout.fnmatch_lines(
        [
            "pytest-citecheck: --citecheck-unused=delete deleted nothing: tests failed; delete after a run in which "
            "every test passes",
            "Unused recordings: *1 cassette of no collected test",
        ]
    )
    result.stdout.no_fnmatch_line("Deleted *")


@pytest.mark.parametrize("policy", ["delete", "warn"])
def test_the_hint_after_a_failed_run_says_when_delete_will_work_and_following_it_does(
    recorded: pytest.Pytester, policy: str
) -> None:
    """hunt-journey F2: after a run in which a test failed, the summary said "Remove them: run the same pytest
    command again with --citecheck-unused=delete", the command that had just deleted nothing (or would)."""
    before = with_orphan(recorded)
    recorded.makepyfile(test_unused=ONE_FAILING)
    result = recorded.runpytest(f"--citecheck-unused={policy}")
    result.assert_outcomes(passed=1, failed=1)
    assert cassettes(recorded) == before
    result.stdout.no_fnmatch_line("*run the same pytest command again*")
    result.stdout.fnmatch_lines(
        [
            "Remove them: run with --citecheck-unused=delete once every test passes (this run cannot delete: tests failed)"
        ]
    )
    recorded.makepyfile(test_unused=ONE)  # the remedy: the failure fixed, then delete
    recorded.runpytest("--citecheck-unused=delete").assert_outcomes(passed=2)
    assert "cassettes/test_unused/test_removed.yaml" not in cassettes(recorded)


def test_nothing_is_deleted_when_pytest_repeat_renames_the_tests(
    recorded: pytest.Pytester, plugin_or_skip: Any
) -> None:
    plugin_or_skip("pytest_repeat", "pytest-repeat")
    before = with_orphan(recorded)
    result = recorded.runpytest("-p", "repeat", "--count", "2", "--citecheck-unused=delete")
    result.assert_outcomes(passed=4)  # test_two[1-2] is a copy of test_two: it replays test_two's cassette
    assert cassettes(recorded) == before, "no cassette deleted, none written under the copies' names"
    result.stdout.no_fnmatch_line("*orphan*")
    result.stdout.no_fnmatch_line("Deleted *")


def test_nothing_is_deleted_when_pytest_rerunfailures_may_run_a_test_again(
    recorded: pytest.Pytester, plugin_or_skip: Any
) -> None:
    plugin_or_skip("pytest_rerunfailures", "pytest-rerunfailures")
    before = with_orphan(recorded)
    result = recorded.runpytest("-p", "rerunfailures", "--reruns", "1", "--citecheck-unused=delete")
    result.assert_outcomes(passed=2)
    assert cassettes(recorded) == before
    result.stdout.fnmatch_lines(["*deleted nothing: pytest-rerunfailures may run a test again (--reruns)*"])


def test_a_clean_run_still_deletes(recorded: pytest.Pytester) -> None:
    with_orphan(recorded)
    recorded.makepyfile(test_unused=ONE)
    result = recorded.runpytest("--citecheck-unused=delete")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["Deleted 1 recorded interaction in 1 cassette *; 1 cassette of no collected test"])
    assert not (recorded.path / "cassettes" / "test_unused" / "test_removed.yaml").exists()


def test_a_file_system_error_while_deleting_warns_and_the_report_is_still_written(
    recorded: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk while a cassette is rewritten (the JSON report, written after, has room)."""
    before = cassettes(recorded)
    recorded.makepyfile(test_unused=ONE)
    replace = os.replace

    def disk_full_for_cassettes(source: Any, target: Any) -> None:
        if str(target).endswith(".yaml"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        replace(source, target)

    monkeypatch.setattr(_files.os, "replace", disk_full_for_cassettes)
    result = recorded.runpytest("--citecheck-unused=delete", "--citecheck-json=report.json")
    result.assert_outcomes(passed=2)
    assert result.ret == 0
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(
        [
            "pytest-citecheck: --citecheck-unused=delete left a file as it was: cannot remove unused interactions "
            "from *test_two.yaml (No space left on device)"
        ]
    )
    assert cassettes(recorded) == before
    report = json.loads((recorded.path / "report.json").read_text(encoding="utf-8"))
    assert len(report["unused"]) == 1 and Path(report["unused"][0]["cassette"]).name == "test_two.yaml"


def test_the_refusal_names_each_reason() -> None:
    from pytest_citecheck._recording.lifecycle.unused import deletion_refusal

    clean = {"exit_status": 0, "crashed_workers": 0, "repeated": False, "reruns": 0}
    assert deletion_refusal(**clean) is None
    assert "pytest-repeat" in str(deletion_refusal(**{**clean, "repeated": True}))
    assert "--reruns" in str(deletion_refusal(**{**clean, "reruns": 2}))
    assert "1 xdist worker crashed" in str(deletion_refusal(**{**clean, "crashed_workers": 1}))
    assert "the run was interrupted" in str(deletion_refusal(**{**clean, "exit_status": 2}))


@pytest.mark.slow  # real xdist workers, one killed and replaced (deletion_refusal's words are tested above)
def test_nothing_is_deleted_after_an_xdist_worker_crashed_and_the_crash_is_named(recorded: pytest.Pytester) -> None:
    """The crash is named even when the worker dies before any citation reached the controller (it
    once said "tests failed")."""
    pytest.importorskip("xdist")
    before = with_orphan(recorded)
    recorded.makepyfile(test_unused=ONE, test_crash="import os\n\ndef test_crash():\n    os._exit(1)\n")
    result = recorded.runpytest_subprocess("-n", "2", "-p", "no:randomly", "--citecheck-unused=delete")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert cassettes(recorded) == before
    # xdist reports the crashed worker's test as failed (and replaces the worker): nothing is deleted, and why.
    result.stdout.fnmatch_lines(
        [
            "worker 'gw*' crashed while running*",
            "*--citecheck-unused=delete deleted nothing: 1 xdist worker crashed, so some tests never ran to the end*",
        ]
    )
