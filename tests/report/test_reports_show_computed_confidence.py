"""Every report shows the computed confidence beside the reported one where the gate used it (issue 24,
item 9), and an ``altered`` citation's JSON row carries the words its elision removed.

Probabilities 0.86/0.07/0.07 give 0.79 by TypeSafe's formula; a reported 0.81 is read (within the
0.02 tolerance) but the gate uses 0.79, so the citation goes to review. Not only the gate's own
warning but the terminal summary, the JSON report, the HTML report and the GitHub step summary say
``0.81 (computed 0.79)``: a reader of any of them sees why a 0.81 did not stand at 0.8. A real pytest
run through ``pytester``, recording through the real SDK from the loopback ``JevServer``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import CANARY_KEY, INNER_INI, html_report_cards

from pytest_citecheck.testing import JevServer

SUITE = """
from pytest_citecheck import Source, assert_citations_supported

SOURCE = Source(sections={
    "1": "Refunds are granted within 30 days of purchase, on request.",
    "2": "Customers of the shop must not share their account passwords with anyone at all.",
})

def test_review():
    assert_citations_supported(
        [{"id": "r1", "claim": "Refunds are possible for 30 days.", "quote": "granted within 30 days", "section": "1"}],
        SOURCE,
    )

def test_altered():
    assert_citations_supported(
        [{"id": "alt", "claim": "Customers may share passwords.",
          "quote": "Customers of the shop must … share their account passwords", "section": "2"}],
        SOURCE,
    )
"""


def _answer(claim: str, section: str) -> dict[str, Any]:
    probabilities = {"supports": 0.86, "contradicts": 0.07, "says_nothing": 0.07}
    return {"type": "choice", "choice": "supports", "probabilities": probabilities, "confidence": 0.81}


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[pytest.RunResult, Path]]:
    pytester.makeini(INNER_INI)
    pytester.makepyfile(test_app=SUITE)
    summary = pytester.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    with JevServer(_answer) as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        monkeypatch.setenv("TYPESAFE_API_KEY", CANARY_KEY)
        result = pytester.runpytest(
            "--citecheck-record-mode=once", "--citecheck-json=r.json", "--citecheck-html=r.html"
        )
    result.assert_outcomes(passed=1, failed=1)
    yield result, pytester.path


def test_the_terminal_summary_shows_the_computed_confidence(run: tuple[pytest.RunResult, Path]) -> None:
    result, _ = run
    section = result.stdout.str().split("= citecheck =", 1)[1]
    row = next(line for line in section.splitlines() if line.strip().startswith("r1 "))
    assert row.split()[:5] == ["r1", "verified", "0.81", "(computed", "0.79)"]
    assert "review" in row.split()


def test_the_json_report_carries_the_computed_confidence_and_the_removed_words(
    run: tuple[pytest.RunResult, Path],
) -> None:
    _, path = run
    rows = {row["id"]: row for row in json.loads((path / "r.json").read_text())["results"]}
    assert rows["r1"]["confidence"] == 0.81 and rows["r1"]["computed_confidence"] == 0.79
    assert rows["alt"]["status"] == "altered" and rows["alt"]["removed"] == ["not"]
    assert "computed_confidence" not in rows["alt"] and "removed" not in rows["r1"]
    # The report reads back (the schema allows both fields).
    from pytest_citecheck._report.run_report import Report

    loaded = {row.id: row for row in Report.load(path / "r.json").rows}
    assert loaded["r1"].confidence_cell == "0.81 (computed 0.79)" and loaded["alt"].removed == ("not",)


def test_the_html_report_shows_the_computed_confidence_and_the_removed_words(
    run: tuple[pytest.RunResult, Path], browser: Any
) -> None:
    _, path = run
    cards = html_report_cards(browser, path / "r.html")
    assert "0.81 (computed 0.79) (threshold 0.80)" in cards["r1"]
    # The bar is drawn at what the gate used, below the threshold.
    assert 'aria-label="confidence 0.81 (computed 0.79), below the auto_accept threshold 0.80"' in cards["r1"]
    assert 'style="width: 79%;"' in cards["r1"]
    assert "the elision removes <q>not</q>" in cards["alt"]


def test_the_github_step_summary_shows_the_computed_confidence(run: tuple[pytest.RunResult, Path]) -> None:
    _, path = run
    summary = (path / "step-summary.md").read_text()
    review = summary.split("### Needs a human review", 1)[1]
    assert "| r1 | verified | 0.81 (computed 0.79) | 0.8 |" in review
