"""A cassette that is not valid YAML fails its citation with PyYAML's problem on one line, and where.

PyYAML says an error in three lines, its context first ("while scanning a simple key"), and the run's
summary shows a cause's first line only: it read ``aud (CassetteError: ... while parsing a flow sequence)``,
which says neither what is wrong nor where.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from support import Offline

from pytest_citecheck._recording.cassette_file import read_interactions
from pytest_citecheck._recording.damage import CassetteFormatError
from pytest_citecheck._recording.layout import END
from pytest_citecheck.testing import JevServer

TEST = """
from cookbook import SOURCE
from pytest_citecheck import assert_citations_supported

def test_claims():
    assert_citations_supported(
        [{"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"}], SOURCE
    )
"""
CASSETTE = ("cassettes", "test_app", "test_claims.yaml")


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        # A hand edit that broke the indentation of the request's first key.
        (
            lambda text: text.replace("    method: POST", "   method: POST", 1),
            "*it is not valid YAML: mapping values are not allowed * at line 6, column 8",
        ),
        # A list left open: PyYAML's context ("while parsing a flow sequence") no longer comes first.
        (
            lambda text: text.replace("- request:", "- [unclosed\n- request:", 1),
            "*it is not valid YAML: * at line *, column * (while parsing a flow sequence)",
        ),
    ],
    ids=["indentation", "unclosed"],
)
def test_a_cassette_that_is_not_yaml_says_what_and_where_on_one_line(
    suite: pytest.Pytester, jev_server: JevServer, offline: Offline, damage: Callable[[str], str], said: str
) -> None:
    suite.makepyfile(test_app=TEST)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    cassette = suite.path.joinpath(*CASSETTE)
    cassette.write_text(damage(cassette.read_text(encoding="utf-8")), encoding="utf-8")
    offline()
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"CassetteError: citation 'aud': cannot read cassette *test_claims.yaml: {said[1:]}"])
    # The summary's line (a cause's first line, cut in the middle to fit) now holds what is wrong.
    result.stdout.fnmatch_lines(["1 citation errored (no verdict): aud (CassetteError: * at line *, column *"])
    result.stdout.no_fnmatch_line("*INTERNALERROR*")


def test_every_reader_of_a_cassette_says_it_on_one_line(tmp_path: Path) -> None:
    """Said where the file is read (``read_checked``), so a rewrite's merge or ``--citecheck-unused=delete``
    reading a broken file says it as replay does."""
    path = tmp_path / "test_claims.yaml"
    path.write_text(f"citecheck_format: 3\nversion: 1\ninteractions:\n- [unclosed\n- request: {{}}\n{END}")
    with pytest.raises(CassetteFormatError) as raised:
        read_interactions(path)
    assert re.fullmatch(
        r"it is not valid YAML: .+ at line 5, column \d+ \(while parsing a flow sequence\)", str(raised.value)
    ), str(raised.value)
