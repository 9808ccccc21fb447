"""The helpers never go live behind the plugin's back: inside a pytest run they need the plugin and a test.

``assert_citations_supported`` and ``check_citations`` find the running test's checker (its
cassette, record mode and report). When there is none inside a pytest run (the plugin disabled with
``-p no:citecheck`` or by disabling plugin autoloading, or a call at import time or from a
session-scoped fixture) they raise, and nothing reaches Jev. Outside pytest (a script) they ask
Jev live, as documented in docs/usage.md.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support import CANARY_KEY, INNER_INI, NOT_A_USERS_PLUGINS

from pytest_citecheck.testing import JevServer

HELPER_TEST = """
from pytest_citecheck import assert_citations_supported, check_citations
from cookbook import SOURCE, pick

def test_assert():
    assert_citations_supported(pick("aud_reject"), SOURCE)

def test_check():
    check_citations(pick("clock_skew"), SOURCE)
"""

NOT_ACTIVE = "*CheckerUnavailableError: pytest-citecheck's plugin is not active in this pytest run*"
REMEDY = "*enable it with -p citecheck*"


@pytest.fixture
def live(suite: pytest.Pytester, jev_server: JevServer) -> pytest.Pytester:
    """A suite whose environment would let a standalone checker reach Jev (the loopback server)."""
    suite.makeini(INNER_INI + "citecheck_model = jev-1.12\n")
    suite.makepyfile(test_helpers=HELPER_TEST)
    return suite


# Slow tier: the default run proves the same (the helpers raise, nothing is sent) with the plugin left
# out the other way, by disabling autoload, in the next test.
@pytest.mark.slow
def test_with_the_plugin_disabled_the_helpers_raise_and_send_nothing(live, jev_server):
    # In a subprocess: in this process the plugin is loaded (by this suite's own run) whatever the flags.
    result = live.runpytest_subprocess("-p", "no:citecheck", *NOT_A_USERS_PLUGINS)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([NOT_ACTIVE, REMEDY])
    assert jev_server.systemone_requests == []
    assert not (live.path / "cassettes").exists()


def test_with_plugin_autoload_disabled_the_helpers_raise_and_p_citecheck_enables_it(live, jev_server, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = live.runpytest_subprocess()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([NOT_ACTIVE, REMEDY])
    assert jev_server.systemone_requests == []

    # The remedy the message names works on the installed pytest: the entry point's name.
    enabled = live.runpytest_subprocess("-p", "citecheck", "--citecheck-record-mode=once")
    enabled.assert_outcomes(passed=2)
    assert len(jev_server.systemone_requests) == 2
    assert (live.path / "cassettes" / "test_helpers" / "test_assert.yaml").is_file()


def test_p_citecheck_in_addopts_works_with_autoload_on_too(live, jev_server):
    # docs/usage.md: `-p citecheck` is the form to put in addopts for machines with and without autoload.
    live.makeini(INNER_INI + "citecheck_model = jev-1.12\naddopts = -p citecheck\n")
    result = live.runpytest_subprocess("--citecheck-record-mode=once", *NOT_A_USERS_PLUGINS)
    result.assert_outcomes(passed=2)
    assert len(jev_server.systemone_requests) == 2


def test_a_call_outside_a_test_raises_and_sends_nothing(live, jev_server):
    live.makepyfile(
        test_helpers="""
        import pytest
        from pytest_citecheck import assert_citations_supported
        from cookbook import SOURCE, pick

        @pytest.fixture(scope="session")
        def checked_once():
            return assert_citations_supported(pick("aud_reject"), SOURCE)

        def test_uses_session_fixture(checked_once):
            pass
        """,
        test_at_import="""
        from pytest_citecheck import check_citations
        from cookbook import SOURCE, pick

        RESULTS = check_citations(pick("clock_skew"), SOURCE)

        def test_never_runs():
            pass
        """,
    )
    at_import = live.runpytest("--citecheck-record-mode=once", "test_at_import.py")
    at_import.assert_outcomes(errors=1)
    at_import.stdout.fnmatch_lines(["*CheckerUnavailableError: check_citations() was called outside a running test*"])
    in_fixture = live.runpytest("--citecheck-record-mode=once", "test_helpers.py")
    in_fixture.assert_outcomes(errors=1)
    in_fixture.stdout.fnmatch_lines(["*assert_citations_supported() was called outside a running test*"])
    assert jev_server.systemone_requests == []


def test_outside_pytest_a_script_asks_jev_live(jev_server, tmp_path):
    script = tmp_path / "check.py"
    script.write_text(
        "from pytest_citecheck import Checker, JudgeError, check_citations, Source\n"
        "source = Source(sections={'1': '1. Refunds\\n\\nRefunds are issued within 30 days of purchase.'})\n"
        "citations = [{'id': 'r', 'claim': 'Refunds take 30 days.', "
        "'quote': 'Refunds are issued within 30 days', 'section': '1'}]\n"
        "try:\n"
        "    check_citations(citations, source)\n"
        "except JudgeError as error:\n"
        "    print('REFUSED', 'rehearsal=True' in str(error))\n"
        "[r] = Checker(rehearsal=True).check(citations, source)\n"
        "print('VERDICT', r.verdict.value, r.judgement.replayed)\n"
    )
    env = {**os.environ, "TYPESAFE_BASE_URL": jev_server.url, "TYPESAFE_API_KEY": CANARY_KEY}
    # A script started by a pytest run inherits PYTEST_VERSION; it is still a script (pytest is not imported).
    assert "PYTEST_VERSION" in env
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    # The loopback Jev marks its answers: refused without the opt-in, taken by ``Checker(rehearsal=True)``.
    assert "REFUSED True" in done.stdout
    assert "VERDICT verified False" in done.stdout
    assert len(jev_server.systemone_requests) == 2


def test_outside_pytest_a_script_without_a_key_is_told_its_ways_out(tmp_path):
    # Found trying usage.md's script path from a fresh venv with no key: the SDK's bare TypeSafeError
    # ("No API key was provided") came out of check_citations(), no CitecheckError, no way to replay.
    script = tmp_path / "check.py"
    script.write_text(
        "import anyio\n"
        "from pytest_citecheck import Checker, ClientUnavailableError, check_citations, Source\n"
        "source = Source(sections={'1': 'Refunds are issued within 30 days of purchase.'})\n"
        "citations = [{'id': 'r', 'claim': 'Refunds take 30 days.', 'quote': 'Refunds are issued within 30 days', "
        "'section': '1'}]\n"
        "try:\n"
        "    check_citations(citations, source)\n"
        "except ClientUnavailableError as error:\n"
        "    print('SYNC', error)\n"
        "async def main():\n"
        "    try:\n"
        "        await Checker().acheck(citations, source)\n"
        "    except ClientUnavailableError as error:\n"
        "        print('ASYNC', error.remedy)\n"
        "anyio.run(main)\n"
    )
    env = {name: value for name, value in os.environ.items() if not name.startswith("TYPESAFE_")}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    remedy = "Checker(client=TypeSafeClient(api_key=...)); to replay recorded answers with no key, run the check in"
    assert (
        "SYNC no TYPESAFE_API_KEY is set, and outside pytest (a script, a notebook) a check asks Jev live"
        in done.stdout
    )
    assert "-> set TYPESAFE_API_KEY" in done.stdout and remedy in done.stdout
    assert "ASYNC set TYPESAFE_API_KEY" in done.stdout


def test_a_function_scoped_fixture_checks_in_the_test_that_uses_it(live, jev_server):
    # The binding is in place before the test's own function-scoped fixtures are set up (and is
    # lifted only while a wider fixture is: the test above).
    live.makepyfile(
        test_fixture_check="""
        import pytest
        from pytest_citecheck import assert_citations_supported
        from cookbook import SOURCE, pick

        @pytest.fixture
        def checked():
            return assert_citations_supported(pick("aud_reject"), SOURCE)

        def test_uses_it(checked):
            assert [result.verdict.value for result in checked] == ["verified"]
        """,
    )
    result = live.runpytest("--citecheck-record-mode=once", "test_fixture_check.py")
    result.assert_outcomes(passed=1)
    assert len(jev_server.systemone_requests) == 1
    assert (live.path / "cassettes" / "test_fixture_check" / "test_uses_it.yaml").is_file()
