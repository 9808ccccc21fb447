"""A test's cassette in an estimate run: what the record mode would replay is replayed, the rest is counted.

``EstimatingCassette`` stands in for ``TestCassette`` and never writes a file. Its
``EstimateRecording`` answers from httpx2's transports, as replay does (``_recording.replay``): the
real SDK builds the real request, and the patched transport takes it before any network transport
(or the test's own client's) is reached. A request the record mode would replay is replayed; a miss
the record mode would send (``once`` on a new file, ``new_episodes``, ``all``, ``rewrite``, and a
shared cassette's ``once``) is counted and raises ``NotSent``; a miss it would not send (``none``,
``once`` on an existing file) is the cassette miss it always is, counted as unrecorded.

``settle`` then turns a check that would have sent anything into a skip with no verdict: its replayed
answers are not enough to judge the test, and a check must never pass on what was not asked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from pytest_citecheck._errors import CitecheckError
from pytest_citecheck._estimate.tally import TestTally, input_tokens, output_tokens, request_digest
from pytest_citecheck._recording.cassette import TestCassette
from pytest_citecheck._recording.cassette_file import read_cassette_text
from pytest_citecheck._recording.matching import method_and_endpoint, parsed_body, request_key
from pytest_citecheck._recording.replay import Recording, ReplayMiss, replays_only
from pytest_citecheck._recording.responses import Recorded
from pytest_citecheck._recording.shared import shared_record_mode
from pytest_citecheck._text import plural

# The record modes (after a shared cassette's mapping) in which a recorded answer is replayed.
_REPLAYING_MODES = ("none", "once", "new_episodes")

# The request ``take`` is answering, set by this module's handlers around replay's own: ``take`` sees
# only the scrubbed method, path and body, and a record run shares an answer only between requests with
# the same key and headers too (``_judge.sharing.request_key``), so the estimate counts by that key.
_REQUEST: ContextVar[Any] = ContextVar("citecheck_estimated_request", default=None)


class NotSent(Exception):
    """A request a record run would send: counted by the estimate, never sent (not an error of the check)."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"estimate run: a request for cassette {path} was counted, not sent")


class EstimateOnlyError(CitecheckError):
    """A check that would have sent a request, outside pytest (where it is skipped instead)."""


class EstimateRecording(Recording):
    """A cassette's recordings (those the record mode would replay), and a tally of every other request."""

    # A record run shares answers by the request as httpx2 builds it (``_sent_as``): answered at the transports.
    answers_at_client = False

    def __init__(self, path: Path, interactions: list[Any], *, sends: bool, tally: TestTally) -> None:
        super().__init__(path, interactions)
        self.sends = sends  # whether the record mode sends a request with no recording
        self.tally = tally

    @classmethod
    def for_mode(cls, path: Path, record_mode: str, *, shared: bool, tally: TestTally) -> EstimateRecording:
        mode = shared_record_mode(record_mode) if shared else record_mode
        text = read_cassette_text(path) if mode in _REPLAYING_MODES else None
        interactions = [] if text is None else list(cls._deserialize(text))
        sends = not replays_only(record_mode, path, shared=shared)
        return cls(path, interactions, sends=sends, tally=tally)

    @staticmethod
    def _deserialize(text: str) -> list[Any]:
        from pytest_citecheck._recording.cassette_file import read_checked

        return read_checked(text)[1]

    def _sync_handler(self, original: Any) -> Any:
        handler = super()._sync_handler(original)

        def handle_request(transport: Any, request: Any) -> Any:
            token = _REQUEST.set(request)
            try:
                return handler(transport, request)
            finally:
                _REQUEST.reset(token)

        return handle_request

    def _async_handler(self, original: Any) -> Any:
        handler = super()._async_handler(original)

        async def handle_async_request(transport: Any, request: Any) -> Any:
            token = _REQUEST.set(request)
            try:
                return await handler(transport, request)
            finally:
                _REQUEST.reset(token)

        return handle_async_request

    def take(self, method: str, path: str, body: bytes) -> Recorded:
        """The recording of this request; otherwise it is counted and ``NotSent`` (or a miss: ``ReplayMiss``)."""
        try:
            recorded = super().take(method, path, body)
        except ReplayMiss:
            if not self.sends:
                self.tally.add("unrecorded")
                raise
            verb, endpoint = method_and_endpoint(method, path)
            digest = request_digest(verb, endpoint, _sent_as(body))
            self.tally.would_send(digest, input_tokens(body), output_tokens(parsed_body(body)))
            raise NotSent(self.path) from None
        self.tally.add("replayed")
        return recorded


def _sent_as(body: bytes) -> str:
    """What makes this request one a record run sends once: the key its identical requests share by
    (method, URL, headers with the API key, body), or the body alone for a request not seen at a transport."""
    from pytest_citecheck._judge.sharing import request_key as sharing_key

    request = _REQUEST.get()
    return request_key(body) if request is None else sharing_key(request, request.read())


class EstimatingCassette(TestCassette):
    """``TestCassette`` for an estimate run: served by ``EstimateRecording``, never saved."""

    def __init__(self, path: Path, record_mode: str, *, shared: bool = False, tally: TestTally) -> None:
        super().__init__(path, record_mode, shared=shared)
        self.tally = tally

    def _load(self) -> Any:
        return EstimateRecording.for_mode(self.path, self.record_mode, shared=self.shared, tally=self.tally)

    def save(self) -> None:
        """An estimate run writes no cassette."""


def settle(outcomes: Mapping[int, object], cassette: Any, skip: Callable[[str], object] | None) -> None:
    """A check in which a request was not sent: the first real error (in citation order) if any, else a skip.

    Nothing of it is reported: a check that asked only part of what it needed has no verdict.
    """
    __tracebackhide__ = True
    not_sent = sum(isinstance(outcome, NotSent) for outcome in outcomes.values())
    if not not_sent:
        return
    for index in sorted(outcomes):
        outcome = outcomes[index]
        if isinstance(outcome, BaseException) and not isinstance(outcome, NotSent):
            raise outcome
    tally = getattr(cassette, "tally", None)
    if isinstance(tally, TestTally):
        tally.add("not_judged")
    message = (
        f"citecheck estimate: {plural(not_sent, 'Jev request')} of this check counted, not sent; "
        "no verdict (run without --citecheck-estimate to check it)"
    )
    if skip is not None:
        skip(message)
    raise EstimateOnlyError(message)
