"""`citecheck review` from a script (issue 26 item 2): ids in the form --accept takes, no citation
walked twice, and piped answers told that the prompts need a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import REPO

from pytest_citecheck._cli import main as citecheck
from pytest_citecheck._review import command as review_cmd


def _row(test: str, citation: str, key: str, **fields: Any) -> dict[str, Any]:
    row = {"test": test, "id": citation, "status": "found", "section": "1", "verdict": "unsupported"}
    row |= {"confidence": 0.6, "auto": False, "model": "jev-1.12", "claim": f"claim {key}", "quote": "q"}
    row |= {"span": [0, 1], "auto_accept": 0.8, "section_text": "q", "review_key": key}
    return {**row, "reviews_file": "citecheck-reviews.json", **fields}


@pytest.fixture
def report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    rows = [
        _row("test_a.py::test_one", "#2.1", "k-old"),  # checked twice in one test: the last check stands
        _row("test_a.py::test_one", "#2.1", "k1"),
        _row("test_b.py::test_two", "#2.1", "k2"),  # the same id in another test
        _row("test_b.py::test_two", "c9", "k9"),
    ]
    path = tmp_path / "report.json"
    path.write_text(json.dumps({"version": 1, "results": rows}))
    return path


def test_the_list_prints_the_id_that_accept_takes(report: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert citecheck(["review", "--report", str(report), "--list"]) == 0
    out = capsys.readouterr().out
    assert "3 citations need review." in out  # the repeated check counts once
    assert "[1/3] test_a.py::test_one::#2.1: Jev says" in out
    assert "[2/3] test_b.py::test_two::#2.1: Jev says" in out
    assert "[3/3] c9: Jev says" in out
    # Each listed form works with --accept, and a bare ambiguous id names each test once.
    assert citecheck(["review", "--report", str(report), "--accept", "#2.1", "--by", "Ada"]) == 2
    err = capsys.readouterr().err
    assert "name one of: test_a.py::test_one::#2.1, test_b.py::test_two::#2.1" in err
    accept = ["--accept", "test_a.py::test_one::#2.1", "--accept", "c9"]
    assert citecheck(["review", "--report", str(report), *accept, "--by", "Ada"]) == 0
    decisions = json.loads((report.parent / "citecheck-reviews.json").read_text())["decisions"]
    assert sorted(decisions) == ["k1", "k9"]  # the last check's key, not the repeated one's


def test_interactive_review_skips_what_is_decided_already(report: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert citecheck(["review", "--report", str(report), "--accept", "c9", "--by", "Ada"]) == 0
    capsys.readouterr()
    args = review_cmd._parser().parse_args(["--report", str(report), "--by", "Bo", "--note", "n"])
    answers = iter(["a", "a"])
    asked: list[str] = []

    def ask(question: str) -> str:
        asked.append(question)
        return next(answers)

    assert review_cmd.interactive(review_cmd.load_rows(report), args, sys.stdout, ask) == 0
    out = capsys.readouterr().out
    assert "c9: already decided (unsupported by Ada on " in out
    assert len([q for q in asked if q.startswith("Decision?")]) == 2  # the two #2.1, never c9
    assert "2 decisions recorded" in out


def test_piped_answers_are_told_that_the_prompts_need_a_terminal(report: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest_citecheck", "review", "--report", str(report)],
        input="a\na\na\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=report.parent,
    )
    assert done.returncode == 0
    assert "No decision was recorded: answering the prompts needs a terminal" in done.stdout
    assert "--accept ID or --set ID=VERDICT" in done.stdout
    assert not (report.parent / "citecheck-reviews.json").exists()


def test_a_decision_says_which_other_citations_it_decides_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by hunt-reports: one --set on a citation decided 9 tests' citations that shared its claim,
    section and model (documented), and the command said only "ID: contradicted set"."""
    monkeypatch.chdir(tmp_path)
    rows = [
        _row("test_a.py::test_one", "shared", "k-same"),
        _row("test_a.py::test_one", "shared", "k-same"),  # the same citation checked twice: one citation
        *(_row(f"test_b.py::test_case[{n}]", f"case-{n}", "k-same") for n in range(4)),
        _row("test_b.py::test_other", "alone", "k-alone"),
        _row("test_c.py::test_elsewhere", "other-file", "k-same", reviews_file="other/citecheck-reviews.json"),
    ]
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"version": 1, "results": rows}))
    assert citecheck(["review", "--report", str(report), "--set", "shared=contradicted", "--by", "Ada"]) == 0
    out = capsys.readouterr().out
    assert (
        "the same decision also decides 4 other citations in 4 tests of this report "
        "(the same claim, section text and model): case-0, case-1, case-2, …"
    ) in out
    assert citecheck(["review", "--report", str(report), "--set", "alone=contradicted", "--by", "Ada"]) == 0
    assert "also decides" not in capsys.readouterr().out


