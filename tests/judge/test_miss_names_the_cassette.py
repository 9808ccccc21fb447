"""A replay with no cassette file names the file it looked for (found installing the wheel into a user
project, hunt-install): the miss said "the cassette is missing" without saying which, so a user whose
cassettes were looked for elsewhere (another rootdir, another cassette directory) had nothing to go on."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import AUD_REJECT_TEST

from pytest_citecheck._judge.failures import translate_error
from pytest_citecheck._recording.replay import ReplayMiss
from pytest_citecheck.testing import JevServer


def test_a_replay_under_another_rootdir_names_the_cassette_it_looked_for(
    suite: pytest.Pytester, jev_server: JevServer, inner_ini: str
) -> None:
    # A shared cassette directory mirrors each test file's path from the rootdir (docs/cassettes.md):
    # recorded with the project's rootdir, replayed with --rootdir=tests, it is looked for elsewhere.
    suite.makeini(inner_ini + "citecheck_model = jev-1.12\ncitecheck_cassette_dir = ../cassettes\npythonpath = .\n")
    tests = suite.mkdir("tests")
    (tests / "test_claims.py").write_text(AUD_REJECT_TEST, encoding="utf-8")
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    recorded = suite.path / "cassettes" / "tests" / "test_claims" / "test_answer.yaml"
    assert recorded.is_file()

    result = suite.runpytest("--rootdir=tests")
    result.assert_outcomes(failed=1)
    looked_for = suite.path / "cassettes" / "test_claims" / "test_answer.yaml"  # not cassettes/tests/test_claims/
    result.stdout.fnmatch_lines(
        [
            "*CassetteMissError: citation 'aud_reject': no recorded answer matches this citation's request: "
            f"its cassette {looked_for} does not exist*"
        ]
    )
    suite.runpytest().assert_outcomes(passed=1)  # with the rootdir it was recorded under, it replays


def test_a_cassette_that_exists_but_misses_is_not_called_absent(tmp_path: Path) -> None:
    cassette = tmp_path / "test_answer.yaml"
    cassette.write_text("interactions: []\n", encoding="utf-8")
    miss = translate_error("c1", ReplayMiss(cassette, {"a": 1}, []), record_hint="pytest x")
    assert miss is not None and "does not exist" not in str(miss)
    absent = translate_error("c1", ReplayMiss(tmp_path / "gone.yaml", {"a": 1}, []), record_hint="pytest x")
    assert absent is not None and f"its cassette {tmp_path / 'gone.yaml'} does not exist" in str(absent)
