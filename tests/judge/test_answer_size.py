"""An answer over the size bound (``_judge.outgoing.MAX_ANSWER_BYTES``) is refused before it is read whole.

Found against a loopback server: a 200 whose answer carried a 50 MB unknown field passed and was
recorded into a 50 MB cassette (30 s of YAML writing), and a 200 MB gzip bomb was decompressed
(680 MB resident). Each case here is a raw loopback server and a real pytest run in its own process
(sync and async path), whose peak memory (``VmHWM``) is compared with the same run answered
normally: the citation fails naming the size, nothing is recorded, and memory stays bounded.

The same holds for a script's ``Checker`` (a client and no cassette, so no recording seam): found
after the bound, its answers were read whole (the gzip bomb took 870 MB, the 50 MB answers 300 MB,
and each passed). Each case runs a plain script in its own Python process.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import zlib
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from support import ONE_CLAIM_PATHS, RawServer, inner_pytest_command

from pytest_citecheck.testing import choice_answer

ANSWER = {
    "model": "jev-1.12",
    "answers": {"relation": choice_answer("supports", 0.97)},
    "usage": {"input_tokens": 120, "output_tokens": 40},
}
MB = 1 << 20
# Writes the process's peak resident memory (KiB) when the inner run ends: VmHWM, the high-water mark of
# this program's own memory. Not ``ru_maxrss``, which Linux carries over from the parent the process was
# forked from (the test process, holding the 50 MB body it serves), and so measures the parent.
PEAK_CONFTEST = """
import pathlib

def pytest_unconfigure(config):
    status = pathlib.Path("/proc/self/status").read_text()
    peak = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))
    pathlib.Path("peak.txt").write_text(peak)
"""


def _padded(padding: int) -> bytes:
    """A valid Jev answer with an unknown field of ``padding`` spaces (what a server adding to it sends)."""
    return json.dumps(ANSWER)[:-1].encode() + b', "padding": "' + b" " * padding + b'"}'


@cache
def _gzip_bomb() -> bytes:
    """The answer with 200 MB of padding, gzip-compressed (about 200 KB), made a MB at a time."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    head, tail = _padded(0).split(b'""')
    parts = [compressor.compress(head + b'"')]
    parts += [compressor.compress(b" " * MB) for _ in range(200)]
    parts.append(compressor.compress(b'"' + tail) + compressor.flush())
    return b"".join(parts)


Respond = Callable[[socket.socket, threading.Event], None]


def _send(head: bytes, body: bytes) -> Respond:
    def respond(connection: socket.socket, stopped: threading.Event) -> None:
        connection.sendall(head + b"\r\n" + body)

    return respond


def _streamed(connection: socket.socket, stopped: threading.Event) -> None:
    """50 MB with no Content-Length (read until the connection closes), a MB at a time."""
    body = _padded(50 * MB)
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n")
    for start in range(0, len(body), MB):
        if stopped.is_set():
            return
        connection.sendall(body[start : start + MB])


def _declared() -> Respond:
    body = _padded(50 * MB)
    return _send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % len(body), body)


def _gzipped() -> Respond:
    body = _gzip_bomb()
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n"
    return _send(head % len(body), body)


def _normal() -> Respond:
    body = json.dumps(ANSWER).encode()
    return _send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % len(body), body)


SERVERS: dict[str, Callable[[], Respond]] = {
    "50 MB with its Content-Length": _declared,
    "50 MB without a Content-Length": lambda: _streamed,
    "200 MB gzip bomb": _gzipped,
}
SEEN = {
    "50 MB with its Content-Length": "its body is over 1,048,576 bytes (Content-Length 52,4",
    "50 MB without a Content-Length": "its body is over 1,048,576 bytes (1,",
    "200 MB gzip bomb": "its body decompresses to over 1,048,576 bytes (from 2",
}


