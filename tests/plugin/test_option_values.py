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
