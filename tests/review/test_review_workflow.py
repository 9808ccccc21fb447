"""The review loop end to end: run a suite, decide a citation with `citecheck review`, rerun.

Real pytest runs through pytester, real cassettes recorded against the loopback JevServer, the
real `citecheck` command in a subprocess, and the reviews file it writes applied by the next run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from support import review, run_review_in

from pytest_citecheck.testing import JevServer

TEST_FILE = """
from pytest_citecheck import assert_citations_supported
from cookbook import SOURCE, pick

def test_answer():
    assert_citations_supported(pick("aud_reject", "pii_encryption", "iat_future"), SOURCE)
"""


def rows_of(path: Path) -> dict[str, dict]:
    return {row["id"]: row for row in json.loads(path.read_text())["results"]}


@pytest.fixture
def recorded_suite(
    suite: pytest.Pytester, jev_server: JevServer, inner_ini: str, recorded_once: Callable[..., None]
) -> pytest.Pytester:
    """The suite recorded, with its JSON report: recorded once per module, a copy of it in later tests."""
    suite.makepyfile(test_answers=TEST_FILE)
    # A pinned model, as TypeSafe advises (and the plugin warns otherwise).
    suite.makeini(inner_ini + "citecheck_model = jev-1.12\n")

    def record() -> None:
        result = suite.runpytest("--citecheck-record-mode=once", "--citecheck-json=report.json")
        result.assert_outcomes(passed=1, warnings=1)

    recorded_once(suite, record)
    return suite


def test_a_decision_recorded_with_flags_applies_on_the_next_run_and_goes_stale_when_the_claim_changes(
    recorded_suite: pytest.Pytester, no_typesafe_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = recorded_suite
    rows = rows_of(suite.path / "report.json")
    assert rows["pii_encryption"]["verdict"] == "unsupported" and rows["pii_encryption"]["auto"] is False
    assert rows["pii_encryption"]["decision"] is None

    listed = review(suite, "--report", "report.json", "--list")
    assert listed.returncode == 0, listed.stderr
    assert "pii_encryption" in listed.stdout and "iat_future" in listed.stdout
    assert "aud_reject" not in listed.stdout  # stands on its own at 0.97
    # The quote is marked inside the section text when not on a terminal.
    assert "»" in listed.stdout and "«" in listed.stdout

    done = review(
        suite,
        "--report",
        "report.json",
        "--set",
        "pii_encryption=verified",
        "--note",
        "RFC 7516 covers it",
        "--by",
        "Ada",
    )
    assert done.returncode == 0, done.stderr
    reviews_file = suite.path / "citecheck-reviews.json"
    decisions = json.loads(reviews_file.read_text())["decisions"]
    (entry,) = decisions.values()
    assert entry["verdict"] == "verified" and entry["model_verdict"] == "unsupported"
    assert entry["action"] == "override" and entry["by"] == "Ada" and entry["note"] == "RFC 7516 covers it"

    # Rerun, replaying: the decided citation no longer needs review and its verdict is the human's.
    rerun = suite.runpytest("--citecheck-json=report.json", "-v")
    rerun.assert_outcomes(passed=1, warnings=1)  # iat_future still needs review
    rows = rows_of(suite.path / "report.json")
    decided = rows["pii_encryption"]
    assert decided["verdict"] == "verified" and decided["model_verdict"] == "unsupported"
    assert decided["decision"]["by"] == "Ada" and decided["stale_decision"] is None
    assert rows["iat_future"]["decision"] is None
    rerun.stdout.fnmatch_lines(["*pii_encryption*verified*0.28*human*", "1 verdict decided by a human (reviews file)."])
    relisted = review(suite, "--report", "report.json", "--list")
    assert "pii_encryption" not in relisted.stdout and "iat_future" in relisted.stdout

    # Change the claim: the digest no longer matches, so the decision is reported stale and not applied.
    citations = json.loads((suite.path / "citations.json").read_text())
    for citation in citations:
        if citation["id"] == "pii_encryption":
            citation["claim"] = "JWTs that carry personal data must always be encrypted."
    (suite.path / "citations.json").write_text(json.dumps(citations))
    with JevServer(lambda claim, section: ("says_nothing", 0.5)) as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        monkeypatch.setenv("TYPESAFE_API_KEY", "sk-test-key-for-the-loopback")
        stale_run = suite.runpytest("--citecheck-record-mode=rewrite", "--citecheck-json=report.json")
    stale_run.assert_outcomes(passed=1, warnings=1)
    row = rows_of(suite.path / "report.json")["pii_encryption"]
    assert row["decision"] is None and row["verdict"] == "unsupported"
    assert row["stale_decision"]["by"] == "Ada" and row["stale_decision"]["verdict"] == "verified"
    stale_run.stdout.fnmatch_lines(
        ["1 human decision no longer applies (the claim, section or model changed): review again."]
    )
    assert "stale" in review(suite, "--report", "report.json", "--list").stdout


def test_accept_confirms_jevs_verdict_from_the_last_run_report_in_the_cache(recorded_suite: pytest.Pytester) -> None:
    # No --report: the command reads the last run's report, which the plugin keeps in pytest's cache.
    done = review(recorded_suite, "--accept", "iat_future", "--by", "Grace")
    assert done.returncode == 0, done.stderr
    (entry,) = json.loads((recorded_suite.path / "citecheck-reviews.json").read_text())["decisions"].values()
    assert entry["verdict"] == "unsupported" and entry["action"] == "confirm" and entry["citation"] == "iat_future"
    # A confirmed "unsupported" is no longer a question but the human's verdict: it fails the test.
    rerun = recorded_suite.runpytest()
    rerun.assert_outcomes(failed=1)
    rerun.stdout.fnmatch_lines(
        ["*iat_future*unsupported*0.55*FAIL (human)*", "*pii_encryption*unsupported*0.28*review*"]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--accept", "no_such_id"], "unknown citation id 'no_such_id'"),
        (["--set", "pii_encryption=fabricated"], "unknown verdict 'fabricated'"),
        (["--set", "pii_encryption"], "expected ID=VERDICT"),
        # A good decision next to a bad one: all or nothing.
        (["--accept", "iat_future", "--accept", "nope"], "unknown citation id 'nope'"),
    ],
)
def test_bad_input_names_the_problem_and_changes_nothing(
    recorded_suite: pytest.Pytester, args: list[str], message: str
) -> None:
    reviews_file = recorded_suite.path / "citecheck-reviews.json"
    reviews_file.write_text('{"decisions": {}, "format": 1}\n')
    before = reviews_file.read_bytes()
    result = review(recorded_suite, "--report", "report.json", *args)
    assert result.returncode == 2
    assert message in result.stderr and "Nothing was changed." in result.stderr
    assert reviews_file.read_bytes() == before


def test_a_report_from_another_version_is_refused(recorded_suite: pytest.Pytester) -> None:
    report = json.loads((recorded_suite.path / "report.json").read_text())
    report["version"] = 99
    (recorded_suite.path / "other.json").write_text(json.dumps(report))
    result = review(recorded_suite, "--report", "other.json", "--accept", "iat_future")
    assert result.returncode == 2
    assert "report version 99" in result.stderr and "Nothing was changed." in result.stderr
    assert not (recorded_suite.path / "citecheck-reviews.json").exists()


def test_a_fabricated_citation_cannot_be_reviewed_into_a_verdict(suite: pytest.Pytester, jev_server: JevServer) -> None:
    suite.makepyfile(
        test_made_up="""
        from pytest_citecheck import check_citations
        from cookbook import SOURCE

        def test_made_up():
            check_citations([{"id": "ghost", "claim": "x", "quote": "words that are not in RFC 7519", "section": None}], SOURCE)
        """
    )
    suite.runpytest("--citecheck-record-mode=once", "--citecheck-json=report.json").assert_outcomes(passed=1)
    result = review(suite, "--report", "report.json", "--set", "ghost=verified")
    assert result.returncode == 2 and "its quote is not in the source" in result.stderr


def test_a_damaged_reviews_file_fails_the_checking_test_and_is_left_alone(
    recorded_suite: pytest.Pytester, no_typesafe_env: None
) -> None:
    reviews_file = recorded_suite.path / "citecheck-reviews.json"
    reviews_file.write_text("{not json")
    result = recorded_suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*ReviewsFileError*citecheck-reviews.json is not valid JSON*restore it from version control*"]
    )
    assert reviews_file.read_text() == "{not json"


def test_a_reviews_file_nested_too_deeply_is_one_clear_error_not_a_recursion_error(
    recorded_suite: pytest.Pytester, no_typesafe_env: None
) -> None:
    reviews_file = recorded_suite.path / "citecheck-reviews.json"
    reviews_file.write_text("[" * 200_000 + "]" * 200_000)
    result = recorded_suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*ReviewsFileError*citecheck-reviews.json is not valid JSON (nested too deeply)*"])
    assert "RecursionError" not in result.stdout.str()


def test_interactive_review_records_each_answer(
    recorded_suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    from pytest_citecheck._review import command as review_cmd

    monkeypatch.chdir(recorded_suite.path)
    answers = iter(["x", "c", "contradicts RFC 7516", "s"])
    args = review_cmd._parser().parse_args(["--report", "report.json", "--by", "Lin", "--color", "always"])
    rows = review_cmd.load_rows(Path("report.json"))
    assert review_cmd.interactive(rows, args, sys.stdout, ask=lambda prompt: next(answers)) == 0
    out = capsys.readouterr().out
    assert "please answer a, v, u, c, s or q" in out and "\x1b[1;7m" in out
    (entry,) = json.loads(Path("citecheck-reviews.json").read_text())["decisions"].values()
    assert (
        entry["citation"] == "pii_encryption"
        and entry["verdict"] == "contradicted"
        and entry["note"] == "contradicts RFC 7516"
    )


def test_interactive_review_takes_the_words_the_prompt_shows_in_any_case(
    recorded_suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """The prompt shows "[a]ccept ... [c]ontradicted, [s]kip": "Contradicted" (the word, not the letter)
    was refused with "please answer a, v, u, c, s or q"; the words are taken, in any case."""
    from pytest_citecheck._review import command as review_cmd

    monkeypatch.chdir(recorded_suite.path)
    answers = iter(["verify", "Contradicted", "the JWE spec", "SKIP", "Quit"])
    args = review_cmd._parser().parse_args(["--report", "report.json", "--by", "Lin", "--all"])
    rows = review_cmd.load_rows(Path("report.json"))
    assert review_cmd.interactive(rows, args, sys.stdout, ask=lambda prompt: next(answers)) == 0
    out = capsys.readouterr().out
    assert out.count("please answer") == 1  # "verify" is no word the prompt shows
    assert "1 decision recorded" in out
    (entry,) = json.loads(Path("citecheck-reviews.json").read_text())["decisions"].values()
    assert (entry["verdict"], entry["note"]) == ("contradicted", "the JWE spec")
    assert next(answers, None) is None  # "SKIP" skipped the next citation, "Quit" ended the review


def test_ctrl_d_at_the_note_prompt_records_nothing_and_ends_the_review(
    recorded_suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Ctrl-D at the note prompt recorded the decision just chosen, with no note, and asked on: a
    decision takes the place of Jev's verdict on every run, so one broken off is not recorded, and
    Ctrl-D ends the review as it does at the decision prompt. Enter is still "no note"."""
    from pytest_citecheck._review import command as review_cmd

    monkeypatch.chdir(recorded_suite.path)
    script: list[str | None] = ["c", "", "v", None, "v", ""]

    def ask(prompt: str) -> str:
        answer = script.pop(0)
        if answer is None:
            raise EOFError
        return answer

    args = review_cmd._parser().parse_args(["--report", "report.json", "--by", "Lin"])
    rows = review_cmd.load_rows(Path("report.json"))
    assert review_cmd.interactive(rows, args, sys.stdout, ask=ask) == 0
    out = capsys.readouterr().out
    assert "not recorded:" in out and "(end of input at the note prompt)" in out
    assert "1 decision recorded" in out
    assert script == ["v", ""]  # nothing asked after Ctrl-D
    (entry,) = json.loads(Path("citecheck-reviews.json").read_text())["decisions"].values()
    assert entry["verdict"] == "contradicted" and "note" not in entry


