"""What each report says a citation got (issue 26 items 4, 5 and 7).

- A misattributed citation shows the action it got, FAIL or warn, in the terminal table and the
  HTML card (whose colour is that action's, not its verdict's green); a contradicted card's
  confidence bar is not green.
- A citation checked twice in a test counts once, and the repeats are shown.
- The review hint names a command that finds this run's report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import html_report_cards

from pytest_citecheck._report.html import render_html
from pytest_citecheck._report.run_report import Report, review_hint

MISCITED = '{**pick("epoch_seconds")[0], "section": "3"}'  # the quote is in §2


def write_suite(suite: pytest.Pytester, call: str = "") -> None:
    suite.makepyfile(
        test_app=f"""
        from cookbook import SOURCE, pick
        from pytest_citecheck import assert_citations_supported

        def test_answer():
            assert_citations_supported([{MISCITED}, *pick("clock_skew")], SOURCE{call})
        """
    )


@pytest.fixture
def recorded(suite: pytest.Pytester, jev_server: Any, recorded_once: Any) -> pytest.Pytester:
    def record() -> None:
        write_suite(suite, ", misattributed='ignore'")
        suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)

    recorded_once(suite, record)
    return suite


def rows(suite: pytest.Pytester) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in json.loads((suite.path / "report.json").read_text())["results"]}


@pytest.mark.parametrize(("policy", "outcome", "action"), [("fail", "failed", "FAIL"), ("warn", "passed", "warn")])
def test_a_misattributed_citation_shows_the_action_it_got(
    recorded: pytest.Pytester, policy: str, outcome: str, action: str, browser: Any
) -> None:
    write_suite(recorded, f", misattributed={policy!r}")
    result = recorded.runpytest("--citecheck-json=report.json", "--citecheck-html=report.html", "-W", "ignore")
    result.assert_outcomes(**{outcome: 1})
    section = result.stdout.str().split("= citecheck =", 1)[1]
    assert f"  epoch_seconds  verified  0.94  {action}" in section
    assert "verified  0.94  auto" not in section.split("clock_skew")[0]  # never "auto" for the misattributed one
    assert rows(recorded)["epoch_seconds"].get("outcome") == ("fail" if policy == "fail" else None)
    card = html_report_cards(browser, recorded.path / "report.html")["epoch_seconds"]
    assert card.startswith(f'<article class="citation verified action-{action.lower()}"')
    assert f'<span class="tag action-{action.lower()}">{action}: misattributed</span>' in card


def _row(**fields: Any) -> dict[str, Any]:
    row = {"test": "t.py::test", "id": "c1", "status": "found", "section": "1", "verdict": "verified"}
    return {**row, "confidence": 0.95, "auto": True, "claim": "claim", "auto_accept": 0.8, **fields}


def test_a_contradicted_bar_is_not_green_and_a_failed_misattribution_is_red_in_a_browser(
    browser: Any, tmp_path: Path
) -> None:
    report = Report(
        [
            _row(id="mis", status="found-elsewhere", cited_section="3", outcome="fail"),
            _row(id="con", verdict="contradicted"),
            _row(id="ok"),
        ]
    )
    page = tmp_path / "report.html"
    page.write_text(render_html(report, generated="2026-01-01 00:00 UTC"))
    browser.get(page.as_uri())
    style = "return getComputedStyle(document.querySelector(arguments[0])).getPropertyValue(arguments[1])"
    red, green = "rgb(207, 34, 46)", "rgb(26, 127, 55)"
    assert (
        browser.execute_script(style, "article:has(#citation-1)", "border-left-color") == red
    )  # FAIL, not verified green
    assert browser.execute_script(style, "#citation-2 ~ dl .fill", "background-color") == red
    assert browser.execute_script(style, "#citation-3 ~ dl .fill", "background-color") == green
    browser.save_screenshot(str(tmp_path / "report.png"))


def test_repeated_checks_count_once_and_are_shown() -> None:
    report = Report([_row(id="a"), _row(id="a", verdict="contradicted"), _row(id="b")])
    lines = report.summary_lines()
    assert lines[0] == "2 citations checked in 1 test: 1 verified, 1 contradicted"  # the last check stands
    assert "1 repeated check counted once (the last check stands): t.py::test::a (2 times)." in lines
    assert report.counts() == {"verified": 1, "contradicted": 1}
    assert len(report.to_json()["results"]) == 3  # the JSON report keeps every check


def test_the_review_hint_names_a_report_the_command_finds() -> None:
    assert review_hint("out/my report.json", cached=True) == "run `citecheck review --report 'out/my report.json'`."
    assert review_hint(None, cached=True) == "run `citecheck review`."
    assert "--citecheck-json=PATH" in review_hint(None, cached=False)


def test_without_the_cache_provider_the_hint_says_to_write_a_report(recorded: pytest.Pytester) -> None:
    recorded.makepyfile(
        test_app="""
        from cookbook import SOURCE, pick
        from pytest_citecheck import check_citations

        def test_answer():
            check_citations(pick("clock_skew"), SOURCE, auto_accept=0.99)
        """
    )
    result = recorded.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["1 citation below auto_accept needs a human review: this run keeps no report for `citecheck review`*"]
    )
    assert "run `citecheck review`." not in result.stdout.str()
