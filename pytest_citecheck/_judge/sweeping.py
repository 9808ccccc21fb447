"""The lock directory does not grow without end: files untouched for a day are swept (``sweep_if_due``).

This user's lock directory (``_files.locks_directory``) gathers a few files for each server a run
asks (``_judge.pacing``: ``rate-<key>.json``, its lock, up to ``concurrency`` slots) and one lock
per cassette written (``_files.interprocess_lock``); a test suite that starts a loopback server on
a new port each time adds ten files a test. Once a day at most (``.swept``, a marker file whose
time says when), the first request a process sends removes what no one has touched for a day:

- a lock file (``*.lock``), only while this process holds it (``flock``, without waiting: one
  that is held is in use) and only if it is still the same file, still untouched; every lock is
  touched when it is taken (``pacing``, ``_files``), so one in use is never this old;
- a state file (``rate-*.json``): a bucket untouched for a day is full, which is what a missing
  file means;
- the shared answers of an xdist run that was killed before its controller removed them
  (``answers-*``, ``_judge.run_answers``).

Nothing else is touched, and nothing that fails stops the request: a file that cannot be removed
stays. Where there is no ``flock`` (Windows), lock files stay.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import time
from pathlib import Path

# Files untouched for this long are swept, and the sweep runs at most this often.
STALE_SECONDS = 24 * 3600.0
MARKER = ".swept"

_swept_in_this_process = False


def sweep_if_due(directory: Path, now: float | None = None) -> None:
    """Sweep ``directory`` (this user's lock directory, already checked) unless it was swept within the day."""
    global _swept_in_this_process
    if _swept_in_this_process:
        return
    _swept_in_this_process = True
    now = time.time() if now is None else now
    marker = directory / MARKER
    with contextlib.suppress(OSError):
        if now - os.lstat(marker).st_mtime < STALE_SECONDS:
            return
    with contextlib.suppress(OSError):
        marker.touch()
        os.utime(marker, (now, now))
        sweep(directory, now)


def sweep(directory: Path, now: float) -> int:
    """Remove what in ``directory`` no one has touched for ``STALE_SECONDS``; how many were removed."""
    removed = 0
    with os.scandir(directory) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                found = entry.stat(follow_symlinks=False)
                if now - found.st_mtime >= STALE_SECONDS and _remove(Path(entry.path), found, now):
                    removed += 1
    return removed


def _remove(path: Path, found: os.stat_result, now: float) -> bool:
    name = path.name
    if stat.S_ISDIR(found.st_mode) and name.startswith("answers-"):
        shutil.rmtree(path, ignore_errors=True)
        return True
    if not stat.S_ISREG(found.st_mode):
        return False
    if name.endswith(".lock"):
        return _remove_lock(path, now)
    if name.startswith("rate-") and name.endswith(".json"):
        # Not under its lock, which would leave a new lock file for each one swept: a bucket untouched
        # for a day is full, as a missing one is (at worst, a request that rewrites it this instant
        # loses its reservation: one burst).
        path.unlink()
        return True
    return False


def touch_lock(path: Path) -> None:
    """Note that the lock at ``path`` was taken now: the sweep leaves it for another day."""
    with contextlib.suppress(OSError):
        os.utime(path)


def _remove_lock(path: Path, now: float) -> bool:
    """Remove a lock file no one holds, holding it meanwhile, if it is still the file looked at."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): whether it is held cannot be told
        return False
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # held: in use
        held, there = os.fstat(fd), os.lstat(path)
        same = (held.st_dev, held.st_ino) == (there.st_dev, there.st_ino)
        if not same or now - there.st_mtime < STALE_SECONDS:
            return False
        path.unlink()
        return True
    finally:
        os.close(fd)
