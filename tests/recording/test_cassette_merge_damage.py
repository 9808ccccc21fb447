"""A cassette left damaged by git or by a checkout names what happened (replay-leftovers-2, item 4).

Found by editing cassettes the plugin recorded the ways a merge or a user would (notes in
replay-leftovers-2.md): each failed its test, but two said nothing a reader could act on.

- Merge-conflict markers (``<<<<<<< HEAD`` ... ``=======`` ... ``>>>>>>> feature``) around two
  branches' recordings read ``while scanning a simple key in "<unicode string>", line 4, column 1``
  (or ``mapping values are not allowed here``): now the file is said to hold an unresolved conflict,
  at which line, and how to resolve it.
- A file where the cassette directory should be read ``[Errno 20] Not a directory: …test_claims.yaml``
  and said to restore the cassette or re-record it (which cannot write there either): now the file in
  the way is named.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from support import ONE_CLAIM_PATHS, Offline

from pytest_citecheck.testing import choice_answer

CASSETTE = Path("cassettes") / "test_app" / "test_claims.yaml"


def record(suite: pytest.Pytester, jev_server: Any) -> Path:
    jev_server.answer = lambda claim, section: choice_answer("supports", 0.97)
    suite.makepyfile(test_app=ONE_CLAIM_PATHS["sync"])
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    return suite.path / CASSETTE


def _around_interactions(text: str) -> str:
    head, _, interactions = text.partition("interactions:\n")
    theirs = interactions.replace("0.97", "0.91")
    return f"{head}interactions:\n<<<<<<< HEAD\n{interactions}=======\n{theirs}>>>>>>> feature\n"


def _around_file(text: str) -> str:
    return f"<<<<<<< HEAD\n{text}=======\n{text.replace('0.97', '0.91')}>>>>>>> feature\n"


@pytest.mark.parametrize("mode", ["none", "once"])
@pytest.mark.parametrize(
    ("conflicted", "line"), [(_around_interactions, 4), (_around_file, 1)], ids=["interactions", "whole-file"]
)
def test_merge_conflict_markers_are_named_with_their_line(
    suite: pytest.Pytester, jev_server: Any, offline: Offline, mode: str, conflicted: Any, line: int
) -> None:
    cassette = record(suite, jev_server)
    cassette.write_text(conflicted(cassette.read_text(encoding="utf-8")), encoding="utf-8")
    offline()
    result = suite.runpytest(f"--citecheck-record-mode={mode}", "--citecheck-json=r.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*CassetteError: citation 'aud': cannot read cassette *test_claims.yaml: it holds a merge-conflict "
            f"marker (line {line}: '<<<<<<< HEAD'): a git merge, rebase or stash left it unresolved*",
            "*-> keep one side: delete the lines from '<<<<<<<' to '=======' or from '=======' to '>>>>>>>', "
            "and the marker lines; or delete the file and re-record with --citecheck-record-mode=rewrite*",
        ]
    )
    assert "<unicode string>" not in result.stdout.str()
    assert "INTERNALERROR" not in result.stdout.str()


def test_keeping_one_side_as_told_replays(suite: pytest.Pytester, jev_server: Any, offline: Offline) -> None:
    cassette = record(suite, jev_server)
    original = cassette.read_text(encoding="utf-8")
    cassette.write_text(_around_interactions(original), encoding="utf-8")
    text = cassette.read_text(encoding="utf-8")
    ours = text[: text.index("=======\n")] + text[text.index(">>>>>>> feature\n") + len(">>>>>>> feature\n") :]
    cassette.write_text(ours.replace("<<<<<<< HEAD\n", ""), encoding="utf-8")
    offline()
    suite.runpytest("--citecheck-record-mode=none").assert_outcomes(passed=1)


@pytest.mark.parametrize("mode", ["none", "once"])
def test_a_file_where_the_cassette_directory_should_be_is_named(
    suite: pytest.Pytester, jev_server: Any, offline: Offline, mode: str
) -> None:
    cassette = record(suite, jev_server)
    shutil.rmtree(cassette.parent)
    cassette.parent.write_text("not a directory\n", encoding="utf-8")
    offline()
    result = suite.runpytest(f"--citecheck-record-mode={mode}", "--citecheck-json=r.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*CassetteError: citation 'aud': cannot read cassette *test_claims.yaml: *test_app is a file, "
            "where the cassette's directory should be*",
            "*-> remove or rename that file*",
        ]
    )
    assert "Errno" not in result.stdout.str()


def _run(suite: pytest.Pytester, mode: str) -> pytest.RunResult:
    result = suite.runpytest(f"--citecheck-record-mode={mode}", "--citecheck-json=r.json")
    result.assert_outcomes(failed=1)
    assert "Errno" not in result.stdout.str() and "INTERNALERROR" not in result.stdout.str()
    return result


@pytest.mark.parametrize("mode", ["none", "once"])
def test_a_dangling_cassette_link_is_named_and_not_recorded_over(
    suite: pytest.Pytester, jev_server: Any, offline: Offline, mode: str
) -> None:
    # On main it read as a cassette never recorded ("does not exist", record it), and a record run
    # replaced the link with a new file without a word.
    cassette = record(suite, jev_server)
    cassette.unlink()
    cassette.symlink_to("../../shared/test_claims.yaml")
    offline()
    _run(suite, mode).stdout.fnmatch_lines(
        [
            "*CassetteError: citation 'aud': cannot read cassette *test_claims.yaml: *test_claims.yaml is a "
            "symbolic link to ../../shared/test_claims.yaml, which does not exist (a dangling link)*",
            "*-> restore the file it points to (in another checkout? a Git LFS or git-annex object not fetched?), "
            "or remove the link (rm '*test_claims.yaml') and record the test again*",
        ]
    )
    assert cassette.is_symlink() and not (suite.path / "shared").exists()


@pytest.mark.parametrize("mode", ["none", "once"])
def test_a_cassette_link_in_a_loop_is_named_and_removing_it_as_told_records_again(
    suite: pytest.Pytester, jev_server: Any, mode: str
) -> None:
    # On main: "cannot read cassette …: [Errno 40] Too many levels of symbolic links: …".
    cassette = record(suite, jev_server)
    cassette.unlink()
    cassette.symlink_to(cassette.name)
    _run(suite, mode).stdout.fnmatch_lines(
        [
            f"*cannot read cassette *test_claims.yaml: *test_claims.yaml is a symbolic link in a loop "
            f"(*test_claims.yaml -> {cassette.name}), which never reaches a file*",
            "*-> point it at a file, or remove the link (rm '*test_claims.yaml') and record the test again*",
        ]
    )
    assert cassette.is_symlink()
    cassette.unlink()
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)


def test_a_dangling_link_where_the_cassette_directory_should_be_is_named(
    suite: pytest.Pytester, jev_server: Any, offline: Offline
) -> None:
    cassette = record(suite, jev_server)
    shutil.rmtree(cassette.parent)
    cassette.parent.symlink_to("/nonexistent/ci-cache/test_app")
    offline()
    _run(suite, "none").stdout.fnmatch_lines(
        [
            "*cannot read cassette *test_claims.yaml: *test_app is a symbolic link to "
            "/nonexistent/ci-cache/test_app, which does not exist (a dangling link)*",
            "*-> restore the directory it points to, or remove the link (rm '*test_app') and record the test again*",
        ]
    )


def _line_end_inside_last_interaction(text: str) -> str:
    """Cut at the end of a line of the last answer's body (its JSON unfinished)."""
    return text[: text.rindex('"choice"')].rstrip(" ")