def test_no_name_for_the_reviewer_is_a_clear_error_that_changes_nothing(
    report: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found running the wheel as a user id with no passwd entry (``docker run --user 4242``, CI
    containers; hunt-install): no --by, no git user.name, no login name, and ``citecheck review --accept``
    ended in a traceback (``KeyError: 'getpwuid(): uid not found: 4242'``)."""
    import pwd

    def no_entry(uid: int) -> pwd.struct_passwd:
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    empty = tmp_path / "empty-gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    assert citecheck(["review", "--report", str(report), "--accept", "c9"]) == 2
    err = capsys.readouterr().err
    assert "cannot tell who decides" in err and "pass --by NAME" in err and "Traceback" not in err
    assert not (report.parent / "citecheck-reviews.json").exists()
    assert citecheck(["review", "--report", str(report), "--accept", "c9", "--by", "Ada"]) == 0


def test_a_terminal_that_cannot_encode_the_section_gets_escapes_not_a_traceback(tmp_path: Path) -> None:
    """Found on the installed wheel (hunt-install): a citation into ``man -P cat ls`` (GNU coreutils 9.1,
    GPL-3+, one sentence quoted), whose text wraps a word with U+2010 HYPHEN, listed where stdout is
    ASCII (``PYTHONIOENCODING=ascii``, a Windows console's code page) ended in ``UnicodeEncodeError``."""
    section = (
        "List  information  about  the FILEs (the current directory by default).\n"
        "Sort entries alphabetically if none of -cftuvSUX nor --sort  is  speci\u2010\nfied."
    )
    row = _row("test_ls.py::test_low", "low", "k1", section_text=section, quote="the current directory by default")
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"version": 1, "results": [row]}), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest_citecheck", "review", "--report", str(report), "--list"],
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr.decode("ascii", "replace")
    assert b"Traceback" not in done.stderr
    assert b"speci\\u2010" in done.stdout and b"\\xbb" in done.stdout  # the hyphen and the quote mark, escaped


def test_an_id_is_ambiguous_when_the_same_claim_and_section_were_judged_by_two_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found walking review.md with a suite whose marker pins jev-1.12 while its other tests use the
    # default: the page said an id needs its test's name only "with different claims or sections".
    monkeypatch.chdir(tmp_path)
    same = {"claim": "the same claim", "section_text": "the same section"}
    rows = [
        _row("test_a.py::test_default", "copy", "key-under-jev-latest", **same, model="jev-latest"),
        _row("test_a.py::test_pinned", "copy", "key-under-jev-1.12", **same, model="jev-1.12"),
    ]
    (tmp_path / "report.json").write_text(json.dumps({"version": 1, "results": rows}))
    assert citecheck(["review", "--report", "report.json", "--accept", "copy", "--by", "Ada"]) == 2
    assert "name one of: test_a.py::test_default::copy, test_a.py::test_pinned::copy" in capsys.readouterr().err
    page = (REPO / "docs" / "review.md").read_text(encoding="utf-8")
    ids_rule = page[page.index("- **Ids.**") :].split("\n- **", 1)[0]
    assert "model" in ids_rule, ids_rule
