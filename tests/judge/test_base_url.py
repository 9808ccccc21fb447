"""``TYPESAFE_BASE_URL`` as a user may set it: malformed, or holding a credential (issue 25 items 6, 10).

A malformed URL (``http://[::1``) is a clear error naming the variable when a request must be sent,
and no error at all when replaying, where no URL is needed. Real pytest runs through pytester:
recorded from the loopback JevServer, then replayed (the sync and the async path each).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from support import failures_section

from pytest_citecheck.testing import JevServer, Reply

TESTS = """
import pytest
from pytest_citecheck import assert_citations_supported
from cookbook import SOURCE, pick

def test_sync():
    [result] = assert_citations_supported(pick("aud_reject"), SOURCE)
    assert result.verdict.value == "verified"

@pytest.mark.asyncio
async def test_async(citecheck):
    [result] = await citecheck.aassert_supported(pick("clock_skew"), SOURCE)
    assert result.verdict.value == "verified"
"""
CITED = ("aud_reject", "clock_skew")  # the citations of TESTS, one a test
MALFORMED = "http://[::1"


def assert_each_citation_says(output: str, said: str) -> None:
    for citation in CITED:
        assert f"citation '{citation}': {said}" in output


def both_fail_when_answered(suite: pytest.Pytester, jev_server: JevServer, reply: Callable[[], Reply]) -> str:
    """Records TESTS while the loopback server answers every request with ``reply()`` (a new Reply each
    time: the server takes its content-type out of the headers it is given): both tests fail.
    Returns the run's FAILURES section."""
    jev_server.answer = lambda claim, section: reply()
    suite.makepyfile(test_it=TESTS)
    result = suite.runpytest("--citecheck-record-mode=once", "-p", "asyncio")
    result.assert_outcomes(failed=2)
    return failures_section(result.stdout.str())


def test_a_malformed_base_url_is_no_error_when_replaying(
    suite: pytest.Pytester, jev_server: JevServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(test_it=TESTS)
    suite.runpytest("--citecheck-record-mode=once", "-p", "asyncio").assert_outcomes(passed=2)
    monkeypatch.setenv("TYPESAFE_BASE_URL", MALFORMED)
    monkeypatch.delenv("TYPESAFE_API_KEY")
    result = suite.runpytest("-p", "asyncio")  # record mode none: replay only
    result.assert_outcomes(passed=2)


def test_a_malformed_base_url_is_a_clear_error_when_a_request_must_be_sent(
    suite: pytest.Pytester, jev_server: JevServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(test_it=TESTS)
    monkeypatch.setenv("TYPESAFE_BASE_URL", MALFORMED)
    result = suite.runpytest("--citecheck-record-mode=once", "-p", "asyncio")
    result.assert_outcomes(failed=2)
    output = result.stdout.str()
    assert "InvalidURL" not in output and "Traceback" not in output
    assert_each_citation_says(
        output, "TYPESAFE_BASE_URL (or the base_url the client was built with) is not a valid URL: Invalid port"
    )
    assert (
        failures_section(output).count(
            "-> set TYPESAFE_BASE_URL to TypeSafe's address (https://api.typesafe.ai), or unset it"
        )
        == 2
    )


# A base URL carrying a credential three ways: a password, a gateway token in the path, a token in
# the query. The server refuses the request (the SDK's client turns the user:password into a Basic
# credential), so each test fails, and the SDK's logs name the URL it sent to.
PASSWORD, PATH_TOKEN, QUERY_TOKEN = "pw-5ecret-91", "gw-TOKEN-4f2a9c", "qtok-77e1b3d0"
SECRETS = (PASSWORD, PATH_TOKEN, QUERY_TOKEN, f"user:{PASSWORD}")


def test_a_credential_in_the_base_url_reaches_no_message_annotation_summary_junit_or_log(
    suite: pytest.Pytester, jev_server: JevServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = jev_server.url.rsplit(":", 1)[1]
    monkeypatch.setenv("TYPESAFE_BASE_URL", f"http://user:{PASSWORD}@127.0.0.1:{port}/{PATH_TOKEN}/?key={QUERY_TOKEN}")
    summary = suite.path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    suite.makepyfile(test_it=TESTS)
    result = suite.runpytest(
        "--citecheck-record-mode=once",
        "-p",
        "asyncio",
        "--junitxml=junit.xml",
        "-o",
        "junit_logging=all",
        "--log-level=DEBUG",
        "-rA",
    )
    result.assert_outcomes(failed=2)
    output = result.stdout.str() + result.stderr.str()
    # The failures were reported (the password makes the server refuse the request), annotations included.
    assert "::error" in output and "(HTTP 401)" in output
    assert output.count(f"http://127.0.0.1:{port}") >= 2  # the base URL shown as scheme, host and port
    written = {"output": output, "junit": (suite.path / "junit.xml").read_text(), "summary": summary.read_text()}
    leaks = [(where, secret) for where, text in written.items() for secret in SECRETS if secret in text]
    assert leaks == []


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_base_url_that_redirects_names_the_redirect_and_where_it_points(
    suite: pytest.Pytester, jev_server: JevServer, status: int
) -> None:
    # Found by hand: "TypeSafe answered HTTP 301 (… 301 status code (no body))" and "-> see TypeSafe's error
    # documentation", which says nothing of the redirect a wrong base URL (http for https) meets.
    location = "https://gw.example:8443/TOKEN-0123456789abcdef/v1/systemone?key=sk-query-secret"
    output = both_fail_when_answered(suite, jev_server, lambda: Reply(status, b"", headers={"location": location}))
    assert_each_citation_says(
        output,
        f"TYPESAFE_BASE_URL answered HTTP {status}, a redirect to https://gw.example:8443, "
        "which pytest-citecheck does not follow (the API key would go with it)",
    )
    assert output.count("-> set TYPESAFE_BASE_URL to the address the API answers at, if you trust it") == 2
    assert "TOKEN-0123456789abcdef" not in output and "sk-query-secret" not in output


def test_a_base_url_with_a_wrong_path_names_the_base_url_not_typesafes_documentation(
    suite: pytest.Pytester, jev_server: JevServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found against a loopback server: HTTP 404 said "see TypeSafe's error documentation"; the endpoint the
    # SDK posts to is fixed, so a 404 means the base URL (its path, or the host) is not TypeSafe's API.
    # The body is what a web server or gateway with nothing at that path says (FastAPI's).
    monkeypatch.setenv("TYPESAFE_BASE_URL", jev_server.url + "/gateway/old")
    output = both_fail_when_answered(suite, jev_server, lambda: Reply(404, {"detail": "Not Found"}))
    assert_each_citation_says(
        output, "TYPESAFE_BASE_URL answered HTTP 404 (not found): nothing answers Jev's endpoint at that address"
    )
    assert output.count("-> set TYPESAFE_BASE_URL to the address the API answers at") == 2
    assert "error documentation" not in output
    assert not list(suite.path.rglob("*.yaml"))  # nothing recorded
