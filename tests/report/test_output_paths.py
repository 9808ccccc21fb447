"""Where the reports and the ``citecheck`` commands' outputs are written, as a user meets it.

- Through a symbolic link to an earlier report (a CI's ``latest.json -> runs/2026-12-05.json``),
  ``--citecheck-json``, ``--citecheck-html``, ``citecheck merge -o``, ``citecheck calibrate --html``
  and ``citecheck review --reviews`` keep the link and replace the file it points to (they replaced
  the link with a plain file, and the run's report was left stale behind it).
- A path that is a FIFO, or a link (or a chain of links) to one, is refused before anything is read,
  naming the path and what it is (the commands' outputs replaced the link with a regular file).

The reports are the cookbook example's own (``examples/rfc7519`` run as its README says), the
calibration decisions ``examples/calibration``'s; FIFOs and links are made in the test's
directory, never in /dev.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import AUD_REJECT_TEST, REPO, run_example

CALIBRATION_REVIEWS = REPO / "examples" / "calibration" / "citecheck-reviews.json"
EARLIER = "runs/2026-12-04"  # the example's first run: its JSON and HTML reports


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("output-paths") / "rfc7519"
    result = run_example(directory, f"--citecheck-json={EARLIER}.json", f"--citecheck-html={EARLIER}.html")
    assert result.returncode == 0, result.stdout + result.stderr
    return directory


@pytest.fixture
def project(first_run: Path, tmp_path: Path) -> Path:
    """The example's directory after its first run, a copy of its own for this test."""
    work = tmp_path / "rfc7519"
    shutil.copytree(first_run, work, symlinks=True)
    shutil.copy(CALIBRATION_REVIEWS, work / "team-reviews.json")
    return work


def citecheck(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_citecheck", *args], cwd=project, capture_output=True, text=True, timeout=120
    )


def one_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip() and line != "Nothing was written."]
    assert len(lines) == 1 and "Traceback" not in text, text
    return lines[0]


def link_to_an_older_report(project: Path, name: str, suffix: str) -> Path:
    """``name`` -> ``runs/2026-12-05.<suffix>``, an older report (one row; a page marked old); its target."""
    target = project / "runs" / f"2026-12-05.{suffix}"
    if suffix == "json":
        data = json.loads((project / f"{EARLIER}.json").read_text())
        target.write_text(json.dumps({**data, "results": data["results"][:1]}, indent=2))
    else:
        target.write_text((project / f"{EARLIER}.{suffix}").read_text() + "<!-- the older page -->\n")
    (project / name).symlink_to(f"runs/2026-12-05.{suffix}")
    return target


def assert_link_kept(link: Path, target: str) -> None:
    assert link.is_symlink() and os.readlink(link) == target


# --- through a link to an earlier report: the link is kept, its target replaced -------------------


def test_pytest_reports_through_links_to_earlier_reports_replace_the_reports_and_keep_the_links(
    project: Path,
) -> None:
    json_target = link_to_an_older_report(project, "latest.json", "json")
    html_target = link_to_an_older_report(project, "latest.html", "html")
    result = run_example(project, "--citecheck-json=latest.json", "--citecheck-html=latest.html")
    assert result.returncode == 0, result.stdout + result.stderr
    assert_link_kept(project / "latest.json", "runs/2026-12-05.json")
    assert_link_kept(project / "latest.html", "runs/2026-12-05.html")
    rows = json.loads(json_target.read_text())["results"]
    assert len(rows) == len(json.loads((project / f"{EARLIER}.json").read_text())["results"]) == 8
    page = html_target.read_text()
    assert page.startswith("<!doctype html>") and "the older page" not in page
    assert sorted(path.name for path in (project / "runs").iterdir()) == [
        "2026-12-04.html",
        "2026-12-04.json",
        "2026-12-05.html",
        "2026-12-05.json",
    ]


