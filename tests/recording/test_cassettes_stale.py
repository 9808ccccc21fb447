"""A recording whose request no longer matches is a miss that says what changed and how to re-record."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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


def edit_section(old: str, new: str) -> Callable[[pytest.Pytester], None]:
    def edit(suite: pytest.Pytester) -> None:
        text = (suite.path / "rfc7519.txt").read_text()
        assert text.count(old) == 1
        (suite.path / "rfc7519.txt").write_text(text.replace(old, new))

    return edit


@dataclass(frozen=True)
class Edit:
    """A change made after the recording, and the lines its replay's miss must print (and must not)."""

    apply: Callable[[pytest.Pytester], None]
    lines: list[str]
    absent: str | None = None


EDITS = {
    "an edited claim names the citation, what changed and the command": Edit(
        lambda suite: write_test(suite, claim="A JWT must name exactly one audience."),
        [
            "*CassetteMissError: citation 'aud': the cassette holds a recording of this citation, but its request changed: "
            "the claim changed: recorded 'A JWT can name its audience.', now 'A JWT must name exactly one audience.'*",
            "*re-record just this test: TYPESAFE_API_KEY=... pytest 'test_stale.py::test_claims' --citecheck-record-mode=rewrite*",
        ],
    ),
    "a changed section shows where the text differs": Edit(
        edit_section("intended for.  Each principal", "intended for.  Every principal"),
        [
            "*citation 'aud': the cassette holds a recording of this citation, but its request changed: the section text changed "
            "(first difference at character *: recorded *Each␠principal*, now *Every␠principal*",
            "*--citecheck-record-mode=rewrite*",
        ],
    ),
    "a changed model says which model was recorded and which is asked": Edit(
        lambda suite: write_test(suite, model="jev-1.13"),
        ["*citation 'aud': * its request changed: recorded with model 'jev-1.12', the test now asks 'jev-1.13'*"],
    ),
    "a citation never recorded keeps the plain miss": Edit(
        lambda suite: write_test(suite, claim="Something else entirely.", section="4.1.4"),
        ["*citation 'aud': no recorded answer matches this citation's request*"],
        absent="*its request changed*",
    ),
    # A recording is of the section's exact text: a whitespace edit is a change, and the excerpt shows
    # it: both spaces of the recording are visible, and the one the edit removed is missing from the new text.
    "a whitespace-only change of the section is shown visibly": Edit(
        edit_section("intended for.  Each principal", "intended for. Each principal"),
        [
            "*the section text changed (first difference at character *: "
            "recorded '*intended␠for.␠␠Each␠principal*', now '*intended␠for.␠Each␠principal*'*",
        ],
    ),
}


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_a_stale_recording_is_a_miss_that_says_what_changed(
    suite: pytest.Pytester,
    recorded: pytest.Pytester,
    offline: Offline,
    canary_key: str,
    files_containing: Callable[..., list[Any]],
    edit: Edit,
) -> None:
    edit.apply(suite)
    offline()
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(edit.lines)
    if edit.absent is not None:
        result.stdout.no_fnmatch_line(edit.absent)
    assert not files_containing(suite.path, canary_key)


def test_the_excerpt_shows_line_breaks_and_tabs() -> None:
    from pytest_citecheck._recording.lifecycle.stale import describe_change

    recorded = [{"state": {"claim": "c", "section": "A line\n   continued"}}]
    change = describe_change({"state": {"claim": "c", "section": "A line\n\tcontinued"}}, recorded)
    assert change is not None
    assert "recorded 'A␠line\\n␠␠␠continued'" in change and "now 'A␠line\\n\\tcontinued'" in change, change


def test_a_changed_claim_is_named_against_its_own_recording_among_its_sections_others() -> None:
    """Four citations of one section of R's language manual recorded, two claims edited: each miss names the
    recorded claim it was edited from, not the section's first recording (as it did when the batch of
    2026-12-06 replayed on past misses and listed both)."""
    from pytest_citecheck._recording.lifecycle.stale import describe_change

    section = "The exponentiation operator groups right to left. That is, 2 ^ 2 ^ 3 is 2⁸, not 4³."
    claims = [
        "2 ^ 2 ^ 3 evaluates to 2 to the 8th power.",
        "Exponentiation groups right to left.",
        "Subtraction groups left to right.",
    ]
    recorded = [{"state": {"claim": claim, "section": section}} for claim in claims]
    for claim in claims[1:]:
        change = describe_change({"state": {"claim": claim + " (changed)", "section": section}}, recorded)
        assert change == f"the claim changed: recorded {claim!r}, now {claim + ' (changed)'!r}", change