def _run(suite: pytest.Pytester, respond: Respond, path: str) -> tuple[subprocess.CompletedProcess[str], int]:
    """One inner pytest run in its own process against ``respond``; its output and peak memory (KiB)."""
    server = RawServer(respond)
    try:
        env = {**os.environ, "TYPESAFE_BASE_URL": server.url, "TYPESAFE_API_KEY": "sk-citecheck-size-bound-7d2e"}
        done = subprocess.run(
            inner_pytest_command("--citecheck-record-mode=once", "-p", "asyncio"),
            cwd=suite.path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        server.stop()
    return done, int((suite.path / "peak.txt").read_text())


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="peak memory is read from Linux's /proc")
@pytest.mark.parametrize("path", ONE_CLAIM_PATHS)
@pytest.mark.parametrize("server", SERVERS)
def test_an_answer_over_the_size_bound_fails_the_citation_records_nothing_and_is_never_held_whole(
    suite: pytest.Pytester, server: str, path: str
) -> None:
    suite.makeconftest(PEAK_CONFTEST)
    suite.makepyfile(test_app=ONE_CLAIM_PATHS[path])
    normal, normal_peak = _run(suite, _normal(), path)
    assert "1 passed" in normal.stdout, normal.stdout
    for cassette in suite.path.rglob("*.yaml"):
        cassette.unlink()

    done, peak = _run(suite, SERVERS[server](), path)
    assert "1 failed" in done.stdout, done.stdout + done.stderr
    assert "Traceback" not in done.stdout and "INTERNALERROR" not in done.stdout
    message = " ".join(done.stdout.split())
    assert f"citation 'aud': TypeSafe's response is malformed (HTTP 200: {SEEN[server]}" in message, message
    assert "a Jev answer is a few KB, and pytest-citecheck reads at most 1,048,576 bytes of one" in message
    assert "-> this is not an answer pytest-citecheck can trust, and nothing was recorded" in message
    assert list(suite.path.rglob("*.yaml")) == []  # nothing recorded
    # Peak memory: what the normal run needed, and a few MB more (the bound, and httpx2's MiB pieces).
    assert peak - normal_peak < 48 * 1024, f"{peak} KiB at the peak, {normal_peak} KiB answered normally"


def test_an_answer_just_under_the_bound_is_read_and_recorded(suite: pytest.Pytester, tmp_path: Path) -> None:
    """The bound refuses only what is over it: an answer padded to just under a MB still passes."""
    suite.makeconftest(PEAK_CONFTEST)
    suite.makepyfile(test_app=ONE_CLAIM_PATHS["sync"])
    body = _padded(MB - len(_padded(0)))
    assert len(body) == MB
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
    done, _ = _run(suite, _send(head, body), "sync")
    assert "1 passed" in done.stdout, done.stdout + done.stderr
    assert len(list(suite.path.rglob("*.yaml"))) == 1


def _first_then_normal(first: Respond) -> Respond:
    """``first`` for the first request, then the normal answer."""
    served: list[None] = []

    def respond(connection: socket.socket, stopped: threading.Event) -> None:
        served.append(None)
        (first if len(served) == 1 else _normal())(connection, stopped)

    return respond