def test_a_hard_link_to_the_report_keeps_the_old_report(project: Path) -> None:
    """docs/reporting.md: the report is a new file renamed over its path, so a hard link's other name
    keeps the old report (a symbolic link is followed instead: above)."""
    older = link_to_an_older_report(project, "older.json", "json")
    (project / "older.json").unlink()
    os.link(older, project / "latest.json")
    result = run_example(project, "--citecheck-json=latest.json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(json.loads((project / "latest.json").read_text())["results"]) == 8
    assert len(json.loads(older.read_text())["results"]) == 1, "the other name keeps the old report"
    assert (project / "latest.json").stat().st_nlink == 1 and older.stat().st_nlink == 1


def test_merge_through_a_link_to_an_earlier_report_replaces_the_report_and_keeps_the_link(project: Path) -> None:
    target = link_to_an_older_report(project, "latest.json", "json")
    result = citecheck(project, "merge", f"{EARLIER}.json", "-o", "latest.json")
    assert result.returncode == 0, result.stderr
    assert_link_kept(project / "latest.json", "runs/2026-12-05.json")
    assert len(json.loads(target.read_text())["results"]) == 8


def test_calibrate_through_a_link_to_an_earlier_page_replaces_the_page_and_keeps_the_link(project: Path) -> None:
    assert (
        citecheck(project, "calibrate", "--reviews", "team-reviews.json", "--html", "runs/cal-1.html").returncode == 0
    )
    (project / "runs" / "cal-1.html").write_text(
        (project / "runs" / "cal-1.html").read_text() + "<!-- the older page -->\n"
    )
    (project / "calibration.html").symlink_to("runs/cal-1.html")
    result = citecheck(project, "calibrate", "--reviews", "team-reviews.json", "--html", "calibration.html")
    assert result.returncode == 0, result.stderr
    assert_link_kept(project / "calibration.html", "runs/cal-1.html")
    assert "the older page" not in (project / "runs" / "cal-1.html").read_text()


def test_a_decision_through_a_link_to_the_teams_reviews_file_lands_in_that_file(project: Path) -> None:
    (project / "shared").mkdir()
    (project / "mine.json").symlink_to("shared/citecheck-reviews.json")
    for by, citation in (("Ann", "iat_future"), ("Bob", "pii_encryption")):
        result = citecheck(
            project, "review", "--report", f"{EARLIER}.json", "--reviews", "mine.json", "--set", f"{citation}=verified",
            "--by", by,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
    assert_link_kept(project / "mine.json", "shared/citecheck-reviews.json")
    decisions = json.loads((project / "shared" / "citecheck-reviews.json").read_text())["decisions"]
    assert sorted(entry["by"] for entry in decisions.values()) == ["Ann", "Bob"]


def test_a_link_to_nothing_yet_makes_its_target_and_is_kept(project: Path) -> None:
    (project / "latest.json").symlink_to("runs/2026-12-06.json")
    result = citecheck(project, "merge", f"{EARLIER}.json", "-o", "latest.json")
    assert result.returncode == 0, result.stderr
    assert_link_kept(project / "latest.json", "runs/2026-12-06.json")
    assert len(json.loads((project / "runs" / "2026-12-06.json").read_text())["results"]) == 8


# A link to nothing in a directory that does not exist: the remedy names the directory to make (it
# said "give the path of a file", which the path already was). The directory is not made for the user:
# the link may point where it was not meant to.
def missing_directory(project: Path) -> str:
    return (
        f"it is a symbolic link to {project / 'nowhere' / '2026-12-06.json'}, in a directory that does not exist: "
        f"make the directory (mkdir -p '{project / 'nowhere'}'), or point the link at a file in one that exists"
    )


def test_a_link_to_nothing_in_a_directory_that_does_not_exist_is_named(project: Path) -> None:
    (project / "latest.json").symlink_to("nowhere/2026-12-06.json")
    result = citecheck(project, "merge", f"{EARLIER}.json", "-o", "latest.json")
    assert result.returncode == 2
    assert one_line(result.stderr) == f"citecheck merge: cannot write latest.json: {missing_directory(project)}"
    assert not (project / "nowhere").exists()


@pytest.mark.parametrize("flag", ["--citecheck-json", "--citecheck-html"])
def test_a_report_link_into_a_directory_that_does_not_exist_names_the_directory_to_make(
    project: Path, flag: str
) -> None:
    (project / "latest").symlink_to("nowhere/2026-12-06.json")
    result = run_example(project, f"{flag}=latest")
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, result.stdout + result.stderr
    assert f"ERROR: pytest-citecheck: {flag}=latest: {missing_directory(project)}" in result.stderr
    assert not (project / "nowhere").exists()
    (project / "nowhere").mkdir()  # as the message says
    assert run_example(project, f"{flag}=latest").returncode == 0
    assert (project / "nowhere" / "2026-12-06.json").is_file()


def test_a_reviews_file_link_into_a_directory_that_does_not_exist_names_the_directory_to_make(project: Path) -> None:
    (project / "mine.json").symlink_to("nowhere/2026-12-06.json")
    result = citecheck(
        project, "review", "--report", f"{EARLIER}.json", "--reviews", "mine.json", "--set", "iat_future=verified"
    )
    assert result.returncode == 2
    assert missing_directory(project) in result.stderr


# --- a FIFO, or a link to one: refused before anything is read, named -----------------------------

FIFO_PATHS = {
    "fifo": ("out.fifo", "it is a FIFO (named pipe), not a regular file"),
    "link": ("out.link", "it is a symbolic link to a FIFO (named pipe) ({fifo}), not to a regular file"),
    "link-to-link": ("out.link2", "it is a symbolic link to a FIFO (named pipe) ({fifo}), not to a regular file"),
}
COMMANDS = {
    "merge -o": (["merge", f"{EARLIER}.json", "-o", "{path}"], "citecheck merge: cannot write {path}: "),
    "calibrate --html": (
        ["calibrate", "--reviews", "team-reviews.json", "--html", "{path}"],
        "citecheck calibrate: cannot write the page to {path}: ",
    ),
    "--citecheck-json": (None, "ERROR: pytest-citecheck: --citecheck-json={path}: "),
    "--citecheck-html": (None, "ERROR: pytest-citecheck: --citecheck-html={path}: "),
}


def make_fifo_paths(project: Path) -> Path:
    fifo = project / "out.fifo"
    os.mkfifo(fifo)
    (project / "out.link").symlink_to("out.fifo")
    (project / "out.link2").symlink_to("out.link")
    return fifo


@pytest.mark.parametrize("kind", sorted(FIFO_PATHS))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_output_path_that_is_a_fifo_or_a_link_to_one_is_refused_naming_it(
    project: Path, command: str, kind: str
) -> None:
    fifo = make_fifo_paths(project)
    path, what = FIFO_PATHS[kind]
    arguments, start = COMMANDS[command]
    if arguments is None:
        result = run_example(project, f"{command}={path}")
        assert result.returncode == pytest.ExitCode.USAGE_ERROR
    else:
        result = citecheck(project, *(argument.format(path=path) for argument in arguments))
        assert result.returncode == 2
    assert one_line(result.stderr).startswith(start.format(path=path) + what.format(fifo=fifo))
    assert fifo.is_fifo()
    assert all((project / name).is_symlink() for name in ("out.link", "out.link2"))


@pytest.mark.parametrize("kind", sorted(FIFO_PATHS))
def test_a_reviews_file_that_is_a_fifo_or_a_link_to_one_is_refused_naming_it(project: Path, kind: str) -> None:
    fifo = make_fifo_paths(project)
    path, _ = FIFO_PATHS[kind]
    result = citecheck(
        project, "review", "--report", f"{EARLIER}.json", "--reviews", path, "--set", "iat_future=verified"
    )
    assert result.returncode == 2
    assert f"cannot read the reviews file {path}: it is a FIFO (named pipe), not a regular file" in result.stderr
    assert fifo.is_fifo() and all((project / name).is_symlink() for name in ("out.link", "out.link2"))


def test_a_reviews_file_that_is_a_loop_of_links_fails_each_test_naming_it(project: Path) -> None:
    """hunt-links: ``citecheck-reviews.json -> citecheck-reviews.json`` (a link made in the wrong
    directory) failed each test with pathlib's ``RuntimeError: Symlink loop from …`` and a traceback
    into the plugin; each test fails with the reviews file's one-line error instead."""
    (project / "citecheck-reviews.json").symlink_to("citecheck-reviews.json")
    result = run_example(project)
    assert result.returncode == pytest.ExitCode.TESTS_FAILED, result.stdout + result.stderr
    assert "cannot read the reviews file" in result.stdout and "citecheck-reviews.json" in result.stdout
    assert "RuntimeError" not in result.stdout and "Traceback" not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["merge", f"{EARLIER}.json", "-o", "pytest.ini"],
            "citecheck merge: cannot write pytest.ini: pytest.ini exists and is not a pytest-citecheck JSON report",
        ),
        (
            ["calibrate", "--reviews", "team-reviews.json", "--html", "team-reviews.json"],
            "citecheck calibrate: cannot write the page to team-reviews.json: team-reviews.json exists and is not a "
            "pytest-citecheck calibration page",
        ),
        (
            ["calibrate", "--reviews", "team-reviews.json", "--html", f"{EARLIER}.html"],
            f"citecheck calibrate: cannot write the page to {EARLIER}.html: {EARLIER}.html exists and is not a "
            "pytest-citecheck calibration page",
        ),
    ],
    ids=["merge-over-pytest.ini", "calibrate-over-the-reviews-file", "calibrate-over-the-run-report"],
)
def test_an_output_path_naming_a_file_of_another_kind_is_refused_and_the_file_kept(
    project: Path, arguments: list[str], message: str
) -> None:
    named = project / arguments[-1]
    before = named.read_bytes()
    result = citecheck(project, *arguments)
    assert result.returncode == 2
    assert one_line(result.stderr).startswith(message)
    assert named.read_bytes() == before


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a link another owner needs root")
def test_another_users_link_in_a_shared_directory_is_not_followed(project: Path) -> None:
    """Following a link, not replacing it, must not let another user of a shared ``/tmp`` point a
    report at any file of ours: Linux's ``fs.protected_symlinks`` rule, applied where the kernel's
    path walk does not (the link is resolved before the write)."""
    shared = project / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # sticky and world-writable, as /tmp is
    mine = project / "mine.json"
    mine.write_text("")
    (shared / "report.json").symlink_to(mine)
    os.lchown(shared / "report.json", 4242, 4242)
    result = citecheck(project, "merge", f"{EARLIER}.json", "-o", "shared/report.json")
    assert result.returncode == 2
    assert one_line(result.stderr) == (
        "citecheck merge: cannot write shared/report.json: it is a symbolic link of another user (uid 4242) in a "
        f"shared directory ({shared}), which is not followed; give the path of a file"
    )
    assert mine.read_text() == ""
    os.lchown(shared / "report.json", 0, 0)  # our own link there is followed
    assert citecheck(project, "merge", f"{EARLIER}.json", "-o", "shared/report.json").returncode == 0
    assert (shared / "report.json").is_symlink() and mine.read_text().startswith('{\n  "version": 1,')


