"""`citecheck calibrate`: auto_accept recommended from the human decisions in reviews files.

Reviews files here are written the way `citecheck review` writes them (``Reviews.record`` over
report rows) with a known overturn pattern, so each recommendation is known in advance; one test
records the decisions through a real pytest run and the real `citecheck review` command.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from support import INNER_INI

from pytest_citecheck._cli import main as citecheck
from pytest_citecheck._review.calibrate import (
    FIRM_DECISIONS,
    MIN_DECISIONS,
    THRESHOLDS,
    Z_95,
    wilson_interval,
    wilson_upper,
)
from pytest_citecheck._review.decisions import Reviews
from pytest_citecheck.testing import JevServer

MODEL = "jev-1.12"


def row(
    index: int,
    confidence: float,
    *,
    test: str = "tests/test_app.py::test_answer",
    model: str = MODEL,
    auto_accept: float = 0.8,
    scope: str | None = None,
    verdict: str = "verified",
) -> dict[str, Any]:
    """A report row of a judged citation, as the plugin writes it."""
    return {
        "test": test,
        "id": f"c{index:04d}",
        "claim": f"claim {index}",
        "section": "1",
        "verdict": verdict,
        "model_verdict": verdict,
        "confidence": confidence,
        "auto": confidence >= auto_accept,
        "model": model,
        "auto_accept": auto_accept,
        "auto_accept_scope": scope,
        "review_key": f"{test}|{index}|{model}",
    }


def write_reviews(path: Path, decided: Iterable[tuple[dict[str, Any], bool]]) -> Path:
    """A reviews file holding one decision per row: overturned (set to another verdict) or confirmed."""
    reviews = Reviews(path)
    for report_row, overturned in decided:
        reviews.record(report_row, "unsupported" if overturned else None, by="Ada", at="2026-01-15T10:00:00Z")
    reviews.save()
    return path


def pattern(
    counts: Iterable[tuple[float, int, int]], start: int = 0, **fields: Any
) -> list[tuple[dict[str, Any], bool]]:
    """``(confidence, decisions, overturned)`` per band -> decided rows, the overturned ones first in each band."""
    decided, index = [], start
    for confidence, total, overturned in counts:
        for n in range(total):
            decided.append((row(index, confidence, **fields), n < overturned))
            index += 1
    return decided


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = citecheck(["calibrate", *args, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


# 100 decided at 0.95 and 100 at 0.75, none overturned; 50 at 0.65, 10 of them overturned.
KNOWN = [(0.95, 100, 0), (0.75, 100, 0), (0.65, 50, 10)]


# --- the statistics -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("events", "trials", "low", "high"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I,
        # method 3 (Wilson score interval without continuity correction).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        # Wilson (1927) for 0 of n has the closed form z² / (n + z²).
        (0, 10, 0.0, 0.2775),
        (5, 10, 0.2366, 0.7634),
    ],
)
def test_wilson_interval_matches_published_values(events: int, trials: int, low: float, high: float) -> None:
    got_low, got_high = wilson_interval(events, trials)
    assert round(got_low, 4) == low and round(got_high, 4) == high


def test_wilson_upper_bound_exact_forms() -> None:
    assert Z_95 == pytest.approx(1.959963984540054, abs=1e-12)  # the exact quantile, not 1.96
    for trials in (1, 50, 200, 1000):
        assert wilson_upper(0, trials) == pytest.approx(Z_95**2 / (trials + Z_95**2), rel=1e-12)
        assert wilson_upper(trials, trials) == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)  # no evidence either way
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


# --- the recommendation -------------------------------------------------------------------


def test_a_known_overturn_pattern_gives_the_known_recommendation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_reviews(tmp_path / "citecheck-reviews.json", pattern(KNOWN))

    code, result = run_json(capsys)  # the default: every citecheck-reviews.json under the current directory

    assert code == 0
    # At 0.66 the 200 unturned decisions stand (bound 1.9%); from 0.65 down the 50 with 10 overturned
    # join them (10 of 250, bound 7.2%). The lowest threshold under 5% is 0.66.
    assert result["recommended"] == 0.66
    assert result["decisions"] == 250 and result["provisional"] is False and result["refused"] is False
    assert result["model"] == MODEL and result["current"] == 0.8
    assert [r["threshold"] for r in result["rows"]] == [n / 100 for n in range(50, 100)] == list(THRESHOLDS)
    at = {r["threshold"]: r for r in result["rows"]}
    assert (at[0.66]["stood"], at[0.66]["overturned"], at[0.66]["to_review"]) == (200, 0, 50)
    assert at[0.66]["upper_bound"] == pytest.approx(Z_95**2 / (200 + Z_95**2))
    assert (at[0.65]["stood"], at[0.65]["overturned"], at[0.65]["rate"]) == (250, 10, 0.04)
    assert at[0.65]["upper_bound"] == pytest.approx(wilson_upper(10, 250)) and at[0.65]["upper_bound"] > 0.05
    assert (at[0.96]["stood"], at[0.96]["rate"], at[0.96]["upper_bound"]) == (0, None, 1.0)
    # Today 150 citations need review (those at 0.75 and 0.65); at 0.66 only the 50 at 0.65.
    assert result["fewer_to_review"] == pytest.approx(100 / 150)
    assert result["summary"] == "auto_accept 0.8 → 0.66: 67% fewer citations to review, upper bound on errors 1.9%"

    # The terminal: the table marks today's setting and the recommendation, and ends with the line.
    assert citecheck(["calibrate"]) == 0
    out = capsys.readouterr().out
    assert "250 decisions under jev-1.12" in out
    assert "  >  0.66           200           0  0.0%       1.9%         50\n" in out
    assert "  *  0.80           100           0  0.0%       3.7%        150\n" in out
    assert out.rstrip().endswith("auto_accept 0.8 → 0.66: 67% fewer citations to review, upper bound on errors 1.9%")


def test_max_error_moves_the_recommendation_and_none_is_an_honest_null(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reviews = write_reviews(tmp_path / "r.json", pattern(KNOWN))
    _, loose = run_json(capsys, "--reviews", str(reviews), "--max-error", "0.08")
    assert loose["recommended"] == 0.5  # 10 of 250 (bound 7.2%) is within 8%
    code, strict = run_json(capsys, "--reviews", str(reviews), "--max-error", "0.01")
    assert code == 0 and strict["recommended"] is None and strict["upper_bound"] is None
    assert strict["summary"].startswith(
        "no threshold from 0.50 to 0.99 keeps the upper bound on errors at or below 1.0%"
    )


def test_reports_count_the_citations_no_human_looked_at(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    decided = pattern(KNOWN)
    reviews = write_reviews(tmp_path / "r.json", decided)
    # The run's report also holds 300 citations at 0.9 that stood on their own: nobody decided them.
    unseen = [row(1000 + n, 0.9) for n in range(300)]
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"version": 1, "results": [r for r, _ in decided] + unseen}))

    _, result = run_json(capsys, "--reviews", str(reviews), "--report", str(report))

    assert result["coverage_from"] == "reports" and result["decisions"] == 250
    at = {r["threshold"]: r for r in result["rows"]}
    assert at[0.66]["to_review"] == 50 and at[0.66]["coverage"] == pytest.approx(1 - 50 / 550)
    assert at[0.95]["to_review"] == 150 + 300  # the unseen 0.9s would need a human at 0.95
    assert result["recommended"] == 0.66 and result["fewer_to_review"] == pytest.approx(100 / 150)


# --- small samples --------------------------------------------------------------------------


def test_under_50_decisions_it_refuses_and_says_how_many_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reviews = write_reviews(tmp_path / "r.json", pattern([(0.9, MIN_DECISIONS - 1, 0)]))
    html = tmp_path / "calibration.html"

    assert citecheck(["calibrate", "--reviews", str(reviews)]) == 1
    out = capsys.readouterr().out
    assert "Refused: 49 decisions is too few to calibrate on; at least 50 are needed. Record 1 more" in out
    assert "auto_accept 0.8 →" not in out and "0.66" not in out  # no table, no recommendation

    code, result = run_json(capsys, "--reviews", str(reviews), "--html", str(html))
    assert code == 1
    assert result["recommended"] is None and result["refused"] is True and result["needed"] == 1
    assert result["decisions"] == 49 and result["provisional"] is True
    assert "record 1 more with `citecheck review`" in result["summary"]
    assert "Record 1 more" not in html.read_text() and "record 1 more" in html.read_text()
    assert "<svg" not in html.read_text()  # no plot to misread


@pytest.mark.parametrize(
    ("decisions", "provisional"), [(MIN_DECISIONS, True), (FIRM_DECISIONS - 1, True), (FIRM_DECISIONS, False)]
)
def test_under_200_decisions_the_result_is_provisional(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], decisions: int, provisional: bool
) -> None:
    reviews = write_reviews(tmp_path / "r.json", pattern([(0.9, decisions, 0)]))
    code, result = run_json(capsys, "--reviews", str(reviews))
    assert code == 0 and result["refused"] is False and result["provisional"] is provisional
    assert result["decisions"] == decisions
    citecheck(["calibrate", "--reviews", str(reviews)])
    out = capsys.readouterr().out
    assert (f"Provisional: {decisions} decisions; {FIRM_DECISIONS - decisions} more make it firm" in out) is provisional


# --- models ---------------------------------------------------------------------------------


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """60 decisions under jev-1.12 and 30 under jev-1.11, in one reviews file."""
    decided = pattern([(0.9, 60, 0)]) + pattern([(0.9, 30, 0)], start=500, model="jev-1.11")
    return write_reviews(tmp_path / "citecheck-reviews.json", decided)


def test_mixed_models_are_refused_unless_any_model(
    mixed: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(mixed.parent)
    html = mixed.parent / "calibration.html"
    assert citecheck(["calibrate", "--html", str(html)]) == 2
    err = capsys.readouterr().err
    assert "the decisions were recorded under several models (jev-1.11: 30, jev-1.12: 60)" in err
    assert "pass --model NAME" in err and "--any-model" in err and "Nothing was written." in err
    assert not html.exists()

    code, pooled = run_json(capsys, "--any-model")
    assert code == 0 and pooled["decisions"] == 90 and pooled["model"] is None
    assert pooled["models"] == {"jev-1.11": 30, "jev-1.12": 60} and pooled["left_out"] == {}


def test_decisions_under_another_model_than_the_pinned_one_are_left_out_and_counted(
    mixed: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(mixed.parent)
    code, result = run_json(capsys, "--model", "jev-1.12")
    assert code == 0 and result["decisions"] == 60 and result["left_out"] == {"jev-1.11": 30}
    assert result["model"] == "jev-1.12" and result["model_from"] == "given with --model"
    citecheck(["calibrate", "--model", "jev-1.12"])
    assert "left out: 30 decisions under other models (jev-1.11: 30)" in capsys.readouterr().out

    # The pin in the pytest configuration: only the 30 under jev-1.11 count, too few to calibrate.
    (mixed.parent / "pytest.ini").write_text("[pytest]\ncitecheck_model = jev-1.11\n")
    code, result = run_json(capsys)
    assert code == 1 and result["decisions"] == 30 and result["needed"] == 20
    assert result["left_out"] == {"jev-1.12": 60} and result["model_from"].startswith("citecheck_model in ")
    (mixed.parent / "pytest.ini").unlink()

    # The model the suite's latest report was answered by.
    report = mixed.parent / "report.json"
    report.write_text(json.dumps({"version": 1, "results": [row(0, 0.9)]}))
    _, result = run_json(capsys, "--report", str(report))
    assert result["model"] == "jev-1.12" and result["model_from"] == f"the model of the --report files: {report}"
    assert result["left_out"] == {"jev-1.11": 30}


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda text: text[: len(text) // 2], "is not valid JSON"),
        (lambda text: text.replace('"format": 2', '"format": 7'), "reviews format 7"),
        (lambda text: text.replace('"confidence": 0.9,', '"confidence": "high",', 1), "field 'confidence' is 'high'"),
        (lambda text: text.replace('"action": "confirm"', '"action": "maybe"', 1), "field 'action' is 'maybe'"),
    ],
)
def test_a_corrupt_reviews_file_is_a_clear_error_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: Any, message: str
) -> None:
    reviews = write_reviews(tmp_path / "citecheck-reviews.json", pattern([(0.9, 60, 0)]))
    reviews.write_text(damage(reviews.read_text()))
    before = reviews.read_bytes()
    html = tmp_path / "out" / "calibration.html"

    code = citecheck(["calibrate", "--reviews", str(reviews), "--html", str(html), "--json"])

    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert str(reviews) in captured.err and message in captured.err
    assert captured.err.rstrip().endswith("Nothing was written.")
    assert reviews.read_bytes() == before
    assert not html.exists() and not html.parent.exists()


def test_a_missing_reviews_file_or_report_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert citecheck(["calibrate", "--reviews", str(tmp_path / "nope.json")]) == 2
    assert f"no reviews file at {tmp_path / 'nope.json'}" in capsys.readouterr().err
    reviews = write_reviews(tmp_path / "r.json", pattern([(0.9, 60, 0)]))
    assert citecheck(["calibrate", "--reviews", str(reviews), "--report", str(tmp_path / "gone.json")]) == 2
    assert "gone.json: no such report" in capsys.readouterr().err
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps({"version": 1, "results": [{**row(1, 0.9), "auto_accept_scope": 5}]}))
    assert citecheck(["calibrate", "--reviews", str(reviews), "--report", str(hostile), "--by", "marker"]) == 2
    assert "result 0 (citation 'c0001'): field 'auto_accept_scope' is 5" in capsys.readouterr().err


def test_no_reviews_file_under_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Files in hidden directories and virtualenvs are not the suite's.
    (tmp_path / ".git").mkdir()
    write_reviews(tmp_path / ".git" / "citecheck-reviews.json", pattern([(0.9, 60, 0)]))
    (tmp_path / "venv").mkdir()
    (tmp_path / "venv" / "pyvenv.cfg").write_text("home = /usr\n")
    write_reviews(tmp_path / "venv" / "citecheck-reviews.json", pattern([(0.9, 60, 0)]))
    monkeypatch.chdir(tmp_path)
    assert citecheck(["calibrate"]) == 2
    assert f"no citecheck-reviews.json under {tmp_path}" in capsys.readouterr().err


def test_a_reviews_file_written_before_calibration_still_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reviews = write_reviews(tmp_path / "r.json", pattern(KNOWN))
    data = json.loads(reviews.read_text())
    for entry in data["decisions"].values():  # what `citecheck review` wrote before this feature
        del entry["auto_accept"], entry["auto_accept_scope"]
    reviews.write_text(json.dumps(data))

    _, result = run_json(capsys, "--reviews", str(reviews), "--by", "marker")

    assert result["recommended"] == 0.66 and result["current"] == 0.8
    assert result["current_from"].startswith("the default")
    (group,) = result["groups"]
    assert group["group"] == "(scope not recorded)" and group["paste"] is None
    citecheck(["calibrate", "--reviews", str(reviews), "--by", "marker"])
    assert "group them with --by test-module" in capsys.readouterr().out


# --- per scope ------------------------------------------------------------------------------


def test_one_recommendation_per_test_module_and_per_marker_scope(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    strict = "tests/test_legal.py::TestTerms"
    decided = (
        # test_app.py, no marker (auto_accept from the ini): the known pattern, 0.66.
        pattern(KNOWN)
        # test_legal.py::TestTerms, marker auto_accept=0.9: clean from 0.85 up, overturned at 0.7.
        + pattern(
            [(0.95, 80, 0), (0.85, 80, 0), (0.7, 40, 20)],
            start=1000,
            test=f"{strict}::test_answer",
            auto_accept=0.9,
            scope=strict,
        )
        # test_faq.py, a module-level pytestmark: only 30 decisions.
        + pattern([(0.9, 30, 0)], start=2000, test="tests/test_faq.py::test_answer", scope="tests/test_faq.py")
    )
    reviews = write_reviews(tmp_path / "r.json", decided)

    _, by_marker = run_json(capsys, "--reviews", str(reviews), "--by", "marker")
    groups = {group["group"]: group for group in by_marker["groups"]}
    assert set(groups) == {"(ini, flag or default)", strict, "tests/test_faq.py"}
    assert groups[strict]["recommended"] == 0.71 and groups[strict]["current"] == 0.9
    assert groups[strict]["paste"] == f"@pytest.mark.citecheck(auto_accept=0.71)  (on {strict})"
    assert groups["(ini, flag or default)"]["recommended"] == 0.66
    assert groups["(ini, flag or default)"]["paste"].startswith("citecheck_auto_accept = 0.66")
    assert groups["tests/test_faq.py"]["refused"] is True and groups["tests/test_faq.py"]["needed"] == 20
    assert groups["tests/test_faq.py"]["paste"] is None
    assert by_marker["decisions"] == 480 and len(groups[strict]["rows"]) == 50

    _, by_module = run_json(capsys, "--reviews", str(reviews), "--by", "test-module")
    modules = {group["group"]: group for group in by_module["groups"]}
    assert set(modules) == {"tests/test_app.py", "tests/test_legal.py", "tests/test_faq.py"}
    assert modules["tests/test_app.py"]["paste"] == (
        "pytestmark = pytest.mark.citecheck(auto_accept=0.66)  (in tests/test_app.py)"
    )
    # The class's own marker would win over a module-level one: the line says so.
    assert modules["tests/test_legal.py"]["paste"] == (
        "pytestmark = pytest.mark.citecheck(auto_accept=0.71)  (in tests/test_legal.py); the marker on "
        "tests/test_legal.py::TestTerms overrides it there: change that one too"
    )

    assert citecheck(["calibrate", "--reviews", str(reviews), "--by", "marker"]) == 0
    out = capsys.readouterr().out
    assert f"    paste: @pytest.mark.citecheck(auto_accept=0.71)  (on {strict})" in out
    assert (
        "  tests/test_faq.py: 30 decisions\n    too few decisions to calibrate: 30 decisions, 50 needed; record 20 more"
        in out
    )


# --- end to end: a real run, real `citecheck review` decisions --------------------------------

SCOPED_TESTS = """
import pytest
from pytest_citecheck import check_citations
from cookbook import SOURCE, pick

