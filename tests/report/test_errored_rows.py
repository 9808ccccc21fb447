"""A citation whose check raised has a row of its own, verdict ``errored`` (hunt-wrong-passes-4 N3).

Before, such a citation had no row at all: a test replayed in CI whose second citation's claim had
changed since recording failed on the cassette miss, yet the terminal summary and the JSON report said
"1 citation checked in 1 test: 1 verified", so a dashboard reading the report saw everything verified.
Now every citation of the call has a row: the errored one names its cause (the exception's class and
message, known secrets cut out), one never asked because an earlier one raised says so, and the counts
add up (checked = verified + ... + errored) in the terminal, the JSON, the HTML page, the GitHub step
summary and the JUnit properties, with xdist too.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from support import CANARY_KEY, html_report_cards, html_report_data

from pytest_citecheck.testing import JevServer, Reply

SUITE = """
import os
from pytest_citecheck import Source, assert_citations_supported

SOURCE = Source(sections={
    "1": "Refunds are granted within 30 days of purchase.",
    "2": "Shipping is free for orders over 50 euros.",
    "3": "Gift cards cannot be exchanged for cash.",
})
GOOD = {"id": "good", "claim": "Refunds within 30 days.", "quote": "Refunds are granted within 30 days", "section": "1"}
LATE = {"id": "late", "claim": "Free shipping over 50 euros" + os.environ.get("EXTRA", ""),
        "quote": "Shipping is free for orders over 50 euros", "section": "2"}
GIFT = {"id": "gift", "claim": "Gift cards are not refundable in cash.", "quote": "Gift cards cannot be exchanged", "section": "3"}

def test_three():
    assert_citations_supported([GOOD, LATE, GIFT], SOURCE)

def test_fine():
    assert_citations_supported([dict(GOOD, id="fine")], SOURCE)
"""


def _rows(path: Path) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in json.loads(path.read_text(encoding="utf-8"))["results"]}


def _recorded_then_changed(suite: pytest.Pytester, jev_server: JevServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Record both tests, then change LATE's claim and go offline as CI is: LATE's request misses."""
    suite.makepyfile(test_answers=SUITE)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=2)
    monkeypatch.setenv("EXTRA", " (changed after recording)")
    monkeypatch.delenv("TYPESAFE_API_KEY")
    monkeypatch.setenv("TYPESAFE_BASE_URL", "http://127.0.0.1:9")


def _assert_errored_rows(rows: dict[str, dict[str, Any]]) -> None:
    assert [rows[name]["verdict"] for name in ("good", "late", "gift", "fine")] == [
        "verified",
        "errored",
        "verified",
        "verified",
    ]
    late, gift = rows["late"], rows["gift"]
    assert late["error"]["type"] == "CassetteMissError"
    assert late["error"]["message"].startswith("citation 'late': the cassette holds a recording of this citation")
    assert late["status"] == "found" and late["confidence"] is None and late["test"].endswith("::test_three")
    # Replay goes on past a miss: the citation after it is judged from its recording
    # (tests/recording/test_replay_every_miss.py); recording stops at the first error (the API error test below).
    assert "error" not in gift and gift["confidence"] is not None
    assert "error" not in rows["good"]


def test_a_cassette_miss_on_replay_has_an_errored_row_and_the_counts_add_up(
    suite: pytest.Pytester, jev_server: JevServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _recorded_then_changed(suite, jev_server, monkeypatch)
    result = suite.runpytest(
        "--citecheck-record-mode=none", "--citecheck-json=r.json", "--citecheck-html=r.html", "--junitxml=j.xml"
    )
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*4 citations checked in 2 tests: 3 verified, 1 errored",
            "*late*errored*-*error*",
            "*1 citation errored (no verdict): late (CassetteMissError: citation 'late': the cassette holds*",
        ]
    )
    _assert_errored_rows(_rows(suite.path / "r.json"))

    _, cards = html_report_data(suite.path / "r.html")
    late = next(card for card in cards if card["i"] == "late")
    assert late["v"] == "errored" and late["a"] == "error"
    assert any(extra[0] == "Error" and "CassetteMissError" in str(extra[2]) for extra in late["x"])
    page = (suite.path / "r.html").read_text(encoding="utf-8")
    assert '<option value="errored">errored (1)</option>' in page
    assert '<span class="n">1</span>the check raised an error: no verdict' in page

    properties = {
        prop.get("name"): prop.get("value") for prop in ET.parse(suite.path / "j.xml").getroot().iter("property")
    }
    assert properties["citecheck.late.verdict"] == "errored"
    assert properties["citecheck.late.error"].startswith("CassetteMissError: citation 'late'")
    assert properties["citecheck.good.verdict"] == "verified"


