"""Two tests never share a cassette file: a lost recording would replay as a miss, or as another test's answers.

A name that needs no change stays as it is (``test_p[a.b].yaml``: committed cassettes keep their
names); a name with characters a file name cannot hold is sanitised and gets a digest of the raw
test name (``test_p[a::b]`` is not ``test_p[a.b]``); and a session whose tests would still map to
one file (two modules of the same name sharing a cassette directory) fails them, naming both.
"""

from __future__ import annotations

import shutil
from typing import Any

import pytest
from support import Offline

from pytest_citecheck._recording.paths import cassette_name, without_repeat_step

PARAMETRISED = """
import pytest
from cookbook import SOURCE, pick

@pytest.mark.parametrize("case", ["a::b", "a.b", "plain"])
def test_p(citecheck, case):
    citecheck.check(pick({"a::b": "clock_skew", "a.b": "aud_reject", "plain": "epoch_seconds"}[case]), SOURCE)
"""


def test_ids_that_differ_only_in_separators_get_their_own_cassettes_and_replay(
    suite: pytest.Pytester, jev_server: Any, offline: Offline
) -> None:
    suite.makepyfile(test_app=PARAMETRISED)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=3)
    names = sorted(p.name for p in (suite.path / "cassettes" / "test_app").iterdir())
    assert len(names) == 3, names
    # Names that needed nothing keep their plain form; the sanitised one carries a digest.
    assert "test_p[a.b].yaml" in names and "test_p[plain].yaml" in names
    [odd] = [n for n in names if n not in ("test_p[a.b].yaml", "test_p[plain].yaml")]
    assert odd.startswith("test_p[a__b]-") and ":" not in odd
    assert len(jev_server.systemone_requests) == 3

    offline()
    suite.runpytest().assert_outcomes(passed=3)  # each test finds its own recording


def test_pytest_repeat_copies_replay_and_record_the_tests_own_cassettes(
    suite: pytest.Pytester, jev_server: Any, offline: Offline, plugin_or_skip: Any
) -> None:
    """pytest-repeat runs ``test_p[a.b]`` as ``test_p[a.b-1-2]`` and ``test_p[a.b-2-2]``: copies of the test.

    Found on a user-like suite with pytest-repeat 0.9.4: ``pytest --count 3`` failed every test that
    checks citations with a cassette miss, whose remedy recorded a cassette per copy.
    """
    plugin_or_skip("pytest_repeat", "pytest-repeat")
    suite.makepyfile(
        test_app=PARAMETRISED + "\ndef test_plain(citecheck):\n    citecheck.check(pick('iat_future'), SOURCE)\n"
    )
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=4)
    folder = suite.path / "cassettes" / "test_app"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert len(before) == 4

    offline()
    suite.runpytest("-p", "repeat", "--count", "2").assert_outcomes(passed=8)  # every copy replays
    # Recording under --count writes the tests' own cassettes, the same bytes, and no copy's file.
    suite.runpytest("-p", "repeat", "--count", "2", "--citecheck-record-mode=once").assert_outcomes(passed=8)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_the_repeat_step_rule() -> None:
    assert without_repeat_step("test_p[1-3]", 0) == "test_p"
    assert without_repeat_step("test_p[a.b-2-3]", 1) == "test_p[a.b]"
    assert without_repeat_step("t.py::C::test_p[x-1-3-3]", 2) == "t.py::C::test_p[x-1]"
    assert without_repeat_step("test_p[a-2-3]", 0) == "test_p[a-2-3]"  # not this copy's id: left alone
    assert without_repeat_step("test_p[1-3]", "0") == "test_p[1-3]"


def test_the_name_rule() -> None:
    assert cassette_name("test_p[a.b]") == "test_p[a.b].yaml"
    assert cassette_name("TestGroup.test_p[x-1]") == "TestGroup.test_p[x-1].yaml"
    sanitised = cassette_name("test_p[a::b]")
    assert sanitised.startswith("test_p[a__b]-") and sanitised != cassette_name("test_p[a__b]")
    assert cassette_name("test_p[a::b]") != cassette_name("test_p[a:/b]")


