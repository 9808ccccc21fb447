"""A conftest's own ``citecheck_client`` in CI, where no key is set: it must replay, or say why not.

typesafe-sdk builds no client without an API key, even one that only replays (and sends nothing).
The plugin's own clients pass a placeholder; a client a user builds in ``conftest.py`` must do the
same, or every test fails in CI with the SDK's "No API key was provided" raised from pytest's fixture
machinery. The examples the docs give for overriding the fixture replay with no key, and one built
without a key fails the check with the fixture's place, the cause and the way out.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"

SUITE = """
from cookbook import SOURCE, pick
from pytest_citecheck import assert_citations_supported

def test_cite():
    assert_citations_supported(pick("epoch_seconds", "aud_reject"), SOURCE)
"""

ASYNC_SUITE = """
import anyio
from cookbook import SOURCE, pick

def test_cite(citecheck):
    anyio.run(citecheck.aassert_supported, pick("epoch_seconds", "aud_reject"), SOURCE)
"""

# What the docs showed before: a client built with no key, which typesafe-sdk refuses in CI.
KEYLESS_CONFTEST = """
import pytest
from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient


@pytest.fixture
def citecheck_client():
    with TypeSafeClient(compression=False, timeout=30.0) as client:
        yield client


@pytest.fixture
def citecheck_async_client():
    return lambda: AsyncTypeSafeClient(compression=False)
"""


def _conftest_example(page: str, after: str) -> str:
    """The first Python block of ``docs/<page>`` after the text ``after``: a conftest a user copies."""
    text = (DOCS / page).read_text()
    start = text.index("```python\n", text.index(after)) + len("```python\n")
    return text[start : text.index("\n```", start)] + "\n"


def _recorded_then_offline(suite: pytest.Pytester, jev_server, offline, module: str, tests: int = 1) -> None:
    """``module`` recorded against the loopback server with the plugin's client, then as CI runs: no key."""
    suite.makepyfile(test_app=module)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=tests)
    offline()
    jev_server.stop()


@pytest.mark.parametrize(
    ("page", "after"),
    [("usage.md", "### The fixtures"), ("reliability.md", "To change that, override the `citecheck_client` fixture")],
)
def test_the_docs_own_client_fixtures_replay_with_no_key(
    suite: pytest.Pytester, jev_server, offline, page: str, after: str
) -> None:
    conftest = _conftest_example(page, after)
    assert "def citecheck_client" in conftest
    _recorded_then_offline(suite, jev_server, offline, SUITE)
    suite.makeconftest(conftest)
    result = suite.runpytest("--citecheck-record-mode=none", "--citecheck-json=report.json")
    result.assert_outcomes(passed=1)
    rows = json.loads((suite.path / "report.json").read_text())["results"]
    assert [(row["id"], row["verdict"]) for row in rows] == [("epoch_seconds", "verified"), ("aud_reject", "verified")]


@pytest.mark.parametrize(
    ("module", "fixture", "line"),
    [(SUITE, "citecheck_client", 5), (ASYNC_SUITE, "citecheck_async_client", 11)],
    ids=["sync", "async"],
)
def test_an_own_client_built_without_a_key_fails_naming_the_fixture_the_cause_and_the_way_out(
    suite: pytest.Pytester, jev_server, offline, module: str, fixture: str, line: int
) -> None:
    _recorded_then_offline(suite, jev_server, offline, module)
    suite.makeconftest(KEYLESS_CONFTEST)
    result = suite.runpytest("--citecheck-record-mode=none", "--citecheck-json=report.json")
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "INTERNALERROR" not in output
    message = (
        f"ClientUnavailableError: the {fixture} fixture (conftest.py:{line}) could not "
        "build its client: no TYPESAFE_API_KEY is set, and typesafe-sdk builds no client without a key, "
        "even to replay (which sends nothing)"
    )
    assert message in output
    assert (
        '  -> pass api_key=os.environ.get("TYPESAFE_API_KEY") or "replay-only" where that fixture builds its '
        "client: a replay never sends it, and a record run still needs TYPESAFE_API_KEY set; or remove the "
        "fixture to use pytest-citecheck's own client"
    ) in output
    # Said once, as the test's failure: not pytest's fixture machinery and the SDK's own traceback.
    assert "_pytest/fixtures.py" not in output
    rows = json.loads((suite.path / "report.json").read_text())["results"]
    assert [(row["id"], row["verdict"]) for row in rows] == [("epoch_seconds", "errored"), ("aud_reject", "errored")]
    assert rows[0]["error"]["type"] == "ClientUnavailableError"
    assert rows[0]["error"]["message"].startswith(
        f"the {fixture} fixture (conftest.py:{line}) could not build its client"
    )


