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