SAME_NAME_MODULE = """
from pytest_citecheck import Source, assert_citations_supported
import pathlib

SOURCE = Source.from_file(pathlib.Path(__file__).parent.parent / "rfc7519.txt")

def test_one():
    assert_citations_supported(
        [{{"id": "c", "claim": {claim!r}, "quote": None, "section": "4.1.3"}}], SOURCE, model="jev-1.12"
    )
"""


def test_modules_of_one_name_in_two_folders_get_their_own_folders_in_a_shared_cassette_directory(
    suite: pytest.Pytester, jev_server: Any, offline: Any
) -> None:
    """Issue 25 item 1: outside the test's directory, cassette paths mirror the test file's path from the rootdir."""
    for folder, claim in (("a", "A JWT can name its audience."), ("b", "A JWT can be rejected.")):
        (suite.path / folder).mkdir()
        (suite.path / folder / "test_x.py").write_text(SAME_NAME_MODULE.format(claim=claim))
    args = ("--import-mode=importlib", "--citecheck-cassette-dir=../shared", "a", "b")
    suite.runpytest(*args, "--citecheck-record-mode=once").assert_outcomes(passed=2)
    recorded = sorted(str(path.relative_to(suite.path)) for path in (suite.path / "shared").rglob("*.yaml"))
    assert recorded == ["shared/a/test_x/test_one.yaml", "shared/b/test_x/test_one.yaml"]
    offline()
    result = suite.runpytest(*args, "--citecheck-unused=delete")
    result.assert_outcomes(passed=2)
    assert "Deleted" not in result.stdout.str() and "orphan" not in result.stdout.str()
    assert sorted(str(path.relative_to(suite.path)) for path in (suite.path / "shared").rglob("*.yaml")) == recorded


def test_the_docs_show_the_name_the_code_gives() -> None:
    from support import REPO

    assert f"`{cassette_name('test_p[a::b]')}`" in (REPO / "docs" / "cassettes.md").read_text(encoding="utf-8")


def test_a_space_in_a_name_is_replaced_and_digested() -> None:
    # docs/cassettes.md once listed the space among the characters kept as they are; the rule has always
    # replaced it (a user's id "sp ace" gave test_p[sp_ace]-0ddd4bc2.yaml), and changing it would rename
    # committed cassettes.
    named = cassette_name("test_p[sp ace]")
    assert named.startswith("test_p[sp_ace]-") and " " not in named


CONFIG_OUTSIDE_TEST = """
from pytest_citecheck import assert_citations_supported
from cookbook import SOURCE, pick

def test_answer():
    assert_citations_supported(pick("aud_reject"), SOURCE)
"""


def _configured_in_ci(suite: pytest.Pytester, inner_ini: str) -> None:
    """The project of hunt-install's F7: its configuration in ``ci/pytest.ini`` with a shared
    ``../cassettes``, its test file in ``tests/``, outside that rootdir."""
    (suite.path / "ci").mkdir()
    (suite.path / "ci" / "pytest.ini").write_text(
        inner_ini + "citecheck_model = jev-1.12\ncitecheck_cassette_dir = ../cassettes\npythonpath = ..\n",
        encoding="utf-8",
    )
    (suite.path / "tests").mkdir()
    (suite.path / "tests" / "test_claims.py").write_text(CONFIG_OUTSIDE_TEST, encoding="utf-8")


def _replays_elsewhere(suite: pytest.Pytester, offline: Any, monkeypatch: pytest.MonkeyPatch, recorded: str) -> None:
    """A copy of the project at another path replays offline, finds no orphan and deletes nothing."""
    moved = suite.path.parent / f"{suite.path.name}-elsewhere"
    shutil.copytree(suite.path, moved)
    offline()
    monkeypatch.chdir(moved)
    result = suite.runpytest("-c", "ci/pytest.ini", "tests", "--citecheck-unused=delete")
    result.assert_outcomes(passed=1)
    assert "Deleted" not in result.stdout.str() and "orphan" not in result.stdout.str()
    assert (moved / recorded).is_file()


