"""A file that cannot be written says so in one line naming the path, and no test passes on a lost recording.

Cassettes are saved when the test's call ends, so a cassette that cannot be written fails the test
itself ("its recording was not saved"), never PASSED with an ERROR at teardown. A report that cannot
be written (``--citecheck-json=.``, a read-only directory) is one line at the end of the run and a
non-zero exit code, never a traceback.

The tests run as root here (and in CI), which ignores file permissions; the runs that need a
read-only directory drop that privilege (``setpriv``, CAP_DAC_OVERRIDE) for the inner pytest.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any

import pytest
from support import NOT_A_USERS_PLUGINS

ONE_TEST = """
from cookbook import SOURCE, pick

def test_one(citecheck):
    citecheck.check(pick("clock_skew"), SOURCE, model="jev-1.12")
"""
NO_PRIVILEGE = (
    ("setpriv", "--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override,-dac_read_search")
    if os.geteuid() == 0
    else ()
)


def run_unprivileged(suite: pytest.Pytester, *args: str) -> pytest.RunResult:
    """The inner pytest in a subprocess that file permissions apply to, even when we are root."""
    if NO_PRIVILEGE:
        assert shutil.which("setpriv"), "setpriv (util-linux) is needed to test permissions as root"
    return suite.run(
        *NO_PRIVILEGE,
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        *NOT_A_USERS_PLUGINS,
        *args,
        timeout=120,
    )


def assert_one_line_and_no_traceback(result: pytest.RunResult) -> str:
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output and "INTERNALERROR" not in output, output
    assert "PermissionError" not in output and "IsADirectoryError" not in output, output
    return output


def test_a_read_only_cassette_directory_fails_the_test_saying_its_recording_was_not_saved(
    suite: pytest.Pytester, jev_server: Any
) -> None:
    suite.makepyfile(test_app=ONE_TEST)
    folder = suite.path / "cassettes" / "test_app"
    folder.mkdir(parents=True)
    folder.chmod(0o555)
    try:
        result = run_unprivileged(suite, "-rA", "--citecheck-record-mode=once")
    finally:
        folder.chmod(0o755)
    assert_one_line_and_no_traceback(result)
    # The test's own report is red, and says why; no PASSED with an ERROR at teardown.
    result.assert_outcomes(failed=1)
    assert "PASSED" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            f"RecordingNotSavedError: cassette {folder / 'test_one.yaml'}: this test's recording was not saved "
            "(Permission denied)",
            f"  -> make {folder} writable (or set citecheck_cassette_dir), then record again*",
        ]
    )
    assert list(folder.iterdir()) == []


def test_a_cassette_path_that_is_a_directory_fails_the_recording_naming_it(
    suite: pytest.Pytester, jev_server: Any
) -> None:
    suite.makepyfile(test_app=ONE_TEST)
    blocked = suite.path / "cassettes" / "test_app" / "test_one.yaml"
    blocked.mkdir(parents=True)
    result = suite.runpytest("--citecheck-record-mode=once")
    assert_one_line_and_no_traceback(result)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"CassetteError: citation 'clock_skew': cannot read cassette {blocked}: it is a directory, not a cassette file",
            "  -> remove or rename that directory",
        ]
    )
    assert jev_server.systemone_requests == []


@pytest.mark.parametrize("flag", ["--citecheck-json", "--citecheck-html"])
def test_a_report_path_that_is_a_directory_is_a_usage_error(suite: pytest.Pytester, flag: str) -> None:
    suite.makepyfile(test_app="def test_nothing():\n    pass\n")
    result = suite.runpytest(f"{flag}=.")
    assert_one_line_and_no_traceback(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: pytest-citecheck: {flag}=.: '.' is a directory; give a file path*"])


REVIEWS = '{\n  "format": 1,\n  "decisions": {\n    "16cc939bdc1d": {"verdict": "verified", "by": "Ada"}\n  }\n}\n'


@pytest.mark.parametrize("flag", ["--citecheck-json", "--citecheck-html"])
@pytest.mark.parametrize("name", ["citecheck-reviews.json", "tox.ini", "link-to-reviews.json"])
def test_a_report_path_naming_a_file_the_user_wrote_is_a_usage_error_and_the_file_is_kept(
    suite: pytest.Pytester, flag: str, name: str
) -> None:
    """``--citecheck-json=citecheck-reviews.json`` (one word from the reviews file's name) replaced
    the team's decisions with the run's report; ``--citecheck-html=tox.ini`` replaced the
    configuration. A report is written only over nothing, an empty file or a report of its kind."""
    suite.makepyfile(test_app="def test_nothing():\n    pass\n")
    (suite.path / "citecheck-reviews.json").write_text(REVIEWS)
    (suite.path / "link-to-reviews.json").symlink_to("citecheck-reviews.json")
    before = {path.name: path.read_bytes() for path in suite.path.iterdir() if path.is_file()}
    result = suite.runpytest(f"{flag}={name}")
    assert_one_line_and_no_traceback(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    kind = "JSON" if flag.endswith("json") else "HTML"
    result.stderr.fnmatch_lines(
        [f"ERROR: pytest-citecheck: {flag}={name}: {name} exists and is not a pytest-citecheck {kind} report*"]
    )
    assert {path.name: path.read_bytes() for path in suite.path.iterdir() if path.is_file()} == before
    assert (suite.path / "link-to-reviews.json").is_symlink()


@pytest.mark.parametrize(
    "flags",
    [
        ("--citecheck-json=out/report", "--citecheck-html=out/./report"),
        ("--citecheck-json=out/report.xml", "--junitxml=out/report.xml"),
        ("--citecheck-html=out/report.xml", "--junitxml=out/../out/report.xml"),
    ],
)
def test_two_reports_of_one_run_naming_one_file_is_a_usage_error(
    suite: pytest.Pytester, flags: tuple[str, str]
) -> None:
    """The HTML page written over the JSON report (which ``citecheck review`` then cannot read), or
    the JSON report over JUnit XML that CI parses: one of the two was lost without a word."""
    suite.makepyfile(test_app="def test_nothing():\n    pass\n")
    (suite.path / "out").mkdir()
    result = suite.runpytest(*flags)
    assert_one_line_and_no_traceback(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: pytest-citecheck: * and * name one file (*): give each report its own path"])
    assert list((suite.path / "out").iterdir()) == []


@pytest.mark.parametrize("flag", ["--citecheck-json", "--citecheck-html"])
@pytest.mark.parametrize("kind", ["fifo", "link-to-dev-null"])
def test_a_report_path_that_is_a_device_or_a_fifo_is_a_usage_error_and_is_kept(
    suite: pytest.Pytester, flag: str, kind: str
) -> None:
    """``--citecheck-json=/dev/null`` run as root (a CI container) renamed a regular file over
    ``/dev/null``: the machine's null device became a file. Not run against ``/dev/null`` itself
    here (a failing run would replace it): a symlink to it and a FIFO take the same path."""
    suite.makepyfile(test_app="def test_nothing():\n    pass\n")
    target = suite.path / "report.out"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/null")
    result = suite.runpytest(f"{flag}=report.out")
    assert_one_line_and_no_traceback(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    what = "a FIFO (named pipe), not" if kind == "fifo" else "a symbolic link to a character device (/dev/null), not to"
    result.stderr.fnmatch_lines([f"ERROR: pytest-citecheck: {flag}=report.out: it is {what} a regular file*"])
    assert target.is_fifo() if kind == "fifo" else (target.is_symlink() and target.is_char_device())


def test_a_report_is_written_over_an_earlier_report_of_its_kind_and_over_an_empty_file(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_app="def test_nothing():\n    pass\n")
    (suite.path / "report.json").touch()
    (suite.path / "report.html").touch()
    for _ in range(2):
        result = suite.runpytest("--citecheck-json=report.json", "--citecheck-html=report.html")
        assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()
        assert (suite.path / "report.json").read_text().startswith('{\n  "version": 1,')
        assert (suite.path / "report.html").read_text().startswith("<!doctype html>")


def test_a_report_that_cannot_be_written_is_one_line_and_fails_the_run(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_app="def test_nothing():\n    pass\n")
    folder = suite.path / "reports"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        result = run_unprivileged(suite, "--citecheck-json=reports/report.json", "--citecheck-html=reports/report.html")
    finally:
        folder.chmod(0o755)
    assert_one_line_and_no_traceback(result)
    result.stdout.fnmatch_lines(
        [
            "pytest-citecheck: the JSON report was not written: cannot write reports/report.json (Permission denied)",
            "pytest-citecheck: the HTML report was not written: cannot write reports/report.html (Permission denied)",
            "*1 passed*",
        ]
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # the tests passed, but what CI asked for is missing
    assert list(folder.iterdir()) == []
