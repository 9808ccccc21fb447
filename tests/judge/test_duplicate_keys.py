"""An answer whose JSON has a key twice in one object is malformed: refused when sent, never recorded.

Found by the record hunt (``dupkey``): ``{"answers": {…contradicts…}, "answers": {…supports…}}``
passed as ``supports``, because Python's ``json`` (and the SDK's reading) keeps the last key, where
another JSON reader keeps the first. The server here is a raw socket sending such a body as Jev's
answer; the check is made in ``_judge.outgoing``, where a sent answer's body is in hand, so a
replayed answer (``_recording.replay``) costs nothing more.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from support import CANARY_KEY, ONE_CLAIM_PATHS, RawServer
from typesafe_sdk import TypeSafeClient

from pytest_citecheck import Checker, JudgeError, Source
from pytest_citecheck._judge.relation import answer_inconsistency
from pytest_citecheck.testing import choice_answer

SUPPORTS = json.dumps(choice_answer("supports", 0.97))
CONTRADICTS = json.dumps(choice_answer("contradicts", 0.97))
USAGE = '"usage": {"input_tokens": 120, "output_tokens": 40}'

# Each body: Jev's answer with one key twice, and the key the message names. The answer a reader keeping
# the last key sees is "supports" (it passed); one keeping the first sees "contradicts".
BODIES = {
    "answers twice": (
        f'{{"model": "jev-1.12", "answers": {{"relation": {CONTRADICTS}}}, "answers": {{"relation": {SUPPORTS}}}, {USAGE}}}',
        "answers",
    ),
    "choice twice": (
        f'{{"model": "jev-1.12", "answers": {{"relation": {SUPPORTS[:-1]}, "choice": "contradicts", '
        f'"choice": "supports"}}}}, {USAGE}}}',
        "choice",
    ),
    "a probability twice": (
        '{"model": "jev-1.12", "answers": {"relation": {"type": "choice", "choice": "supports", "probabilities": '
        '{"supports": 0.01, "contradicts": 0.02, "says_nothing": 0.01, "supports": 0.97}, "confidence": 0.95}}, '
        f"{USAGE}}}",
        "supports",
    ),
}


def _answering(body: str) -> Callable[[socket.socket, threading.Event], None]:
    data = body.encode()

    def respond(connection: socket.socket, stopped: threading.Event) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(data)
        connection.sendall(head + data)

    return respond


@pytest.fixture
def answering(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], RawServer]]:
    """``answering(body)``: a raw loopback server sending ``body`` as every answer; the SDK pointed at it."""
    servers: list[RawServer] = []

    def start(body: str) -> RawServer:
        servers.append(RawServer(_answering(body)))
        monkeypatch.setenv("TYPESAFE_BASE_URL", servers[-1].url)
        monkeypatch.setenv("TYPESAFE_API_KEY", CANARY_KEY)
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def test_each_body_is_read_by_python_as_a_consistent_supports() -> None:
    """What the refusal prevents: read as the SDK reads it (the last key wins), each body is a
    "supports" that contradicts nothing, so it would pass."""
    for body, _ in BODIES.values():
        relation = json.loads(body)["answers"]["relation"]
        assert relation["choice"] == "supports" and relation["probabilities"]["supports"] == 0.97
        assert answer_inconsistency(relation["choice"], relation["confidence"], relation["probabilities"]) is None


@pytest.mark.parametrize("path", ONE_CLAIM_PATHS)
@pytest.mark.parametrize("body", BODIES)
def test_a_recorded_answer_with_a_key_twice_fails_naming_it_and_is_not_recorded(
    suite: pytest.Pytester, answering: Callable[[str], RawServer], body: str, path: str
) -> None:
    text, key = BODIES[body]
    server = answering(text)
    suite.makepyfile(test_app=ONE_CLAIM_PATHS[path])
    result = suite.runpytest("--citecheck-record-mode=once", "-p", "asyncio")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*JudgeError: citation 'aud': TypeSafe's response is malformed (HTTP 200: its JSON has the key '{key}' "
            "twice in one object, and JSON readers differ on which one counts)*",
            "*-> this is not an answer pytest-citecheck can trust, and nothing was recorded*",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert list(suite.path.rglob("*.yaml")) == []
    assert server.requests == 1  # not retried


def test_a_scripts_checker_refuses_a_key_twice(answering: Callable[[str], RawServer]) -> None:
    server = answering(BODIES["answers twice"][0])
    source = Source(sections={"1": "Refunds are granted within 30 days of purchase, on request."})
    citation = {"id": "refund", "claim": "Refunds are possible for 30 days.", "quote": None, "section": "1"}
    with TypeSafeClient(compression=False) as client, pytest.raises(JudgeError) as raised:
        Checker(client=client, rehearsal=True, model="jev-1.12").check([citation], source)
    assert str(raised.value).startswith(
        "citation 'refund': TypeSafe's response is malformed (HTTP 200: its JSON has the key 'answers' twice"
    )
    assert server.requests == 1


def test_a_repeated_key_is_shown_visibly_and_without_a_known_secret(
    suite: pytest.Pytester, answering: Callable[[str], RawServer]
) -> None:
    """The key is the server's text: a key echoing the API key, with a terminal escape, is cut and shown."""
    key = json.dumps(f"{CANARY_KEY}\x1b]52;c;cHduZWQ=\x07")
    answering(f'{{"model": "jev-1.12", {key}: 1, {key}: 2, "answers": {{"relation": {SUPPORTS}}}, {USAGE}}}')
    suite.makepyfile(test_app=ONE_CLAIM_PATHS["sync"])
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(failed=1)
    output: Any = result.stdout.str()
    assert "its JSON has the key '***\\x1b]52;c;cHduZWQ=\\x07' twice" in " ".join(output.split()), output
    assert CANARY_KEY not in output and "\x1b" not in output
