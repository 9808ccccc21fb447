"""Messages that point the right way for hostile or mistaken cassette files (issue 25 item 12).

- A cassette symlinked to ``/dev/zero`` (or a FIFO) once exhausted memory (or hung): anything that is
  not a regular file is refused before it is read, and every read is bounded.
- A cassette whose response header was edited to ``content-encoding: gzip`` once said "no recorded
  answer matches": it now says which header pytest-citecheck never records.
- A lock directory created by another user once blamed the cassette directory: locks now live in
  this user's own directory, and one that is not ours is named as the cause.
- A "billion laughs" cassette (nine anchored lists, each nine aliases of the one before, 1 KB of
  YAML), its last list put in a response header, once took 5.8 GB and 54 s and then PASSED (the
  header is not in the digest); in the method, 4.7 GB before the digest refused it. A file with an
  alias is now refused before anything is built from it.
- Two runs recording the same test's cassette at once: the last to finish replaced the other's file,
  and both showed PASSED (found with two ``pytest --citecheck-record-mode=once`` processes of 6 and 8
  citations: the file kept 6, and the run of 8 then missed in CI). A run whose cassette another process
  wrote while its test ran now saves nothing and fails with ``RecordingNotSavedError``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from support import ONE_CLAIM_PATHS, Offline

from pytest_citecheck._files import locks_directory
from pytest_citecheck.testing import choice_answer

PATHS = ONE_CLAIM_PATHS
CASSETTE = Path("cassettes") / "test_app" / "test_claims.yaml"


def record(suite: pytest.Pytester, jev_server: Any, path: str) -> Path:
    jev_server.answer = lambda claim, section: choice_answer("supports", 0.97)
    suite.makepyfile(test_app=PATHS[path])
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    return suite.path / CASSETTE


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("mode", ["none", "once"])
@pytest.mark.parametrize("path", PATHS)
def test_a_cassette_symlinked_to_dev_zero_is_refused_not_read(
    suite: pytest.Pytester, jev_server: Any, offline: Offline, path: str, mode: str
) -> None:
    cassette = record(suite, jev_server, path)
    cassette.unlink()
    cassette.symlink_to("/dev/zero")
    if mode == "none":
        offline()
    result = suite.runpytest(f"--citecheck-record-mode={mode}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*CassetteError: citation 'aud': cannot read cassette *test_claims.yaml: it is a character device, "
            "not a regular file*",
            "*-> replace it with a cassette file, or delete it and re-record*",
        ]
    )


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_rewrite_replaces_a_cassette_symlinked_to_dev_zero_without_reading_it(
    suite: pytest.Pytester, jev_server: Any
) -> None:
    cassette = record(suite, jev_server, "sync")
    cassette.unlink()
    cassette.symlink_to("/dev/zero")
    suite.runpytest("--citecheck-record-mode=rewrite").assert_outcomes(passed=1)
    assert not cassette.is_symlink() and cassette.read_text(encoding="utf-8").startswith("citecheck_format: 3\n")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_a_cassette_that_is_a_fifo_is_refused_without_waiting(
    suite: pytest.Pytester, jev_server: Any, offline: Offline
) -> None:
    cassette = record(suite, jev_server, "sync")
    cassette.unlink()
    os.mkfifo(cassette)
    offline()
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*cannot read cassette *test_claims.yaml: it is a FIFO (named pipe), not a regular file*"]
    )


@pytest.mark.parametrize("path", PATHS)
def test_an_edited_content_encoding_header_is_named(
    suite: pytest.Pytester, jev_server: Any, offline: Offline, path: str
) -> None:
    cassette = record(suite, jev_server, path)
    text = cassette.read_text(encoding="utf-8")
    response = text.index("\n  response:")
    headers = text.index("    headers:\n", response) + len("    headers:\n")
    cassette.write_text(text[:headers] + "      content-encoding:\n      - gzip\n" + text[headers:], encoding="utf-8")
    offline()
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*cannot read cassette *test_claims.yaml: interaction 1 (claim 'A JWT can name its audience.'): its "
            "response has the header 'content-encoding', which pytest-citecheck never records (the file was edited)*",
            "*-> remove that header from the file, or delete the file and re-record the test*",
        ]
    )
    assert "no recorded answer matches" not in result.stdout.str()


def _billion_laughs() -> str:
    """Nine levels of nine aliases: 9**9 strings once expanded, from about a kilobyte of YAML."""
    lines = ['x-a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"x-{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("where", ["response header", "method", "top level"])
@pytest.mark.parametrize("c_loader", [True, False], ids=["libyaml", "pure-python"])
def test_a_billion_laughs_cassette_is_refused_before_it_is_built(
    suite: pytest.Pytester, jev_server: Any, offline: Offline, where: str, c_loader: bool
) -> None:
    cassette = record(suite, jev_server, "sync")
    text = cassette.read_text(encoding="utf-8")
    text = text.replace("citecheck_format: 3\n", "citecheck_format: 3\n" + _billion_laughs(), 1)
    if where == "response header":
        text = text.replace(
            "    headers:\n      content-type:\n      - application/json\n    body:",
            "    headers:\n      content-type: *i\n    body:",
            1,
        )
    elif where == "method":
        text = text.replace("method: POST", "method: *i", 1)
    assert text.count("*i") == (0 if where == "top level" else 1)
    cassette.write_text(text, encoding="utf-8")
    offline()
    if not c_loader:  # PyYAML without libyaml reads every file with its pure-Python loader
        suite.makeconftest("import yaml\n\ndel yaml.CSafeLoader\n")
    result = suite.runpytest_subprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*CassetteError: citation 'aud': cannot read cassette *test_claims.yaml: the file uses a YAML alias "
            "(*name), which pytest-citecheck never writes*",
            "*-> restore it from version control, or delete it and re-record*",
        ]
    )


@pytest.mark.parametrize("mode", ["once", "rewrite", "new_episodes"])
@pytest.mark.parametrize("path", PATHS)
def test_a_cassette_another_process_wrote_while_the_test_ran_is_not_overwritten(
    suite: pytest.Pytester, jev_server: Any, path: str, mode: str
) -> None:
    # Another run, of other code, records this test's cassette with a question this run never asks.
    jev_server.answer = lambda claim, section: choice_answer("supports", 0.97)
    suite.makepyfile(test_app=PATHS[path].replace("A JWT can name its audience.", "A JWT may name its audience."))
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    cassette = suite.path / CASSETTE
    theirs = cassette.read_text(encoding="utf-8")
    cassette.unlink()
    if mode == "new_episodes":  # this run's file holds the test's question; below it asks another
        record(suite, jev_server, path)
    else:
        suite.makepyfile(test_app=PATHS[path])

    def answer_while_another_run_saves(claim: str, section: str) -> Any:
        cassette.write_text(theirs, encoding="utf-8")  # what a second pytest process does meanwhile
        return choice_answer("supports", 0.97)

    jev_server.answer = answer_while_another_run_saves
    if mode == "new_episodes":  # a question the file does not hold yet, so the run records
        suite.makepyfile(test_app=PATHS[path].replace("A JWT can name its audience.", "A JWT names its audience."))
    result = suite.runpytest(f"--citecheck-record-mode={mode}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*RecordingNotSavedError: cassette *test_claims.yaml: this test's recording was not saved: another "
            "process wrote this cassette while the test ran*",
            "*-> record this test again, in one run at a time*",
        ]
    )
    assert cassette.read_text(encoding="utf-8") == theirs


@pytest.mark.parametrize("path", PATHS)
def test_a_cassette_another_run_of_the_same_test_wrote_meanwhile_is_saved_over(
    suite: pytest.Pytester, jev_server: Any, path: str
) -> None:
    """Two runs of the same code recording one test at once ask the same questions: the file the other
    wrote holds nothing this run's lacks, so this run's whole recording is saved over it (the test passes)."""
    jev_server.answer = lambda claim, section: choice_answer("supports", 0.98)
    cassette = suite.path / CASSETTE
    suite.makepyfile(test_app=PATHS[path])
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    theirs = cassette.read_text(encoding="utf-8")
    assert "0.98" in theirs

    def answer_while_another_run_saves(claim: str, section: str) -> Any:
        cassette.write_text(theirs, encoding="utf-8")
        return choice_answer("supports", 0.97)

    jev_server.answer = answer_while_another_run_saves
    suite.runpytest("--citecheck-record-mode=rewrite").assert_outcomes(passed=1)
    saved = cassette.read_text(encoding="utf-8")
    assert "0.97" in saved and "0.98" not in saved


SHARED = """
import pytest
from cookbook import SOURCE, pick

