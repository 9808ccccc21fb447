"""What a run tells CI: the terminal summary's rows told apart, and GitHub Actions' summary and annotations.

GitHub is simulated the way it talks to a step: ``GITHUB_ACTIONS=true``, ``GITHUB_STEP_SUMMARY``
naming a file to append Markdown to, ``GITHUB_WORKSPACE`` the repository; annotations are the
``::error`` lines the step prints to stdout.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support import CITATIONS as CITATIONS_FILE
from support import GITHUB_SUITE

CITATIONS = {c["id"]: c for c in json.loads(CITATIONS_FILE.read_text())}
SIG_QUOTE = CITATIONS["sig_reporting"]["quote"]
EXP_QUOTE = CITATIONS["exp_required"]["quote"]


def line_of(source: str, text: str) -> int:
    return next(number for number, line in enumerate(source.splitlines(), start=1) if line.startswith(text))


@pytest.fixture
def github(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A GitHub Actions step: its summary file already holds an earlier step's output."""
    summary = suite.path / "step-summary.md"
    summary.write_text("# Build\n\nAn earlier step wrote this.\n")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_WORKSPACE", str(suite.path))
    return summary


def test_github_summary_and_annotations(suite, jev_server, github):
    test_file = suite.makepyfile(test_gh=GITHUB_SUITE)
    source = test_file.read_text()
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(failed=3, passed=1)
    fails, bad, hostile = (line_of(source, f"def {name}(") for name in ("test_fails", "test_bad_input", "test_hostile"))

    errors = [line for line in result.stdout.lines if line.startswith("::error")]
    assert len(errors) == 4
    assert errors[:3] == [
        f"::error file=test_gh.py,line={fails},title=citecheck%3A fabricated citation 'sig_reporting'::"
        "test_gh.py::test_fails: 'sig_reporting' is fabricated: the quote is not in the source."
        "%0AClaim: Tokens that fail signature validation have to be logged and reported back to the issuer."
        f"%0AQuote: {SIG_QUOTE}",
        f"::error file=test_gh.py,line={fails},title=citecheck%3A contradicted citation 'exp_required'::"
        "test_gh.py::test_fails: 'exp_required' is contradicted: section 4.1.4 contradicts the claim (confidence 0.97)."
        f'%0AClaim: Every JWT must include an expiration time; a token without "exp" is not valid.%0AQuote: {EXP_QUOTE}',
        f"::error file=test_gh.py,line={hostile},title=citecheck%3A fabricated citation 'pipe|id%2C with%3A colon'::"
        "test_gh.py::test_hostile: 'pipe|id, with: colon' is fabricated: the quote is not in the source."
        "%0AClaim: A <b>bold</b> | claim at 100%25 for $5%0Aand a second line%0AQuote: this sentence is in no RFC at all",
    ]
    assert errors[3].startswith(
        f"::error file=test_gh.py,line={bad},title=citecheck%3A citation not checked::test_gh.py::test_bad_input: "
        "CitationInputError: citation 'aud_reject', field 'section': names section '9.9'"
    )

    summary = github.read_text()
    assert summary.startswith("# Build\n\nAn earlier step wrote this.\n")  # appended, never rewritten
    assert summary.count("## pytest-citecheck") == 1
    added = summary.split("An earlier step wrote this.\n", 1)[1]
    # test_bad_input's invalid citation is counted, errored: the counts add up to the citations checked.
    assert "## pytest-citecheck: 6 citations checked in 4 tests" in added
    for row in (
        "| verified | 1 |",
        "| unsupported | 1 |",
        "| contradicted | 1 |",
        "| fabricated | 2 |",
        "| errored | 1 |",
    ):
        assert row in added
    assert "| *needs review* | 1 |" in added
    failing = added.split("### Failing: 3 citations", 1)[1].split("###", 1)[0]
    assert f"| test_gh.py::test_fails (line {fails}) | sig_reporting | **fabricated** | - | - |" in failing
    assert f"| test_gh.py::test_fails (line {fails}) | exp_required | **contradicted** | 0.97 | 4.1.4 |" in failing
    # Escaped: no HTML, no table-breaking pipe, no GitHub math from two dollars, one line.
    assert (
        "| pipe\\|id, with: colon | **fabricated** | - | - | A &lt;b&gt;bold&lt;/b&gt; \\| claim at 100% for \\$5 "
        "and a second line |" in failing
    )
    assert "epoch_seconds" not in failing and "pii_encryption" not in failing
    errors_table = added.split("### Not checked: 1 test with an error", 1)[1].split("###", 1)[0]
    assert f"| test_gh.py::test_bad_input (line {bad}) | CitationInputError: citation 'aud_reject'" in errors_table
    review = added.split("### Needs a human review: 1 citation below auto_accept", 1)[1]
    assert "| test_gh.py::test_review (line " in review
    assert "| pii_encryption | unsupported | 0.28 | 0.8 | JWTs that carry personal data" in review
    assert "`citecheck review --report REPORT.json`" in review
    assert "Jev: 3 requests, " in review and "\\$0.042 per million" in review


def test_under_xdist_the_controller_alone_writes_the_summary_and_the_annotations(xdist_run) -> None:
    assert "3 failed, 3 passed" in xdist_run.stdout.splitlines()[-1], xdist_run.stdout[-3000:]
    errors = [line for line in xdist_run.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 4
    assert len({line.split("::", 2)[1] for line in errors}) == 4  # each once
    # Six tests: test_bad_input's invalid citation has its row (errored).
    assert len(re.findall(r"^## pytest-citecheck: \d+ citations checked in 6 tests$", xdist_run.summary, re.M)) == 1
    assert "| errored | 1 |" in xdist_run.summary
    assert xdist_run.summary.count("### Failing: 3 citations") == 1


def test_outside_github_nothing_is_written_or_printed(suite, jev_server, monkeypatch):
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)
    suite.makepyfile(test_gh=GITHUB_SUITE)
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(failed=3, passed=1)
    assert "::error" not in result.stdout.str()
    assert not list(suite.path.glob("*.md"))


def test_a_summary_that_cannot_be_written_is_said_and_changes_nothing(suite, jev_server, github, monkeypatch):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(suite.path))  # a directory: cannot be appended to
    suite.makepyfile(test_gh=GITHUB_SUITE)
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(failed=3, passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["citecheck: the GitHub step summary was not written: *"])
    assert "INTERNALERROR" not in result.stdout.str()
    assert len([line for line in result.stdout.lines if line.startswith("::error")]) == 4


def test_a_citation_id_checked_in_several_tests_gets_a_test_column(suite, jev_server):
    suite.makepyfile(
        test_shared="""
        from cookbook import SOURCE, pick

        def test_one(citecheck):
            citecheck.check(pick("clock_skew", "aud_reject"), SOURCE)

        def test_two(citecheck):
            citecheck.check(pick("clock_skew"), SOURCE)
        """
    )
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "  id          verdict   conf  action  test",
            "  clock_skew  verified  0.94  auto    test_shared.py::test_one",
            "  aud_reject  verified  0.94  auto    test_shared.py::test_one",
            "  clock_skew  verified  0.94  auto    test_shared.py::test_two",
        ]
    )
    # Ids unique across the run: the table stays narrow (-v adds the section and the test).
    suite.makepyfile(
        test_shared="from cookbook import SOURCE, pick\n\ndef test_one(citecheck):\n"
        "    citecheck.check(pick('clock_skew'), SOURCE)\n"
    )
    narrow = suite.runpytest("--citecheck-record-mode=once")
    narrow.stdout.fnmatch_lines(["  id          verdict   conf  action", "  clock_skew  verified  0.94  auto"])
