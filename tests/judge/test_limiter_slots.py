"""The limiter's file locks (``_judge.slots``): a slot per request in flight, held against every process.

The slots are ``flock``s taken straight from the system (``filelock`` where there is none). What
must hold: a slot another process holds is never taken; the threads of one process each hold a slot
of their own; a slot is free again once released, or once its process is gone; a slot file that is
not a regular file is an error naming it, never a hang. The whole limiter through real runs is
``test_run_limits.py``'s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_citecheck._judge import slots
from pytest_citecheck._judge.pacing import LimiterStateError, _try_slot
from pytest_citecheck._judge.slots import locked, try_slot

KEY = "0123456789abcdef0123"

# Holds slots (flock) in another process until told to let go: prints "held" once it does.
HOLDER = """
import fcntl, os, sys
fds = []
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    fds.append(fd)
print("held", flush=True)
sys.stdin.readline()
"""


def _error(path: Path, error: OSError) -> Exception:
    return RuntimeError(f"{path}: {error}")


def _slot_file(directory: Path, n: int) -> Path:
    return directory / f"inflight-{KEY}-{n}.lock"


def _holding(*paths: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, *map(str, paths)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def _let_go(holder: subprocess.Popen[str]) -> None:
    holder.communicate("\n", timeout=30)


needs_flock = pytest.mark.skipif(slots.fcntl is None, reason="no flock on this system")


@needs_flock
def test_a_slot_another_process_holds_is_never_taken(tmp_path: Path) -> None:
    holder = _holding(_slot_file(tmp_path, 0), _slot_file(tmp_path, 2))
    try:
        taken = [try_slot(tmp_path, KEY, 3, _error) for _ in range(3)]
        assert taken[0] is not None and taken[1:] == [None, None]  # only slot 1 was free
        assert taken[0]._claim == (KEY, 1)
        taken[0].release()
    finally:
        _let_go(holder)
    # The other process is gone: the system released its locks.
    again = [try_slot(tmp_path, KEY, 3, _error) for _ in range(3)]
    assert sorted(slot._claim[1] for slot in again if slot is not None) == [0, 1, 2]
    for slot in again:
        assert slot is not None
        slot.release()


def test_the_threads_of_a_process_each_hold_a_slot_of_their_own_until_released(tmp_path: Path) -> None:
    count = 6
    held: list[Any] = []
    barrier = threading.Barrier(count)

    def take() -> None:
        barrier.wait()
        held.append(try_slot(tmp_path, KEY, count, _error))

    threads = [threading.Thread(target=take) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert None not in held
    assert sorted(slot._claim[1] for slot in held) == list(range(count))
    assert try_slot(tmp_path, KEY, count, _error) is None  # every slot is held
    held.pop().release()
    last = try_slot(tmp_path, KEY, count, _error)
    assert last is not None
    for slot in [*held, last]:
        slot.release()
    assert not slots._CLAIMED and not slots._OPEN


@needs_flock
def test_a_slot_this_process_holds_is_held_against_another_process(tmp_path: Path) -> None:
    slot = try_slot(tmp_path, KEY, 1, _error)
    assert slot is not None
    probe = (
        "import fcntl, os, sys\n"
        "fd = os.open(sys.argv[1], os.O_RDWR)\n"
        "try:\n    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept BlockingIOError:\n    print('held')\n"
        "else:\n    print('free')\n"
    )
    check = [sys.executable, "-c", probe, str(_slot_file(tmp_path, 0))]
    assert subprocess.run(check, capture_output=True, text=True, check=True).stdout.strip() == "held"
    slot.release()
    assert subprocess.run(check, capture_output=True, text=True, check=True).stdout.strip() == "free"


@needs_flock
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_child_forked_while_a_slot_is_held_does_not_keep_it(tmp_path: Path) -> None:
    slot = try_slot(tmp_path, KEY, 1, _error)
    assert slot is not None
    read, write = os.pipe()
    ready_read, ready_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: says it is running (its at-fork handlers ran), waits until told, exits
        os.close(write)
        os.write(ready_write, b"r")
        os.read(read, 1)
        os._exit(0)
    os.close(read)
    os.close(ready_write)
    try:
        assert os.read(ready_read, 1) == b"r"
        slot.release()
        # The child's copy of the descriptor was closed when it forked: the slot is free now.
        again = try_slot(tmp_path, KEY, 1, _error)
        assert again is not None
        again.release()
    finally:
        os.write(write, b"x")
        os.close(write)
        os.close(ready_read)
        os.waitpid(pid, 0)


@pytest.mark.parametrize("kind", ["directory", "fifo", "symlink"])
def test_a_slot_file_that_is_not_a_regular_file_is_an_error_naming_it(tmp_path: Path, kind: str) -> None:
    path = _slot_file(tmp_path, 0)
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        os.mkfifo(path)
    else:
        path.symlink_to(tmp_path / "elsewhere.lock")
    with pytest.raises(LimiterStateError) as caught:
        _try_slot(tmp_path, KEY, 1)
    assert caught.value.cause.startswith(f"the rate limiter's shared state {path} cannot be used (")
    assert not slots._CLAIMED and not slots._OPEN  # nothing kept held by the failure
    assert not (tmp_path / "elsewhere.lock").exists()  # a link is never followed


def test_the_bucket_lock_is_held_by_one_thread_at_a_time(tmp_path: Path) -> None:
    inside, most = [0], [0]
    guard = threading.Lock()

    def work() -> None:
        for _ in range(50):
            with locked(tmp_path / "bucket.lock"):
                with guard:
                    inside[0] += 1
                    most[0] = max(most[0], inside[0])
                with guard:
                    inside[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == 1 and not slots._OPEN


def test_without_flock_filelock_holds_the_slots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slots, "fcntl", None)  # as on Windows
    first = try_slot(tmp_path, KEY, 2, _error)
    second = try_slot(tmp_path, KEY, 2, _error)
    assert first is not None and second is not None and try_slot(tmp_path, KEY, 2, _error) is None
    first.release()
    third = try_slot(tmp_path, KEY, 2, _error)
    assert third is not None
    second.release()
    third.release()
    with locked(tmp_path / "bucket.lock"):
        pass