@pytest.mark.parametrize(
    "cut",
    [lambda text: text[: len(text) // 2], _line_end_inside_last_interaction, lambda text: text[:21]],
    ids=["mid-line", "line-end-in-the-answer", "in-the-head"],
)
def test_a_cassette_cut_short_says_it_ends_early_with_the_remedy(
    suite: pytest.Pytester, jev_server: Any, offline: Offline, cut: Any
) -> None:
    # On main: "does not match its digest: edited by hand?", "its response body is not JSON", or YAML's
    # "while scanning a simple key in "<unicode string>"", by where the file was cut.
    cassette = record(suite, jev_server)
    whole = cassette.read_text(encoding="utf-8")
    cassette.write_text(cut(whole), encoding="utf-8")
    offline()
    result = _run(suite, "none")
    result.stdout.fnmatch_lines(
        [
            "*CassetteError: citation 'aud': cannot read cassette *test_claims.yaml: the file ends early, * bytes): "
            "it is incomplete, as an interrupted copy or download, or a partial checkout, leaves a file",
            "*-> restore it from version control (git checkout -- '*test_claims.yaml'), or re-record with "
            "TYPESAFE_API_KEY=... pytest 'test_app.py::test_claims' --citecheck-record-mode=rewrite",
        ]
    )
    assert "by hand" not in result.stdout.str() and "<unicode string>" not in result.stdout.str()
    cassette.write_text(whole, encoding="utf-8")  # restored, as told
    suite.runpytest("--citecheck-record-mode=none").assert_outcomes(passed=1)


def test_a_cassette_cut_at_any_byte_says_it_ends_early(suite: pytest.Pytester, jev_server: Any) -> None:
    """Every cut of a real recording of one interaction is said to end early: just before its digest line
    too (on main: "has no digest: edited by hand?"), and just after it (on main: read as whole)."""
    from pytest_citecheck._recording.cassette_file import read_checked
    from pytest_citecheck._recording.damage import CassetteCutShortError

    whole = record(suite, jev_server).read_text(encoding="utf-8")
    read_checked(whole)
    not_cut_short = {}
    for end in range(1, len(whole)):
        try:
            read_checked(whole[:end])
        except CassetteCutShortError:
            continue
        except Exception as error:
            not_cut_short[end] = str(error)
        else:
            not_cut_short[end] = "read"
    assert not_cut_short == {}
