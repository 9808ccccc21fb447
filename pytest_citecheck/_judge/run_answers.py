"""Identical requests across the processes of one run: the xdist workers share their answers on disk.

``SharedAnswers`` shares within one process. Under pytest-xdist every worker is a process of its
own, so the plugin gives each worker's ``SharedAnswers`` a ``RunAnswers`` for the run (xdist's test
run id: every worker of a run has the same one). Its directory is private, ``answers-<digest of the
run id>`` in this user's lock directory (``_files.locks_directory``; made 0700 and checked to be
ours, as the lock directory is):

- ``<key>.json``: the 2xx answer to the request of ``key`` (the digest of its method, URL and body:
  the same model, claim, section and questions), written atomically (``_files.atomic_write_text``,
  which also cuts any known secret out). Only the status, the ``Content-Type`` and the body are
  written: no other header, so nothing that authenticates is ever on disk;
- ``<key>.lock``: a file lock, held by the worker asking. A worker with the same request waits for
  the answer at most its own ``request_deadline`` (``WAIT_WITHOUT_DEADLINE`` when it has none), then
  asks itself: a worker that hangs never holds another. The system releases the lock of a worker
  that dies.

The xdist controller removes the directory when its session ends (``remove_run``); one left by a run
that was killed is swept after a day with the lock directory's stale files (``_judge.sweeping``). Anything
unusable (a directory that is not ours, a file that is not an answer) means only that the request is
sent: sharing never fails a citation.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import time
from collections.abc import Awaitable, Callable
from hashlib import sha256
from pathlib import Path
from typing import Any

from pytest_citecheck._files import (
    LockUnavailableError,
    UnreadableFileError,
    atomic_write_text,
    checked_locks_directory,
    locks_directory,
    read_regular_file,
)
from pytest_citecheck._judge.sharing import Answer

RUN_DIRECTORY_PREFIX = "answers-"
ANSWER_VERSION = 1
# The most an answer file may hold; Jev's answers are well under a kilobyte.
MOST_ANSWER_BYTES = 1 << 20
# How long a request with no request_deadline waits for an identical one in another worker.
WAIT_WITHOUT_DEADLINE = 240.0
# How often a waiting request looks again: from the first, doubling, up to the last.
POLL_SECONDS = (0.005, 0.1)


def run_directory(run_id: str) -> Path:
    """The directory of the run ``run_id``'s shared answers (named by a digest: the id is the user's to choose)."""
    return locks_directory() / f"{RUN_DIRECTORY_PREFIX}{sha256(run_id.encode()).hexdigest()[:20]}"


def remove_run(run_id: str) -> None:
    """Remove the run's shared answers (the xdist controller, at the end of its session); quietly, if any."""
    directory = run_directory(run_id)
    with contextlib.suppress(OSError):
        if stat.S_ISDIR(os.lstat(directory).st_mode):
            shutil.rmtree(directory, ignore_errors=True)


def encode_answer(answer: Answer) -> str | None:
    """The file's text for ``answer``: status, ``Content-Type`` and body (None when the body is not text)."""
    try:
        body = answer.content.decode("utf-8")
    except UnicodeDecodeError:
        return None
    content_type = next((value for name, value in answer.headers if name.lower() == b"content-type"), b"")
    return json.dumps(
        {
            "version": ANSWER_VERSION,
            "status": answer.status,
            "content_type": content_type.decode("latin-1"),
            "body": body,
        }
    )


def decode_answer(data: bytes) -> Answer | None:
    """The answer an answer file holds, or None for anything else (cut short, not ours, not a 2xx)."""
    try:
        held = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if not isinstance(held, dict) or held.get("version") != ANSWER_VERSION:
        return None
    status, content_type, body = held.get("status"), held.get("content_type"), held.get("body")
    if type(status) is not int or not 200 <= status < 300 or not isinstance(content_type, str):
        return None
    if not isinstance(body, str):
        return None
    content = body.encode("utf-8", "surrogateescape")
    headers = [(b"content-type", content_type.encode("latin-1", "replace")), (b"content-length", b"%d" % len(content))]
    return Answer(status, headers, content, {})


