"""Settings: every knob as flag, ini key, marker and call keyword, with one precedence, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import INNER_INI

from pytest_citecheck._errors import OptionError
from pytest_citecheck._options import OPTIONS, Settings
from pytest_citecheck._results import Verdict

# A scripted server answers "supports" at 0.94 confidence for every claim in these suites; the
# threshold decides auto versus review, so the reported action shows which auto_accept won.
THRESHOLD_SUITE = """
from pathlib import Path

import pytest
from cookbook import SOURCE, pick

def test_default(citecheck):
    [r] = citecheck.check(pick("clock_skew"), SOURCE)
    print("AUTO_ACCEPT", r.auto_accept, r.auto)

@pytest.mark.citecheck(auto_accept=0.95)
def test_marker(citecheck):
    [r] = citecheck.check(pick("clock_skew"), SOURCE)
    print("AUTO_ACCEPT", r.auto_accept, r.auto)

@pytest.mark.citecheck(auto_accept=0.95)
def test_call(citecheck):
    [r] = citecheck.check(pick("clock_skew"), SOURCE, auto_accept=0.5)
    print("AUTO_ACCEPT", r.auto_accept, r.auto)
"""


def thresholds(result: pytest.RunResult) -> dict[str, str]:
    seen = {}
    for line in result.stdout.lines:
        if "AUTO_ACCEPT " in line:  # with -s the first print shares a line with "test_app.py "
            seen[len(seen)] = line.split("AUTO_ACCEPT ", 1)[1].strip()
    return {name: seen[i] for i, name in enumerate(["default", "marker", "call"])}


@pytest.fixture
def recorded_thresholds(suite, jev_server):
    suite.makepyfile(test_app=THRESHOLD_SUITE)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=3)
    return suite


def test_precedence_call_over_marker_over_flag_over_ini_over_default(recorded_thresholds, inner_ini):
    suite = recorded_thresholds
    plain = suite.runpytest("-s")
    assert thresholds(plain) == {"default": "0.8 True", "marker": "0.95 False", "call": "0.5 True"}

    suite.makeini(inner_ini + "citecheck_auto_accept = 0.99\n")
    from_ini = suite.runpytest("-s")
    assert thresholds(from_ini) == {"default": "0.99 False", "marker": "0.95 False", "call": "0.5 True"}

    from_flag = suite.runpytest("-s", "--citecheck-auto-accept=0.9")
    assert thresholds(from_flag) == {"default": "0.9 True", "marker": "0.95 False", "call": "0.5 True"}


def test_model_precedence_reaches_the_request(suite, jev_server, inner_ini):
    suite.makepyfile(
        test_app="""
        import pytest
        from cookbook import SOURCE, pick

        def test_flag(citecheck):
            citecheck.check(pick("clock_skew"), SOURCE)

        @pytest.mark.citecheck(model="jev-marker")
        def test_marker(citecheck):
            citecheck.check(pick("aud_reject"), SOURCE)

        @pytest.mark.citecheck(model="jev-marker")
        def test_call(citecheck):
            citecheck.check(pick("epoch_seconds"), SOURCE, model="jev-call")
        """
    )
    suite.makeini(inner_ini + "citecheck_model = jev-ini\n")
    suite.runpytest("--citecheck-record-mode=once", "--citecheck-model=jev-flag").assert_outcomes(passed=3)
    models = [request.body["model"] for request in jev_server.systemone_requests]
    assert models == ["jev-flag", "jev-marker", "jev-call"]

    (suite.path / "cassettes").rename(suite.path / "old-cassettes")
    suite.runpytest("--citecheck-record-mode=once", "-k", "flag").assert_outcomes(passed=1)
    assert jev_server.systemone_requests[-1].body["model"] == "jev-ini"


@pytest.mark.parametrize(
    ("args", "ini", "message"),
    [
        (["--citecheck-auto-accept=1.5"], "", "--citecheck-auto-accept: expected a number from 0 to 1, got '1.5'"),
        (["--citecheck-auto-accept=high"], "", "--citecheck-auto-accept: expected a number from 0 to 1, got 'high'"),
        ([], "citecheck_auto_accept = -0.1\n", "ini citecheck_auto_accept: expected a number from 0 to 1, got '-0.1'"),
        ([], "citecheck_auto_accept = high\n", "ini citecheck_auto_accept: expected a number from 0 to 1, got 'high'"),
        ([], "citecheck_screen = maybe\n", "ini citecheck_screen: expected true or false, got 'maybe'"),
        # Below 0.7 unrelated sentences pass for a quote: the fabricated check would be off by accident.
        (["--citecheck-fuzzy=0"], "", "--citecheck-fuzzy: expected a similarity from 0.7 to 1, or none, got '0'*"),
        ([], "citecheck_fuzzy = 0.5\n", "ini citecheck_fuzzy: expected a similarity from 0.7 to 1, or none, got*"),
        (
            [],
            "citecheck_concurrency = 2.5\n",
            "ini citecheck_concurrency: expected a whole number of at least 1, got '2.5'",
        ),
        ([], "citecheck_fail_on = fabricated, wrong\n", "ini citecheck_fail_on: unknown verdict 'wrong'*"),
        (
            ["--citecheck-record-mode=sometimes"],
            "",
            "--citecheck-record-mode: expected one of none, once, new_episodes, all, rewrite*",
        ),
        ([], "citecheck_review = shrug\n", "ini citecheck_review: expected one of warn, fail, xfail, skip*"),
        (["--citecheck-fail-on=fabricated,wrong"], "", "--citecheck-fail-on: unknown verdict 'wrong'*"),
        # An empty fail_on would let every citation pass: it is refused like any other bad value
        # (an empty flag value as every option's is: tests/plugin/test_empty_values.py).
        (["--citecheck-fail-on="], "", "--citecheck-fail-on: an empty value*"),
        (["--citecheck-fail-on= "], "", "--citecheck-fail-on: an empty value*"),
        (["--citecheck-fail-on=,"], "", "--citecheck-fail-on: expected at least one verdict*"),
        ([], "citecheck_fail_on = ,\n", "ini citecheck_fail_on: expected at least one verdict*"),
        # A file name longer than file systems allow made os.stat raise: a traceback, and an INTERNALERROR.
        (["--citecheck-json=" + "r" * 300], "", "--citecheck-json: a name in the path is 300 bytes long*"),
        (["--citecheck-html=out/" + "r" * 256], "", "--citecheck-html: a name in the path is 256 bytes long*"),
        ([], "citecheck_cassette_dir = " + "c" * 300 + "\n", "ini citecheck_cassette_dir: a name in the path*"),
    ],
)
def test_bad_flag_or_ini_value_is_a_usage_error_before_any_test(pytester, inner_ini, args, ini, message):
    pytester.makeini(inner_ini + ini)
    pytester.makepyfile(test_x="def test_x():\n    raise AssertionError('must not run')\n")
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: pytest-citecheck: {message}"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert "must not run" not in result.stdout.str()


@pytest.mark.parametrize(
    ("marker", "call", "message"),
    [
        (
            "@pytest.mark.citecheck(auto_accept=2)",
            "",
            "*@pytest.mark.citecheck(...) on function test_bad (test_app.py:*): auto_accept: expected a number from 0 to 1, got 2",
        ),
        (
            "@pytest.mark.citecheck(auto_acept=0.9)",
            "",
            "*@pytest.mark.citecheck(...) on function test_bad (test_app.py:*): unknown argument 'auto_acept'; did you mean 'auto_accept'? accepted: auto_accept, model*",
        ),
        ("", "auto_accept=-1", "*check() keyword argument: auto_accept: expected a number from 0 to 1, got -1"),
        (
            "",
            "review='later'",
            "*check() keyword argument: review: expected one of warn, fail, xfail, skip; got 'later'",
        ),
        ("", "colour='red'", "*check() keyword argument: unknown argument 'colour'*"),
        (
            '@pytest.mark.citecheck(fail_on="")',
            "",
            "*@pytest.mark.citecheck(...) on function test_bad (test_app.py:*): fail_on: an empty value*",
        ),
        (
            "@pytest.mark.citecheck(fail_on=[])",
            "",
            "*@pytest.mark.citecheck(...) on function test_bad (test_app.py:*): fail_on: expected at least one verdict*",
        ),
        ("", "fail_on=' '", "*check() keyword argument: fail_on: an empty value*"),
        # int(inf) raises OverflowError, not ValueError: it escaped as a traceback of the parser.
        (
            "@pytest.mark.citecheck(concurrency=float('inf'))",
            "",
            "*@pytest.mark.citecheck(...) on function test_bad (test_app.py:*): concurrency: expected a whole number of at least 1, got inf",
        ),
        (
            "",
            "window=float('-inf')",
            "*check() keyword argument: window: expected a whole number of at least 1, got -inf",
        ),
    ],
)
def test_bad_marker_or_call_argument_fails_that_test_naming_it(suite, no_typesafe_env, marker, call, message):
    suite.makepyfile(
        test_app=f"""
        import pytest
        from cookbook import SOURCE, pick

        {marker}
        def test_bad(citecheck):
            citecheck.check(pick("clock_skew"), SOURCE{", " + call if call else ""})

        def test_good():
            pass
        """
    )
    result = suite.runpytest()
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["*OptionError: " + message.lstrip("*")])
    assert "INTERNALERROR" not in result.stdout.str()


def test_settings_resolve_layers_in_order():
    settings = Settings.resolve({"auto_accept": None, "model": "jev-flag"}, {"auto_accept": "0.7", "model": "jev-ini"})
    assert (settings.auto_accept, settings.model) == (0.7, "jev-flag")
    per_test = settings.override({"auto_accept": 0.9}, "marker").override({"model": "jev-call"}, "call")
    assert (per_test.auto_accept, per_test.model) == (0.9, "jev-call")
    assert Settings.resolve({}, {}).fail_on == {Verdict.FABRICATED, Verdict.CONTRADICTED, Verdict.UNSUPPORTED}
    with pytest.raises(OptionError, match="marker: unknown argument 'json'"):
        settings.override({"json": "x"}, "marker")  # session-only options are not per-test keywords


def test_help_lists_every_option_in_the_citecheck_group(pytester, inner_ini):
    pytester.makeini(inner_ini)
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(["citation checking (pytest-citecheck):"])
    text = result.stdout.str()
    for option in OPTIONS:
        assert option.flag in text
        assert option.ini in text


def test_marker_is_registered_with_its_signature(pytester, inner_ini):
    pytester.makeini(inner_ini)
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(
        ["@pytest.mark.citecheck(*, auto_accept=None, model=None, *): pytest-citecheck settings for this test"]
    )


def test_ini_keys_are_registered_with_their_types(pytester):
    pytester.makeini(INNER_INI)
    result = pytester.runpytest("--help")
    for option in OPTIONS:
        result.stdout.fnmatch_lines([f"  {option.ini} ({option.ini_type}):*"])
    types = {option.name: option.ini_type for option in OPTIONS}
    assert types["screen"] == types["casefold"] == types["strict_model"] == types["fail_on_flip"] == "bool"
    assert types["auto_accept"] == types["drift_tolerance"] == "float"
    assert types["concurrency"] == types["min_quote_length"] == "int"
    assert types["fail_on"] == "args"
    # Values with an off word (fuzzy = none) or a choice stay strings, validated by _options.
    assert types["fuzzy"] == types["window"] == types["review"] == "string"


SETTINGS_PROBE = """
def test_probe(citecheck):
    s = citecheck.settings
    print("SETTINGS", s.screen, s.casefold, s.concurrency, s.auto_accept, "+".join(sorted(v.value for v in s.fail_on)), s.fuzzy)
