"""Shared cassettes (``@pytest.mark.citecheck(cassette="name")``): one file that several tests read and write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_citecheck._files import interprocess_lock
from pytest_citecheck._recording.cassette_file import read_interactions, write_interactions
from pytest_citecheck._recording.matching import request_key


def shared_record_mode(record_mode: str) -> str:
    """vcrpy's mode for a cassette several tests share.

    One test's recording does not make a shared cassette complete for the others, so ``once`` (like
    ``new_episodes``) records the questions it does not hold yet and replays the rest; ``rewrite``
    (like ``all``) records again everything the test asks, and keeps the other tests' answers.
    """
    if record_mode in ("rewrite", "all"):
        return "all"
    if record_mode in ("once", "new_episodes"):
        return "new_episodes"
    return record_mode


def merge_into_shared(path: Path, interactions: list[dict[str, Any]]) -> None:
    """Add interactions to a shared cassette; each replaces a recorded one with the same request.

    Writers may be several processes at once (pytest-xdist workers): reading the file, merging and
    the atomic write happen under an inter-process lock, so no writer loses another's answers. The
    lock file lives in the temporary directory, not beside the cassettes.
    """
    with interprocess_lock(path):
        incoming = {request_key(i["request"]["body"]): i for i in interactions}  # the last of a request wins
        existing = read_interactions(path) if path.exists() else []
        kept = [i for i in existing if request_key(i.get("request", {}).get("body")) not in incoming]
        write_interactions(path, kept + list(incoming.values()))
