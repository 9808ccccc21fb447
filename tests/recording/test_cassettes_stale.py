"""A recording whose request no longer matches is a miss that says what changed and how to re-record."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from support import Offline

TEST_FILE = """
from cookbook import SOURCE

def test_claims(citecheck):
    citecheck.check([
        {{"id": "aud", "claim": {claim!r}, "quote": None, "section": {section!r}}},
    ], SOURCE, model={model!r})
"""


def write_test(
    suite: pytest.Pytester, claim: str = "A JWT can name its audience.", section: str = "4.1.3", model: str = "jev-1.12"
) -> None:
    suite.makepyfile(test_stale=TEST_FILE.format(claim=claim, section=section, model=model))


def record(suite: pytest.Pytester) -> None:
    write_test(suite)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)


@pytest.fixture
def recorded(suite: pytest.Pytester, jev_server: Any, recorded_once: Callable[..., None]) -> pytest.Pytester:
    """The unchanged test recorded: once per module, a copy of that recording in each later test."""
    recorded_once(suite, lambda: record(suite))
    return suite


def replay(suite: pytest.Pytester, offline: Offline) -> pytest.RunResult:
    offline()
    return suite.runpytest()


def test_an_edited_claim_names_the_citation_what_changed_and_the_command(
    suite, recorded, offline, canary_key, files_containing
):
    write_test(suite, claim="A JWT must name exactly one audience.")
    result = replay(suite, offline)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*CassetteMissError: citation 'aud': the cassette holds a recording of this citation, but its request changed: "
            "the claim changed: recorded 'A JWT can name its audience.', now 'A JWT must name exactly one audience.'*",
            "*re-record just this test: TYPESAFE_API_KEY=... pytest 'test_stale.py::test_claims' --citecheck-record-mode=rewrite*",
        ]
    )
    assert not files_containing(suite.path, canary_key)


def test_a_changed_section_shows_where_the_text_differs(suite, recorded, offline):
    text = (suite.path / "rfc7519.txt").read_text()
    (suite.path / "rfc7519.txt").write_text(
        text.replace("intended for.  Each principal", "intended for.  Every principal")
    )
    result = replay(suite, offline)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*citation 'aud': the cassette holds a recording of this citation, but its request changed: the section text changed "
            "(first difference at character *: recorded *Each␠principal*, now *Every␠principal*",
            "*--citecheck-record-mode=rewrite*",
        ]
    )


def test_a_changed_model_says_which_model_was_recorded_and_which_is_asked(suite, recorded, offline):
    write_test(suite, model="jev-1.13")
    result = replay(suite, offline)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*citation 'aud': * its request changed: recorded with model 'jev-1.12', the test now asks 'jev-1.13'*",
        ]
    )


def test_a_citation_never_recorded_keeps_the_plain_miss(suite, recorded, offline):
    write_test(suite, claim="Something else entirely.", section="4.1.4")
    result = replay(suite, offline)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*citation 'aud': no recorded answer matches this citation's request*"])
    result.stdout.no_fnmatch_line("*its request changed*")


def test_a_whitespace_only_change_of_the_section_is_shown_visibly(suite, recorded, offline):
    """A recording is of the section's exact text: a whitespace edit is a change, and the excerpt shows it."""
    text = (suite.path / "rfc7519.txt").read_text()
    assert text.count("intended for.  Each principal") == 1
    (suite.path / "rfc7519.txt").write_text(
        text.replace("intended for.  Each principal", "intended for. Each principal")
    )
    result = replay(suite, offline)
    result.assert_outcomes(failed=1)
    # Both spaces of the recording are visible, and the one the edit removed is missing from the new text.
    result.stdout.fnmatch_lines(
        [
            "*the section text changed (first difference at character *: "
            "recorded '*intended␠for.␠␠Each␠principal*', now '*intended␠for.␠Each␠principal*'*",
        ]
    )


def test_the_excerpt_shows_line_breaks_and_tabs() -> None:
    from pytest_citecheck._recording.lifecycle.stale import describe_change

    recorded = [{"state": {"claim": "c", "section": "A line\n   continued"}}]
    change = describe_change({"state": {"claim": "c", "section": "A line\n\tcontinued"}}, recorded)
    assert change is not None
    assert "recorded 'A␠line\\n␠␠␠continued'" in change and "now 'A␠line\\n\\tcontinued'" in change, change
