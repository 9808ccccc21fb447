"""A test that uses no fixture, marker or helper of ours pays nothing per test (behaviour, not timing).

The plugin implements only hooks that run once per session (options, configuration, collection)
or once per path pytest collects (whether to walk a cassette directory);
the hooks that run per test (set-up, call, reports, fixtures) belong to the session's plugins,
registered only when the run checks citations or has cassettes. And it sets up nothing per test.
"""

from __future__ import annotations

import pytest

# Hooks pytest calls once per run or once per collection (not per test).
PER_SESSION = {
    "pytest_addoption",
    "pytest_addhooks",
    "pytest_cmdline_main",
    "pytest_configure",
    "pytest_unconfigure",
    "pytest_report_header",
    "pytest_sessionstart",
    "pytest_collection_modifyitems",
    "pytest_deselected",
    "pytest_collection_finish",
}
# Hooks pytest calls once per directory or file it collects (not per test): ``pytest_ignore_collect``
# (a cassette directory holding only cassettes is not walked).
PER_COLLECTED_PATH = {"pytest_ignore_collect"}

CONFTEST = """
import sys

def pytest_sessionfinish(session):
    manager = session.config.pluginmanager
    ours = sorted(
        f"{name}:{impl.function.__name__}"
        for name, plugin in manager.list_name_plugin()
        if plugin is not None and (getattr(plugin, "__module__", None) or getattr(plugin, "__name__", "")).startswith("pytest_citecheck")
        for impl in [hookimpl for hook in vars(session.config.hook).values() if hasattr(hook, "get_hookimpls")
                     for hookimpl in hook.get_hookimpls() if hookimpl.plugin is plugin]
    )
    print("\\nOUR-HOOKS:", ",".join(ours))
"""


def test_a_suite_that_checks_nothing_runs_no_hook_of_ours_per_test_and_sets_up_nothing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        test_plain="""
        import pytest

        @pytest.fixture
        def value():
            return 2

        def test_one(value):
            assert value == 2

        def test_two():
            assert 'a' < 'b'
        """
    )
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess("-p", "pytest_citecheck.plugin", "-s", "--setup-show")
    result.assert_outcomes(passed=2)
    [line] = [line for line in result.stdout.lines if line.startswith("OUR-HOOKS:")]
    hooks = {entry.split(":", 1)[1] for entry in line.split(":", 1)[1].strip().split(",")}
    assert hooks, line
    allowed = PER_SESSION | PER_COLLECTED_PATH
    assert hooks <= allowed, f"hooks of ours that run per test: {sorted(hooks - allowed)}"
    assert not [line for line in result.stdout.lines if "SETUP" in line and "citecheck" in line]


def test_the_helper_still_finds_its_test_in_setup_and_call_but_not_in_a_wider_fixture(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No fixture of ours is set up per test: the helper finds the running test when it is called.
    pytester.makeini("[pytest]\ncitecheck_record_mode = none\n")
    pytester.makepyfile(
        test_where="""
        import pytest
        from pytest_citecheck import Source, check_citations

        NOTHING = []
        TEXT = Source(sections={"1": "Refunds are issued within 30 days."})

        @pytest.fixture
        def per_test():
            return check_citations(NOTHING, TEXT)

        @pytest.fixture(scope="module")
        def per_module():
            return check_citations(NOTHING, TEXT)

        def test_in_a_function_fixture_and_the_test(per_test, request):
            assert per_test == []
            assert check_citations(NOTHING, TEXT) == []
            assert request.getfixturevalue("citecheck") is request.node.stash[
                __import__("pytest_citecheck._pytest_glue.stash", fromlist=["CHECKER"]).CHECKER]

        def test_in_a_module_fixture(per_module):
            pass

        @pytest.fixture(scope="module")
        def asked_for_later():
            return check_citations(NOTHING, TEXT)

        def test_asks_for_fixtures_while_it_runs(request):
            # Set up from the test's body: the module's fixture is still not the test, its own fixture is.
            with pytest.raises(Exception, match="called outside a running test"):
                request.getfixturevalue("asked_for_later")
            assert request.getfixturevalue("per_test") == []
        """
    )
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess("-p", "pytest_citecheck.plugin")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*CheckerUnavailableError: check_citations() was called outside a running test*"])