def test_a_loop_of_links_is_named(project: Path) -> None:
    (project / "a.json").symlink_to("b.json")
    (project / "b.json").symlink_to("a.json")
    result = citecheck(project, "merge", f"{EARLIER}.json", "-o", "a.json")
    assert result.returncode == 2
    assert one_line(result.stderr).startswith("citecheck merge: cannot write a.json: it is a chain of more than 40")


def test_a_cassette_recorded_at_the_reports_path_is_not_replaced_by_the_report(
    suite: pytest.Pytester, jev_server: Any, offline: Any
) -> None:
    """hunt-links: ``--citecheck-json`` naming the cassette a new test is about to record
    (``cassettes/test_app/test_answer.yaml``) passed the check before the run (nothing was there), the
    test recorded its cassette there, and the report then replaced it: the next replay failed with 'not
    a vcrpy cassette', the paid answer lost. The path is checked again when the report is written."""
    suite.makepyfile(test_app=AUD_REJECT_TEST)
    cassette = suite.path / "cassettes" / "test_app" / "test_answer.yaml"
    result = suite.runpytest("--citecheck-record-mode=once", f"--citecheck-json={cassette.relative_to(suite.path)}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # the tests passed, the report asked for is missing
    result.stdout.fnmatch_lines(
        [
            "pytest-citecheck: the JSON report was not written: cassettes/test_app/test_answer.yaml: *"
            "test_answer.yaml exists and is not a pytest-citecheck JSON report, so it is not replaced*"
        ]
    )
    assert "\ninteractions:\n" in cassette.read_text(encoding="utf-8")
    offline()
    suite.runpytest().assert_outcomes(passed=1)


def test_the_summary_names_a_report_path_harmlessly(suite: pytest.Pytester, jev_server: Any) -> None:
    """hunt-links: the summary's ``JSON report: PATH`` line printed the path raw, so an escape sequence in
    it (``--citecheck-json=$'out/e\\e]0;PWNED\\ax.json'``) set the terminal's title; the report is written
    at the path as given, and the line shows the sequence as text."""
    suite.makepyfile(test_app=AUD_REJECT_TEST)
    (suite.path / "out").mkdir()
    name = "out/e\x1b]0;PWNED\x07x.json"
    result = suite.runpytest("--citecheck-record-mode=once", f"--citecheck-json={name}")
    result.assert_outcomes(passed=1)
    assert (suite.path / name).is_file()
    assert "JSON report: out/e\\x1b]0;PWNED\\x07x.json" in result.outlines, result.outlines
    assert not any("\x1b" in line or "\x07" in line for line in result.outlines)
