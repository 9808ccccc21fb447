"""``WhileInFlight``: one set of patches for every request in flight at once, taken out after the last.

Replay, vcrpy's seam and a script's bounded reading all stand on it, so its count must hold under
threads and through errors: a patch taken out while a request is still in flight would send that
request past the cassette.
"""

from __future__ import annotations

import threading

import pytest

from pytest_citecheck._in_flight import WhileInFlight


def test_overlapping_requests_share_one_patch_taken_out_after_the_last() -> None:
    events: list[str] = []
    in_flight = WhileInFlight(lambda: events.append("apply"), lambda: events.append("undo"))
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
    events: list[str] = []
    in_flight = WhileInFlight(lambda: events.append("apply"), lambda: events.append("undo"))
    with pytest.raises(KeyError), in_flight:
        raise KeyError("a miss")
    with in_flight:
        pass
    assert events == ["apply", "undo", "apply", "undo"]
