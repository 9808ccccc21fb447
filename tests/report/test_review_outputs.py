"""What reviewers and CI read besides the HTML page: JUnit properties and the terminal summary."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from support import REPO, REVIEW_SUITE, html_report_data

from pytest_citecheck.testing import JevServer


@pytest.fixture
def recording(suite: pytest.Pytester, jev_server: JevServer, inner_ini: str) -> pytest.Pytester:
    suite.makeini(inner_ini + "citecheck_model = jev-1.12\n")
    suite.makepyfile(test_it=REVIEW_SUITE)
    return suite


def properties(junit: ET.Element, test_name: str) -> list[tuple[str, str]]:
    (case,) = [case for case in junit.iter("testcase") if case.get("name") == test_name]
    return [(prop.get("name"), prop.get("value")) for prop in case.iter("property")]


def assert_each_citations_verdict_confidence_and_section_once(junit: ET.Element) -> None:
    assert properties(junit, "test_one") == [
        ("citecheck.aud_reject.verdict", "verified"),
        ("citecheck.aud_reject.confidence", "0.94"),
        ("citecheck.aud_reject.section", "4.1.3"),
    ]
    twice = properties(junit, "test_three_checked_twice")
    assert len(twice) == len(set(twice)) == 9  # checked twice, listed once
    assert dict(twice) == {
        "citecheck.aud_reject.verdict": "verified",
        "citecheck.aud_reject.confidence": "0.94",
        "citecheck.aud_reject.section": "4.1.3",
        "citecheck.pii_encryption.verdict": "unsupported",
        "citecheck.pii_encryption.confidence": "0.28",
        "citecheck.pii_encryption.section": "3",
        "citecheck.sig_reporting.verdict": "fabricated",
        "citecheck.sig_reporting.confidence": "-",
        "citecheck.sig_reporting.section": "",
    }


def test_the_reporting_page_shows_a_fabricated_citations_properties_as_junit_gets_them(
    recording: pytest.Pytester,
) -> None:
    # The page said a fabricated quote's confidence property is empty; it is "-", as everywhere a
    # confidence is missing (its section is empty). Found reading a real run's JUnit file.
    recording.runpytest("--citecheck-record-mode=once", "--junitxml=junit.xml").assert_outcomes(passed=2)
    real = dict(properties(ET.parse(recording.path / "junit.xml").getroot(), "test_three_checked_twice"))
    page = (REPO / "docs" / "reporting.md").read_text(encoding="utf-8")
    snippet = page[page.index("## JUnit XML") :].split("```xml", 1)[1].split("```", 1)[0]
    shown = dict(re.findall(r'<property name="(citecheck\.sig_reporting\.\w+)" value="([^"]*)"/>', snippet))
    assert shown == {name: value for name, value in real.items() if name.startswith("citecheck.sig_reporting.")}


def test_junit_has_each_citations_verdict_confidence_and_section_once(recording: pytest.Pytester) -> None:
    recording.runpytest("--citecheck-record-mode=once", "--junitxml=junit.xml").assert_outcomes(passed=2)
    assert_each_citations_verdict_confidence_and_section_once(ET.parse(recording.path / "junit.xml").getroot())


def test_under_xdist_junit_has_each_citations_verdict_confidence_and_section_once(xdist_run) -> None:
    assert_each_citations_verdict_confidence_and_section_once(ET.parse(xdist_run.path / "junit.xml").getroot())


# An app whose first answer misquotes RFC 7519 and whose second is right: pytest-rerunfailures runs the
# same item again, and its user_properties keep what the first try recorded.
FLAKY_SUITE = """
import pathlib
from pytest_citecheck import assert_citations_supported
from cookbook import SOURCE, pick

def test_flaky():
    tries = pathlib.Path("tries")
    tried = int(tries.read_text()) if tries.exists() else 0
    tries.write_text(str(tried + 1))
    citation = dict(pick("aud_reject")[0])
    if tried == 0:
        citation["quote"] = "A JWT MUST be rejected when its audience is missing."
    assert_citations_supported([citation], SOURCE)