def decisions_in(pytester: pytest.Pytester) -> dict[str, dict]:
    decisions = json.loads((pytester.path / "citecheck-reviews.json").read_text())["decisions"]
    return {entry["citation"]: entry for entry in decisions.values()}


def test_a_decision_is_never_replaced_silently(recorded_suite: pytest.Pytester) -> None:
    first = review(
        recorded_suite, "--report", "report.json", "--accept", "pii_encryption", "--by", "Ada", "--note", "read it"
    )
    assert first.returncode == 0, first.stderr
    before = (recorded_suite.path / "citecheck-reviews.json").read_bytes()

    # Another reviewer (not on a terminal): refused, with the decision it would replace.
    again = review(recorded_suite, "--report", "report.json", "--set", "pii_encryption=verified", "--by", "Bob")
    assert again.returncode == 2
    assert "citation 'pii_encryption' already has a decision: unsupported by Ada" in again.stderr
    assert "note: 'read it'" in again.stderr and "--replace" in again.stderr and "Nothing was changed." in again.stderr
    assert (recorded_suite.path / "citecheck-reviews.json").read_bytes() == before

    replaced = review(
        recorded_suite, "--report", "report.json", "--set", "pii_encryption=verified", "--by", "Bob", "--replace"
    )
    assert replaced.returncode == 0, replaced.stderr
    assert "replaces Ada's decision (unsupported" in replaced.stdout
    entry = decisions_in(recorded_suite)["pii_encryption"]
    assert (entry["by"], entry["verdict"]) == ("Bob", "verified") and "note" not in entry


