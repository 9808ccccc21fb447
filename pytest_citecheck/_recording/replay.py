"""Replaying a cassette without vcrpy: its interactions indexed by request, served where the SDK asks (or at httpx2's transports).

A test whose cassette can only be replayed (record mode ``none``, or ``once`` when the file exists)
needs none of vcrpy's recording machinery, and pays for its matching: vcrpy compares each request
with every recorded one, JSON bodies parsed for each comparison, twice per request, so a test with
n citations costs O(n²) (2,000 citations took 48 s). Here a cassette file is read once, through the
same reader and serializer that recording uses (``cassette_file.read_cassette_text``: a directory or a
file that is not UTF-8 is refused; format and digests are checked), and indexed by what vcrpy
matched on: method, TypeSafe endpoint and the canonical JSON body (``matching.request_key``). Each request is then one dict lookup. Importing vcrpy (and every HTTP
library it probes) is skipped as well.

The rules are vcrpy's, so a file replays the same either way:

- a request is matched after the same scrub a recording got (``redaction.scrub_request``, whose
  ``scrubbed_for_matching`` replay calls), as vcrpy matches it, so whatever the scrub keeps out of
  a cassette it keeps out of the match too;
- a file holds one recording per request, which answers it as often as it is asked (a test that
  checks one citation twice asks twice), and a request with no recording is a miss (``ReplayMiss``, turned into the citation's
  ``CassetteMissError`` by ``_judge.ask``), never sent anywhere;
- only TypeSafe API requests (``matching.TYPESAFE_PATH``) are ours: any other request passes
  through to whatever handled it before (the network, or pytest-recording's own cassette);
- the patches are in place only while a Jev request of this test is in flight (``serving``), on the
  same httpx2 transport classes vcrpy patches, so a user's ``citecheck_client`` is served alike;
- the SDK's own call is answered inside its send (``seams.SDK_SENDS``): within its one attempt (its
  headers, its log lines, its reading of the answer) but outside its retry loop, which decides nothing
  on replay, and without httpx2 building the request, sending it through its auth and redirect layers
  and reading a stream back. A client of another class (a subclass of ``httpx2.Client``), or an SDK
  without that seam, is answered at ``Client.request`` (or ``AsyncClient.request``) with the URL, body
  and headers the SDK built (``_answer_at_client``), still without httpx2's part.
  The answer is the one the transport would give (the same scrub, the same
  key, the same headers: the client's own merged under the request's), and any call that is not
  exactly the SDK's (another URL type or option, a client with event hooks, a closed client) goes
  on to httpx2 and the transports, as before.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from pytest_citecheck._in_flight import WhileInFlight
from pytest_citecheck._recording.cassette_file import (
    CASSETTE_FORMAT,
    FORMAT_KEY,
    Checked,
    read_cassette_text,
    read_checked,
)
from pytest_citecheck._recording.lifecycle.stale import stale_message
from pytest_citecheck._recording.matching import (
    TYPESAFE_PATH,
    citation_of,
    method_and_endpoint,
    parsed_body,
    replay_key,
)
from pytest_citecheck._recording.plays import count_play
from pytest_citecheck._recording.redaction import scrubbed_for_matching
from pytest_citecheck._recording.responses import (
    Recorded,
    httpx2_module,
    read_response,
    request_for,
    transport_response,
)
from pytest_citecheck._recording.seams import (
    ANSWERED_OPTIONS,
    Answering,
    answerable_path,
    client_classes,
    header_pairs,
    not_ours,
    scrubbed,
    sdk_sends,
    transport_methods,
)

_MISSING = object()


def replays_only(record_mode: str, path: Path, *, shared: bool = False) -> bool:
    """True when this test's cassette can only be replayed: nothing it asks may be recorded.

    A shared cassette (``cassette=``) in mode ``once`` still records what it does not hold yet
    (``shared.shared_record_mode``): only mode ``none`` makes it replay-only.
    """
    if shared:
        return record_mode == "none"
    return record_mode == "none" or (record_mode == "once" and path.exists())


class ReplayMiss(Exception):
    """A request that no recording of this cassette answers (what vcrpy calls a cassette miss)."""

    def __init__(
        self, path: Path, failed: Any, recorded: list[Any], *, empty_file: bool = False, unmarked: bool = False
    ) -> None:
        super().__init__(f"cassette {path} holds no recording of this request")
        self.path = path
        self.failed = failed  # the request's parsed JSON body
        self.recorded = recorded  # every recorded request's parsed JSON body, in file order
        self.empty_file = empty_file  # the file exists and is empty (or only blank space)
        self.unmarked = unmarked  # the file has no end line (format 2): a cut at an interaction's end is not seen

    def stale_cause(self) -> str | None:
        """What changed, when the cassette holds this citation with another request (see ``lifecycle.stale``)."""
        return stale_message(self.failed, self.recorded)

    def empty_cause(self) -> str | None:
        """Why nothing matched, when the cassette file exists but is empty: "missing" would send the
        user looking for a file that is there (a 0-byte file: a copy or checkout cut short)."""
        if not self.empty_file:
            return None
        return (
            f"the cassette {self.path} is empty: it holds no recorded answer, and a run that only replays "
            "(record mode none, or once when the file exists) counts every request as a miss; "
            "recording it again (record mode rewrite) fills it"
        )

    def unmarked_cause(self, cause: str, remedy: str) -> tuple[str, str]:
        """A miss's cause and remedy, for a file of format 2: it does not mark its end, so a copy cut short
        just after an interaction reads as whole, and what it lost as misses; restoring it comes first."""
        from pytest_citecheck._text import shell_quote

        cause += (
            f"; the cassette {self.path} is of format 2 (pytest-citecheck 0.1), which does not mark its end, so a "
            "copy of it cut short after an interaction cannot be told from a whole one"
        )
        return cause, (
            f"if the file may have been cut short, restore it (git checkout -- {shell_quote(self.path)}); "
            f"else {remedy} (a recording writes the current format, which marks its end)"
        )


class Recording(WhileInFlight):
    """A cassette file's interactions for replay, indexed by request.

    A file holds one recording per request (``cassette_file`` refuses two), and it answers that
    request as often as it is asked: a test that checks one citation twice asks the same question.
    """

    def __init__(self, path: Path, checked: list[Checked], *, empty_file: bool = False, unmarked: bool = False) -> None:
        super().__init__()
        self.path = path
        self._empty_file = empty_file
        self._unmarked = unmarked
        self._recorded = [Recorded(index, entry.interaction, entry.answer) for index, entry in enumerate(checked)]
        # Each recorded request and response body, parsed (reading the file parsed them to check them).
        self._requests = [entry.request for entry in checked]
        self._answers = [entry.answer for entry in checked]
        self._plays = [0] * len(self._recorded)
        # Indexed by what vcrpy matched on: method, endpoint and the parsed body (``replay_key``:
        # key-sorted compact JSON, which the C encoder writes; the indented form a cassette stores
        # is written by the pure-Python one, several times slower for a section-sized body). Reading
        # the file worked each key out already (``cassette_file.read_checked``, with the digest),
        # and refused a repeated one.
        self._by_key: dict[tuple[str, str, str], int] = {}
        for index, entry in enumerate(checked):
            self._by_key.setdefault(entry.key, index)
        self._by_citation: dict[tuple[str, str], int] | None = None
        self._lock = threading.Lock()
        self._saved: list[tuple[type, str, Any]] = []

    @classmethod
    def load(cls, path: Path) -> Recording:
        """The recording in ``path``; a missing or empty file holds none (as vcrpy treats it)."""
        text = read_cassette_text(path)
        if text is None:
            return cls(path, [], empty_file=path.exists())
        data, checked = read_checked(text)
        return cls(path, checked, unmarked=data[FORMAT_KEY] < CASSETTE_FORMAT)

    def __len__(self) -> int:
        return len(self._recorded)

    @property
    def play_count(self) -> int:
        return sum(self._plays)

    # --- answering ------------------------------------------------------------------------------

    def take(self, method: str, path: str, body: bytes) -> Recorded:
        """The recording of this request; ``ReplayMiss`` when there is none."""
        method, endpoint = method_and_endpoint(method, path)
        key = (method, endpoint, replay_key(body))
        with self._lock:
            index = self._by_key.get(key)
            if index is None:
                raise ReplayMiss(
                    self.path,
                    parsed_body(body),
                    list(self._requests),
                    empty_file=self._empty_file,
                    unmarked=self._unmarked,
                )
            self._plays[index] += 1
        count_play()
        return self._recorded[index]

    def serving(self) -> WhileInFlight:
        """httpx2's transports answer TypeSafe requests from this recording while the block runs.

        Counted (``WhileInFlight``), so requests in flight at once (threads, asyncio tasks) share one set
        of patches; the last one out restores whatever was there before (vcrpy's patches, if
        pytest-recording's cassette is active around the test).
        """
        return self

    # Whether SDK calls are answered at the client (``_answer_at_client``); an estimate run needs
    # each request as httpx2 builds it, so it answers at the transports only.
    answers_at_client = True

    def _patch(self) -> None:
        if self.answers_at_client:
            request_state, sends = sdk_sends()
            for module, name, is_async in sends:
                self._saved.append((module, name, module.__dict__.get(name, _MISSING)))
                original = getattr(module, name)
                sender = self._async_sdk_send if is_async else self._sync_sdk_send
                setattr(module, name, sender(original, request_state))
            for client_class, is_async in client_classes():
                current = client_class.__dict__.get("request", _MISSING)
                self._saved.append((client_class, "request", current))
                original = client_class.request
                handler = self._async_client_handler(original) if is_async else self._sync_client_handler(original)
                client_class.request = handler
        for transport, method_name, is_async in transport_methods():
            current = transport.__dict__.get(method_name, _MISSING)
            self._saved.append((transport, method_name, current))
            original = getattr(transport, method_name)
            handler = self._async_handler(original) if is_async else self._sync_handler(original)
            setattr(transport, method_name, handler)
        # A TypeSafe request that httpx2 builds and sends (a client with event hooks, a call that is not
        # exactly the SDK's) is handed to this recording, not to the client's transport: a user's own
        # transport class (a company proxy's), which the patches above do not reach, would send it.
        for client_class, is_async in client_classes():
            if hasattr(client_class, "_transport_for_url"):
                self._saved.append(
                    (client_class, "_transport_for_url", client_class.__dict__.get("_transport_for_url", _MISSING))
                )
                client_class._transport_for_url = self._routing(client_class._transport_for_url, is_async)

    def _unpatch(self) -> None:
        while self._saved:
            transport, method_name, previous = self._saved.pop()
            if previous is _MISSING:
                delattr(transport, method_name)
            else:
                setattr(transport, method_name, previous)

    def _sync_client_handler(self, original: Any) -> Any:
        recording = self

        def request(client: Any, method: str, url: Any, **options: Any) -> Any:
            answer = recording._answer_at_client(client, method, url, options)
            return original(client, method, url, **options) if answer is None else answer

        return request

    def _async_client_handler(self, original: Any) -> Any:
        recording = self

        async def request(client: Any, method: str, url: Any, **options: Any) -> Any:
            answer = recording._answer_at_client(client, method, url, options)
            return await original(client, method, url, **options) if answer is None else answer

        return request

    def _sync_sdk_send(self, original: Any, request_state: Any) -> Any:
        recording = self

        def send(http_client: Any, retry: Any, request: Any, override: Any = None) -> Any:
            path = answerable_path(http_client, request.url, request.content, exact_client=True)
            if path is None:
                return original(http_client, retry, request, override)
            state = request_state(request)
            with state.attempt() as headers:  # the SDK's one attempt, as its retry loop would make it
                answer = recording._answer(http_client, request.method, request.url, path, state.content, headers)
                return state.parse(answer)

        return send

    def _async_sdk_send(self, original: Any, request_state: Any) -> Any:
        recording = self

        async def send_async(http_client: Any, retry: Any, request: Any, override: Any = None) -> Any:
            path = answerable_path(http_client, request.url, request.content, exact_client=True)
            if path is None:
                return await original(http_client, retry, request, override)
            state = request_state(request)
            with state.attempt() as headers:
                answer = recording._answer(http_client, request.method, request.url, path, state.content, headers)
                return state.parse(answer)

        return send_async

    def _answer_at_client(self, client: Any, method: str, url: Any, options: dict[str, Any]) -> Any:
        """The recorded answer to a TypeSafe request made as the SDK makes it, as the transport would
        give it; None for any other call (httpx2 then builds and sends it, and the transports answer).
        A request with no recording is a miss (``ReplayMiss``), as at the transports."""
        content: Any = options.get("content")  # bytes when answerable (``answerable_path``)
        headers = options.get("headers")
        if not options.keys() <= ANSWERED_OPTIONS or not isinstance(headers, httpx2_module().Headers):
            return None
        path = answerable_path(client, url, content)
        return None if path is None else self._answer(client, method, url, path, content, headers)

    def _answer(self, client: Any, method: str, url: str, path: str, content: bytes, headers: Any) -> Any:
        """The recorded answer to a TypeSafe request (``answerable_path``), as the transport would give it."""
        own = header_pairs(headers)
        named = {name.lower() for name, _ in own}
        # The client's headers under the request's, as httpx2 merges them: the scrub remembers the values
        # of every header the request goes out with (``redaction.remember_header_pairs``), and only those.
        pairs = [pair for pair in header_pairs(client.headers) if pair[0].lower() not in named] + own
        matched_on = scrubbed_for_matching(method, path, pairs, content)
        assert matched_on is not None  # a TypeSafe path, checked above
        return read_response(self.take(*matched_on), request_for(method, url))

    def _routing(self, original: Any, is_async: bool) -> Any:
        """``Client._transport_for_url`` (or ``AsyncClient``'s) that picks this recording for a TypeSafe URL."""
        answering = Answering(self._async_handler(not_ours) if is_async else self._sync_handler(not_ours))

        def transport_for_url(client: Any, url: Any) -> Any:
            return original(client, url) if TYPESAFE_PATH.search(url.path) is None else answering

        return transport_for_url

    def _sync_handler(self, original: Any) -> Any:
        recording = self

        def handle_request(transport: Any, request: Any) -> Any:
            path = request.url.path
            if TYPESAFE_PATH.search(path) is None:
                return original(transport, request)  # not ours: the app's traffic, or pytest-recording's
            return transport_response(recording.take(*scrubbed(request, request.read(), path)))

        return handle_request

    def _async_handler(self, original: Any) -> Any:
        recording = self

        async def handle_async_request(transport: Any, request: Any) -> Any:
            path = request.url.path
            if TYPESAFE_PATH.search(path) is None:
                return await original(transport, request)
            return transport_response(recording.take(*scrubbed(request, await request.aread(), path)))

        return handle_async_request

    # --- what the run's bookkeeping asks ----------------------------------------------------------

    def interaction_for(self, claim: str, section: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The (request body, response body) recorded for a claim and section, as JSON; the last one if several."""
        if self._by_citation is None:
            by_citation = {}
            for index, request in enumerate(self._requests):
                citation = citation_of(request)
                if citation is not None:
                    by_citation[citation] = index
            self._by_citation = by_citation
        found = self._by_citation.get((claim, section))
        if found is None:
            return None
        return self._requests[found], self._answers[found]

    def unplayed(self) -> list[Any]:
        """Request bodies of this file that no request played."""
        return [request for request, plays in zip(self._requests, self._plays) if not plays]


class ReplayOnlyError(RuntimeError):
    """A request that reached the network transport of a client built for replay only."""


def offline_transport() -> Any:
    """The transport of the default clients in record mode ``none``: it sends nothing, ever.

    Every answer then comes from a cassette (``Recording.serving`` answers before any transport is
    reached). Building the client this way also skips what only a network client needs: its TLS
    context and connection pool, and importing the HTTP stack under them, which replay never uses.
    """
    import httpx2

    def refuse(request: Any) -> Any:
        raise ReplayOnlyError(
            f"record mode none replays cassettes only: pytest-citecheck's client sends nothing "
            f"({request.method} {request.url.path}); to record, run with --citecheck-record-mode=once and a key"
        )

    return httpx2.MockTransport(refuse)
