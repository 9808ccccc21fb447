"""A response shorter than its Content-Length says so (issue 25 item 12), on the sync and async paths.

The SDK reports the cut as a connection error, and the message once said "could not connect to
TypeSafe" about a server that answered. The server here is a raw socket that promises 100 bytes
more than it sends, then closes the connection.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import pytest

from pytest_citecheck.testing import choice_answer

SYNC = """
from cookbook import SOURCE
from pytest_citecheck import assert_citations_supported

def test_claims():
    assert_citations_supported([{"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"}], SOURCE)
"""
ASYNC = """
import pytest
from cookbook import SOURCE

@pytest.mark.asyncio
async def test_claims(citecheck):
    await citecheck.aassert_supported([{"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"}], SOURCE)
"""


def _answer_short(connection: socket.socket, body: bytes) -> None:
    with connection:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = connection.recv(65536)
            if not chunk:
                return
            data += chunk
        head, rest = data.split(b"\r\n\r\n", 1)
        length = next(
            int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
        )
        while len(rest) < length:
            rest += connection.recv(65536)
        promised = len(body) + 100
        connection.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (promised, body)
        )


@pytest.fixture
def short_body_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    body = json.dumps({"model": "jev-1.12", "answers": {"relation": choice_answer("supports", 0.97)}}).encode()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            _answer_short(connection, body)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    monkeypatch.setenv("TYPESAFE_BASE_URL", url)
    monkeypatch.setenv("TYPESAFE_API_KEY", "sk-citecheck-short-body-0c4e1d")
    yield url
    stop.set()
    listener.close()
    thread.join(5)


@pytest.mark.parametrize("path", ["sync", "async"])
def test_a_body_shorter_than_its_content_length_says_it_was_cut_short(
    suite: pytest.Pytester, short_body_server: str, path: str
) -> None:
    suite.makepyfile(test_app=SYNC if path == "sync" else ASYNC)
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*citation 'aud': TypeSafe's response was cut short: the connection closed before the whole body arrived "
            "(*received * bytes, expected *)*",
            "*-> retry; if it persists, a proxy or load balancer between you and TypeSafe is cutting responses short*",
        ]
    )
    assert "could not connect" not in result.stdout.str()
