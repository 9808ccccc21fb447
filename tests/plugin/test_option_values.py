"""Values a knob must refuse though Python would read them: the word none as a model name, and
numbers written in other digits than ASCII's (``١٢٠٠``, ``１２００``) or with underscores (``1_000``)."""

from __future__ import annotations

import pytest
from support import INNER_INI

MUST_NOT_RUN = "def test_x():\n    raise AssertionError('must not run')\n"


@pytest.mark.parametrize(
    ("args", "ini", "origin", "shown"),
    [
        (["--citecheck-model=none"], "", "--citecheck-model", "'none'"),
        (["--citecheck-model=None"], "", "--citecheck-model", "'None'"),
        (["--citecheck-model=off"], "", "--citecheck-model", "'off'"),
        ([], "citecheck_model = none\n", "ini citecheck_model", "'none'"),
        # The command line over an ini-pinned model: none is not how to ask for the SDK's default.
        (["--citecheck-model=none"], "citecheck_model = jev-1.12\n", "--citecheck-model", "'none'"),
    ],
)
def test_none_as_a_model_is_a_usage_error_saying_to_leave_it_unset(pytester, args, ini, origin, shown):
    pytester.makeini(INNER_INI + ini)
    pytester.makepyfile(test_x=MUST_NOT_RUN)
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    expected = f"{shown} is not a model name; leave the model unset for the SDK's default*-o citecheck_model= empties*"
    result.stderr.fnmatch_lines([f"ERROR: pytest-citecheck: {origin}: {expected}"])
    assert "must not run" not in result.stdout.str()


@pytest.mark.parametrize(
    ("marker", "call", "where"),
    [
        (
            '@pytest.mark.citecheck(model="none")',
            "",
            "@pytest.mark.citecheck(...) on function test_bad (test_app.py:*)",
        ),
        ("", 'model="NONE"', "check() keyword argument"),
    ],
)
def test_none_as_a_model_keyword_fails_its_test_before_jev_is_asked(suite, jev_server, marker, call, where):
    suite.makepyfile(
        test_app=f"""
        import pytest
        from cookbook import SOURCE, pick

        {marker}
        def test_bad(citecheck):
            citecheck.check(pick("clock_skew"), SOURCE{", " + call if call else ""})
        """
    )
    result = suite.runpytest("--citecheck-record-mode=all")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [f"*OptionError: {where}: model: * is not a model name; leave the model unset*model=None as a keyword*"]
    )
    assert jev_server.requests == []


@pytest.mark.parametrize("value", ["none", "OFF", " None "])
def test_none_as_the_sdks_default_model_variable_is_a_usage_error_naming_it(pytester, monkeypatch, value):
    """TYPESAFE_DEFAULT_MODEL is the SDK's: with the model unset, the SDK sends it as the model's name.
    none means "no value" on every knob of ours, and is refused as a model on each of them; here it
    reached Jev as a model named none (a replay missed with "the test now asks 'none'")."""
    monkeypatch.setenv("TYPESAFE_DEFAULT_MODEL", value)
    pytester.makeini(INNER_INI)
    pytester.makepyfile(test_x=MUST_NOT_RUN)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: pytest-citecheck: TYPESAFE_DEFAULT_MODEL: {value.strip()!r} is not a model name, and the SDK "
            "would send it to Jev as one; unset TYPESAFE_DEFAULT_MODEL for the SDK's default (jev-latest), or set "
            "it (or citecheck_model) to a model such as 'jev-1.12'"
        ]
    )
    assert "must not run" not in result.stdout.str()


def test_none_as_the_sdks_default_model_set_during_the_run_fails_the_test_before_jev_is_asked(suite, jev_server):
    suite.makepyfile(
        test_app="""
        import pytest
        from cookbook import SOURCE, pick

        @pytest.fixture(autouse=True)
        def no_model(monkeypatch):
            monkeypatch.setenv("TYPESAFE_DEFAULT_MODEL", "none")

        def test_bad(citecheck):
            citecheck.check(pick("clock_skew"), SOURCE)
        """
    )
    result = suite.runpytest("--citecheck-record-mode=all")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*OptionError: TYPESAFE_DEFAULT_MODEL: 'none' is not a model name*"])
    assert jev_server.requests == []


