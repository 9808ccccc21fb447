"""Hostile JSON given to `citecheck merge`, `review` and `calibrate`: one line naming the file and the cause, exit 2.

A corpus of damaged and hostile files (deep nesting, wrong types, missing keys, huge numbers, control
characters, files that are not files); each command must refuse each one without a traceback and
write nothing. And a plugin run whose reviews file is nested too deeply fails its checking test with
that one line, not a RecursionError.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_citecheck._cli import main as citecheck


def good_row(**fields: Any) -> dict[str, Any]:
    row = {
        "test": "test_app.py::test_answer",
        "id": "c1",
        "status": "found",
        "section": "1",
        "verdict": "verified",
        "confidence": 0.6,
        "auto": False,
        "model": "jev-1.12",
        "claim": "a claim",
        "quote": "a quote",
        "span": [0, 7],
        "auto_accept": 0.8,
        "section_text": "a quote and more",
        "review_key": "k1",
        "model_verdict": "verified",
        "decision": None,
        "stale_decision": None,
        "reviews_file": "citecheck-reviews.json",
    }
    return {**row, **fields}


def report(*rows: Any, **top: Any) -> str:
    return json.dumps({"version": 1, "results": list(rows), **top})


DEEP = "[" * 200_000 + "]" * 200_000
# name -> (file content, what the one line must say)
HOSTILE_REPORTS: dict[str, tuple[str | bytes, str]] = {
    "deep-nesting": (DEEP, "nested too deeply"),
    "deep-nesting-in-a-row": ('{"version": 1, "results": [' + DEEP + "]}", "nested too deeply"),
    "not-json": ("{not json", "not a JSON report"),
    "not-utf8": (b'{"version": 1, "results": ["\xff\xfe"]}', "not a JSON report"),
    "a-list": ("[]", "no 'results' list"),
    "results-a-string": (json.dumps({"version": 1, "results": "x"}), "no 'results' list"),
    "no-version": (json.dumps({"results": []}), "report version None"),
    "version-a-string": (json.dumps({"version": "1", "results": []}), "report version '1'"),
    "row-a-number": (report(5), "result 0 is int, expected an object"),
    "row-without-verdict": (report({"id": "c1", "auto": True}), "result 0 (citation 'c1'): no field 'verdict'"),
    "row-without-id": (report({"verdict": "verified", "auto": True}), "result 0 no field 'id'"),
    "id-a-number": (report(good_row(id=5)), "field 'id' is 5, expected a string"),
    "verdict-unknown": (report(good_row(verdict="great")), "field 'verdict' is 'great'"),
    "auto-a-string": (report(good_row(auto="yes")), "field 'auto' is 'yes', expected true or false"),
    "confidence-a-string": (report(good_row(confidence="high")), "field 'confidence' is 'high'"),
    "confidence-huge": (
        '{"version": 1, "results": [' + json.dumps(good_row())[:-1] + ', "confidence": 1e999}]}',
        "field 'confidence' is inf",
    ),
    "confidence-nan": (
        '{"version": 1, "results": [' + json.dumps(good_row())[:-1] + ', "confidence": NaN}]}',
        "field 'confidence' is nan",
    ),
    "confidence-out-of-range": (report(good_row(confidence=5)), "field 'confidence' is 5"),
    "tokens-huge": (report(good_row(input_tokens=10**40)), "field 'input_tokens' is 1000000000"),
    "span-short": (report(good_row(span=[1])), "field 'span' is [1]"),
    "span-strings": (report(good_row(span=["a", "b"])), "field 'span' is ['a', 'b']"),
    "questions-a-number": (report(good_row(questions={"q": 5})), "field 'questions' is {'q': 5}"),
    "decision-a-string": (report(good_row(decision="yes")), "field 'decision' is 'yes'"),
    "decision-nested": (report(good_row(decision={"by": {"a": {"b": 1}}})), "field 'decision'"),
    "previous-without-verdict": (report(good_row(previous={"drift": "flip"})), "field 'previous'"),
    "unused-a-number": (report(good_row(), unused=5), "field 'unused' is 5"),
    "unused-without-cassette": (report(good_row(), unused=[{"test": "t"}]), "field 'unused'"),
    "orphans-numbers": (report(good_row(), orphans=[1]), "field 'orphans' is [1]"),
    "claim-a-list": (
        report(good_row(claim=["\x1b]52;c;cHduZWQ=\x07"])),
        "field 'claim' is ['\\x1b]52;c;cHduZWQ=\\x07']",
    ),
}


def _commands(path: Path, tmp_path: Path) -> dict[str, list[str]]:
    reviews = tmp_path / "reviews.json"
    reviews.write_text(json.dumps({"format": 1, "decisions": {}}))
    return {
        "merge": ["merge", str(path), "-o", str(tmp_path / "merged.json")],
        "review": ["review", "--report", str(path), "--list"],
        "calibrate": ["calibrate", "--reviews", str(reviews), "--report", str(path)],
    }


def _one_line(capsys: pytest.CaptureFixture[str], command: str) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    first = err.splitlines()[0]
    assert first.startswith(f"citecheck {command}: ")
    return first


@pytest.mark.parametrize("name", sorted(HOSTILE_REPORTS))
def test_a_hostile_report_is_one_line_and_exit_2_for_every_command(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    content, cause = HOSTILE_REPORTS[name]
    path = tmp_path / f"{name}.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    for command, argv in _commands(path, tmp_path).items():
        assert citecheck(argv) == 2, command
        line = _one_line(capsys, command)
        assert str(path) in line and cause in line, (command, line)
    assert not (tmp_path / "merged.json").exists()


def test_a_directory_or_a_device_is_not_a_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for path, cause in ((tmp_path, "it is a directory"), (Path("/dev/zero"), "it is a character device")):
        for command, argv in _commands(path, tmp_path).items():
            assert citecheck(argv) == 2, command
            line = _one_line(capsys, command)
            assert str(path) in line and cause in line, (command, line)


def test_control_characters_in_a_valid_report_are_no_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.json"
    path.write_text(report(good_row(id="c\x1b[2J1", claim="\x1b]52;c;cHduZWQ=\x07 \x00 \u202e")))
    assert citecheck(["merge", str(path)]) == 0
    assert "Traceback" not in capsys.readouterr().err


# A directory, a path under a regular file, a file system nobody may write (root included).
UNWRITABLE = ["DIR", "UNDER-A-FILE", "/proc/x.json"]


@pytest.mark.parametrize("target", UNWRITABLE)
def test_an_unwritable_output_is_one_line_and_exit_2(
    target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    path.write_text(report(good_row()))
    output = {"DIR": str(tmp_path), "UNDER-A-FILE": str(path / "x.json")}.get(target, target)
    assert citecheck(["merge", str(path), "-o", output]) == 2
    assert f"cannot write {output}" in _one_line(capsys, "merge")
    assert citecheck(["review", "--report", str(path), "--reviews", output, "--accept", "c1"]) == 2
    assert output in _one_line(capsys, "review")
    reviews = tmp_path / "reviews.json"
    reviews.write_text(json.dumps({"format": 1, "decisions": {}}))
    assert citecheck(["calibrate", "--reviews", str(reviews), "--html", output]) == 2
    assert output in _one_line(capsys, "calibrate")


HOSTILE_REVIEWS: dict[str, tuple[str, str]] = {
    "deep-nesting": (DEEP, "nested too deeply"),
    "not-an-object": ("[]", "no 'decisions' object"),
    "decisions-a-list": (json.dumps({"format": 1, "decisions": []}), "no 'decisions' object"),
    "format-huge": (json.dumps({"format": 10**50, "decisions": {}}), "reviews format"),
    "verdict-missing": (json.dumps({"format": 1, "decisions": {"k": {}}}), "has no valid verdict"),
    "by-a-list": (json.dumps({"format": 1, "decisions": {"k": {"verdict": "verified", "by": [1]}}}), "field 'by'"),
    "confidence-a-string": (
        json.dumps({"format": 1, "decisions": {"k": {"verdict": "verified", "confidence": "x"}}}),
        "field 'confidence'",
    ),
    "confidence-nan": (
        '{"format": 1, "decisions": {"k": {"verdict": "verified", "confidence": NaN}}}',
        "field 'confidence'",
    ),
    # Fields of a decision ride on report rows (taken as built, read back by the row schema): plain values only.
    "extra-nested": (
        json.dumps({"format": 1, "decisions": {"k": {"verdict": "verified", "by": "a", "extra": {"a": {"b": 1}}}}}),
        "field 'extra'",
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_REVIEWS))
def test_a_hostile_reviews_file_is_one_line_and_exit_2(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    content, cause = HOSTILE_REVIEWS[name]
    reviews = tmp_path / "citecheck-reviews.json"
    reviews.write_text(content)
    path = tmp_path / "r.json"
    path.write_text(report(good_row()))
    assert citecheck(["calibrate", "--reviews", str(reviews)]) == 2
    line = _one_line(capsys, "calibrate")
    assert str(reviews) in line and cause in line
    assert citecheck(["review", "--report", str(path), "--reviews", str(reviews), "--accept", "c1"]) == 2
    line = _one_line(capsys, "review")
    assert str(reviews) in line and cause in line
    assert reviews.read_text() == content  # left alone
