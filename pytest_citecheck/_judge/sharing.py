"""Identical requests are sent once per run, and the answer is shared (``SharedAnswers``).

Two citations whose requests are the same (same server, model, claim, section and questions: the
same JSON body; and the same key and headers) get the same answer: the first one asks, the others wait for its answer and take a
copy. It sits below the cassette (``_judge.outgoing``), so each test's cassette still records its own
copy, and a replayed citation never comes here. Only a 2xx answer is shared: after an error, a
429 or a failure to connect, the next identical request asks again. The plugin keeps one
``SharedAnswers`` per pytest session (a ``Checker`` of a script has its own); under xdist each
worker's also shares with the run's other workers through ``run`` (``_judge.run_answers``): the
request is sent once per run.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from hashlib import sha256
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_citecheck._judge.run_answers import RunAnswers

# Answers kept per run, the least recently used dropped first: about 1 KB each.
KEPT_ANSWERS = 4096
_WAIT_POLL_SECONDS = 0.005


@dataclass(frozen=True)
class Answer:
    """A 2xx answer as the transport returned it: status, raw headers, body, HTTP version and reason."""

    status: int
    headers: list[tuple[bytes, bytes]]
    content: bytes
    extensions: dict[str, Any]

    @classmethod
    def of(cls, response: Any) -> Answer | None:
        """The answer to share from a response whose body was read, or None when it is not a 2xx."""
        if not 200 <= response.status_code < 300:
            return None
        kept = {
            name: response.extensions[name] for name in ("http_version", "reason_phrase") if name in response.extensions
        }
        return cls(response.status_code, list(response.headers.raw), response.content, kept)

    def response(self) -> Any:
        """A fresh transport response holding this answer, as if it came from the server."""
        import httpx2

        stream = httpx2.ByteStream(self.content)
        response = httpx2.Response(self.status, headers=self.headers, stream=stream, extensions=dict(self.extensions))
        response.read()  # read, as the answers ``_judge.outgoing`` sends are: a copy may be shared again
        return response


# The one header that differs between the attempts of one request (the SDK's retry number): left out of
# its key, so a retry is the request it retries.
_ATTEMPT_HEADERS = frozenset({b"x-typesafe-retry-count"})


def request_key(request: Any, body: bytes) -> str:
    """What makes two requests identical: method, URL (server, path, query), headers and body.

    The headers count because they say who asks: a test whose ``citecheck_client`` carries another
    key (a revoked one, or one of another plan or project) must not pass on a copy of the answer
    another key got (it once did, and recorded it). Only a digest is kept, never the headers.
    """
    headers = sorted((name.lower(), value) for name, value in request.headers.raw)
    parts = [request.method.encode(), str(request.url).encode()]
    parts += [name + b":" + value for name, value in headers if name not in _ATTEMPT_HEADERS]
    return sha256(b"\0".join((*parts, body))).hexdigest()


class SharedAnswers:
    """The run's answers by request, and the requests in flight that others may wait for."""

    def __init__(self, kept: int = KEPT_ANSWERS, run: RunAnswers | None = None) -> None:
        self._kept = kept
        self.run = run  # the answers shared with the run's other processes (xdist workers), if any
        self._lock = threading.Lock()
        self._answers: OrderedDict[str, Answer] = OrderedDict()
        self._asking: dict[str, threading.Event] = {}
        self.sent = 0  # requests this run let through (each identical one once, while it succeeds)
        self.shared = 0  # requests answered with a copy

    def _claim(self, key: str) -> Answer | threading.Event | None:
        """The answer already given, an event set when the one asking settles, or None: the caller asks."""
        with self._lock:
            answer = self._answers.get(key)
            if answer is not None:
                self._answers.move_to_end(key)
                self.shared += 1
                return answer
            asking = self._asking.get(key)
            if asking is not None:
                return asking
            self._asking[key] = threading.Event()
            self.sent += 1
            return None

    def _settle(self, key: str, response: Any) -> None:
        answer = Answer.of(response) if response is not None else None
        with self._lock:
            asking = self._asking.pop(key)
            if answer is not None:
                self._answers[key] = answer
                while len(self._answers) > self._kept:
                    self._answers.popitem(last=False)
        asking.set()

    def send(self, key: str, send: Callable[[], Any], deadline: float | None = None) -> Any:
        """The answer to the request of ``key``: shared if it was given, else ``send()``'s (then shared).

        ``deadline``: the request's own ``request_deadline``, the longest it waits for another process.
        """
        claim = self._claim(key)
        while claim is not None:
            if isinstance(claim, Answer):
                return claim.response()
            claim.wait()
            claim = self._claim(key)
        response = None
        try:
            response = send() if self.run is None else self.run.send(key, send, deadline)
            return response
        finally:
            self._settle(key, response)

    async def asend(self, key: str, send: Callable[[], Awaitable[Any]], deadline: float | None = None) -> Any:
        """``send`` for the async client: a request waiting for an identical one yields to the event loop."""
        import anyio

        claim = self._claim(key)
        while claim is not None:
            if isinstance(claim, Answer):
                return claim.response()
            while not claim.is_set():
                await anyio.sleep(_WAIT_POLL_SECONDS)
            claim = self._claim(key)
        response = None
        try:
            response = await (send() if self.run is None else self.run.asend(key, send, deadline))
            return response
        finally:
            self._settle(key, response)
