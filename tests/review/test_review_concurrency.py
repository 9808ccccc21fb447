"""Parallel `citecheck review --accept` runs each keep their decision (the reviews file is locked and re-read)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_citecheck._review.decisions import Reviews

PARALLEL = 16


def _rows(count: int) -> list[dict]:
    return [
        {
            "test": f"test_app.py::test_{n}",
            "id": f"c{n}",
            "status": "found",
            "section": "1",
            "verdict": "verified",
            "confidence": 0.6,
            "auto": False,
            "model": "jev-1.12",
            "claim": f"claim {n}",
            "quote": "q",
            "span": [0, 1],
            "auto_accept": 0.8,
            "section_text": "q",
            "review_key": f"key{n}",
            "reviews_file": "citecheck-reviews.json",
        }
        for n in range(count)
    ]


def test_a_save_keeps_what_another_writer_saved_since_the_file_was_read(tmp_path: Path) -> None:
    # Two reviewers read the same file, each decides a different citation, each saves: both stay.
    path = tmp_path / "citecheck-reviews.json"
    first, second = Reviews.load(path), Reviews.load(path)
    one, two = _rows(2)
    first.record(one, None, by="Ada")
    second.record(two, "contradicted", by="Bo")
    first.save()
    second.save()
    decisions = json.loads(path.read_text())["decisions"]
    assert {key: entry["by"] for key, entry in decisions.items()} == {"key0": "Ada", "key1": "Bo"}
    assert second.decisions.keys() == decisions.keys()


@pytest.mark.slow
def test_parallel_reviews_lose_no_decision(tmp_path: Path) -> None:
    rows = _rows(PARALLEL)
    (tmp_path / "report.json").write_text(json.dumps({"version": 1, "results": rows}))
    command = [sys.executable, "-m", "pytest_citecheck", "review", "--report", "report.json", "--by", "Ada"]
    runs = [
        subprocess.Popen([*command, "--accept", f"c{n}"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for n in range(PARALLEL)
    ]
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        assert b"Wrote citecheck-reviews.json" in out
    decisions = json.loads((tmp_path / "citecheck-reviews.json").read_text())["decisions"]
    assert sorted(decisions) == sorted(f"key{n}" for n in range(PARALLEL))