"""


def test_typed_ini_values_reach_the_settings(pytester):
    pytester.makeini(
        INNER_INI
        + "citecheck_screen = yes\ncitecheck_casefold = false\ncitecheck_concurrency = 3\n"
        + "citecheck_auto_accept = 0.93\ncitecheck_fail_on = fabricated, contradicted\ncitecheck_fuzzy = none\n"
    )
    pytester.makepyfile(test_probe=SETTINGS_PROBE)
    result = pytester.runpytest("-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*SETTINGS True False 3 0.93 contradicted+fabricated None"])
    # An empty list or string leaves the default, as before the keys were typed ...
    pytester.makeini(INNER_INI + "citecheck_fail_on =\ncitecheck_fuzzy =\n")
    pytester.runpytest("-s").stdout.fnmatch_lines(
        ["*SETTINGS False False 8 0.8 contradicted+fabricated+unsupported None"]
    )
    # ... but an empty number is not a number: a usage error naming the key, not a silent default.
    pytester.makeini(INNER_INI + "citecheck_auto_accept =\n")
    empty = pytester.runpytest()
    assert empty.ret == pytest.ExitCode.USAGE_ERROR
    empty.stderr.fnmatch_lines(
        ["ERROR: pytest-citecheck: ini citecheck_auto_accept: expected a number from 0 to 1, got ''"]
    )


@pytest.mark.skipif(pytest.version_tuple < (9,), reason="native TOML configuration ([tool.pytest]) is pytest 9's")
def test_native_toml_values_of_the_keys_type_are_accepted(pytester):
    pytester.makepyprojecttoml(
        """
        [tool.pytest]
        filterwarnings = ["default"]
        asyncio_default_fixture_loop_scope = "function"
        citecheck_screen = true
        citecheck_concurrency = 3
        citecheck_auto_accept = 0.93
        citecheck_fail_on = ["fabricated", "contradicted"]
        """
    )
    pytester.makepyfile(test_probe=SETTINGS_PROBE)
    result = pytester.runpytest("-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*SETTINGS True False 3 0.93 contradicted+fabricated None"])
    assert "Warning" not in result.stdout.str()  # a string-typed key warns about a TOML bool or number


def test_every_option_names_a_parser_of_the_parsing_module() -> None:
    # The table names each knob's parser (``parsing`` loads when a value is first parsed): a misspelt
    # name would fail only when someone sets that knob.
    from pytest_citecheck._options import parsing

    for option in OPTIONS:
        if isinstance(option.parser, tuple):
            assert option.parse(option.parser[0]) == option.parser[0], option.name
            with pytest.raises(ValueError, match="expected one of"):
                option.parse("no such choice")
        else:
            assert option.parse is getattr(parsing, option.parser), option.name
            assert option.parser.startswith("parse_"), option.name
    switches = {option.name for option in OPTIONS if option.is_switch}
    assert switches == {
        *("screen", "casefold", "require_cited_sentences", "strict_model", "rehearsal", "fail_on_flip", "estimate")
    }
    assert {option.name: option.ini_type for option in OPTIONS if option.ini_type != "string"} == {
        "auto_accept": "float",
        "fail_on": "args",
        "concurrency": "int",
        "screen": "bool",
        "casefold": "bool",
        "min_quote_length": "int",
        "min_citations": "int",
        "require_cited_sentences": "bool",
        "strict_model": "bool",
        "rehearsal": "bool",
        "drift_tolerance": "float",
        "fail_on_flip": "bool",
        "estimate": "bool",
    }


# A misspelt key of ours in the file pytest reads is a usage error: pytest only warns about an unknown
# key (at the end of the run, among the other warnings), and the setting silently keeps its default.
# Found from a wheel: `citecheck_reveiw = fail` let two citations below auto_accept pass with a warning.
@pytest.mark.parametrize(
    ("filename", "content", "line"),
    [
        ("pytest.ini", "[pytest]\ncitecheck_reveiw = fail\n", "2"),
        ("tox.ini", "[tox]\nenvlist = py\n\n[pytest]\ncitecheck_reveiw = fail\n", "5"),
        ("setup.cfg", "[metadata]\nname = app\n[tool:pytest]\ncitecheck_reveiw = fail\n", "4"),
        ("pyproject.toml", '[tool.pytest.ini_options]\ncitecheck_reveiw = "fail"\n', "2"),
        ("pyproject.toml", '[tool.pytest.ini_options]\n  "Citecheck-Review" = "fail"\n', "2"),
    ],
)
def test_a_misspelt_ini_key_of_ours_is_a_usage_error_naming_file_and_line(pytester, filename, content, line):
    pytester.makefile(Path(filename).suffix, **{Path(filename).stem: content})
    pytester.makepyfile(test_x="def test_x():\n    raise AssertionError('must not run')\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    key = "Citecheck-Review" if "Citecheck" in content else "citecheck_reveiw"
    result.stderr.fnmatch_lines(
        [
            f"ERROR: pytest-citecheck: ini {key} ({filename}, line {line}): not a setting of pytest-citecheck; "
            "did you mean citecheck_review? (every key: pytest --help, or *configuration/)"
        ]
    )
    assert "must not run" not in result.stdout.str()


def test_a_misspelt_key_given_with_o_is_a_usage_error(pytester):
    pytester.makeini(INNER_INI)
    pytester.makepyfile(test_x="def test_x():\n    raise AssertionError('must not run')\n")
    result = pytester.runpytest("-o", "citecheck_auto_acept=0.95")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-citecheck: -o citecheck_auto_acept: not a setting of pytest-citecheck; did you mean citecheck_auto_accept?*"
        ]
    )


def test_keys_like_ours_outside_pytests_section_are_not_ours(pytester):
    # Another tool's table may name anything; only pytest's section is read as pytest's.
    pytester.makepyprojecttoml(
        '[tool.other]\ncitecheck_whatever = 1\n\n[tool.pytest.ini_options]\nfilterwarnings = ["default"]\n'
        'markers = [\n    "citecheck: a marker line",\n]\nasyncio_default_fixture_loop_scope = "function"\ncitecheck_review = "fail"\n'
    )
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_toml_list_in_the_fail_on_list_is_a_usage_error_not_a_traceback(pytester):
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\ncitecheck_fail_on = [["contradicted"]]\n')
    pytester.makepyfile(test_x="def test_x():\n    raise AssertionError('must not run')\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-citecheck: ini citecheck_fail_on: expected a verdict name or a collection of verdict names*"
            ", got [[]'contradicted'[]] (a list) in [[][[]'contradicted'[]][]]"
        ]
    )
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_a_parametrized_cases_own_marks_win_over_its_functions(pytester):
    # pytest.param(..., marks=...) is closer to the case than the function's decorator: a case marked
    # review="fail" under a function marked review="warn" passed its verdicts below auto_accept.
    pytester.makeini(INNER_INI)
    pytester.makepyfile(
        test_probe="""
        import pytest

        @pytest.mark.citecheck(review="warn", casefold=True)
        @pytest.mark.parametrize("case", ["plain", pytest.param("strict", marks=pytest.mark.citecheck(review="fail"))])
        def test_probe(citecheck, case):
            settings = citecheck.settings_for({})  # the session's, the markers' laid over them
            print("SETTINGS", case, settings.review, settings.casefold)
        """
    )
    result = pytester.runpytest("-s")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*SETTINGS plain warn True*", "*SETTINGS strict fail True*"])


@pytest.mark.parametrize(
    ("raw", "expected"), [("0.7", 0.7), (0.7, 0.7), (1, 1.0), ("none", None), ("off", None), (None, None)]
)
def test_fuzzy_takes_a_similarity_from_its_floor_to_1_or_none(raw: object, expected: float | None) -> None:
    from pytest_citecheck._options.parsing import MIN_FUZZY, parse_fuzzy

    assert MIN_FUZZY == 0.7
    assert parse_fuzzy(raw) == expected
    with pytest.raises(ValueError, match="none \\(not 0\\) turns fuzzy matching off"):
        parse_fuzzy(0.6999)


@pytest.mark.skipif(pytest.version_tuple < (9,), reason="native TOML configuration ([tool.pytest]) is pytest 9's")
@pytest.mark.parametrize(
    ("written", "suggested"),
    [
        ("citecheck_max_rpm = 600", 'citecheck_max_rpm = "600"'),
        ("citecheck_fuzzy = 0.9", 'citecheck_fuzzy = "0.9"'),
        (
            'citecheck_questions = ["out_of_context", "best_section"]',
            'citecheck_questions = "out_of_context, best_section"',
        ),
    ],
)
def test_a_native_toml_number_or_list_for_a_text_key_says_how_to_write_it(pytester, written, suggested):
    """hunt-replay F4: in native TOML a key read as text (it also takes words such as none) refused a TOML
    number or list with "expected a value", a value having been given. The error now gives the line to write,
    and that line is accepted."""
    toml = '[tool.pytest]\nfilterwarnings = ["default"]\nasyncio_default_fixture_loop_scope = "function"\n'
    pytester.makepyprojecttoml(toml + written + "\n")
    pytester.makepyfile(test_probe=SETTINGS_PROBE)
    refused = pytester.runpytest()
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    key = written.split()[0]
    refused.stderr.fnmatch_lines(
        [f"ERROR: pytest-citecheck: ini {key}: expected text: write it as a TOML string, {suggested} (*"]
    )
    pytester.makepyprojecttoml(toml + suggested + "\n")
    pytester.runpytest("-s").assert_outcomes(passed=1)
