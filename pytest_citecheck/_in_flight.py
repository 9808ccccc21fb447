"""Patches that stand while at least one request is in flight: ``WhileInFlight``.

Replay's answers (``_recording.replay``), vcrpy's patches (``_recording.vcr_seam``) and a script's
limits and reading (``_judge.outgoing``) each patch httpx2's classes around a citation's request. Requests
run at once on threads or in asyncio tasks, so one set of patches serves them all: the first request
in puts it in, the last one out takes it out (which puts back what was there before: vcrpy's patches
under pytest-recording, or another set of ours). Ground floor: the steps and the recording share it.
"""

from __future__ import annotations

import threading


class WhileInFlight:
    """A base for what is entered around each request: ``_patch`` runs on the first entry, ``_unpatch``
    after the last exit; the count, under a lock, is all its state.

    A base class rather than an object holding the two callbacks: bound methods kept on the instance
    they are bound to make each recording a reference cycle, which only the garbage collector frees (with
    the whole parsed cassette, a test's worth of objects, at every collection). The instance is its own
    context manager (entered once per replayed request: no generator or wrapper built each time).
    """

    __slots__ = ("_flight_lock", "_in_flight")

    def __init__(self) -> None:
        self._flight_lock = threading.Lock()
        self._in_flight = 0

    def _patch(self) -> None:
        raise NotImplementedError

    def _unpatch(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> None:
        with self._flight_lock:
            if self._in_flight == 0:
                self._patch()
            self._in_flight += 1

    def __exit__(self, *exc_info: object) -> None:
        with self._flight_lock:
            self._in_flight -= 1
            if self._in_flight == 0:
                self._unpatch()
