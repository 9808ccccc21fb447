"""Rows the plugin built in this run are taken without the whole row schema; rows from files are not.

A serial run, and the xdist controller taking its workers' batches, take the rows our own code built
from typed results (``ReportRow.built``: a cheap check of the required fields and those read from a
file); a report read back, or rows handed to ``Report`` as JSON, are checked field by field
(``ReportRow.from_json``). A malformed batch from a worker fails the run with a line saying what is
wrong, never an internal error.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import pytest_citecheck._report.row as row_module
from pytest_citecheck._report import schema
from pytest_citecheck._report.row import ReportRow, RowError
from pytest_citecheck._report.run_report import Report, ReportError

IDS = ["epoch_seconds", "aud_reject", "clock_skew", "exp_required", "pii_encryption", "iat_future"]

# Counts the whole-schema checks made where the run's report is gathered (serial run or xdist controller).
COUNTING = """
import pytest_citecheck._report.row as row

CALLS = {"validate": 0}
_real = row.validate


def _counted(data):
    CALLS["validate"] += 1
    return _real(data)


def pytest_configure(config):
    row.validate = _counted


def pytest_unconfigure(config):
    row.validate = _real


def pytest_terminal_summary(terminalreporter, config):
    if not hasattr(config, "workerinput"):
        terminalreporter.write_line(f"ROWS VALIDATED HERE: {CALLS['validate']}")
"""


def _write_tests(suite: pytest.Pytester) -> int:
    """Six tests of two citations each (one of them cited twice over the suite); the number of rows."""
    body = "from cookbook import SOURCE, pick\n"
    for index in range(6):
        pair = [IDS[index], IDS[(index + 1) % len(IDS)]]
        body += f"\ndef test_{index}(citecheck):\n    citecheck.check(pick(*{pair!r}), SOURCE, model='jev-1.12')\n"
    suite.makepyfile(test_rows=body)
    return 12


def _validated(result: pytest.RunResult) -> int:
    [line] = [line for line in result.stdout.lines if line.startswith("ROWS VALIDATED HERE:")]
    return int(line.rsplit(" ", 1)[1])


def _rows(path: Path) -> list[dict[str, Any]]:
    return sorted(json.loads(path.read_text())["results"], key=lambda row: (row["test"], row["id"]))


def test_built_rows_skip_the_schema_serial_and_on_the_xdist_controller_but_a_report_read_back_does_not(
    suite: pytest.Pytester, jev_server: Any, offline: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = _write_tests(suite)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=6)
    offline()
    suite.makeconftest(COUNTING)

    serial = suite.runpytest("--citecheck-json=serial.json")
    serial.assert_outcomes(passed=6)
    assert _validated(serial) == 0  # the trusted path: not one row checked against the whole schema
    spread = suite.runpytest("-n", "2", "--citecheck-json=spread.json")
    spread.assert_outcomes(passed=6)
    assert _validated(spread) == 0  # the controller takes its workers' batches the same way
    assert _rows(suite.path / "spread.json") == _rows(suite.path / "serial.json")
    assert len(_rows(suite.path / "serial.json")) == rows

    # Read back from the file, every row is checked (and each one the plugin built passes the whole schema).
    calls: list[Any] = []
    real = schema.validate

    def counted(data: Any) -> None:
        calls.append(data)
        real(data)

    monkeypatch.setattr(row_module, "validate", counted)
    report = Report.load(suite.path / "serial.json")
    assert len(calls) == rows == len(report)
    # The same rows taken as built are the same rows: every field, and the JSON written back.
    built = [ReportRow.built(row.to_json()) for row in report.rows]
    assert built == report.rows
    assert [row.to_json() for row in built] == [row.to_json() for row in report.rows]
    assert len(calls) == rows  # ReportRow.built did not validate


def test_a_hostile_row_from_a_file_or_handed_in_as_json_is_still_refused(tmp_path: Path) -> None:
    row = {"test": "t.py::test_a", "id": "c1", "verdict": "verified", "auto": True, "confidence": "high"}
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"version": 1, "results": [row]}))
    with pytest.raises(ReportError, match=r"result 0 \(citation 'c1'\): field 'confidence' is 'high'"):
        Report.load(path)
    with pytest.raises(RowError, match="field 'confidence' is 'high'"):
        Report([row])
    with pytest.raises(RowError, match="field 'confidence' is 'high'"):
        Report().extend([row])


# In each xdist worker, its batches are damaged as ``CHANGE`` says before they are shipped. A batch is
# compact (``shipping``): ``without(batch, name)`` and ``replaced(batch, name, value)`` change a field of
# every row.
DAMAGING = """
import json
import pytest_citecheck._pytest_glue.shipping as shipping


def without(batch, name):
    rows = []
    for row in batch["rows"]:
        keys = batch["layouts"][row[0]]
        rows.append([row[0]] + [value for key, value in zip(keys, row[1:]) if key != name])
    layouts = [[key for key in keys if key != name] for keys in batch["layouts"]]
    return json.dumps({**batch, "layouts": layouts, "rows": rows})


