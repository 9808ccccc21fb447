"""Counting what a block of code replayed and recorded, in its own thread or task only.

The checker wraps each Jev request in ``counting_plays``: whichever serves the request (replay's
``Recording`` or vcrpy, through ``vcr_seam``) adds to the count of the block it runs in, so a
citation knows whether its answer was replayed, and which new recordings it may save.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PlayCount:
    count: int = 0
    # The requests recorded in this block: saved only once the checker accepted their answer (``accept``).
    recorded: list[Any] = field(default_factory=list)


_PLAYS_HERE: ContextVar[PlayCount | None] = ContextVar("citecheck_plays_here", default=None)


@contextlib.contextmanager
def counting_plays() -> Iterator[PlayCount]:
    """Counts the recorded answers replayed for requests made in this block, in this thread or task only."""
    counter = PlayCount()
    token = _PLAYS_HERE.set(counter)
    try:
        yield counter
    finally:
        _PLAYS_HERE.reset(token)


def count_play() -> None:
    """One recorded answer was replayed in the current block (if it is counted)."""
    counter = _PLAYS_HERE.get()
    if counter is not None:
        counter.count += 1


def count_recorded(requests: list[Any]) -> None:
    """These requests were recorded in the current block (if it is counted)."""
    counter = _PLAYS_HERE.get()
    if counter is not None:
        counter.recorded.extend(requests)