class _Pause:
    """The waits of one request for an identical one in another worker: growing, and bounded by its deadline."""

    def __init__(self, deadline: float | None) -> None:
        self.give_up = time.monotonic() + (deadline if deadline is not None else WAIT_WITHOUT_DEADLINE)
        self.delay = POLL_SECONDS[0]

    def next(self) -> float | None:
        """Seconds to wait before looking again, or None: the deadline has come, ask."""
        left = self.give_up - time.monotonic()
        if left <= 0:
            return None
        delay, self.delay = self.delay, min(self.delay * 2, POLL_SECONDS[1])
        return min(delay, left)


class RunAnswers:
    """The answers the workers of one run share, in the run's private directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @classmethod
    def for_run(cls, run_id: str) -> RunAnswers:
        return cls(run_directory(run_id))

    def _usable(self) -> Path | None:
        """The directory, made if need be, once checked to be ours and private; None when it cannot be."""
        try:
            checked_locks_directory()
            self.directory.mkdir(mode=0o700, exist_ok=True)
            found = os.lstat(self.directory)
        except (OSError, LockUnavailableError):
            return None
        if not hasattr(os, "getuid"):  # no owner or mode bits to check (Windows): the lock directory is the user's
            return self.directory if stat.S_ISDIR(found.st_mode) else None
        private = stat.S_ISDIR(found.st_mode) and not stat.S_IMODE(found.st_mode) & 0o077
        return self.directory if private and found.st_uid == os.getuid() else None

    def answer(self, key: str) -> Answer | None:
        """The answer another worker (or this one) gave to the request of ``key``, if any."""
        try:
            return decode_answer(read_regular_file(self.directory / f"{key}.json", MOST_ANSWER_BYTES))
        except (OSError, UnreadableFileError):
            return None

    def keep(self, key: str, response: Any) -> None:
        """Share ``response`` (if a 2xx whose body is text) with the run's other workers."""
        answer = Answer.of(response)
        text = encode_answer(answer) if answer is not None else None
        if text is not None:
            with contextlib.suppress(OSError):
                atomic_write_text(self.directory / f"{key}.json", text)

    def _look(self, key: str) -> tuple[Answer | None, Any]:
        """The answer given, or the lock to ask under (taken), or neither: another worker is asking."""
        from filelock import FileLock, Timeout

        answer = self.answer(key)
        if answer is not None:
            return answer, None
        lock = FileLock(self.directory / f"{key}.lock", timeout=0)
        try:
            lock.acquire()
        except (Timeout, OSError):
            return None, None
        answer = self.answer(key)  # given while this worker was taking the lock
        if answer is not None:
            lock.release()
            return answer, None
        return None, lock

    def send(self, key: str, send: Callable[[], Any], deadline: float | None) -> Any:
        """The answer to the request of ``key``: another worker's, once given, else ``send()``'s (then shared)."""
        if self._usable() is None:
            return send()
        pause = _Pause(deadline)
        answer, lock = self._look(key)
        while answer is None and lock is None and (wait := pause.next()) is not None:
            time.sleep(wait)
            answer, lock = self._look(key)
        if answer is not None:
            return answer.response()
        try:
            response = send()
            self.keep(key, response)
            return response
        finally:
            if lock is not None:
                lock.release()

    async def asend(self, key: str, send: Callable[[], Awaitable[Any]], deadline: float | None) -> Any:
        """``send`` for the async client: the waits are the event loop's."""
        import anyio

        if self._usable() is None:
            return await send()
        pause = _Pause(deadline)
        answer, lock = self._look(key)
        while answer is None and lock is None and (wait := pause.next()) is not None:
            await anyio.sleep(wait)
            answer, lock = self._look(key)
        if answer is not None:
            return answer.response()
        try:
            response = await send()
            self.keep(key, response)
            return response
        finally:
            if lock is not None:
                lock.release()
