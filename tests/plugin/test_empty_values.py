"""Empty and blank values on every channel: an empty flag or keyword is a usage error, an empty ini key the default.

An empty flag value used to mean "off" where an empty ini value means "the default": a CI script's
``--citecheck-request-deadline=$DEADLINE``, with the variable unset, ran with no deadline, and
``--citecheck-max-rpm=`` with no rate limit; ``--citecheck-json=" "`` wrote a report named a space.
"""

from __future__ import annotations

import json

import pytest
from support import INNER_INI

from pytest_citecheck._errors import OptionError
from pytest_citecheck._options import OPTIONS, Settings

# Every option whose flag takes a value (a switch's flag takes none: argparse refuses ``--citecheck-screen=``).
VALUED = [option for option in OPTIONS if not option.is_switch]
PROBE = """
def test_probe(request):
    from pytest_citecheck._pytest_glue.stash import SETTINGS

    settings = request.config.stash[SETTINGS]
    print("DEADLINE", settings.request_deadline, "RPM", settings.max_rpm, "JSON", settings.json)
"""


@pytest.mark.parametrize("blank", ["", " ", "\t"])
@pytest.mark.parametrize("option", VALUED, ids=lambda option: option.name)
def test_a_blank_flag_value_is_refused_naming_the_flag_for_every_option(option, blank) -> None:
    with pytest.raises(OptionError) as raised:
        Settings.resolve({option.name: blank}, {})
    message = str(raised.value)
    assert message.startswith(f"{option.flag}: an empty value")
    assert f"leave {option.flag} out for the default ({option.default_text})" in message
    # The options with an off word say how to ask for it; the others do not offer it.
    assert ("none turns it off" in message) == option.metavar.endswith("|none")


@pytest.mark.parametrize("option", OPTIONS, ids=lambda option: option.name)
def test_an_empty_ini_value_is_the_default_for_every_option(option) -> None:
    for blank in ("", " "):  # a TOML string of spaces too
        assert getattr(Settings.resolve({}, {option.name: blank}), option.name) == option.default


@pytest.mark.parametrize(
    "flag",
    [
        "--citecheck-request-deadline",
        "--citecheck-max-rpm",
        "--citecheck-max-tokens-per-second",
        "--citecheck-window",
        "--citecheck-json",
        "--citecheck-html",
        "--citecheck-questions",
        "--citecheck-fuzzy",
    ],
)
@pytest.mark.parametrize("blank", ["", " "])
def test_a_ci_variable_that_expanded_to_nothing_is_a_usage_error_before_any_test(pytester, flag, blank):
    pytester.makeini(INNER_INI)
    pytester.makepyfile(test_x="def test_x():\n    raise AssertionError('must not run')\n")
    result = pytester.runpytest(f"{flag}={blank}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: pytest-citecheck: {flag}: an empty value*leave {flag} out for the default*"])
    assert "must not run" not in result.stdout.str()
    assert not list(pytester.path.glob(" *")), "no report file named a space"


def test_an_empty_ini_value_keeps_the_default_deadline_and_rate(pytester):
    pytester.makeini(INNER_INI + "citecheck_request_deadline =\ncitecheck_max_rpm =\ncitecheck_json =\n")
    pytester.makepyfile(test_probe=PROBE)
    result = pytester.runpytest("-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*DEADLINE 240.0 RPM 1200 JSON None*"])


def test_none_on_the_command_line_still_turns_the_deadline_and_rate_off(pytester):
    pytester.makeini(INNER_INI)
    pytester.makepyfile(test_probe=PROBE)
    result = pytester.runpytest("-s", "--citecheck-request-deadline=none", "--citecheck-max-rpm=none")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*DEADLINE None RPM None JSON None*"])


@pytest.mark.parametrize(
    ("marker", "call", "message"),
    [
        (
            '@pytest.mark.citecheck(request_deadline="")',
            "",
            "*request_deadline: an empty value; leave it out (or pass None) for the setting of the marker, "
            "the command line or the ini file, or none turns it off",
        ),
        ("", "max_rpm=' '", "*check() keyword argument: max_rpm: an empty value;*none turns it off"),
        ("", "window=''", "*check() keyword argument: window: an empty value;*"),
        ('@pytest.mark.citecheck(fail_on="")', "", "*fail_on: an empty value;*"),
    ],
)
def test_a_blank_marker_or_call_keyword_fails_its_test_naming_it(suite, no_typesafe_env, marker, call, message):
    suite.makepyfile(
        test_app=f"""
        import pytest
        from cookbook import SOURCE, pick

        {marker}
        def test_bad(citecheck):
            citecheck.check(pick("clock_skew"), SOURCE{", " + call if call else ""})
        """
    )
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*OptionError: *" + message.lstrip("*")])


def test_a_blank_checker_keyword_is_refused() -> None:
    from pytest_citecheck import Checker

    with pytest.raises(OptionError, match="Checker\\(\\) keyword argument: request_deadline: an empty value"):
        Checker(request_deadline="")


# A test with no citation: a run with a report path writes its report all the same.
NO_CITATION = "def test_x():\n    pass\n"


@pytest.mark.parametrize("off", ["none", "off", "None"])
def test_none_on_the_command_line_turns_an_ini_configured_report_off(pytester, off):
    pytester.makeini(INNER_INI + "citecheck_json = report.json\ncitecheck_html = report.html\n")
    pytester.makepyfile(test_x=NO_CITATION)
    result = pytester.runpytest(f"--citecheck-json={off}", f"--citecheck-html={off}")
    result.assert_outcomes(passed=1)
    # (__pycache__: the test module's bytecode, where PYTHONDONTWRITEBYTECODE is unset, as on a user's machine.)
    written = [path.name for path in pytester.path.iterdir() if path.name[0] != "." and path.name != "__pycache__"]
    assert sorted(written) == [
        "test_x.py",
        "tox.ini",
    ], "no report: not under the ini's names, nor in a file named after the off word"
    assert "report:" not in result.stdout.str()


def test_none_as_the_ini_value_of_a_report_path_writes_no_report(pytester):
    pytester.makeini(INNER_INI + "citecheck_json = none\ncitecheck_html = NONE\n")
    pytester.makepyfile(test_x=NO_CITATION)
    pytester.runpytest().assert_outcomes(passed=1)
    assert not (pytester.path / "none").exists() and not (pytester.path / "NONE").exists()


def test_a_report_file_named_none_is_written_as_dot_slash_none(pytester):
    pytester.makeini(INNER_INI)
    pytester.makepyfile(test_x=NO_CITATION)
    pytester.runpytest("--citecheck-json=./none", "--citecheck-html=./off").assert_outcomes(passed=1)
    assert json.loads((pytester.path / "none").read_text())["version"] == 1
    assert "<html" in (pytester.path / "off").read_text()
