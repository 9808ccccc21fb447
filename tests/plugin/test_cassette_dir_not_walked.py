"""pytest does not walk a cassette directory that holds only cassettes, and still collects a test kept there.

A large suite holds thousands of cassettes; pytest would ask every installed plugin about each one
(``pytest_ignore_collect``, ``pytest_collect_file``) though none is a test. Observed here by what
reaches ``pytest_collect_file``, which pytest calls for every file of every directory it walks.
"""

from __future__ import annotations

import pytest

SEEN = """
import pathlib

SEEN = []

def pytest_collect_file(file_path):
    SEEN.append(file_path.relative_to(pathlib.Path(__file__).parent).as_posix())

def pytest_sessionfinish(session):
    (pathlib.Path(__file__).parent / "seen.txt").write_text("\\n".join(sorted(SEEN)))
"""


def _seen(pytester: pytest.Pytester) -> list[str]:
    return (pytester.path / "seen.txt").read_text().splitlines()


def _cassettes(pytester: pytest.Pytester, folder: str = "cassettes") -> None:
    for module in ("test_a", "test_b"):
        for test in ("test_one", "test_two"):
            path = pytester.path / folder / module / f"{test}.yaml"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("citecheck_format: 2\nversion: 1\ninteractions: []\n")


def test_a_directory_of_cassettes_is_not_walked(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SEEN)
    pytester.makepyfile(test_a="def test_one(): pass\ndef test_two(): pass")
    _cassettes(pytester)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)
    assert [path for path in _seen(pytester) if path.startswith("cassettes/")] == []
    assert "test_a.py" in _seen(pytester)


def test_without_the_plugin_pytest_walks_it(pytester: pytest.Pytester) -> None:
    """What the first test relies on: pytest reports each file of a directory it walks."""
    pytester.makeconftest(SEEN)
    pytester.makepyfile(test_a="def test_one(): pass")
    _cassettes(pytester)
    pytester.runpytest("-p", "no:citecheck", "-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert "cassettes/test_a/test_one.yaml" in _seen(pytester)


@pytest.mark.parametrize(
    "kept",
    ["test_inside.py", "test_a/test_inside.py", "README.txt"],
    ids=["a test module", "a test module deeper", "any other file"],
)
def test_a_cassette_directory_holding_anything_else_is_walked(pytester: pytest.Pytester, kept: str) -> None:
    pytester.makeconftest(SEEN)
    pytester.makepyfile(test_a="def test_one(): pass")
    _cassettes(pytester)
    path = pytester.path / "cassettes" / kept
    path.write_text("def test_inside(): pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1 if kept.endswith(".txt") else 2)
    assert f"cassettes/{kept}" in _seen(pytester)


def test_a_link_in_it_makes_it_walked(pytester: pytest.Pytester) -> None:
    """A link is not followed to decide (it could lead anywhere, or back up in a loop): pytest walks it as before."""
    pytester.makeconftest(SEEN)
    pytester.makepyfile(test_a="def test_one(): pass")
    _cassettes(pytester)
    elsewhere = pytester.path.parent / f"{pytester.path.name}-elsewhere"  # outside the suite
    elsewhere.mkdir()
    (elsewhere / "more.yaml").write_text("interactions: []\n")
    (pytester.path / "cassettes" / "linked").symlink_to(elsewhere, target_is_directory=True)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert "cassettes/test_a/test_one.yaml" in _seen(pytester)


def test_only_the_configured_cassette_directory_is_skipped(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SEEN)
    pytester.makepyfile(test_a="def test_one(): pass")
    _cassettes(pytester, "cassettes")
    _cassettes(pytester, "recordings")
    pytester.runpytest("-p", "no:cacheprovider", "--citecheck-cassette-dir=recordings").assert_outcomes(passed=1)
    seen = _seen(pytester)
    assert any(path.startswith("cassettes/") for path in seen)
    assert not any(path.startswith("recordings/") for path in seen)
