"""The cassette of one test: opened at its first Jev call, saved when the test ends.

Which way it is served is chosen when it opens: a cassette that can only be replayed (record mode
``none``, or ``once`` when the file exists) by ``replay.Recording``, without vcrpy; any other by
``vcr_seam.VcrRecording``. Both offer the same few calls, used here.

Guarantees: what is saved is what the checker read and accepted (``accept``); a ``rewrite`` that
did not complete (interrupted, a request that failed, an answer refused) keeps the old file whole; a file that cannot be written is reported once, by the test
that lost its recording.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pytest_citecheck._errors import RecordingNotSavedError
from pytest_citecheck._files import LockUnavailableError
from pytest_citecheck._recording.cassette_file import CassetteChangedError, read_interactions
from pytest_citecheck._recording.plays import PlayCount
from pytest_citecheck._recording.replay import Recording, replays_only
from pytest_citecheck._recording.shared import merge_into_shared

_OPEN_CASSETTES: weakref.WeakSet[TestCassette] = weakref.WeakSet()


def interrupt_open() -> None:
    """Ctrl-C: every cassette still open is saved at teardown, except a rewrite, which keeps its old file."""
    for cassette in list(_OPEN_CASSETTES):
        cassette.interrupted = True


class TestCassette:
    """The cassette of one test: loaded at its first Jev call, saved when the test ends.

    Loading once per test matters twice over: vcrpy write-protects a ``once`` cassette that is
    opened a second time, and loading a cassette is then paid once per test, not per citation.
    The patches, though, are applied only around each Jev request (``active``), counted so that
    requests in flight at the same time (threads, asyncio) share one set of patches.

    What the run needs to know about the recordings is kept here too: the interactions a
    ``rewrite`` replaced (``previous``, for drift) and which loaded ones were never played.
    """

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self, path: Path, record_mode: str, *, shared: bool = False) -> None:
        self.path = path
        self.record_mode = record_mode
        # Named by @pytest.mark.citecheck(cassette=...): other tests read and write this file too.
        self.shared = shared
        # A ``replay.Recording`` or a ``vcr_seam.VcrRecording``, once opened.
        self.cassette: Any = None
        self.previous: list[dict[str, Any]] = []
        self.loaded_count = 0
        self._lock = threading.Lock()
        self._closed = False
        self._save_failed = False
        self.interrupted = False  # Ctrl-C during the run: see ``interrupt_open``
        # A request of this test failed (an error status, no answer, an answer refused): its
        # recording is not complete, so a ``rewrite`` keeps the previous file whole.
        self.incomplete = False
        # Recorded requests whose answer the checker read and accepted; no other recording is saved.
        self._accepted: dict[int, Any] = {}

    @property
    def is_open(self) -> bool:
        return self.cassette is not None

    @property
    def replaying(self) -> Recording | None:
        """The cassette when it can only be replayed, served without vcrpy (``replay.Recording``)."""
        return self.cassette if isinstance(self.cassette, Recording) else None

    def open(self) -> Any:
        """The cassette, loaded once: the test's threads may ask for it at once (pytest-run-parallel)."""
        if self.cassette is None:
            with self._lock:
                if self.cassette is None:
                    opened = self._load()
                    self.loaded_count = len(opened)
                    self.cassette = opened  # last: another thread takes it as soon as it is set
        return self.cassette

    def _load(self) -> Any:
        if replays_only(self.record_mode, self.path, shared=self.shared):
            return Recording.load(self.path)
        return self._open_for_recording()

    def _open_for_recording(self) -> Any:
        from pytest_citecheck._recording.vcr_seam import VcrRecording

        if self.record_mode == "rewrite" and self.path.exists():
            with contextlib.suppress(Exception):  # a corrupt old file has no answers to compare with
                self.previous = read_interactions(self.path)
        recording = VcrRecording(self.path, self.record_mode, shared=self.shared)
        _OPEN_CASSETTES.add(self)
        return recording

    @contextlib.contextmanager
    def active(self) -> Iterator[Any]:
        """The patches that serve this cassette, in place while at least one Jev request of this test is in flight."""
        cassette = self.open()
        try:
            with cassette.serving():
                yield cassette
        except KeyboardInterrupt:
            self.interrupted = True
            raise
        except BaseException:
            self.incomplete = True
            raise

    @property
    def play_count(self) -> int:
        return self.cassette.play_count if self.cassette is not None else 0

    def interaction_for(self, claim: str, section: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The (request body, response body) this cassette holds for a claim and section, as JSON."""
        if self.cassette is None:
            return None
        found: tuple[dict[str, Any], dict[str, Any]] | None = self.cassette.interaction_for(claim, section)
        return found

    def unplayed(self) -> list[dict[str, Any]]:
        """Request bodies loaded from the file that this run neither played nor recorded again."""
        if self.cassette is None:
            return []
        bodies: list[dict[str, Any]] = self.cassette.unplayed()
        return bodies

    def accept(self, played: PlayCount) -> None:
        """The answers recorded in ``played``'s block were read and accepted: they may be saved."""
        with self._lock:
            self._accepted.update((id(request), request) for request in played.recorded)

    def save(self) -> None:
        """Write what was recorded and accepted so far, if anything (the plugin calls it as the test's call ends).

        A file that cannot be written is a ``RecordingNotSavedError`` naming it, raised once: the
        test that lost its recording says so in its own report.
        """
        if self.cassette is None or self._save_failed or self.replaying is not None:
            return  # nothing recorded (a replay-only cassette records nothing), or already reported
        if self.record_mode == "rewrite" and (self.interrupted or self.incomplete):
            return  # half a rewrite would replace a whole recording: keep the old file
        if not self.cassette.keep_recorded(self._accepted) and self.record_mode == "rewrite":
            return  # an answer was refused: the rewrite is not complete either
        try:
            if self.shared:
                self._save_shared()
            else:
                self.cassette.save()
        except CassetteChangedError:
            self._save_failed = True
            raise RecordingNotSavedError(
                self.path,
                "this test's recording was not saved: another process wrote this cassette while the test ran "
                "(the same test recording in two runs at once?), and saving would have replaced its recording",
                "record this test again, in one run at a time",
            ) from None
        except LockUnavailableError as error:  # not the cassette directory's fault: say whose it is
            self._save_failed = True
            raise RecordingNotSavedError(
                self.path, f"this test's recording was not saved: {error}", f"{error.remedy}, then record again"
            ) from None
        except OSError as error:
            self._save_failed = True
            reason = error.strerror or type(error).__name__
            raise RecordingNotSavedError(
                self.path,
                f"this test's recording was not saved ({reason})",
                f"make {self.path.parent} writable (or set citecheck_cassette_dir), then record again",
            ) from None

    @property
    def closed(self) -> bool:
        """Closed when its test ended: a check after that (from a thread the test did not wait for) is refused."""
        return self._closed

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self.cassette is not None:
                self.save()

    def _save_shared(self) -> None:
        """Merge what this test recorded into the shared file, as it is on disk now (other tests may have written it)."""
        recorded = self.cassette.recorded()
        if recorded:
            merge_into_shared(self.path, recorded)