def test_on_a_terminal_replacing_a_decision_is_asked(recorded_suite: pytest.Pytester, monkeypatch, capsys) -> None:
    from pytest_citecheck._review import command as review_cmd

    monkeypatch.chdir(recorded_suite.path)
    assert review(recorded_suite, "--report", "report.json", "--accept", "iat_future", "--by", "Ada").returncode == 0
    rows = review_cmd.load_rows(Path("report.json"))
    args = review_cmd._parser().parse_args(["--report", "report.json", "--set", "iat_future=verified", "--by", "Lin"])
    asked: list[str] = []

    def say_no(prompt: str) -> str:
        asked.append(prompt)
        return "n"

    with pytest.raises(review_cmd.ReviewInputError, match="the decision was kept"):
        review_cmd.apply_flags(rows, args, sys.stdout, ask=say_no, on_terminal=True)
    assert asked and "unsupported by Ada" in asked[0]
    assert decisions_in(recorded_suite)["iat_future"]["by"] == "Ada"
    assert review_cmd.apply_flags(rows, args, sys.stdout, ask=lambda prompt: "y", on_terminal=True) == 0
    assert decisions_in(recorded_suite)["iat_future"]["by"] == "Lin"


def test_a_decision_on_a_citation_that_stood_on_its_own_needs_a_note_and_says_so(
    recorded_suite: pytest.Pytester,
) -> None:
    # aud_reject is "verified" at 0.94: it stood on its own, nobody needed to review it.
    undocumented = review(recorded_suite, "--report", "report.json", "--set", "aud_reject=contradicted", "--by", "Bob")
    assert undocumented.returncode == 2
    assert "citation 'aud_reject' stood on its own (verified at 0.94, auto_accept 0.8)" in undocumented.stderr
    assert "--note" in undocumented.stderr and "Nothing was changed." in undocumented.stderr
    assert not (recorded_suite.path / "citecheck-reviews.json").exists()

    documented = review(
        recorded_suite,
        "--report",
        "report.json",
        "--set",
        "aud_reject=contradicted",
        "--by",
        "Bob",
        "--note",
        "4.1.3 says MUST reject, the app says MAY",
    )
    assert documented.returncode == 0, documented.stderr
    assert "aud_reject stood on its own (verified at 0.94, auto_accept 0.8)" in documented.stdout
    assert decisions_in(recorded_suite)["aud_reject"]["verdict"] == "contradicted"