def test_a_test_file_outside_the_rootdir_records_where_another_checkout_finds_it(
    suite: pytest.Pytester, jev_server: Any, offline: Any, inner_ini: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """hunt-install F7: with the configuration in a subfolder (``pytest -c ci/pytest.ini tests``: rootdir
    ``ci/``) and a shared cassette directory, a test file lies outside the rootdir; its cassette folder
    mirrored the file's whole path (``cassettes/tmp/pytest-of-root/…/tests/test_claims/``), so a checkout
    anywhere else missed every cassette. It mirrors the path from the directory the two share."""
    _configured_in_ci(suite, inner_ini)
    args = ("-c", "ci/pytest.ini", "tests")
    suite.runpytest(*args, "--citecheck-record-mode=once").assert_outcomes(passed=1)
    recorded = sorted(str(path.relative_to(suite.path)) for path in (suite.path / "cassettes").rglob("*.yaml"))
    assert recorded == ["cassettes/tests/test_claims/test_answer.yaml"]

    # Another checkout of the project, at another path, replays it (and finds no orphan to delete).
    _replays_elsewhere(suite, offline, monkeypatch, recorded[0])


def test_a_project_reached_through_a_symbolic_link_records_where_another_checkout_finds_it(
    suite: pytest.Pytester, jev_server: Any, offline: Any, inner_ini: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """hunt-links: ``cd`` into a project through a symbolic link and ``pytest -c "$PWD/ci/pytest.ini" tests``:
    the rootdir keeps the link's path (``/tmp/hunt-links/f7link/ci``), the test files have the physical one
    (``/tmp/hunt-links/f7/tests``), and the two shared only ``/tmp/hunt-links``: the cassettes went to
    ``cassettes/f7/tests/…``, named after the checkout's directory, which a checkout anywhere else missed."""
    _configured_in_ci(suite, inner_ini)
    link = suite.path.parent / f"{suite.path.name}-link"
    link.symlink_to(suite.path, target_is_directory=True)
    args = ("-c", str(link / "ci" / "pytest.ini"), "tests")
    suite.runpytest(*args, "--citecheck-record-mode=once").assert_outcomes(passed=1)
    recorded = sorted(str(path.relative_to(suite.path)) for path in suite.path.rglob("*.yaml"))
    assert recorded == ["cassettes/tests/test_claims/test_answer.yaml"]

    # Another checkout, at another path and reached without a link, replays it and deletes nothing.
    _replays_elsewhere(suite, offline, monkeypatch, recorded[0])


def test_a_test_directory_reached_through_a_link_inside_the_rootdir_uses_the_directorys_cassettes(
    suite: pytest.Pytester, jev_server: Any, offline: Any, inner_ini: str
) -> None:
    """A test directory reached through a symbolic link inside the rootdir (``suite -> tests``, run as
    ``pytest suite``) recorded under the link's name (``cassettes/suite/...``) with a shared cassette
    directory, so the same test run as ``pytest tests`` missed its cassette, and the other way round.
    The cassette is the same whichever path reaches the test: the physical one's."""
    suite.makeini(inner_ini + "citecheck_model = jev-1.12\ncitecheck_cassette_dir = ../cassettes\npythonpath = .\n")
    (suite.path / "tests").mkdir()
    (suite.path / "tests" / "test_claims.py").write_text(CONFIG_OUTSIDE_TEST, encoding="utf-8")
    (suite.path / "suite").symlink_to("tests", target_is_directory=True)
    suite.runpytest("suite", "--citecheck-record-mode=once").assert_outcomes(passed=1)
    recorded = sorted(str(path.relative_to(suite.path)) for path in (suite.path / "cassettes").rglob("*.yaml"))
    assert recorded == ["cassettes/tests/test_claims/test_answer.yaml"]

    offline()
    for reached in ("tests", "suite"):
        result = suite.runpytest(reached, "--citecheck-unused=delete")
        result.assert_outcomes(passed=1)
        assert "Deleted" not in result.stdout.str() and "orphan" not in result.stdout.str()
    assert (suite.path / recorded[0]).is_file()
