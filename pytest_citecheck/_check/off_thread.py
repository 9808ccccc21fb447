"""Checks that failed on a thread other than the test's: ``OffThread`` notes them, and names those the test never got.

A test that checks many answers at once hands the checks to a ``ThreadPoolExecutor`` or a thread. A
failed check raises on that thread, where pytest does not look: ``submit`` keeps the exception in a
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


class OffThread:
    """The failures of one test's checks raised on threads other than the main one, until the test ends."""

    __slots__ = ("_noted", "_test_code")

    def __init__(self, test_code: CodeType | None = None) -> None:
        self._noted: list[_Noted] = []
        self._test_code = test_code

    def note(self, error: BaseException, call: str) -> None:
        """Note ``error``, raised by ``call`` on this thread, unless this is the main thread (where pytest runs
        tests: what a check raises there reaches the test as any exception does)."""
        current = threading.current_thread()
        if current is threading.main_thread():
            return
        frames = _frames_of(error.__traceback__)  # where it came from, below the call
        where = None
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            frames.add(frame)
            filename = frame.f_code.co_filename
            if where is None and not filename.startswith((_PACKAGE, _STDLIB)):
                where = f"{os.path.basename(filename)}:{frame.f_lineno}"
            frame = frame.f_back
        if any(frame.f_code is self._test_code for frame in frames):
            return  # the thread runs the test's own body (pytest-run-parallel): the failure goes through the test
        self._noted.append(_Noted(error, threading.get_ident(), current.name, frames, call, where))

    def lost(self) -> list[str]:
        """One paragraph for each noted failure the test never got, naming the call, the thread and the
        failure; called in pytest's thread at the test's end (failures raised on it are the test's own)."""
        here = threading.get_ident()
        paragraphs = []
        for noted in self._noted:
            if noted.thread == here or _raised_elsewhere(noted):
                continue
            where = f" (called at {noted.where})" if noted.where else ""
            failure = f"{type(noted.error).__name__}: {noted.error}".rstrip().replace("\n", "\n  ")
            paragraphs.append(
                f"{noted.call} failed on thread {noted.thread_name!r}{where} and the test never got its failure: "
                f"it would pass with these citations not verified.\n  {failure}"
            )
        self._noted.clear()
        return paragraphs


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
