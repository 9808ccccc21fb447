"""Reports are written as a stream and rows are held once (issue 27, item 5).

- A run keeps each checked citation once, in its ``Report``, compactly: the test reports pytest keeps
  to the end of the run no longer carry the row objects too.
- The JSON and HTML reports are written row by row, still atomically: what is written is exactly
  what one ``json.dumps`` would give, and a write that fails half-way leaves the old report whole.

The HTML report's size per citation, at 20,000 citations, is asserted in ``test_html_report.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_citecheck._report import html_cards
from pytest_citecheck._report.html import html_chunks, write_html
from pytest_citecheck._report.row import ReportRow
from pytest_citecheck._report.run_report import Report

HOSTILE = {
    "test": 't.py::test["\\n"]',
    "id": 'id "with"\nline\u2028break',
    "verdict": "verified",
    "auto": True,
    "claim": "ünïcode </script> <b>",
    "probabilities": {"supports": 0.9, "contradicts": 0.05, "says_nothing": 0.05},
    "questions": {"scope": {"yes": 0.4, "concern": 0.6, "flagged": True}},
    "span": [0, 3],
    "decision": None,
    "an_unknown_field": {"kept": [1, 2]},
}


@pytest.mark.parametrize(
    ("rows", "unused", "orphans"),
    [
        ([HOSTILE, {"id": "b", "verdict": "fabricated", "auto": True}], [], []),
        ([], [], []),
        ([HOSTILE], [{"test": "t", "cassette": "c"}], ["o.yaml"]),
    ],
    ids=["rows", "empty", "unused-and-orphans"],
)
def test_the_streamed_json_is_what_one_dump_gives(
    tmp_path: Path, rows: list[dict[str, Any]], unused: list[dict[str, Any]], orphans: list[str]
) -> None:
    report = Report(rows)
    report.unused, report.orphans = unused, orphans
    report.write(tmp_path / "r.json")
    expected = (
        json.dumps(
            {"version": 1, "results": rows, **({"unused": unused, "orphans": orphans} if unused or orphans else {})},
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )
    assert (tmp_path / "r.json").read_text() == expected
    assert [row.to_json() for row in Report.load(tmp_path / "r.json").rows] == rows  # every field, in order


@pytest.mark.parametrize(
    "rows", [[HOSTILE, {"id": "b", "verdict": "fabricated", "auto": True}], []], ids=["rows", "empty"]
)
def test_the_compact_json_is_the_same_report_a_row_to_a_line(tmp_path: Path, rows: list[dict[str, Any]]) -> None:
    """What pytest's cache keeps for ``citecheck review``: the same JSON as the report, written by the json
    module's C encoder (``indent`` takes its pure-Python one), each row on a line of its own."""
    report = Report(rows)
    report.unused, report.orphans = [{"test": "t", "cassette": "c"}], ["o.yaml"]
    report.write(tmp_path / "indented.json")
    report.write(tmp_path / "compact.json", compact=True)
    compact = (tmp_path / "compact.json").read_text()
    assert json.loads(compact) == json.loads((tmp_path / "indented.json").read_text())
    assert [row.to_json() for row in Report.load(tmp_path / "compact.json").rows] == rows
    lines = compact.split("\n")  # not splitlines(): a row's text may hold U+2028, a line break to it
    assert [json.loads(line.strip().rstrip(",")) for line in lines[3 : 3 + len(rows)]] == rows


def test_a_row_keeps_its_fields_in_order_without_its_dict() -> None:
    row = ReportRow.from_json(dict(HOSTILE))
    assert list(row.to_json()) == list(HOSTILE) and row.to_json() == HOSTILE
    assert row.has("decision") and not row.has("outcome") and row.get("an_unknown_field") == {"kept": [1, 2]}
    assert not hasattr(row, "__dict__")
    other = ReportRow.from_json({**HOSTILE, "id": "other"})
    assert other.layout is row.layout  # rows of one shape share their keys


class _Broken(Exception):
    pass


def test_a_report_that_fails_half_way_leaves_the_old_one_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "report.json"
    Report([HOSTILE]).write(path)
    before = path.read_text()
    rows = [{**HOSTILE, "id": f"c{n}"} for n in range(50)]
    report = Report(rows)
    real = ReportRow.to_json

    def failing(row: ReportRow) -> dict[str, Any]:
        if row.id == "c40":
            raise _Broken
        return real(row)

    monkeypatch.setattr(ReportRow, "to_json", failing)
    with pytest.raises(_Broken):
        report.write(path)
    real_card = html_cards.card

    def failing_card(row: ReportRow, checks: int, test: int, section: int | None) -> dict[str, Any]:
        if row.id == "c40":
            raise _Broken
        return real_card(row, checks, test, section)

    monkeypatch.setattr(html_cards, "card", failing_card)
    with pytest.raises(_Broken):
        write_html(report, tmp_path / "report.html")
    assert path.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]  # no half-written temp file left


def test_the_html_page_comes_a_card_at_a_time() -> None:
    report = Report([{**HOSTILE, "id": f"c{n}", "test": f"t.py::test[{n % 3}]"} for n in range(30)])
    chunks = list(html_chunks(report, generated="2026-01-01 00:00 UTC"))
    cards = [chunk for chunk in chunks if '{"i":"c' in chunk]
    assert len(cards) == 30 and all(chunk.count('{"i":') == 1 for chunk in cards)
    # The shared texts come first, each its own chunk: here the three tests.
    texts = chunks[chunks.index('<script type="application/json" id="citecheck-texts">[') + 1 :][:4]
    assert [json.loads(chunk.lstrip(",\n")) for chunk in texts[:3]] == [
        "t.py::test[0]",
        "t.py::test[1]",
        "t.py::test[2]",
    ]
    assert texts[3].startswith("]</script>")


def test_a_run_holds_each_row_once(suite: pytest.Pytester, jev_server: Any) -> None:
    suite.makepyfile(
        test_app="""
        import pytest
        from cookbook import SOURCE, pick
        from pytest_citecheck import check_citations

        @pytest.mark.parametrize("n", range(3))
        def test_answer(n):
            check_citations(pick("clock_skew", "aud_reject"), SOURCE)
        """
    )
    recorded = suite.inline_run("--citecheck-record-mode=once", "--citecheck-json=r.json")
    recorded.assertoutcome(passed=3)
    calls = [report for report in recorded.getreports("pytest_runtest_logreport") if report.when == "call"]
    assert len(calls) == 3 and not any(hasattr(report, "citecheck_rows") for report in calls)
    rows = json.loads((suite.path / "r.json").read_text())["results"]
    assert [row["id"] for row in rows] == ["clock_skew", "aud_reject"] * 3