def test_chromium_draws_the_errored_card_with_its_cause(
    suite: pytest.Pytester, jev_server: JevServer, monkeypatch: pytest.MonkeyPatch, browser: Any
) -> None:
    _recorded_then_changed(suite, jev_server, monkeypatch)
    suite.runpytest("--citecheck-record-mode=none", "--citecheck-html=r.html").assert_outcomes(failed=1, passed=1)
    cards = html_report_cards(browser, suite.path / "r.html")
    assert 'class="citation errored"' in cards["late"] and 'class="badge errored"' in cards["late"]
    assert "<dt>Error</dt>" in cards["late"] and "<strong>CassetteMissError</strong>: citation 'late'" in cards["late"]
    assert "errored" not in cards["gift"] and "errored" not in cards["good"]


def test_under_xdist_the_errored_rows_reach_the_controller(
    suite: pytest.Pytester, jev_server: JevServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _recorded_then_changed(suite, jev_server, monkeypatch)
    result = suite.runpytest_subprocess("--citecheck-record-mode=none", "--citecheck-json=r.json", "-n", "2")
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["*4 citations checked in 2 tests: 3 verified, 1 errored"])
    _assert_errored_rows(_rows(suite.path / "r.json"))


def test_the_github_step_summary_counts_the_errored_rows(
    suite: pytest.Pytester, jev_server: JevServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _recorded_then_changed(suite, jev_server, monkeypatch)
    summary = suite.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_WORKSPACE", str(suite.path))
    suite.runpytest("--citecheck-record-mode=none").assert_outcomes(failed=1, passed=1)
    text = summary.read_text(encoding="utf-8")
    assert "## pytest-citecheck: 4 citations checked in 2 tests" in text
    assert "| verified | 3 |" in text and "| errored | 1 |" in text


def test_an_api_error_while_recording_is_an_errored_row_without_the_key(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server's error echoes the key it was sent (a misconfigured proxy does): the row's cause must not.
    def answer(claim: str, section: str) -> Any:
        if "shipping" in claim.lower():
            return Reply(400, {"detail": f"request refused for key {CANARY_KEY}"})
        return ("supports", 0.95)

    suite.makepyfile(test_answers=SUITE)
    with JevServer(answer) as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        monkeypatch.setenv("TYPESAFE_API_KEY", CANARY_KEY)
        result = suite.runpytest(
            "--citecheck-record-mode=once", "--citecheck-concurrency=1", "--citecheck-json=r.json", "-k", "three"
        )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*3 citations checked in 1 test: 1 verified, 2 errored"])
    rows = _rows(suite.path / "r.json")
    late = rows["late"]
    assert late["verdict"] == "errored" and late["error"]["type"] == "JudgeError"
    assert "400" in late["error"]["message"] and "citation 'late'" in late["error"]["message"]
    assert CANARY_KEY not in (suite.path / "r.json").read_text(encoding="utf-8")


def test_an_invalid_citation_has_an_errored_row_naming_its_field(suite: pytest.Pytester, jev_server: JevServer) -> None:
    suite.makepyfile(
        test_bad="""
        from pytest_citecheck import Source, assert_citations_supported

        SOURCE = Source(sections={"1": "Refunds are granted within 30 days of purchase."})

        def test_bad():
            assert_citations_supported(
                [
                    {"id": "good", "claim": "Refunds within 30 days.", "quote": "Refunds are granted", "section": "1"},
                    {"id": "ghost", "claim": "Refunds within 30 days.", "quote": None, "section": "9"},
                ],
                SOURCE,
            )
        """
    )
    result = suite.runpytest("--citecheck-record-mode=once", "--citecheck-json=r.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*2 citations checked in 1 test: 1 verified, 1 errored"])
    ghost = _rows(suite.path / "r.json")["ghost"]
    assert (ghost["status"], ghost["verdict"], ghost["error"]["type"]) == ("invalid", "errored", "CitationInputError")
    assert "citation 'ghost', field 'section'" in ghost["error"]["message"]
