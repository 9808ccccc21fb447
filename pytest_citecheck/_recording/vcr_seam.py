"""The one seam to vcrpy: everything that imports it, patches it or reads its objects is here.

vcrpy records a test's Jev requests (record modes ``once`` on a new file, ``new_episodes``,
``all``, ``rewrite``); replay-only cassettes never come here (``replay.Recording`` serves them).
``VcrRecording`` wraps a vcrpy ``Cassette`` behind the same small interface as ``replay.Recording``,
so ``cassette.TestCassette`` does not care which one serves it. What vcrpy is given:

- the serializer, persister and scrubs of this package (``cassette_file``, ``redaction``);
- the matching rule of ``matching`` (method, path, JSON body), with an index instead of vcrpy's
  quadratic scan;
- only the httpx2 patcher (typesafe-sdk speaks httpx2 only), and its patches only while a Jev
  request is in flight, so a cassette of pytest-recording (``@pytest.mark.vcr``) for the app's own
  HTTP keeps seeing the app's requests, and never sees ours;
- a lock around playing and appending, so citations judged on worker threads take distinct answers.

vcr is imported lazily: nothing here costs anything until a citation is recorded.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pytest_citecheck._files import atomic_write_text, interprocess_lock
from pytest_citecheck._in_flight import WhileInFlight
from pytest_citecheck._recording.cassette_file import (
    CassetteChangedError,
    CassetteSerializer,
    file_signature,
    read_cassette_text,
    read_interactions,
)
from pytest_citecheck._recording.lifecycle.stale import stale_message
from pytest_citecheck._recording.matching import citation_of, lookup_key, match_json_body, parsed_body, request_key
from pytest_citecheck._recording.plays import count_play, count_recorded
from pytest_citecheck._recording.redaction import scrub_request, scrub_response
from pytest_citecheck._recording.shared import shared_record_mode


def _vcr_patcher_names() -> tuple[str, ...]:
    from vcr.patch import PATCHER_NAMES

    return tuple(PATCHER_NAMES)


def make_vcr(record_mode: str) -> Any:
    """The vcrpy configuration every citecheck cassette uses."""
    import vcr

    mode = "all" if record_mode == "rewrite" else record_mode
    recorder = vcr.VCR(
        serializer="citecheck",
        record_mode=mode,
        match_on=("method", "path", "citecheck_json_body"),
        before_record_request=scrub_request,
        before_record_response=scrub_response,
        decode_compressed_response=True,
        # typesafe-sdk speaks httpx2 only. Leaving every other HTTP library unpatched keeps the app's
        # own requests, urllib3 or aiohttp traffic out of our hands entirely, and makes the per-request
        # patching cheap.
        skip_patchers=[name for name in _vcr_patcher_names() if name != "httpx2"],
    )
    recorder.register_serializer("citecheck", CassetteSerializer)
    recorder.register_matcher("citecheck_json_body", match_json_body)
    recorder.register_persister(AtomicPersister)
    return recorder


class AtomicPersister:
    """vcrpy persister that never leaves a half-written cassette: write a temp file, then rename."""

    @classmethod
    def load_cassette(cls, cassette_path: str | Path, serializer: Any) -> Any:
        from vcr.persisters.filesystem import CassetteNotFoundError
        from vcr.serialize import deserialize

        text = read_cassette_text(Path(cassette_path))
        if text is None:
            raise CassetteNotFoundError()
        return deserialize(text, serializer)

    @staticmethod
    def save_cassette(cassette_path: str | Path, cassette_dict: dict[str, Any], serializer: Any) -> None:
        from vcr.serialize import serialize

        atomic_write_text(Path(cassette_path), serialize(cassette_dict, serializer))


# --- a cassette miss while recording ------------------------------------------------------------


def is_vcrpy_miss(error: BaseException) -> bool:
    """vcrpy's cassette miss (never imported here for nothing: if vcrpy was not loaded, the error cannot be its)."""
    vcr_errors = sys.modules.get("vcr.errors")
    return vcr_errors is not None and isinstance(error, vcr_errors.CannotOverwriteExistingCassetteException)


def vcrpy_stale_cause(miss: Any) -> str | None:
    """The cause of vcrpy's cassette miss when the cassette holds this citation with another request."""
    cassette, failed = getattr(miss, "cassette", None), getattr(miss, "failed_request", None)
    if cassette is None or failed is None:
        return None
    recorded = [parsed_body(request.body) for request, _ in list(getattr(cassette, "data", []))]
    return stale_message(parsed_body(failed.body), recorded)


# --- vcrpy's cassette, made fit for concurrent checks -------------------------------------------