def test_an_own_client_that_fails_for_another_reason_fails_as_it_did(suite: pytest.Pytester, jev_server, offline):
    """Only typesafe-sdk's refusal for want of a key is said anew; a fixture's own error is the user's to read."""
    _recorded_then_offline(suite, jev_server, offline, SUITE)
    suite.makeconftest(
        "import pytest\n\n@pytest.fixture\ndef citecheck_client():\n    raise RuntimeError('the vault is sealed')\n"
    )
    result = suite.runpytest("--citecheck-record-mode=none")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["E       RuntimeError: the vault is sealed"])
    assert "ClientUnavailableError" not in result.stdout.str()


# An async fixture of one's own (pytest-asyncio's): set up by pytest-asyncio on the test's loop before the
# test runs, when the test asks for it; the check cannot have it set up from inside the running loop.
ASYNC_FIXTURE_CONFTEST = """
import os

import pytest_asyncio
from typesafe_sdk import AsyncTypeSafeClient


@pytest_asyncio.fixture
async def citecheck_async_client():
    key = os.environ.get("TYPESAFE_API_KEY") or "replay-only"
    async with AsyncTypeSafeClient(api_key=key, compression=False) as client:
        yield client
"""

ASYNCIO_SUITE = """
import pytest
from cookbook import SOURCE, pick

@pytest.mark.asyncio
async def test_cite(citecheck):
    await citecheck.aassert_supported(pick("epoch_seconds", "aud_reject"), SOURCE)
"""


def test_an_async_client_fixture_of_ones_own_replays_when_the_test_asks_for_it(
    suite: pytest.Pytester, jev_server, offline
) -> None:
    _recorded_then_offline(suite, jev_server, offline, ASYNCIO_SUITE)
    suite.makeconftest(ASYNC_FIXTURE_CONFTEST)
    suite.makepyfile(test_app=ASYNCIO_SUITE.replace("(citecheck)", "(citecheck, citecheck_async_client)"))
    result = suite.runpytest("--citecheck-record-mode=none", "-p", "asyncio", "-W", "error::RuntimeWarning")
    result.assert_outcomes(passed=1)


def test_an_async_client_fixture_the_test_does_not_ask_for_fails_saying_to_ask_for_it(
    suite: pytest.Pytester, jev_server, offline
) -> None:
    """Asked for from inside the running loop, pytest-asyncio could not set it up ("Runner.run() cannot be
    called from a running event loop", and a coroutine never awaited): said before it is asked for."""
    _recorded_then_offline(suite, jev_server, offline, ASYNCIO_SUITE)
    suite.makeconftest(ASYNC_FIXTURE_CONFTEST)
    result = suite.runpytest("--citecheck-record-mode=none", "-p", "asyncio")
    result.assert_outcomes(failed=1)
    output = result.stdout.str() + result.stderr.str()
    assert "Runner.run()" not in output
    assert "never awaited" not in output
    assert (
        "ClientUnavailableError: the citecheck_async_client fixture (conftest.py:7) is an async fixture, which is set "
        "up before the test runs, on its event loop, and only for a test that asks for it: this test does not, "
        "and the check cannot set it up from inside the running loop"
    ) in output
    assert (
        "  -> ask for it in the test's arguments (async def test_cite(citecheck, citecheck_async_client)), or make "
        "it a plain fixture that returns a callable building the client "
        "(return lambda: AsyncTypeSafeClient(api_key=..., compression=False))"
    ) in output


def test_an_async_client_fixture_of_a_wider_scope_set_up_already_is_the_one_a_later_test_gets(
    suite: pytest.Pytester, jev_server, offline
) -> None:
    """Session-scoped, set up for the first test (which asks for it): pytest gives the second that same client."""
    both = ASYNCIO_SUITE.replace("@pytest.mark.asyncio", '@pytest.mark.asyncio(loop_scope="session")')
    both += both[both.index("@pytest.mark") :].replace("test_cite", "test_cite_again")
    _recorded_then_offline(suite, jev_server, offline, both, tests=2)
    suite.makeconftest(
        ASYNC_FIXTURE_CONFTEST.replace(
            "@pytest_asyncio.fixture", '@pytest_asyncio.fixture(scope="session", loop_scope="session")'
        )
    )
    suite.makepyfile(test_app=both.replace("test_cite(citecheck)", "test_cite(citecheck, citecheck_async_client)"))
    result = suite.runpytest("--citecheck-record-mode=none", "-p", "asyncio", "-p", "no:randomly")
    assert "is an async fixture" not in result.stdout.str()
    result.assert_outcomes(passed=2)