_OUTAGE_PAGE = b"<html><body>" + b"<p>Service unavailable.</p>" * (2 * MB // 26) + b"</body></html>"
# Error statuses whose body is over the bound (a proxy's outage page): the status is what counts.
OVER_THE_BOUND_ERRORS: dict[str, Callable[[], Respond]] = {
    "503 with its Content-Length": lambda: _send(
        b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/html\r\nRetry-After: 0\r\nContent-Length: %d\r\n"
        % len(_OUTAGE_PAGE),
        _OUTAGE_PAGE,
    ),
    "429 without a Content-Length": lambda: _send(
        b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/html\r\nRetry-After: 0\r\nConnection: close\r\n",
        _OUTAGE_PAGE,
    ),
    "502 gzip bomb": lambda: _send(
        b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
        b"Content-Length: %d\r\n" % len(_gzip_bomb()),
        _gzip_bomb(),
    ),
}


@pytest.mark.parametrize("path", ONE_CLAIM_PATHS)
@pytest.mark.parametrize("error", OVER_THE_BOUND_ERRORS)
def test_an_error_status_with_a_body_over_the_bound_is_retried_as_its_status(
    suite: pytest.Pytester, error: str, path: str
) -> None:
    """A 429 or 5xx whose body is over the bound (an outage page a proxy sends, or worse) is still a 429 or
    a 5xx: the SDK retries it, and the answer that follows is judged and recorded. Its body was refused as
    "too large", which the SDK does not retry, so the citation failed on a passing outage."""
    suite.makeconftest(PEAK_CONFTEST)
    suite.makepyfile(test_app=ONE_CLAIM_PATHS[path])
    done, _ = _run(suite, _first_then_normal(OVER_THE_BOUND_ERRORS[error]()), path)
    assert "1 passed" in done.stdout, done.stdout + done.stderr
    [cassette] = suite.path.rglob("*.yaml")
    text = cassette.read_text()
    assert "Service unavailable" not in text and "code: 200" in text and "code: 5" not in text


def test_a_client_error_with_a_body_over_the_bound_fails_naming_its_status(suite: pytest.Pytester) -> None:
    """A 400 whose body is over the bound fails the citation as a 400 does, not as a malformed answer."""
    suite.makepyfile(test_app=ONE_CLAIM_PATHS["sync"])
    suite.makeconftest(PEAK_CONFTEST)
    head = b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/html\r\nContent-Length: %d\r\n" % len(_OUTAGE_PAGE)
    done, _ = _run(suite, _send(head, _OUTAGE_PAGE), "sync")
    message = " ".join(done.stdout.split())
    assert "1 failed" in done.stdout, done.stdout + done.stderr
    assert "Traceback" not in done.stdout and "INTERNALERROR" not in done.stdout
    assert "citation 'aud'" in message and "400" in message, message
    assert "[pytest-citecheck: its body is over 1,048,576 bytes (Content-Length " in message, message
    assert "too large" not in message and "malformed" not in message, message
    assert list(suite.path.rglob("*.yaml")) == []


# A user's script: its own ``Checker`` with a client and no cassette (docs/usage.md), asking the server
# at TYPESAFE_BASE_URL; it prints the check's outcome and its peak memory (KiB), and imports no pytest.
SCRIPT = """
import asyncio, pathlib, sys
from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient
from pytest_citecheck import Checker, Source

SOURCE = Source(sections={"1": "Refunds are granted within 30 days of purchase, on request."})
CITATIONS = [{"id": "refund", "claim": "Refunds are possible for 30 days.", "quote": None, "section": "1"}]

async def acheck():
    client = AsyncTypeSafeClient(compression=False)
    try:
        return await Checker(async_client=client, rehearsal=True, model="jev-1.12").acheck(CITATIONS, SOURCE)
    finally:
        await client.aclose()

try:
    if sys.argv[1] == "sync":
        with TypeSafeClient(compression=False) as client:
            [result] = Checker(client=client, rehearsal=True, model="jev-1.12").check(CITATIONS, SOURCE)
    else:
        [result] = asyncio.run(acheck())
    print("verdict:", result.verdict.value)
except Exception as error:
    print(f"{type(error).__name__}: {error}")
status = pathlib.Path("/proc/self/status").read_text()
print("peak:", next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))
"""


def _script(directory: Path, respond: Respond, path: str) -> tuple[str, int, int]:
    """The script run in its own process against ``respond``: its output, peak memory (KiB), requests served."""
    server = RawServer(respond)
    script = directory / "check_refunds.py"
    script.write_text(SCRIPT)
    try:
        env = {**os.environ, "TYPESAFE_BASE_URL": server.url, "TYPESAFE_API_KEY": "sk-citecheck-size-bound-7d2e"}
        done = subprocess.run(
            [sys.executable, str(script), path], cwd=directory, env=env, capture_output=True, text=True, timeout=120
        )
    finally:
        server.stop()
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    output, _, peak = done.stdout.rpartition("peak: ")
    return " ".join(output.split()), int(peak), server.requests


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="peak memory is read from Linux's /proc")
@pytest.mark.parametrize("path", ["sync", "async"])
@pytest.mark.parametrize("server", SERVERS)
def test_a_scripts_checker_refuses_an_answer_over_the_bound_once_without_holding_it_whole(
    tmp_path: Path, server: str, path: str
) -> None:
    normal, normal_peak, _ = _script(tmp_path, _normal(), path)
    assert normal == "verdict: verified", normal

    output, peak, requests = _script(tmp_path, SERVERS[server](), path)
    assert output.startswith(
        f"JudgeError: citation 'refund': TypeSafe's response is malformed (HTTP 200: {SEEN[server]}"
    ), output
    assert "a Jev answer is a few KB, and pytest-citecheck reads at most 1,048,576 bytes of one)" in output
    assert (
        "check that TYPESAFE_BASE_URL points at TypeSafe's API and that no proxy between adds to its answers" in output
    )
    assert requests == 1  # refused, not retried
    assert peak - normal_peak < 48 * 1024, f"{peak} KiB at the peak, {normal_peak} KiB answered normally"
    assert "sk-citecheck-size-bound-7d2e" not in output


def test_a_scripts_checker_still_reads_an_answer_of_exactly_the_bound(tmp_path: Path) -> None:
    body = _padded(MB - len(_padded(0)))
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
    output, _, _ = _script(tmp_path, _send(head, body), "async")
    assert output == "verdict: verified", output
