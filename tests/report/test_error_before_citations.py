"""A test whose check raised before reading any citation has a row too (replay-all-misses, item 2).

Before, a test that failed on a source that cannot be read, an answer of a shape pytest-citecheck does
not know or an option error had no row: the terminal summary and the JSON report counted only the
other tests ("1 citation checked in 1 test: 1 verified"), so a report read alone showed a clean run;
only the GitHub step summary's "Not checked" table listed the test. Now such a test has one row, id
``(test error)``, verdict ``errored``, with the error; an error a citation's row already carries,
or a gate failure, adds none.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from support import INNER_INI, html_report_data

from pytest_citecheck._report.row import ReportRow
from pytest_citecheck.testing import JevServer

SUITE = """
from pytest_citecheck import Source, assert_citations_supported, check_citations

SOURCE = Source(sections={"1": "Refunds are granted within 30 days of purchase."})
GOOD = {"id": "good", "claim": "Refunds within 30 days.", "quote": "Refunds are granted within 30 days", "section": "1"}

def test_good():
    assert_citations_supported([GOOD], SOURCE)

def test_unreadable_source():
    assert_citations_supported([dict(GOOD, id="g2")], Source.from_file("missing.txt"))

def test_unknown_answer():
    assert_citations_supported(object(), SOURCE)

def test_option_error_after_a_check():
    check_citations([dict(GOOD, id="first")], SOURCE)
    assert_citations_supported([GOOD], SOURCE, auto_accept=7)

def test_fabricated():
    assert_citations_supported([dict(GOOD, id="fab", quote="Refunds are granted within 90 days")], SOURCE)
"""

PLACEHOLDER = "(test error)"


def _rows(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["results"]
    return rows


def _by_test(rows: list[dict[str, Any]]) -> dict[str, list[tuple[str, str, str | None]]]:
    found: dict[str, list[tuple[str, str, str | None]]] = {}
    for row in rows:
        error = row.get("error") or {}
        found.setdefault(row["test"].split("::")[1], []).append((row["id"], row["verdict"], error.get("type")))
    return found


def _assert_rows(rows: list[dict[str, Any]]) -> None:
    assert _by_test(rows) == {
        "test_good": [("good", "verified", None)],
        "test_unreadable_source": [(PLACEHOLDER, "errored", "SourceError")],
        "test_unknown_answer": [(PLACEHOLDER, "errored", "CitationInputError")],
        "test_option_error_after_a_check": [("first", "verified", None), (PLACEHOLDER, "errored", "OptionError")],
        # A gate failure is the fabricated citation's own row: no row of the test is added.
        "test_fabricated": [("fab", "fabricated", None)],
    }
    source = next(row for row in rows if row["test"].endswith("::test_unreadable_source"))
    assert source["error"]["message"] == "field 'source': missing.txt: no such file"
    assert source["confidence"] is None and source["auto"] is True
    for row in rows:
        ReportRow.from_json(row)  # the whole schema: a report file with such rows is read back (merge, review)


def test_a_check_that_raised_before_reading_citations_has_an_errored_row(
    pytester: pytest.Pytester, jev_server: JevServer
) -> None:
    pytester.makeini(INNER_INI)
    pytester.makepyfile(test_answers=SUITE)
    result = pytester.runpytest("--citecheck-record-mode=once", "--citecheck-json=r.json", "--citecheck-html=r.html")
    result.assert_outcomes(failed=4, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*6 citations checked in 5 tests: 2 verified, 1 fabricated, 3 errored",
            "*3 citations errored (no verdict): (test error) (SourceError: field 'source': missing.txt*",
        ]
    )
    _assert_rows(_rows(pytester.path / "r.json"))
    _, cards = html_report_data(pytester.path / "r.html")
    unread = [card for card in cards if card["i"] == PLACEHOLDER]
    assert [card["v"] for card in unread] == ["errored"] * 3
    assert all(card["w"] == "none: the error is the test's, not a citation's" for card in unread)

    # The report is read back whole: ``citecheck merge`` takes it as a shard.
    merged = pytester.run(sys.executable, "-m", "pytest_citecheck", "merge", "r.json", "-o", "merged.json")
    assert merged.ret == 0, merged.stderr.str()
    assert len(_rows(pytester.path / "merged.json")) == 6


def test_under_xdist_the_row_reaches_the_controller(pytester: pytest.Pytester, jev_server: JevServer) -> None:
    pytester.makeini(INNER_INI)
    pytester.makepyfile(test_answers=SUITE)
    result = pytester.runpytest_subprocess("--citecheck-record-mode=once", "--citecheck-json=r.json", "-n", "2")
    result.assert_outcomes(failed=4, passed=1)
    result.stdout.fnmatch_lines(["*6 citations checked in 5 tests: 2 verified, 1 fabricated, 3 errored"])
    _assert_rows(_rows(pytester.path / "r.json"))


def test_the_github_step_summary_counts_it(
    pytester: pytest.Pytester, jev_server: JevServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini(INNER_INI)
    pytester.makepyfile(test_answers=SUITE)
    summary = pytester.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_WORKSPACE", str(pytester.path))
    pytester.runpytest("--citecheck-record-mode=once").assert_outcomes(failed=4, passed=1)
    text = summary.read_text(encoding="utf-8")
    assert "## pytest-citecheck: 6 citations checked in 5 tests" in text
    assert "| errored | 3 |" in text
    assert "### Not checked: 3 tests with an error" in text


def _junit_properties(path: Path) -> dict[str, list[tuple[str, str]]]:
    cases = ET.parse(path).getroot().iter("testcase")
    return {
        case.get("name", ""): [(p.get("name", ""), p.get("value", "")) for p in case.iter("property")] for case in cases
    }


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["in-process", "xdist"])
def test_the_junit_file_has_the_row_as_properties(
    pytester: pytest.Pytester, jev_server: JevServer, xdist: list[str]
) -> None:
    # The "(test error)" row's verdict and error, as a citation's row has them (``citecheck.<id>.error``).
    pytester.makeini(INNER_INI)
    pytester.makepyfile(test_answers=SUITE)
    result = pytester.runpytest_subprocess("--citecheck-record-mode=once", "--junitxml=j.xml", *xdist)
    result.assert_outcomes(failed=4, passed=1)
    properties = _junit_properties(pytester.path / "j.xml")
    assert properties["test_unreadable_source"] == [
        ("citecheck.(test error).verdict", "errored"),
        ("citecheck.(test error).error", "SourceError: field 'source': missing.txt: no such file"),
    ]
    unknown = dict(properties["test_unknown_answer"])
    assert unknown["citecheck.(test error).error"].startswith("CitationInputError: field 'citations'")
    after = [name for name, _ in properties["test_option_error_after_a_check"]]
    assert after[:3] == ["citecheck.first.verdict", "citecheck.first.confidence", "citecheck.first.section"]
    assert after[3:] == ["citecheck.(test error).verdict", "citecheck.(test error).error"]
    assert dict(properties["test_option_error_after_a_check"])["citecheck.(test error).error"].startswith(
        "OptionError: "
    )
    # A gate failure is its citation's row: no "(test error)" property.
    assert not any("(test error)" in name for name, _ in properties["test_fabricated"])