def share_between_threads(cassette: Any) -> None:
    """Make one vcrpy cassette safe for citations judged concurrently on worker threads.

    vcrpy's ``Cassette`` keeps its interactions in a list and its play counts in a ``Counter``,
    updated without a lock; two threads replaying at once could both take the same recorded answer.
    Taking and adding an interaction is serialised here; the HTTP request itself is not.
    """
    lock = threading.Lock()
    play_response, append = cassette.play_response, cassette.append

    def locked_play_response(request: Any) -> Any:
        from vcr.errors import CannotOverwriteExistingCassetteException, UnhandledHTTPRequestError

        with lock:
            try:
                response = play_response(request)
            except UnhandledHTTPRequestError:
                # Another thread took the last recording of an identical request between vcrpy's
                # check and this play: to this request, that is a cassette miss.
                raise CannotOverwriteExistingCassetteException(cassette=cassette, failed_request=request) from None
        count_play()
        return response

    def locked_append(request: Any, response: Any) -> None:
        with lock:
            before = len(cassette.data)
            append(request, response)  # vcrpy may drop it (a fault, not ours): only what it kept counts
            added = [recorded for recorded, _ in cassette.data[before:]]
        count_recorded(added)

    cassette.play_response = locked_play_response
    cassette.append = locked_append


def index_requests(cassette: Any) -> None:
    """Give a vcrpy cassette that may record the same indexed lookup replay uses: vcrpy's own scan is quadratic.

    vcrpy asks ``_responses(request)`` for the recorded interactions matching a request (before
    playing one, and to decide whether it may record), and compares the request with every
    interaction to answer. Here interactions are indexed as they arrive (vcrpy only appends to
    ``data``), on ``matching.lookup_key``, so recording n citations in one test stays linear.
    The matching rules are unchanged: method, TypeSafe endpoint, canonical JSON body.
    """
    index: dict[tuple[str, str, str], list[int]] = {}
    indexed = 0
    lock = threading.Lock()

    def responses(request: Any) -> Iterator[tuple[int, Any]]:
        nonlocal indexed
        scrubbed = cassette._before_record_request(request)
        if not scrubbed:
            return  # not a TypeSafe request: never ours to answer
        with lock:
            data = cassette.data
            if len(data) < indexed:  # answers recorded but not accepted were dropped: index afresh
                index.clear()
                indexed = 0
            for position in range(indexed, len(data)):
                stored = data[position][0]
                index.setdefault(lookup_key(stored.method, stored.uri, stored.body), []).append(position)
            indexed = len(data)
            found = list(index.get(lookup_key(scrubbed.method, scrubbed.uri, scrubbed.body), ()))
        for position in found:
            yield position, data[position][1]

    cassette._responses = responses


def outgoing_patchers(cassette: Any) -> list[Any]:
    """vcrpy's patches of httpx2's HTTP transports again, with our limits around what vcrpy sends for real.

    vcrpy answers a request its cassette holds and calls the transport's real send for the rest;
    that real send is wrapped in ``_judge.outgoing`` (the run's rate limiter and shared answers), so
    a replayed request never meets the limiter. Entered after vcrpy's own patches, which they replace.
    """
    from unittest import mock

    import httpx2
    from vcr import patch as vcr_patch
    from vcr.stubs.httpx_stubs import vcr_handle_async_request, vcr_handle_request

    from pytest_citecheck._judge.outgoing import alimited, limited

    sync = vcr_handle_request(cassette, limited(vcr_patch._Httpx2HttpTransport_handle_request), httpx2)
    async_ = vcr_handle_async_request(
        cassette, alimited(vcr_patch._Httpx2AsyncHttpTransport_handle_async_request), httpx2
    )
    return [
        mock.patch.object(httpx2.HTTPTransport, "handle_request", sync),
        mock.patch.object(httpx2.AsyncHTTPTransport, "handle_async_request", async_),
    ]


# --- a recording that may record ----------------------------------------------------------------


def _vcr_config(path: Path, record_mode: str, *, shared: bool) -> dict[str, Any]:
    config: dict[str, Any] = make_vcr(shared_record_mode(record_mode) if shared else record_mode).get_merged_config(
        path=str(path)
    )
    for key in ("path_transformer", "func_path_generator", "record_on_exception"):
        config.pop(key, None)
    if shared:
        # Many tests may ask the same question of one shared cassette, each as often as it likes.
        config["allow_playback_repeats"] = True
    return config


