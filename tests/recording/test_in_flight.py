"""``WhileInFlight``: one set of patches for every request in flight at once, taken out after the last.

Replay, vcrpy's seam and a script's bounded reading all stand on it, so its count must hold under
threads and through errors: a patch taken out while a request is still in flight would send that
request past the cassette.
"""

from __future__ import annotations

import gc
import threading
import weakref
from pathlib import Path

import pytest

from pytest_citecheck._in_flight import WhileInFlight
from pytest_citecheck._recording.replay import Recording


class Events(WhileInFlight):
    """Counts what the first entry and the last exit do."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[str] = []

    def _patch(self) -> None:
        self.events.append("apply")

    def _unpatch(self) -> None:
        self.events.append("undo")


def test_overlapping_requests_share_one_patch_taken_out_after_the_last() -> None:
    in_flight = Events()
    events = in_flight.events
    first_in, release = threading.Event(), threading.Event()
    seen_inside: list[list[str]] = []

    def request() -> None:
        with in_flight:
            first_in.set()
            release.wait(5)
            seen_inside.append(list(events))

    threads = [threading.Thread(target=request) for _ in range(4)]
    for thread in threads:
        thread.start()
    first_in.wait(5)
    release.set()
    for thread in threads:
        thread.join(5)
    assert events == ["apply", "undo"]
    assert all(inside == ["apply"] for inside in seen_inside)  # never undone while one was in flight


def test_an_error_inside_still_counts_the_request_out() -> None:
    in_flight = Events()
    events = in_flight.events
    with pytest.raises(KeyError), in_flight:
        raise KeyError("a miss")
    with in_flight:
        pass
    assert events == ["apply", "undo", "apply", "undo"]


def test_a_recording_is_freed_as_soon_as_it_is_let_go_with_no_garbage_collection(tmp_path: Path) -> None:
    """Each test's recording holds its parsed cassette: a reference cycle through it (the count's callbacks
    bound to the recording once made one) left all of it to the garbage collector, which then ran more
    often and longer over every test's leftovers."""
    recording = Recording.load(tmp_path / "none.yaml")
    with recording.serving():
        pass
    gone = weakref.ref(recording)
    gc.disable()
    try:
        del recording
        assert gone() is None
    finally:
        gc.enable()