pytestmark = pytest.mark.citecheck(auto_accept=0.85)

def test_module_scope():
    check_citations(pick("pii_encryption"), SOURCE)

@pytest.mark.citecheck(auto_accept=0.97)
class TestStrict:
    def test_in_class(self):
        check_citations(pick("aud_reject"), SOURCE)

@pytest.mark.parametrize("name", ["clock_skew"])
@pytest.mark.citecheck(auto_accept=0.995)
def test_function_scope(name):
    check_citations(pick(name), SOURCE)
"""

PLAIN_TESTS = """
from pytest_citecheck import check_citations
from cookbook import SOURCE, pick

def test_plain():
    check_citations(pick("epoch_seconds"), SOURCE)
"""


def test_review_records_what_calibration_needs_and_calibrate_groups_by_it(
    suite: pytest.Pytester, jev_server: JevServer, capsys: pytest.CaptureFixture[str]
) -> None:
    suite.makepyfile(test_scoped=SCOPED_TESTS, test_plain=PLAIN_TESTS)
    suite.makeini(INNER_INI + f"citecheck_model = {MODEL}\n")
    suite.runpytest("--citecheck-record-mode=once", "--citecheck-json=report.json").assert_outcomes(passed=4)
    rows = {r["id"]: r for r in json.loads((suite.path / "report.json").read_text())["results"]}
    assert rows["pii_encryption"]["auto_accept_scope"] == "test_scoped.py"
    assert rows["aud_reject"]["auto_accept_scope"] == "test_scoped.py::TestStrict"
    assert rows["clock_skew"]["auto_accept_scope"] == "test_scoped.py::test_function_scope"
    assert rows["epoch_seconds"]["auto_accept_scope"] is None

    ids = ("pii_encryption", "aud_reject", "clock_skew", "epoch_seconds")
    accept = [arg for citation in ids for arg in ("--accept", citation)]
    # Some of these stood on their own: deciding those takes a note (citecheck review says why).
    assert citecheck(["review", "--report", "report.json", "--by", "Ada", "--note", "calibration sample", *accept]) == 0
    capsys.readouterr()
    entries = {
        e["citation"]: e for e in json.loads((suite.path / "citecheck-reviews.json").read_text())["decisions"].values()
    }
    assert {c: (e["auto_accept"], e["auto_accept_scope"]) for c, e in entries.items()} == {
        "pii_encryption": (0.85, "test_scoped.py"),
        "aud_reject": (0.97, "test_scoped.py::TestStrict"),
        "clock_skew": (0.995, "test_scoped.py::test_function_scope"),
        "epoch_seconds": (0.8, None),
    }
    assert (
        entries["pii_encryption"]["confidence"] == rows["pii_encryption"]["confidence"]
        and entries["pii_encryption"]["model"] == MODEL
    )

    # From the suite's directory: the reviews file is found, the model comes from the ini file.
    code, result = run_json(capsys, "--by", "marker")
    assert code == 1 and result["refused"] is True and result["needed"] == MIN_DECISIONS - 4
    assert result["model"] == MODEL and result["model_from"].startswith("citecheck_model in ")
    assert {g["group"]: g["decisions"] for g in result["groups"]} == {
        "test_scoped.py": 1,
        "test_scoped.py::TestStrict": 1,
        "test_scoped.py::test_function_scope": 1,
        "(ini, flag or default)": 1,
    }


def test_the_command_is_listed(capsys: pytest.CaptureFixture[str]) -> None:
    assert citecheck(["--help"]) == 0
    assert "calibrate" in capsys.readouterr().out
    assert math.isclose(THRESHOLDS[20], 0.7) and THRESHOLDS[20] == 0.7  # what a user types compares equal


def test_a_flagged_supports_never_stands_whatever_its_confidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    decided = pattern([(0.9, 60, 0)])
    flagged = {**row(900, 0.99), "flagged": True}  # the screen flagged it: the gate never lets it stand
    reviews = write_reviews(tmp_path / "r.json", [*decided, (flagged, True)])
    entry = next(e for e in json.loads(reviews.read_text())["decisions"].values() if e["citation"] == "c0900")
    assert entry["flagged"] is True
    _, result = run_json(capsys, "--reviews", str(reviews))
    at = {r["threshold"]: r for r in result["rows"]}
    assert (at[0.5]["stood"], at[0.5]["overturned"], at[0.99]["stood"]) == (60, 0, 0)
    assert at[0.99]["to_review"] == 61


def test_a_decision_from_an_older_report_leaves_the_scope_unknown(tmp_path: Path) -> None:
    older = row(1, 0.5)
    del older["auto_accept_scope"]  # a report written before rows carried it
    reviews = Reviews(tmp_path / "r.json")
    entry = reviews.record(older, None, by="Ada")
    assert "auto_accept_scope" not in entry and entry["auto_accept"] == 0.8
    assert reviews.record(row(2, 0.5), None, by="Ada")["auto_accept_scope"] is None  # known: the ini's


def test_a_page_that_cannot_be_written_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reviews = write_reviews(tmp_path / "r.json", pattern(KNOWN))
    (tmp_path / "taken").mkdir()
    assert citecheck(["calibrate", "--reviews", str(reviews), "--html", str(tmp_path / "taken")]) == 2
    err = capsys.readouterr().err
    assert (
        f"cannot write the page to {tmp_path / 'taken'}: it is a directory; give a file path" in err
        and "Nothing was written." in err
    )
    assert list((tmp_path / "taken").iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == [
        "r.json",
        "taken",
    ]
    assert citecheck(["calibrate", "--reviews", str(tmp_path / "taken")]) == 2
    assert "is a directory; --reviews takes reviews files" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pytest.ini", "[pytest]\ncitecheck_model = jev-1.11\n"),
        ("pytest.toml", '[pytest]\ncitecheck_model = "jev-1.11"\n'),  # pytest 9's own file
        (".pytest.toml", '[pytest]\ncitecheck_model = "jev-1.11"\n'),
        ("pyproject.toml", '[tool.pytest]\ncitecheck_model = "jev-1.11"\n'),  # pytest 9's native table
        ("pyproject.toml", '[tool.pytest.ini_options]\ncitecheck_model = "jev-1.11"\n'),
        ("tox.ini", "[pytest]\ncitecheck_model = jev-1.11\n"),
        ("setup.cfg", "[tool:pytest]\ncitecheck_model = jev-1.11\n"),
    ],
)
def test_the_model_pin_is_read_from_each_file_pytest_reads_it_from(tmp_path: Path, name: str, text: str) -> None:
    from pytest_citecheck._review.calibration_input import ini_model

    (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "tests").mkdir()
    assert ini_model(tmp_path / "tests") == ("jev-1.11", tmp_path / name)
    if name != "setup.cfg":  # a file later in pytest's order, in the same folder, is passed over as pytest does
        (tmp_path / "setup.cfg").write_text("[tool:pytest]\ncitecheck_model = jev-1.9\n", encoding="utf-8")
        assert ini_model(tmp_path / "tests") == ("jev-1.11", tmp_path / name)


def test_a_hostile_model_name_and_path_reach_the_terminal_harmlessly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model name and a file name are a shared file's text: an escape sequence in either (a window title
    set, the screen cleared) is printed visibly by the result and by an error, never raw."""
    hostile_model = "jev-1.12\x1b]0;pwned\x07\x1b[2J"
    folder = tmp_path / "evil\x1b[2Jdir"
    folder.mkdir()
    reviews = write_reviews(folder / "citecheck-reviews.json", pattern([(0.9, 60, 0)], model=hostile_model))
    assert citecheck(["calibrate", "--reviews", str(reviews), "--any-model"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b]0;pwned\\x07" in out and "evil\\x1b[2Jdir" in out
    assert citecheck(["calibrate", "--reviews", str(folder / "gone.json")]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "evil\\x1b[2Jdir" in err