"""


def test_a_rerun_tests_junit_lists_each_citation_once_from_the_try_that_stands(
    recording: pytest.Pytester, plugin_or_skip: Any
) -> None:
    # Found with pytest-rerunfailures 16.7 on a user's suite: the passing try's testcase listed
    # citecheck.aud_reject.verdict twice, "fabricated" first, then "verified".
    plugin_or_skip("pytest_rerunfailures", "pytest-rerunfailures")
    recording.makepyfile(test_it=FLAKY_SUITE)
    result = recording.runpytest(
        "-p", "rerunfailures", "--reruns", "1", "--citecheck-record-mode=once", "--junitxml=junit.xml"
    )
    assert result.parseoutcomes() == {"passed": 1, "rerun": 1}
    cases = [case for case in ET.parse(recording.path / "junit.xml").getroot().iter("testcase")]
    final = [(prop.get("name"), prop.get("value")) for prop in cases[-1].iter("property")]
    assert final == [
        ("citecheck.aud_reject.verdict", "verified"),
        ("citecheck.aud_reject.confidence", "0.94"),
        ("citecheck.aud_reject.section", "4.1.3"),
    ]


def test_terminal_summary_counts_with_plurals_and_prices_what_was_sent(
    recording: pytest.Pytester, jev_server: JevServer
) -> None:
    first = recording.runpytest("--citecheck-record-mode=once", "--citecheck-json=report.json")
    rows = json.loads((recording.path / "report.json").read_text())["results"]
    judged = [row for row in rows if row["confidence"] is not None]
    tokens = sum(row["input_tokens"] for row in judged)
    assert len(judged) == 5 and tokens > 0
    price = f"${tokens * 0.042 / 1e6:.6f}"
    # aud_reject asked three times, pii_encryption twice: two requests left the machine, three were
    # answered with a copy (identical requests are sent once per run), and only the two are spent.
    sent = [row for row in judged if not row.get("shared")]
    assert len(jev_server.systemone_requests) == len(sent) == 2
    spent = f"${sum(row['input_tokens'] for row in sent) * 0.042 / 1e6:.6f}"
    first.stdout.fnmatch_lines(
        [
            # Checked twice in one test, counted once (issue 26 item 5): 4 distinct of 7 checks.
            "4 citations checked in 2 tests: 2 verified, 1 unsupported, 1 fabricated",
            "*",
            "3 repeated checks counted once (the last check stands): "
            "test_it.py::test_three_checked_twice::aud_reject (2 times), *",
            # The hint names the report this run wrote (issue 26 item 7).
            "1 citation below auto_accept needs a human review: run `citecheck review --report report.json`.",
            f"Jev: 5 requests, {tokens:,} input tokens = {price} at $0.042 per million; 0 replayed, 2 sent, 3 shared ({spent} spent by this run)",
        ]
    )
    replayed = recording.runpytest("-k", "test_one")
    replayed.stdout.fnmatch_lines(
        [
            "1 citation checked in 1 test: 1 verified",
            "Jev: 1 request, * input tokens = $0.0000* at $0.042 per million; 1 replayed, 0 sent ($0.000000 spent by this run)",
        ]
    )
    assert "need a human review" not in replayed.stdout.str() and "needs a human review" not in replayed.stdout.str()


def test_verbose_summary_lists_every_citation_with_section_and_test(recording: pytest.Pytester) -> None:
    result = recording.runpytest("--citecheck-record-mode=once", "-v")
    result.stdout.fnmatch_lines(
        [
            "  id * verdict * conf * action * section * test",
            "  aud_reject * verified * 0.94 * auto * 4.1.3 * test_it.py::test_one",
            "  pii_encryption * unsupported * 0.28 * review * 3 * test_it.py::test_three_checked_twice",
            "  sig_reporting * fabricated * - * auto * - * test_it.py::test_three_checked_twice",
        ]
    )


def test_under_xdist_the_controller_writes_one_html_report_with_every_row(xdist_run) -> None:
    _, cards = html_report_data(xdist_run.path / "report.html")
    rows = json.loads((xdist_run.path / "r.json").read_text())["results"]
    assert len(cards) == 10 == len(rows) - 3  # one card per citation; the three checked twice say so
    assert [card["i"] for card in cards if card["v"] == "errored"] == ["aud_reject"]  # test_bad_input's invalid one
    assert [card.get("k") for card in cards].count(2) == 3
    assert not list(xdist_run.path.glob(".report.html.*.tmp"))  # written atomically, nothing left behind
    assert "HTML report: report.html" in xdist_run.stdout


def test_under_xdist_no_worker_writes_the_json_or_html_report(xdist_run) -> None:
    """Workers send their rows to the controller and write no report of their own: when each worker
    had finished, no report file existed yet; the controller wrote them all after."""
    ends = {end.stem: json.loads(end.read_text()) for end in (xdist_run.path / "worker-ends").glob("*.json")}
    assert sorted(ends) == ["gw0", "gw1"], xdist_run.stdout[-3000:]
    for worker, seen in ends.items():
        assert seen == {"r.json": False, "report.html": False, "junit.xml": False}, worker
    assert all((xdist_run.path / name).is_file() for name in ("r.json", "report.html", "junit.xml"))
