"""The per-test review and failure messages name a command that finds the run's report (issue 26, item 7).

Under ``-p no:cacheprovider`` pytest keeps no cache, so plain ``citecheck review`` (which reads the
last report from the cache) finds nothing: the messages say to pass ``--citecheck-json``, or name the
report the run writes. With the cache, plain ``citecheck review`` is right. Each case runs a real
pytest run through ``pytester`` (replaying a recording made once through the real SDK from the
loopback Jev), then runs the command a message names and checks that it finds the citation.
"""

from __future__ import annotations

import shlex
from typing import Any

import pytest
from support import INNER_INI, failures_section

from pytest_citecheck._cli import main as citecheck

SUITE = """
from cookbook import SOURCE, pick
from pytest_citecheck import assert_citations_supported

def test_warns():
    assert_citations_supported(pick("pii_encryption"), SOURCE)

def test_fails():
    assert_citations_supported(pick("iat_future"), SOURCE, review="fail")
"""
NO_REPORT = "this run keeps no report for `citecheck review` (pytest's cache is off: -p no:cacheprovider)"


@pytest.fixture
def recorded(suite: pytest.Pytester, jev_server: Any, recorded_once: Any) -> pytest.Pytester:
    def record() -> None:
        suite.makeini(INNER_INI + "citecheck_model = jev-1.12\n")  # pinned: no ModelPinWarning
        suite.makepyfile(test_app=SUITE)
        suite.runpytest("--citecheck-record-mode=once", "-p", "no:cacheprovider").assert_outcomes(
            passed=1, failed=1, warnings=1
        )

    recorded_once(suite, record)
    return suite


def _messages(result: pytest.RunResult) -> tuple[str, str]:
    """The review warning's text (the warnings summary) and the failure's (the FAILURES section)."""
    output = result.stdout.str()
    warning = output.split("warnings summary", 1)[1].split("-- Docs:", 1)[0]
    return warning, failures_section(output)


def _commands(text: str) -> set[str]:
    return {command for command in text.split("`")[1::2] if command.startswith("citecheck review")}


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (
            ("-p", "no:cacheprovider", "--citecheck-json=out/run report.json"),
            "citecheck review --report 'out/run report.json'",
        ),
        ((), "citecheck review"),
    ],
    ids=["json-report-without-cache", "cache"],
)
def test_the_messages_name_a_command_that_finds_the_report(
    recorded: pytest.Pytester, args: tuple[str, ...], command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    result = recorded.runpytest(*args)
    result.assert_outcomes(passed=1, failed=1, warnings=1)
    warning, failure = _messages(result)
    assert f"with `{command}`" in warning
    assert f"run `{command}` to confirm or correct each verdict" in failure
    assert _commands(warning) == _commands(failure) == {command}
    # The command each message names finds this run's report and lists both citations.
    capsys.readouterr()
    assert citecheck([*shlex.split(command)[1:], "--list"]) == 0
    listed = capsys.readouterr().out
    assert "pii_encryption" in listed and "iat_future" in listed


def test_without_the_cache_and_a_json_report_the_messages_say_to_write_one(recorded: pytest.Pytester) -> None:
    result = recorded.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1, warnings=1)
    warning, failure = _messages(result)
    for message in (warning, failure):
        assert NO_REPORT in message
        assert "rerun with --citecheck-json=PATH, then run `citecheck review --report PATH`" in message
    assert _commands(warning) == _commands(failure) == {"citecheck review", "citecheck review --report PATH"}
    assert "with `citecheck review`" not in warning and "run `citecheck review` to" not in failure
    # What the old words pointed at finds nothing: no report was kept.
    assert not (recorded.path / ".pytest_cache").exists()