def replaced(batch, name, value):
    rows = []
    for row in batch["rows"]:
        keys = batch["layouts"][row[0]]
        rows.append([row[0]] + [value if key == name else old for key, old in zip(keys, row[1:])])
    return json.dumps({**batch, "rows": rows})


def _damaged(take):
    def damaged(self):
        text = take(self)
        if text is None:
            return None
        batch = json.loads(text)
        return CHANGE

    return damaged


def pytest_configure(config):
    if hasattr(config, "workerinput"):
        shipping.Shipment.take = _damaged(shipping.Shipment.take)
"""

DAMAGES = {
    "another-format": (
        "json.dumps({**batch, 'format': 0})",
        "*the report leaves out a batch of rows from xdist worker gw0: it is batch format 0, not 2: "
        "does the worker run another pytest-citecheck?; the run fails",
    ),
    "not-json": (
        "text[:-1]",
        "*the report leaves out a batch of rows from xdist worker gw0: it is not JSON; the run fails",
    ),
    "no-locations": (
        "json.dumps({**batch, 'locations': [1]})",
        "*a batch of rows from xdist worker gw0: it has no locations of its tests*",
    ),
    "row-without-verdict": (
        "without(batch, 'verdict')",
        "*the report leaves out a batch of 12 rows from xdist worker gw0: a row (citation '*'): "
        "no field 'verdict'; the run fails",
    ),
    "previous-damaged": (
        "replaced(batch, 'previous', {'drift': 5})",
        "*a batch of 12 rows from xdist worker gw0: a row (citation '*'): field 'previous' is {'drift': 5}, "
        "expected an object with drift, verdict and confidence, or null; the run fails",
    ),
    "row-longer-than-its-layout": (
        "json.dumps({**batch, 'rows': [row + [1] for row in batch['rows']]})",
        "*a batch of rows from xdist worker gw0: it has a row (number 0) that is not ?layout, one value per field?; the run fails",
    ),
    "no-such-layout": (
        "json.dumps({**batch, 'rows': [[len(batch['layouts'])] + row[1:] for row in batch['rows']]})",
        "*a batch of rows from xdist worker gw0: it has a row (number 0) that is not ?layout, one value per field?; the run fails",
    ),
    "shared-value-out-of-range": (
        "replaced(batch, 'section_text', len(batch['values']))",
        "*a batch of rows from xdist worker gw0: it has a row (number 0) whose field 'section_text' is not a "
        "shared value; the run fails",
    ),
    "layout-naming-a-field-twice": (
        "json.dumps({**batch, 'layouts': [keys[:-1] + [keys[0]] for keys in batch['layouts']]})",
        "*a batch of rows from xdist worker gw0: it has no list of layouts (field names, each once); the run fails",
    ),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_malformed_batch_from_a_worker_fails_the_run_with_one_line(
    damage: str, suite: pytest.Pytester, jev_server: Any, offline: Any
) -> None:
    _write_tests(suite)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=6)
    offline()
    change, line = DAMAGES[damage]
    suite.makeconftest(DAMAGING.replace("CHANGE", change))
    result = suite.runpytest("-n", "1", "--citecheck-json=r.json")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines([line])
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # fails closed: the report is incomplete
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert json.loads((suite.path / "r.json").read_text())["results"] == []  # the batch is left out whole


def test_a_row_reads_each_field_as_the_dataclass_holds_it_whichever_way_it_is_taken() -> None:
    data: dict[str, Any] = {
        "test": "t.py::test_a",
        "id": "c1",
        "status": "found",
        "section": "4.1",
        "verdict": "verified",
        "confidence": 1,
        "auto": True,
        "claim": None,
        "span": [3, 9],
        "auto_accept": 1,
        "probabilities": {"supports": 0.9},
        "replayed": True,
        "shared": None,
        "flagged": False,
        "questions": {},
        "decision": {"verdict": "verified", "by": "ana"},
        "sections": ["1", "2"],
        "quotes": ["a", "b"],
        "spans": [[0, 1], [2, 3]],
        "removed": ["not"],
        "auto_accept_scope": None,
        "extra": [1, 2, 3],
    }
    expected = ReportRow(
        id="c1",
        verdict="verified",
        auto=True,
        test="t.py::test_a",
        status="found",
        section="4.1",
        confidence=1,
        span=(3, 9),
        auto_accept=1.0,
        replayed=True,
        questions={},
        decision={"verdict": "verified", "by": "ana"},
        sections=("1", "2"),
        quotes=("a", "b"),
        spans=((0, 1), (2, 3)),
        removed=("not",),
        has_scope=True,
    )
    for row in (ReportRow.from_json(data), ReportRow.built(data)):
        assert row == expected
        assert row.claim == "" and row.shared is False and isinstance(row.auto_accept, float)
        assert row.to_json() == data and row.get("extra") == [1, 2, 3] and row.has("probabilities")
    assert ReportRow.built({**data, "auto_accept_scope": "ini"}) == replace(expected, auto_accept_scope="ini")
    # Without the optional fields: every default.
    bare = ReportRow.built({"id": "c2", "verdict": "fabricated", "auto": False})
    assert bare == ReportRow(id="c2", verdict="fabricated", auto=False)
    assert bare.questions == {} and bare.auto_accept == 0.8 and bare.has_scope is False and bare.span is None