class VcrRecording(WhileInFlight):
    """A test's cassette served by vcrpy, which records what it does not hold (``replay.Recording``'s twin).

    A ``rewrite`` starts empty without deleting the old file: the new recording replaces it
    atomically when the test ends, so an interrupted rewrite loses nothing. A shared cassette is
    loaded even then: what the other tests recorded in it stays.
    """

    def __init__(self, path: Path, record_mode: str, *, shared: bool = False) -> None:
        from vcr.cassette import Cassette

        super().__init__()
        self.path = path
        config = _vcr_config(path, record_mode, shared=shared)
        fresh = record_mode == "rewrite" and not shared
        # The file as this run found it, before reading it: ``save`` replaces only that version.
        self._on_disk = file_signature(path)
        self.cassette = Cassette(**config) if fresh else Cassette.load(**config)
        index_requests(self.cassette)
        share_between_threads(self.cassette)
        self.loaded_count = len(self.cassette.data)
        self._lock = threading.Lock()
        self._patches: contextlib.ExitStack | None = None
        # (claim, section) -> (request body, response body) of the interactions seen so far (interaction_for)
        self._by_citation: dict[tuple[str, str], tuple[Any, dict[str, Any]]] = {}
        self._indexed = 0

    def __len__(self) -> int:
        return self.loaded_count

    @property
    def play_count(self) -> int:
        return int(self.cassette.play_count)

    def serving(self) -> WhileInFlight:
        """vcrpy's patches, in place while at least one Jev request of this test is in flight."""
        return self

    def _patch(self) -> None:
        from vcr.patch import CassettePatcherBuilder

        stack = contextlib.ExitStack()
        for patcher in CassettePatcherBuilder(self.cassette).build():
            stack.enter_context(patcher)
        for patcher in outgoing_patchers(self.cassette):
            stack.enter_context(patcher)  # over vcrpy's own for the HTTP transports
        self._patches = stack

    def _unpatch(self) -> None:
        patches, self._patches = self._patches, None
        if patches is not None:
            patches.close()

    def interaction_for(self, claim: str, section: str) -> tuple[Any, dict[str, Any]] | None:
        """The (request body, response body) held for a claim and section, as JSON; the last one if several."""
        with self._lock:
            # Indexed as interactions arrive (loaded, then recorded by this run; vcrpy only appends),
            # each parsed once: a citation's lookup is one dict access, however many the test checks.
            data = list(self.cassette.data)
            for request, response in data[self._indexed :]:
                body = parsed_body(request.body)
                citation = citation_of(body)
                if citation is not None:
                    answer = parsed_body((response.get("body") or {}).get("string"))
                    # The last one wins: what a re-record in this run appended, if any.
                    self._by_citation[citation] = (body, answer if isinstance(answer, dict) else {})
            self._indexed = len(data)
        return self._by_citation.get((claim, section))

    def unplayed(self) -> list[Any]:
        """Request bodies loaded from the file that this run neither played nor recorded again."""
        data = list(self.cassette.data)
        recorded = {request_key(request.body) for request, _ in data[self.loaded_count :]}
        played = self.cassette.play_counts
        return [
            parsed_body(request.body)
            for index, (request, _) in enumerate(data[: self.loaded_count])
            if not played[index] and request_key(request.body) not in recorded
        ]

    def keep_recorded(self, accepted: dict[int, Any]) -> bool:
        """Forget what was recorded but never accepted (a malformed 2xx answer): it must not replay forever.

        True when every recording was accepted.
        """
        data = self.cassette.data
        recorded = data[self.loaded_count :]
        kept = [(request, response) for request, response in recorded if id(request) in accepted]
        if len(kept) == len(recorded):
            return True
        data[self.loaded_count :] = kept
        self._by_citation, self._indexed = {}, 0  # indexed as appended: start again
        if not kept:
            self.cassette.dirty = False  # nothing new to write: an existing file stays as it is
        return False

    def save(self) -> None:
        """Write the cassette, if vcrpy holds anything new; ``CassetteChangedError`` if another process
        wrote the file since this run read it with a request this run's file would not hold (the same
        test recording in two runs at once, from different code): the last writer's file would have
        silently lost the other's recording, that run showed PASSED, and its replay would then miss.

        Two runs of the same code recording the same test at once ask the same requests: the file the
        other wrote holds nothing this one's lacks, and this one is saved over it (a whole recording,
        written atomically), as before."""
        if not self.cassette.dirty:
            return
        with interprocess_lock(self.path):
            if file_signature(self.path) != self._on_disk and not self._holds_every_request_of_the_file():
                raise CassetteChangedError
            self.cassette._save()
            self._on_disk = file_signature(self.path)

    def _holds_every_request_of_the_file(self) -> bool:
        """Every request the file on disk holds is one this run would write too (method, endpoint and body,
        as replay matches them). A file that cannot be read counts as holding more: it is not replaced."""
        try:
            theirs = read_interactions(self.path)
        except Exception:
            return False
        ours = {lookup_key(request.method, request.uri, request.body) for request in self.cassette.requests}
        return all(
            lookup_key(str(request.get("method")), str(request.get("uri")), request.get("body")) in ours
            for request in (interaction["request"] for interaction in theirs)
        )

    def recorded(self) -> list[dict[str, Any]]:
        """What this run recorded, as the plain dicts a cassette file holds."""
        from vcr.serializers import compat

        return [
            {"request": compat.convert_to_unicode(request._to_dict()), "response": compat.convert_to_unicode(response)}
            for request, response in self.cassette.data[self.loaded_count :]
        ]
