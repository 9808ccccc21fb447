"""Patches that stand while at least one request is in flight: ``WhileInFlight``.

Replay's answers (``_recording.replay``), vcrpy's patches (``_recording.vcr_seam``) and a script's
bounded reading (``_judge.outgoing``) each patch httpx2's classes around a citation's request. Requests
run at once on threads or in asyncio tasks, so one set of patches serves them all: the first request
in puts it in, the last one out takes it out (which puts back what was there before: vcrpy's patches
under pytest-recording, or another set of ours). Ground floor: the steps and the recording share it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class WhileInFlight:
    """A context manager entered around each request: ``apply`` runs on the first entry, ``undo`` after
    the last exit; the count, under a lock, is all its state. It is its own context manager (entered
    once per replayed request: no generator or wrapper built each time)."""

    __slots__ = ("_apply", "_undo", "_lock", "_count")

    def __init__(self, apply: Callable[[], None], undo: Callable[[], None]) -> None:
        self._apply, self._undo = apply, undo
        self._lock = threading.Lock()
        self._count = 0

    def __enter__(self) -> None:
        with self._lock:
            if self._count == 0:
                self._apply()
            self._count += 1

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            self._count -= 1
            if self._count == 0:
                self._undo()
