"""An answer cut short says so (issue 25 item 12), on the sync and async paths.

The SDK reports the cut as a connection error, and the message once said "could not connect to
TypeSafe" about a server that answered. The server here is a raw socket that promises 100 bytes
more than it sends, then closes the connection; or sends 40 bytes of the body and resets it.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
from collections.abc import Callable

import pytest
from support import ONE_CLAIM_PATHS, RawServer

from pytest_citecheck.testing import choice_answer

Responder = Callable[[socket.socket, threading.Event], None]  # what RawServer calls for each request

# The answer both servers begin to send: a pass, had it arrived whole.
BODY = json.dumps({"model": "jev-1.12", "answers": {"relation": choice_answer("supports", 0.97)}}).encode()


def _answer_short(body: bytes) -> Responder:
    def respond(connection: socket.socket, stopped: threading.Event) -> None:
        promised = len(body) + 100
        connection.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (promised, body)
        )

    return respond


def _reset_mid_body(body: bytes) -> Responder:
    def respond(connection: socket.socket, stopped: threading.Event) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
        connection.sendall(head + body[:40])
        # SO_LINGER 0: close() sends a reset, as a proxy or load balancer that drops the connection does.
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    return respond


@pytest.mark.parametrize("path", ONE_CLAIM_PATHS)
@pytest.mark.parametrize(
    ("responder", "key", "said"),
    [
        pytest.param(
            _answer_short,
            "sk-citecheck-short-body-0c4e1d",
            "*citation 'aud': TypeSafe's response was cut short: the connection closed before the whole body "
            "arrived (*received * bytes, expected *)*",
            id="shorter-than-its-content-length",
        ),
        # Found by hand: a reset after the headers and 40 bytes of the body read "could not connect to
        # TypeSafe … check TYPESAFE_BASE_URL and the network", about a server that had answered.
        pytest.param(
            _reset_mid_body,
            "sk-citecheck-reset-body-5a1f0e",
            "*citation 'aud': the connection to TypeSafe was reset after it was made, before the whole answer "
            "arrived (ReadError*",
            id="reset-while-the-answer-arrives",
        ),
    ],
)
def test_an_answer_cut_short_says_so_and_is_not_called_a_failure_to_connect(
    suite: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    responder: Callable[[bytes], Responder],
    key: str,
    said: str,
    path: str,
) -> None:
    server = RawServer(responder(BODY))
    monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
    monkeypatch.setenv("TYPESAFE_API_KEY", key)
    try:
        suite.makepyfile(test_app=ONE_CLAIM_PATHS[path])
        result = suite.runpytest("--citecheck-record-mode=once")
    finally:
        server.stop()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            said,
            "*-> retry; if it persists, a proxy or load balancer between you and TypeSafe is cutting responses short*",
        ]
    )
    assert "could not connect" not in result.stdout.str()
