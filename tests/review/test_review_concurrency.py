"""Parallel `citecheck review --accept` runs each keep their decision (the reviews file is locked and re-read)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_citecheck._review.decisions import DecisionConflictError, Reviews

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


def test_a_save_never_writes_over_a_decision_another_reviewer_recorded_for_the_same_citation(tmp_path: Path) -> None:
    # Two reviewers at the same prompt: both read the file before either answered. The second to
    # save used to replace the first one's decision without a word ("recorded contradicted").
    path = tmp_path / "citecheck-reviews.json"
    first, second = Reviews.load(path), Reviews.load(path)
    (row,) = _rows(1)
    first.record(row, "verified", by="Alice")
    second.record(row, "contradicted", by="Bob")
    first.save()
    with pytest.raises(DecisionConflictError, match=r"'c0' was decided meanwhile .*\(verified by Alice on "):
        second.save()
    (entry,) = json.loads(path.read_text())["decisions"].values()
    assert entry["by"] == "Alice"
    # Replacing a decision one has seen is still possible (the replace prompt, --replace).
    third = Reviews.load(path)
    third.record(row, "unsupported", by="Carol")
    third.save()
    (entry,) = json.loads(path.read_text())["decisions"].values()
    assert entry["by"] == "Carol"


def test_interactive_review_does_not_record_over_a_decision_made_while_it_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_citecheck._review import command as review_cmd

    monkeypatch.chdir(tmp_path)
    (tmp_path / "report.json").write_text(json.dumps({"version": 1, "results": _rows(1)}))
    rows = review_cmd.load_rows(Path("report.json"))
    args = review_cmd._parser().parse_args(["--report", "report.json", "--by", "Bob"])

    def bob_types_while_alice_records(prompt: str) -> str:
        if prompt.startswith("Note"):  # Alice, in another terminal, answers the same citation first
            alice = Reviews.load(Path("citecheck-reviews.json"))
            alice.record(rows[0], "verified", by="Alice")
            alice.save()
            return "bob's note"
        return "c"

    assert review_cmd.interactive(rows, args, sys.stdout, ask=bob_types_while_alice_records) == 0
    out = capsys.readouterr().out
    assert "not recorded: citation 'c0' was decided meanwhile" in out and "0 decisions recorded" in out
    (entry,) = json.loads((tmp_path / "citecheck-reviews.json").read_text())["decisions"].values()
    assert entry["by"] == "Alice"
