"""An overall deadline per Jev request (option ``request_deadline``, issue 25 item 11).

The SDK's timeout is per read: a server that sends its answer one byte at a time never trips it.
A loopback server here does exactly that (a well-formed answer, one byte every 0.2 s, for longer
than any test waits); each citation must fail naming the knob, on the sync and the async path,
whichever of the four channels (flag, ini, marker, call keyword) set the deadline.

A server that keeps answering 429 (with Retry-After) is retried patiently (``_judge.retry``) until
the deadline: the error once said only that the deadline passed; it now says the server was
rate-limiting, and what to do about it (max_rpm, or wait).
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator

import pytest
from support import RawServer, failures_section

from pytest_citecheck.testing import JevServer, Reply, choice_answer


def _trickle(pause: float = 0.2) -> Callable[[socket.socket, threading.Event], None]:
    """A valid Jev answer, one byte every ``pause`` seconds, until the server is stopped."""
    body = json.dumps(
        {
            "model": "jev-1.12",
            "answers": {"relation": choice_answer("supports")},
            "usage": {"input_tokens": 10, "output_tokens": 1},
        }
    ).encode()
    head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"

    def respond(connection: socket.socket, stopped: threading.Event) -> None:
        connection.sendall(head.encode())
        for byte in body:
            if stopped.wait(pause):
                return
            connection.sendall(bytes([byte]))

    return respond


@pytest.fixture
def trickling(monkeypatch: pytest.MonkeyPatch, canary_key: str) -> Iterator[RawServer]:
    server = RawServer(_trickle())
    monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
    monkeypatch.setenv("TYPESAFE_API_KEY", canary_key)
    yield server
    server.stop()


TESTS = """
import pytest
from pytest_citecheck import assert_citations_supported
from cookbook import SOURCE, pick

def test_sync():
    assert_citations_supported(pick("aud_reject"), SOURCE)

@pytest.mark.asyncio
async def test_async(citecheck):
    await citecheck.aassert_supported(pick("aud_reject"), SOURCE)

@pytest.mark.citecheck(request_deadline=0.6)
def test_marker():
    assert_citations_supported(pick("aud_reject"), SOURCE)

def test_call_keyword():
    assert_citations_supported(pick("aud_reject"), SOURCE, request_deadline=0.6)

@pytest.mark.asyncio
@pytest.mark.citecheck(request_deadline=0.6)
async def test_async_marker(citecheck):
    await citecheck.aassert_supported(pick("aud_reject"), SOURCE)
"""


@pytest.mark.parametrize("channel", ["flag", "ini"])
def test_a_trickling_answer_fails_each_citation_at_the_deadline_naming_the_knob(
    suite: pytest.Pytester, trickling: RawServer, inner_ini: str, channel: str
) -> None:
    suite.makepyfile(test_it=TESTS)
    args = ["--citecheck-record-mode=once", "-p", "asyncio"]
    if channel == "flag":
        args.append("--citecheck-request-deadline=0.8")
    else:
        suite.makeini(inner_ini + "citecheck_request_deadline = 0.8\n")
    result = suite.runpytest(*args)
    result.assert_outcomes(failed=5)
    output = result.stdout.str()
    assert (
        failures_section(output).count("TypeSafe did not complete its answer within the request deadline (0.8 s)") == 2
    )
    assert failures_section(output).count("within the request deadline (0.6 s)") == 3
    assert output.count("raise request_deadline (--citecheck-request-deadline, ini citecheck_request_deadline") >= 5
    # No retry while an answer was still coming: the five identical requests wait for one in flight (sent once
    # per run, _judge.sharing), each until its own deadline; one whose connection closed is sent again.
    assert 1 <= trickling.requests <= 5


def test_a_bad_deadline_is_an_option_error(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_it=TESTS)
    result = suite.runpytest("--citecheck-request-deadline=-3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--citecheck-request-deadline*expected a number of seconds above 0*"])


@pytest.mark.parametrize("deadline", ["99999999999999999999", "1e10", "86401"])
def test_a_deadline_beyond_a_day_is_an_option_error_not_a_traceback(suite: pytest.Pytester, deadline: str) -> None:
    # Found by hand: 1e20 s passed every check and then crashed the test inside threading
    # ("OverflowError: timeout value is too large", a traceback into the plugin) once a request was sent.
    suite.makepyfile(test_it=TESTS)
    result = suite.runpytest(f"--citecheck-request-deadline={deadline}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--citecheck-request-deadline*at most 86400 (a day), or none*"])


RATE_LIMITED = """
import pytest
from pytest_citecheck import assert_citations_supported
from cookbook import SOURCE, pick

def test_sync():
    assert_citations_supported(pick("aud_reject"), SOURCE)

@pytest.mark.asyncio
async def test_async(citecheck):
    await citecheck.aassert_supported(pick("aud_reject"), SOURCE)
"""


def test_a_deadline_that_passes_while_the_server_rate_limits_says_so(
    suite: pytest.Pytester, jev_server: JevServer
) -> None:
    jev_server.answer = lambda claim, section: Reply(429, {"detail": "Too many requests"}, {"retry-after": "0.3"})
    suite.makepyfile(test_it=RATE_LIMITED)
    result = suite.runpytest("--citecheck-record-mode=once", "-p", "asyncio", "--citecheck-request-deadline=1.5")
    result.assert_outcomes(failed=2)
    failures = failures_section(result.stdout.str())
    cause = (
        "TypeSafe did not complete its answer within the request deadline (1.5 s): it was rate-limiting the "
        "request (HTTP 429, the last answer before the deadline)"
    )
    assert failures.count(cause) == 2
    assert failures.count("-> lower max_rpm (--citecheck-max-rpm, ini citecheck_max_rpm)") == 2