# Python's int() and float() read any script's decimal digits and underscores between digits: a
# numeric knob took ١٢٠٠ (Arabic-Indic), １２００ (full-width) and 1_000 as numbers.
@pytest.mark.parametrize(
    ("args", "ini", "origin", "shown", "hint"),
    [
        (["--citecheck-max-rpm=١٢٠٠"], "", "--citecheck-max-rpm", "'١٢٠٠'", "write 1200"),
        (["--citecheck-max-rpm=１２００"], "", "--citecheck-max-rpm", "'１２００'", "write 1200"),
        (["--citecheck-max-rpm=1_000"], "", "--citecheck-max-rpm", "'1_000'", "write 1000"),
        (["--citecheck-concurrency=٤"], "", "--citecheck-concurrency", "'٤'", "write 4"),
        (["--citecheck-request-deadline=１２０"], "", "--citecheck-request-deadline", "'１２０'", "write 120"),
        (["--citecheck-auto-accept=٠.٩"], "", "--citecheck-auto-accept", "'٠.٩'", "write 0.9"),
        (["--citecheck-estimate-input-price=$1_000"], "", "--citecheck-estimate-input-price", "'$1_000'", "write 1000"),
        (["--citecheck-request-deadline=1e2"], "", "--citecheck-request-deadline", "'1e2'", ""),
        # String-typed ini keys reach the parser as written; the int- and float-typed ones as pytest
        # read them (its int() and float() are Python's), so their text is read again as written.
        ([], "citecheck_max_tokens_per_second = ١٠٠٠\n", "ini citecheck_max_tokens_per_second", "'١٠٠٠'", "write 1000"),
        ([], "citecheck_concurrency = ４\n", "ini citecheck_concurrency", "'４'", "write 4"),
        ([], "citecheck_min_citations = 1_0\n", "ini citecheck_min_citations", "'1_0'", "write 10"),
        ([], "citecheck_auto_accept = ٠.٩\n", "ini citecheck_auto_accept", "'٠.٩'", "write 0.9"),
        (["-o", "citecheck_drift_tolerance=0.0_5"], "", "ini citecheck_drift_tolerance", "'0.0_5'", "write 0.05"),
    ],
)
def test_a_number_in_other_digits_than_ascii_is_a_usage_error_naming_the_knob(pytester, args, ini, origin, shown, hint):
    pytester.makeini(INNER_INI + ini)
    pytester.makepyfile(test_x=MUST_NOT_RUN)
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: pytest-citecheck: {origin}: expected *, got {shown}*{hint}"])
    assert "must not run" not in result.stdout.str()


def test_a_non_ascii_digit_is_shown_by_its_code_point(pytester):
    pytester.makeini(INNER_INI)
    pytester.makepyfile(test_x=MUST_NOT_RUN)
    result = pytester.runpytest("--citecheck-window=١٢٠٠")
    result.stderr.fnmatch_lines(["*('\\u0661\\u0662\\u0660\\u0660'): only ASCII digits 0-9 are read*"])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("concurrency='٤'", "concurrency: expected a whole number of at least 1, got '٤'*write 4"),
        ("auto_accept='０.９'", "auto_accept: expected a number from 0 to 1, got '０.９'*write 0.9"),
        ("max_rpm='1_200'", "max_rpm: expected a whole number of at least 1, got '1_200'*write 1200"),
    ],
)
def test_a_keyword_in_other_digits_than_ascii_fails_its_test(suite, no_typesafe_env, call, message):
    suite.makepyfile(
        test_app=f"""
        from cookbook import SOURCE, pick

        def test_bad(citecheck):
            citecheck.check(pick("clock_skew"), SOURCE, {call})
        """
    )
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*OptionError: check() keyword argument: {message}*"])


@pytest.mark.parametrize(
    ("args", "ini", "probe"),
    [
        (
            ["--citecheck-max-rpm= 600 ", "--citecheck-auto-accept=.9", "--citecheck-request-deadline=30."],
            "",
            "600 0.9 30.0",
        ),
        ([], "citecheck_max_rpm = 600\ncitecheck_auto_accept = 0.85\ncitecheck_concurrency = 3\n", "600 0.85 240.0"),
        (["-o", "citecheck_concurrency=3", "--citecheck-auto-accept=1"], "", "1200 1.0 240.0"),
    ],
)
def test_ascii_numbers_are_read_on_every_channel(pytester, args, ini, probe):
    pytester.makeini(INNER_INI + ini)
    pytester.makepyfile(
        test_probe="""
        def test_probe(request):
            from pytest_citecheck._pytest_glue.stash import SETTINGS

            s = request.config.stash[SETTINGS]
            print("PROBE", s.max_rpm, s.auto_accept, s.request_deadline, s.concurrency)
        """
    )
    result = pytester.runpytest("-s", *args)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"*PROBE {probe} *"])


@pytest.mark.parametrize(
    ("suffix", "name", "content", "origin"),
    [
        (".toml", "pyproject", '[tool.pytest.ini_options]\ncitecheck_concurrency = "٤"\n', "ini citecheck_concurrency"),
        (
            ".cfg",
            "setup",
            "[metadata]\nname = app\n\n[tool:pytest]\ncitecheck_concurrency = ٤\n",
            "ini citecheck_concurrency",
        ),
    ],
)
def test_a_number_in_other_digits_is_refused_in_every_kind_of_file(pytester, suffix, name, content, origin):
    pytester.makefile(suffix, **{name: content})
    pytester.makepyfile(test_x=MUST_NOT_RUN)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: pytest-citecheck: {origin}: expected *, got '٤' ('\\u0664'): *; write 4"])


def test_a_toml_number_is_read_as_toml_reads_it(pytester):
    # TOML's own grammar allows an underscore between digits (and only ASCII digits): a number, not text.
    pytester.makefile(".toml", pyproject="[tool.pytest.ini_options]\ncitecheck_concurrency = 1_0\n")
    pytester.makepyfile(
        test_probe="""
        def test_probe(request):
            from pytest_citecheck._pytest_glue.stash import SETTINGS

            print("PROBE", request.config.stash[SETTINGS].concurrency)
        """
    )
    result = pytester.runpytest("-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*PROBE 10*"])