@pytest.mark.citecheck(cassette="jwt-answers")
def test_shared(citecheck):
    citecheck.check(pick("clock_skew"), SOURCE)
"""


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners")
def test_a_lock_directory_of_another_user_is_named_not_the_cassette_directory(
    suite: pytest.Pytester, jev_server: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    locks = locks_directory()
    assert locks.parent == temp and locks.name == f"pytest-citecheck-locks-{os.getuid()}"
    locks.mkdir()
    os.chown(locks, os.getuid() + 4242, -1)  # another user made it (as root here; a sticky /tmp elsewhere)
    suite.makepyfile(test_app=SHARED)
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(failed=1)
    # The run's rate limiter keeps its state there too, so the request fails before it is sent (_judge.pacing).
    result.stdout.fnmatch_lines(
        [
            f"*JudgeError: citation 'clock_skew': the lock directory {locks} cannot be used (it belongs to another "
            f"user (uid {os.getuid() + 4242})), where the run's rate limiter keeps its shared state*",
            f"*-> remove {locks}, or set TMPDIR to a directory of your own*",
        ]
    )
    assert jev_server.systemone_requests == []
    assert "writable" not in result.stdout.str()


def test_a_lock_directory_that_is_a_file_is_named(
    suite: pytest.Pytester, jev_server: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    locks_directory().write_text("not a directory")
    suite.makepyfile(test_app=SHARED)
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*the lock directory {locks_directory()} cannot be used (*"])


@pytest.mark.parametrize("mode", ["none", "once"])
def test_an_empty_cassette_is_called_empty_not_missing(
    suite: pytest.Pytester, jev_server: Any, offline: Offline, mode: str
) -> None:
    """A 0-byte cassette (a copy or checkout cut short) is there: its miss says it is empty, not "missing"."""
    cassette = record(suite, jev_server, "sync")
    cassette.write_bytes(b"")
    offline()
    result = suite.runpytest(f"--citecheck-record-mode={mode}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*CassetteMissError: citation 'aud': the cassette *test_claims.yaml is empty: it holds no recorded "
            "answer, and a run that only replays (record mode none, or once when the file exists) counts every "
            "request as a miss; recording it again (record mode rewrite) fills it*",
            "*-> record it with a TypeSafe API key: *--citecheck-record-mode=rewrite*",
        ]
    )
    assert "the cassette is missing" not in result.stdout.str()


def test_an_empty_cassette_is_recorded_again_by_a_rewrite(suite: pytest.Pytester, jev_server: Any) -> None:
    cassette = record(suite, jev_server, "sync")
    cassette.write_bytes(b"")
    suite.runpytest("--citecheck-record-mode=rewrite").assert_outcomes(passed=1)
    assert cassette.read_text(encoding="utf-8").startswith("citecheck_format: 3\n")


@pytest.mark.parametrize(
    ("code", "shown"),
    [("'200'", "the text '200'"), ("true", "bool True"), ("200.0", "float 200.0"), ("", "nothing")],
)
def test_a_status_code_that_is_not_a_number_is_named_as_such(
    suite: pytest.Pytester, jev_server: Any, offline: Offline, code: str, shown: str
) -> None:
    """A status code written ``'200'`` once read "holds an HTTP 200 response, which pytest-citecheck never
    records", as if 200 itself were refused; ``true`` read "an HTTP True response"."""
    cassette = record(suite, jev_server, "sync")
    text = cassette.read_text(encoding="utf-8")
    assert text.count("code: 200\n") == 1
    cassette.write_text(text.replace("code: 200\n", f"code: {code}\n"), encoding="utf-8")
    offline()
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*cannot read cassette *test_claims.yaml: interaction 1 (claim 'A JWT can name its audience.'): its "
            f"response's status code must be a whole number, got {shown} (the file was edited or damaged)*"
        ]
    )
    assert "HTTP 200 response" not in result.stdout.str()
