"""The file locks of the run's limiter (``_judge.pacing``): a slot per request in flight, and the bucket's lock.

Each is a ``flock`` on a file in this user's lock directory, taken straight from the system: the
``filelock`` package's lock costs some twenty-five times as much (its registry of locks, fork
tracking, soft fallback), and the limiter takes one per request that leaves the process, and the
bucket's for every rated one. Where there is no ``flock`` (Windows), or the file system refuses it,
``filelock`` takes them as before. The system releases a lock whose process dies.

The slots this process holds are also noted in memory (``_CLAIMED``), so its threads never try a
slot one of them holds: with no more requests in flight than slots, each finds one at the first try.
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

fcntl: Any = None
with contextlib.suppress(ImportError):  # no flock (Windows): filelock's locks
    import fcntl as _fcntl

    fcntl = _fcntl

# flock refused by the file system (some network ones): filelock's locks, which fall back to their own.
_NO_FLOCK = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL}
_OPEN_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)

_CLAIMED: set[tuple[str, int]] = set()  # (server key, slot) held by a thread of this process
_CLAIMS = threading.Lock()
_OPEN: set[int] = set()  # the descriptors of the locks held: a child forked meanwhile closes its copies


def _forked() -> None:
    """In a child process just forked: the parent's locks are the parent's (a copy left open would keep them held)."""
    for fd in list(_OPEN):
        with contextlib.suppress(OSError):
            os.close(fd)
    _OPEN.clear()
    _CLAIMED.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


class NotALockFile(OSError):
    """The path of a lock is not a regular file (a FIFO, a device): never locked, never waited on."""


class Slot:
    """One slot held: this process's claim on it, and the file lock that holds it against the others."""

    __slots__ = ("_claim", "_held")

    def __init__(self, claim: tuple[str, int], held: Any) -> None:
        self._claim, self._held = claim, held

    def release(self) -> None:
        try:
            _unlock(self._held)
        finally:
            with _CLAIMS:
                _CLAIMED.discard(self._claim)


def try_slot(directory: Path, key: str, count: int, on_error: Callable[[Path, OSError], Exception]) -> Slot | None:
    """One of the ``count`` slots of ``key``'s server, held; None when every one is taken.

    ``on_error`` makes the exception raised for a slot file that cannot be locked (it names the file).
    """
    first = random.randrange(count)
    for offset in range(count):
        claim = (key, (first + offset) % count)
        with _CLAIMS:
            if claim in _CLAIMED:
                continue
            _CLAIMED.add(claim)
        path = directory / f"inflight-{key}-{claim[1]}.lock"
        held = None
        try:
            held = _lock(path, wait=False)
        except OSError as error:
            raise on_error(path, error) from None
        finally:
            if held is None:
                with _CLAIMS:
                    _CLAIMED.discard(claim)
        if held is not None:
            return Slot(claim, held)
    return None


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the file lock at ``path``, waiting for it (threads of this process wait too); OSError if it cannot be."""
    held = _lock(path, wait=True)
    try:
        yield
    finally:
        _unlock(held)


def _lock(path: Path, *, wait: bool) -> Any:
    """The lock at ``path``, taken (and the file touched: the sweep leaves it); None when held and not ``wait``."""
    if fcntl is None:
        return _filelock(path, wait=wait)
    fd = os.open(path, _OPEN_FLAGS, 0o600)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotALockFile(errno.EINVAL, "not a regular file")
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except OSError as error:
        os.close(fd)
        if error.errno in _NO_FLOCK and not isinstance(error, NotALockFile):
            return _filelock(path, wait=wait)
        raise
    with contextlib.suppress(OSError):
        os.utime(fd)  # taken now (``_judge.sweeping``: what is untouched for a day goes)
    _OPEN.add(fd)
    return fd


def _unlock(held: Any) -> None:
    if isinstance(held, int):
        _OPEN.discard(held)
        os.close(held)  # closing the only descriptor of the open file releases its flock
    else:
        held.release()


def _filelock(path: Path, *, wait: bool) -> Any:
    from filelock import FileLock, Timeout

    lock = FileLock(path, timeout=-1 if wait else 0)
    try:
        lock.acquire()
    except Timeout:
        return None
    with contextlib.suppress(OSError):
        os.utime(path)
    return lock
