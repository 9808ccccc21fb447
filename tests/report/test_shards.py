"""Shards: one JSON report per CI machine, merged by `citecheck merge` into the report and summary of one run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import run_example

MODULES = {
    "test_shard_a": ("epoch_seconds", "aud_reject", "pii_encryption"),
    "test_shard_b": ("clock_skew", "exp_required"),
    "test_shard_c": ("iat_future", "duplicate_names", "sig_reporting"),
}


def write_suite(suite: pytest.Pytester) -> None:
    for module, ids in MODULES.items():
        body = "from cookbook import SOURCE, pick\n"
        for name in ids:
            body += f"\ndef test_{name}(citecheck):\n    citecheck.check(pick({name!r}), SOURCE, model='jev-1.12')\n"
        suite.makepyfile(**{module: body})


def citecheck_section(output: list[str]) -> list[str]:
    start = next(i for i, line in enumerate(output) if "= citecheck =" in line)
    section = []
    for line in output[start + 1 :]:
        if line.startswith("=") or line.startswith("JSON report:"):
            break
        section.append(line)
    return section


def merge(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_citecheck", "merge", *args], cwd=cwd, capture_output=True, text=True
    )


def test_merged_shards_give_the_report_and_summary_of_one_run(suite, jev_server, offline):
    write_suite(suite)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=8)
    # One recording is no longer asked for: the merged summary must still report it.
    suite.makepyfile(
        test_shard_b=suite.path.joinpath("test_shard_b.py").read_text().replace("pick('exp_required')", "[]")
    )
    offline()

    whole = suite.runpytest("--citecheck-json=whole.json")
    whole.assert_outcomes(passed=8)
    expected = citecheck_section(whole.outlines)
    assert any("Unused recordings: 1 recorded interaction" in line for line in expected)

    suite.runpytest("test_shard_a.py", "--citecheck-json=shard-1.json").assert_outcomes(passed=3)
    suite.runpytest("test_shard_b.py", "test_shard_c.py", "--citecheck-json=shard-2.json").assert_outcomes(passed=5)
    merged = merge("shard-1.json", "shard-2.json", "-o", "all.json", cwd=suite.path)
    assert merged.returncode == 0, merged.stderr
    # The review hint names the report that holds every citation: the merged one.
    expected = [line.replace("--report whole.json", "--report all.json") for line in expected]
    assert merged.stdout.splitlines() == [*expected, "JSON report: all.json"]

    def normalised(name: str) -> dict:
        data = json.loads((suite.path / name).read_text())
        data["results"].sort(key=lambda row: (row["test"], row["id"]))
        return data

    assert normalised("all.json") == normalised("whole.json")


def test_the_console_script_merges_too_and_bad_input_is_a_clear_error(suite, tmp_path):
    (tmp_path / "a.json").write_text(json.dumps({"version": 1, "results": []}))
    script = Path(sys.executable).parent / "citecheck"
    ok = subprocess.run([str(script), "merge", "a.json"], cwd=tmp_path, capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.strip() == "no citation was checked"
    bad = subprocess.run([str(script), "merge", "a.json", "missing.json"], cwd=tmp_path, capture_output=True, text=True)
    assert bad.returncode == 2
    assert "missing.json: no such report" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_overlapping_reports_are_counted_once_with_a_warning(suite, jev_server, offline):
    write_suite(suite)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=8)
    offline()
    whole = suite.runpytest("--citecheck-json=whole.json")
    expected = [line.replace("--report whole.json", "--report all.json") for line in citecheck_section(whole.outlines)]
    suite.runpytest("test_shard_a.py", "--citecheck-json=shard-1.json").assert_outcomes(passed=3)

    # The same shard twice, and a shard that overlaps the whole run: each row counts once.
    for reports in (["whole.json", "whole.json"], ["whole.json", "shard-1.json"]):
        merged = merge(*reports, "-o", "all.json", cwd=suite.path)
        assert merged.returncode == 0, merged.stderr
        assert merged.stdout.splitlines() == [*expected, "JSON report: all.json"]
        assert "citecheck merge: warning:" in merged.stderr and "counted once" in merged.stderr
        assert len(json.loads((suite.path / "all.json").read_text())["results"]) == 8
    assert "3 citations (test and citation id) are in more than one report" in merged.stderr
    assert "test_shard_a.py::test_epoch_seconds::epoch_seconds" in merged.stderr


def test_a_duplicate_with_another_verdict_is_an_error(suite, jev_server):
    write_suite(suite)
    suite.runpytest("test_shard_a.py", "--citecheck-record-mode=once", "--citecheck-json=shard-1.json")
    report = json.loads((suite.path / "shard-1.json").read_text())
    for row in report["results"]:
        if row["id"] == "aud_reject":
            row["verdict"] = "contradicted"
    (suite.path / "rerun.json").write_text(json.dumps(report))
    merged = merge("shard-1.json", "rerun.json", "-o", "all.json", cwd=suite.path)
    assert merged.returncode == 2
    assert (
        "test_shard_a.py::test_aud_reject::aud_reject is verified in shard-1.json but contradicted in rerun.json"
        in merged.stderr
    )
    assert not (suite.path / "all.json").exists()


@pytest.mark.parametrize("unattributed", ["missing", "null", "empty"])
def test_a_row_that_names_no_test_is_refused_naming_the_file_the_row_and_the_field(
    tmp_path: Path, unattributed: str
) -> None:
    """A row with no ``test`` (written by hand or by another tool: pytest always names it) was merged
    as ``test: null`` and counted as a test of its own; a merged report cannot attribute it."""
    run = run_example(tmp_path / "rfc7519", "--citecheck-json=report.json")
    assert run.returncode == 0, run.stdout + run.stderr
    data = json.loads((tmp_path / "rfc7519" / "report.json").read_text())
    rows = data["results"]
    second = [dict(row) for row in rows[4:]]
    if unattributed == "missing":
        del second[2]["test"]
    else:
        second[2]["test"] = None if unattributed == "null" else ""
    (tmp_path / "shard-1.json").write_text(json.dumps({**data, "results": rows[:4]}, indent=2))
    (tmp_path / "shard-2.json").write_text(json.dumps({**data, "results": second}, indent=2))
    result = merge("shard-1.json", "shard-2.json", "-o", "merged.json", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"citecheck merge: shard-2.json: result 2 (citation {second[2]['id']!r}): field 'test' is "
        f"{'empty' if unattributed == 'empty' else 'missing or null'}: every row of a merged report names the test "
        "that checked it (pytest --citecheck-json writes it)"
    ]
    assert not (tmp_path / "merged.json").exists()
