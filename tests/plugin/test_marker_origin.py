"""A bad ``citecheck`` marker keyword names the marker: the node it is on (module, class, function or a
parametrized case's marks), with its file and line where pytest knows them.

The error said ``@pytest.mark.citecheck(...)`` and nothing more: with markers on a module's
``pytestmark``, a class and its functions, every test of the module failed with it and the reader
had to find which one was wrong.
"""

from __future__ import annotations

import pytest

APP = """
import pytest
from cookbook import SOURCE, pick

pytestmark = [pytest.mark.filterwarnings("ignore"), pytest.mark.citecheck({module})]


class TestGroup:
    pytestmark = pytest.mark.citecheck({klass})

    def test_in_class(self, citecheck):
        citecheck.settings_for({{}})


@pytest.mark.citecheck({function})
def test_function(citecheck):
    citecheck.settings_for({{}})


@pytest.mark.parametrize("case", ["plain", pytest.param("odd", marks=pytest.mark.citecheck({case}))])
def test_case(citecheck, case):
    citecheck.settings_for({{}})
"""


def run(suite: pytest.Pytester, **markers: str) -> pytest.RunResult:
    keywords = {"module": "", "klass": "", "function": "", "case": ""} | markers
    suite.makepyfile(test_app=APP.format(**keywords))
    return suite.runpytest("-p", "no:randomly")


def test_a_module_pytestmark_is_named_as_the_modules(suite, no_typesafe_env):
    result = run(suite, module="reveiw='fail'")
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(
        ["*OptionError: @pytest.mark.citecheck(...) on module test_app.py (its pytestmark): unknown argument 'reveiw'*"]
    )


def test_a_class_marker_is_named_with_its_file_and_line(suite, no_typesafe_env):
    result = run(suite, klass="auto_accept=2")
    result.assert_outcomes(failed=1, passed=3)
    result.stdout.fnmatch_lines(
        [
            "*OptionError: @pytest.mark.citecheck(...) on class TestGroup (test_app.py:7): "
            "auto_accept: expected a number from 0 to 1, got 2"
        ]
    )


def test_a_function_marker_is_named_with_its_file_and_line(suite, no_typesafe_env):
    # A function's marker over a module's: the function's, the closest, is the one at fault.
    result = run(suite, module="review='warn'", function="review='later'")
    result.assert_outcomes(failed=1, passed=3)
    result.stdout.fnmatch_lines(
        ["*OptionError: @pytest.mark.citecheck(...) on function test_function (test_app.py:14): review: expected one*"]
    )


def test_a_parametrized_cases_marks_are_named_with_the_case(suite, no_typesafe_env):
    result = run(suite, case="fail_on={'fabricated': False}")
    result.assert_outcomes(failed=1, passed=3)
    result.stdout.fnmatch_lines(
        [
            "*OptionError: @pytest.mark.citecheck(...) in the marks of case test_case[[]odd[]] (test_app.py:19): "
            "fail_on: expected a verdict name*"
        ]
    )


def test_a_marker_cassette_name_is_named_with_its_marker(suite, no_typesafe_env):
    result = run(suite, klass="cassette=''")
    result.assert_outcomes(errors=1, passed=3)  # the cassette is the fixture's: its set-up errors
    result.stdout.fnmatch_lines(
        ["*OptionError: @pytest.mark.citecheck(...) on class TestGroup (test_app.py:7): cassette: expected a cassette*"]
    )


def test_a_marker_a_fixture_adds_is_named_as_the_tests(suite, no_typesafe_env):
    suite.makepyfile(
        test_added="""
        import pytest
        from cookbook import SOURCE, pick

        @pytest.fixture
        def strict(request):
            request.node.add_marker(pytest.mark.citecheck(window=0))

        def test_added(strict, citecheck):
            citecheck.settings_for({})
        """
    )
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*OptionError: @pytest.mark.citecheck(...) on function test_added (test_added.py:*): window: expected*"]
    )


def test_a_test_class_imported_from_a_helper_module_is_named_where_it_is_written(suite, no_typesafe_env):
    suite.makepyfile(
        shared_checks="""
        import pytest


        @pytest.mark.citecheck(min_citations=-1)
        class TestShared:
            def test_shared(self, citecheck):
                citecheck.settings_for({})
        """,
        test_uses_shared="from shared_checks import TestShared\n",
    )
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*OptionError: @pytest.mark.citecheck(...) on class TestShared (shared_checks.py:*): min_citations: *"]
    )


def test_a_positional_argument_is_named_as_one_not_as_an_unknown_keyword(suite, no_typesafe_env):
    result = run(suite, function="'fail'")
    result.assert_outcomes(failed=1, passed=3)
    result.stdout.fnmatch_lines(
        [
            "*OptionError: @pytest.mark.citecheck(...) on function test_function (test_app.py:14): positional "
            "arguments ('fail',): it takes keywords only, e.g. citecheck(review='fail'); accepted: auto_accept*"
        ]
    )
    assert "<positional>" not in result.stdout.str()