def test_interactive_review_asks_before_replacing_and_wants_a_note_for_a_citation_that_stood(
    recorded_suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    from pytest_citecheck._review import command as review_cmd

    monkeypatch.chdir(recorded_suite.path)
    assert (
        review(recorded_suite, "--report", "report.json", "--accept", "pii_encryption", "--by", "Ada").returncode == 0
    )
    before = (recorded_suite.path / "citecheck-reviews.json").read_bytes()
    # aud_reject: accept, no note (not recorded); pii_encryption: verified, then "replace?" no; then quit.
    answers = iter(["a", "", "v", "n", "q"])
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    args = review_cmd._parser().parse_args(["--report", "report.json", "--all", "--by", "Lin"])
    rows = review_cmd.load_rows(Path("report.json"))
    assert review_cmd.interactive(rows, args, sys.stdout, ask=ask) == 0
    out = capsys.readouterr().out
    assert "Note (required: it stood on its own (verified at 0.94, auto_accept 0.8), so say why): " in prompts
    assert "not recorded: aud_reject stood on its own" in out
    assert any(prompt.startswith("Replace the decision unsupported by Ada") for prompt in prompts)
    assert "kept the existing decision" in out
    assert (recorded_suite.path / "citecheck-reviews.json").read_bytes() == before


def test_listing_into_a_pipe_that_closes_early_prints_no_traceback(recorded_suite: pytest.Pytester) -> None:
    # `citecheck review --list --all | head`: head exits after a few lines, and the pipe closes.
    report = json.loads((recorded_suite.path / "report.json").read_text())
    row = next(row for row in report["results"] if row.get("review_key") and not row["auto"])
    report["results"] = [{**row, "id": f"c{n}"} for n in range(400)]  # far more than a pipe buffers
    (recorded_suite.path / "big.json").write_text(json.dumps(report))
    listing = subprocess.Popen(
        [sys.executable, "-m", "pytest_citecheck", "review", "--report", "big.json", "--list", "--all"],
        cwd=recorded_suite.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert listing.stdout is not None and listing.stderr is not None
    assert listing.stdout.readline().startswith(b"400 citations need review")
    listing.stdout.close()  # what head does once it has its lines
    with listing.stderr:
        errors = listing.stderr.read().decode()
    assert listing.wait(timeout=60) == 141  # 128 + SIGPIPE, as a shell reports grep or git there (docs/reliability.md)
    assert "Traceback" not in errors and "BrokenPipeError" not in errors and "Exception ignored" not in errors, errors


def test_ctrl_c_at_a_prompt_keeps_what_was_recorded_and_prints_no_traceback(
    recorded_suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    # Found driving `citecheck review` in a real terminal (pexpect): Ctrl-C at the second prompt
    # printed a KeyboardInterrupt traceback.
    import io

    from pytest_citecheck._review import command as review_cmd

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    class Person(Terminal):
        """Answers the first citation, then presses Ctrl-C at the next prompt."""

        answers = iter(["a\n", "Section 3 allows signed-only JWTs\n"])

        def readline(self, size: int | None = -1) -> str:
            for answer in self.answers:
                return answer
            raise KeyboardInterrupt

    monkeypatch.chdir(recorded_suite.path)
    screen = Terminal()
    monkeypatch.setattr(sys, "stdin", Person())
    monkeypatch.setattr(sys, "stdout", screen)
    assert review_cmd.main(["--report", "report.json", "--by", "Ada"]) == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err and "interrupted; decisions reported as recorded are kept" in err
    assert "recorded unsupported (confirm)" in screen.getvalue()
    assert list(decisions_in(recorded_suite)) == ["pii_encryption"]


def test_a_report_read_from_another_directory_makes_no_directory_for_a_file_no_test_reads(
    recorded_suite: pytest.Pytester,
) -> None:
    # Found with a report written by `pytest proj` from the parent directory (as a CI checkout's
    # root would), reviewed from inside proj: the decision went to a new proj/proj/ directory.
    report = json.loads((recorded_suite.path / "report.json").read_text())
    for row in report["results"]:
        row["reviews_file"] = "proj/" + row["reviews_file"]
    (recorded_suite.path / "ci-report.json").write_text(json.dumps(report))
    result = review(recorded_suite, "--report", "ci-report.json", "--accept", "iat_future")
    assert result.returncode == 2, result.stdout
    assert "puts citation 'iat_future''s decisions in proj/citecheck-reviews.json" in result.stderr
    assert "run citecheck review from the directory pytest ran in, or pass --reviews PATH" in result.stderr
    assert not (recorded_suite.path / "proj").exists()
    # --reviews names the file instead.
    result = review(
        recorded_suite, "--report", "ci-report.json", "--accept", "iat_future", "--reviews", "citecheck-reviews.json"
    )
    assert result.returncode == 0, result.stderr
    assert list(decisions_in(recorded_suite)) == ["iat_future"]


def test_a_decision_whose_citation_is_gone_is_reported_and_kept(
    recorded_suite: pytest.Pytester, no_typesafe_env: None
) -> None:
    """A decision for a citation that no longer exists (its test renamed or deleted, the citation taken
    out) never applies again, and nothing said so. The run's summary, its JSON report and
    ``citecheck review --list`` now name each one and why; the reviews file is never changed. A run
    that cannot tell (one test named on the command line, its test deselected) names none."""
    suite = recorded_suite
    for citation in ("pii_encryption", "iat_future"):
        done = review(suite, "--report", "report.json", "--set", f"{citation}=verified", "--by", "Ada")
        assert done.returncode == 0, done.stderr
    reviews_file = suite.path / "citecheck-reviews.json"
    written = reviews_file.read_bytes()
    assert suite.runpytest("--citecheck-json=report.json").ret == 0
    assert "dead_decisions" not in json.loads((suite.path / "report.json").read_text())

    # The citation iat_future is taken out of the test: its decision is dead, pii_encryption's is not.
    (suite.path / "test_answers.py").write_text(TEST_FILE.replace(', "iat_future"', ""))
    result = suite.runpytest("--citecheck-json=report.json", "-p", "xdist", "-n", "2")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "1 human decision in 1 reviews file applies to no citation any more:",
            "  dead  test_answers.py::test_answer 'iat_future' (verified by Ada) in citecheck-reviews.json: "
            "its test ran to the end and checked no citation of that id",
            "Remove them from the reviews file by hand*",
        ]
    )
    (dead,) = json.loads((suite.path / "report.json").read_text())["dead_decisions"]
    assert (dead["citation"], dead["reviews_file"]) == ("iat_future", "citecheck-reviews.json")
    listed = review(suite, "--report", "report.json", "--list")
    assert "'iat_future' (verified by Ada) in citecheck-reviews.json: its test ran to the end" in listed.stdout

    # Its test deselected (-k): it did not run, so nothing is said of its citations.
    assert "no citation any more" not in suite.runpytest("-k", "not answer").stdout.str()

    # The test renamed: both decisions are dead; a run of the one test named on the command line cannot tell.
    (suite.path / "test_answers.py").write_text(TEST_FILE.replace("def test_answer", "def test_renamed"))
    named = suite.runpytest("--citecheck-record-mode=none", "test_answers.py::test_renamed")
    assert "no citation any more" not in named.stdout.str()
    result = suite.runpytest("--citecheck-record-mode=none", "--citecheck-json=report.json")
    result.stdout.fnmatch_lines(["2 human decisions in 1 reviews file apply to no citation any more:"])
    assert result.stdout.str().count("no test of that name was collected (renamed or deleted)") == 2

    # The module deleted (another one left in its directory): dead, as its module is gone.
    suite.makepyfile(test_other="def test_other():\n    pass\n")
    (suite.path / "test_answers.py").unlink()
    result = suite.runpytest("--citecheck-json=report.json")
    assert result.stdout.str().count("its test module is gone") == 2
    assert reviews_file.read_bytes() == written  # reported, never removed

    # A decision removed by hand is no longer listed by `citecheck review --list`.
    data = json.loads(written)
    data["decisions"] = {k: v for k, v in data["decisions"].items() if v["citation"] != "iat_future"}
    reviews_file.write_text(json.dumps(data))
    listed = review(suite, "--report", "report.json", "--list")
    assert "'pii_encryption'" in listed.stdout and "'iat_future'" not in listed.stdout


def test_review_from_the_subdirectory_pytest_ran_in_reads_the_report_in_the_cache_at_the_rootdir(
    suite: pytest.Pytester, jev_server: JevServer, inner_ini: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found installing from the wheel (hunt-install): the project's ini is at its root and the user runs
    pytest from ``tests/``, so pytest's cache, and the last report in it, is at the root; the summary says
    ``run `citecheck review```, and running it there said "run pytest first (from this directory)"."""
    suite.makeini(inner_ini + "citecheck_model = jev-1.12\npythonpath = .\n")
    tests = suite.mkdir("tests")
    (tests / "test_answers.py").write_text(TEST_FILE, encoding="utf-8")
    monkeypatch.chdir(tests)
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(["*need a human review: run `citecheck review`."])
    cached = (suite.path / ".pytest_cache" / "d" / "citecheck" / "last-report.json").read_text(encoding="utf-8")
    # Written compact (a row to a line, by the json module's C encoder): only this plugin reads it.
    rows = json.loads(cached)["results"]
    assert len(rows) == 3 and all(f"\n    {json.dumps(row, ensure_ascii=False)}" in cached for row in rows)

    done = run_review_in(tests, "--accept", "iat_future", "--by", "Grace")
    assert done.returncode == 0, done.stderr
    # The reviews file beside the test file: the one the next run (from tests/ or from the root) reads.
    (entry,) = json.loads((tests / "citecheck-reviews.json").read_text())["decisions"].values()
    assert entry["citation"] == "iat_future" and entry["action"] == "confirm"
    suite.runpytest().assert_outcomes(failed=1)  # a confirmed "unsupported" fails the test


def test_review_reads_the_report_in_the_cache_dir_the_ini_names(
    recorded_suite: pytest.Pytester, inner_ini: str
) -> None:
    recorded_suite.makeini(inner_ini + "citecheck_model = jev-1.12\ncache_dir = .cache/pytest\n")
    recorded_suite.runpytest().assert_outcomes(passed=1, warnings=1)
    assert (recorded_suite.path / ".cache" / "pytest" / "d" / "citecheck" / "last-report.json").is_file()
    shutil.rmtree(recorded_suite.path / ".pytest_cache")  # the recording run's cache, before the ini named another
    done = review(recorded_suite, "--accept", "iat_future", "--by", "Grace")
    assert done.returncode == 0, done.stderr
    assert list(decisions_in(recorded_suite)) == ["iat_future"]


def test_no_report_in_the_cache_says_where_pytest_keeps_it(suite: pytest.Pytester) -> None:
    # `pytest examples/rfc7519` from a checkout's root: that folder's pytest.ini makes it the rootdir,
    # and pytest's cache (with the last report) is there, not where pytest ran.
    done = review(suite, "--list")
    assert done.returncode == 2
    assert "no report of a previous run in pytest's cache" in done.stderr
    assert "in pytest's cache at .pytest_cache/d/citecheck/last-report.json: run pytest first" in done.stderr
    assert "the `rootdir:` line of pytest's header" in done.stderr
    assert "--report ROOTDIR/.pytest_cache/d/citecheck/last-report.json" in done.stderr


def test_the_review_hint_of_a_run_configured_in_a_subfolder_names_the_report_it_kept(
    suite: pytest.Pytester, jev_server: JevServer, inner_ini: str
) -> None:
    """hunt-links: ``pytest -c ci/pytest.ini tests`` makes ``ci/`` the rootdir, so pytest keeps its cache
    (and the last report) in ``ci/.pytest_cache``; the summary said ``run `citecheck review```, and that
    command, run where pytest ran, looked in ``./.pytest_cache`` and found nothing. The hint now names
    the report with ``--report``, and that command works as given."""
    (suite.path / "ci").mkdir()
    (suite.path / "ci" / "pytest.ini").write_text(inner_ini + "citecheck_model = jev-1.12\npythonpath = ..\n")
    tests = suite.mkdir("tests")
    (tests / "test_answers.py").write_text(TEST_FILE, encoding="utf-8")
    result = suite.runpytest("-c", "ci/pytest.ini", "tests", "--citecheck-record-mode=once")
    result.assert_outcomes(passed=1, warnings=1)
    kept = "ci/.pytest_cache/d/citecheck/last-report.json"
    # No JSON report was asked for: the summary names none (the cache's is for the hint only).
    assert not any(line.startswith("JSON report:") for line in result.outlines), result.outlines
    result.stdout.fnmatch_lines([f"*need a human review: run `citecheck review --report {kept}`."])
    result.stdout.fnmatch_lines(
        [f"*What next: confirm or correct each verdict with `citecheck review --report {kept}`*"]
    )
    done = run_review_in(suite.path, "--report", kept, "--accept", "iat_future", "--by", "Grace")
    assert done.returncode == 0, done.stderr
    assert (tests / "citecheck-reviews.json").is_file()
    # Configured at its root and run from there, the hint stays the plain command.
    (suite.path / "ci" / "pytest.ini").rename(suite.path / "pytest.ini")
    (suite.path / "pytest.ini").write_text(inner_ini + "citecheck_model = jev-1.12\npythonpath = .\n")
    (tests / "citecheck-reviews.json").unlink()
    again = suite.runpytest("tests")
    again.stdout.fnmatch_lines(["*need a human review: run `citecheck review`."])
