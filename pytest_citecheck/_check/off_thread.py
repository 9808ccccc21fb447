"""Checks that failed on a thread other than the test's: ``OffThread`` notes them, and names those the test never got.

A test that checks many answers at once hands the checks to a ``ThreadPoolExecutor`` or a thread, or
runs ``aassert_supported`` as asyncio tasks. A failed check raises on that thread, or in that task,
where pytest does not look (a task keeps it until awaited): ``submit`` keeps the exception in a
future nobody may ask, an unconsumed ``map`` never raises it, and a thread's target only makes pytest
warn. The test would pass with its citations failed, or never checked (a cassette miss).

So a check that raises off the main thread is noted with the frames of its thread's stack. At the
test's end (in pytest's thread) each noted failure is looked at: when the exception was raised again
anywhere else (``future.result()`` in the test, inside ``pytest.raises`` or not), its traceback holds a
frame of that other stack, and the test had it in hand; otherwise the failure is lost, and the test's
teardown says so (``lost``). Nothing is noted for a check that succeeds.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import threading
from dataclasses import dataclass
from types import CodeType, FrameType, TracebackType
from typing import Any

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STDLIB = sysconfig.get_paths()["stdlib"]


@dataclass
class _Noted:
    error: BaseException
    thread: int
    thread_name: str
    frames: set[FrameType]
    call: str
    where: str | None
    # The asyncio task an ``acheck`` / ``aassert_supported`` ran as (None off asyncio: trio never drops one).
    task: Any


class OffThread:
    """The failures of one test's checks raised on threads other than the main one, until the test ends."""

    __slots__ = ("_noted", "_test_code")

    def __init__(self, test_code: CodeType | None = None) -> None:
        self._noted: list[_Noted] = []
        self._test_code = test_code

    def note(self, error: BaseException, call: str, *, in_task: bool = False, where: str | None = None) -> None:
        """Note ``error``, raised by ``call`` on this thread, unless this is the main thread (where pytest runs
        tests: what a check raises there reaches the test as any exception does), or ``in_task``: an
        ``acheck`` / ``aassert_supported`` run as a task, which keeps what it raised until awaited."""
        current = threading.current_thread()
        task = _current_task() if in_task else None
        if current is threading.main_thread() and task is None:
            return
        frames = _frames_of(error.__traceback__)  # where it came from, below the call
        # Where the call was made: given for a task (its stack shows the event loop, not the caller),
        # else the first frame outside this package and the standard library.
        found = where
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            frames.add(frame)
            filename = frame.f_code.co_filename
            if found is None and not in_task and not filename.startswith((_PACKAGE, _STDLIB)):
                found = f"{os.path.basename(filename)}:{frame.f_lineno}"
            frame = frame.f_back
        if any(frame.f_code is self._test_code for frame in frames):
            # Raised below the test's own body, which it goes through: awaited by it, or on a thread that runs
            # it (pytest-run-parallel).
            return
        self._noted.append(_Noted(error, threading.get_ident(), current.name, frames, call, found, task))

    def lost(self) -> list[str]:
        """One paragraph for each noted failure the test never got, naming the call, the thread and the
        failure; called in pytest's thread at the test's end (failures raised on it are the test's own)."""
        here = threading.get_ident()
        paragraphs = []
        for noted in self._noted:
            on_thread = noted.thread != here
            if not (_never_retrieved(noted.task) or (on_thread and not _raised_elsewhere(noted))):
                continue
            task = noted.task is not None and not on_thread
            where = f" (called at {noted.where})" if noted.where else ""
            ran = "in a task" if task else f"on thread {noted.thread_name!r}"
            failure = f"{type(noted.error).__name__}: {noted.error}".rstrip().replace("\n", "\n  ")
            remedy = _TASK_REMEDY if task else _THREAD_REMEDY
            paragraphs.append(
                f"{noted.call} failed {ran}{where} and the test never got its failure: "
                f"it would pass with these citations not verified.\n  {failure}\n{remedy}"
            )
        self._noted.clear()
        return paragraphs


_THREAD_REMEDY = (
    "-> take the failure back in the test: future.result() (list(pool.map(...)) for map), or join "
    "the thread and raise what it raised; or check in the test's own thread"
)
_TASK_REMEDY = (
    "-> await the task in the test (await task, or asyncio.gather(...) without return_exceptions=True, "
    "or a task group), or await the check itself"
)


def _current_task() -> Any:
    """The running asyncio task, or None (no asyncio event loop: trio, or a coroutine driven by hand)."""
    asyncio = sys.modules.get("asyncio")
    try:
        return None if asyncio is None else asyncio.current_task()
    except RuntimeError:
        return None


def _never_retrieved(task: Any) -> bool:
    """A task that ended with an exception nobody took: not awaited, not asked for its result or exception
    (``gather(..., return_exceptions=True)`` and anyio's task groups take it). asyncio keeps that mark to
    log "Task exception was never retrieved" when the task is collected."""
    if task is None or not task.done() or task.cancelled():
        return False
    return bool(getattr(task, "_log_traceback", False))


def _frames_of(traceback: TracebackType | None) -> set[FrameType]:
    frames = set()
    while traceback is not None:
        frames.add(traceback.tb_frame)
        traceback = traceback.tb_next
    return frames


def _raised_elsewhere(noted: _Noted) -> bool:
    """Whether the error's traceback runs through a frame outside the stack it was raised on: raised again
    there (``future.result()``), so whoever called that had it."""
    return not _frames_of(noted.error.__traceback__) <= noted.frames
