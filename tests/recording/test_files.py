"""The ground-floor file helpers: bounded reads of regular files only, and the inter-process lock.

``read_regular_file`` is what every reader of a file a user or an attacker may point at goes
through: a device (``/dev/zero`` behind a symlink), a FIFO or a directory is refused before a byte
is read, and a file is read up to its limit only.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from pytest_citecheck._files import UnreadableFileError, interprocess_lock, lock_path_for, read_regular_file


def test_a_regular_file_and_a_symlink_to_one_are_read(tmp_path: Path) -> None:
    target = tmp_path / "cassette.yaml"
    target.write_bytes(b"citecheck_format: 2\n")
    link = tmp_path / "link.yaml"
    link.symlink_to(target)
    assert read_regular_file(target, 100) == b"citecheck_format: 2\n"
    assert read_regular_file(link, 100) == b"citecheck_format: 2\n"


def test_a_missing_file_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_regular_file(tmp_path / "none.yaml", 100)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_symlink_to_dev_zero_is_refused_without_reading_it(tmp_path: Path) -> None:
    link = tmp_path / "cassette.yaml"
    link.symlink_to("/dev/zero")
    with pytest.raises(UnreadableFileError, match="a character device, not a regular file"):
        read_regular_file(link, 10**12)  # read, this would exhaust memory


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "cassette.yaml"
    os.mkfifo(fifo)
    with pytest.raises(UnreadableFileError, match="a FIFO"):
        read_regular_file(fifo, 100)


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UnreadableFileError, match="a directory, not a regular file"):
        read_regular_file(tmp_path, 100)


def test_a_file_over_the_limit_is_refused_and_one_at_the_limit_is_read(tmp_path: Path) -> None:
    target = tmp_path / "big.json"
    target.write_bytes(b"x" * 101)
    with pytest.raises(UnreadableFileError, match="larger than 100 bytes"):
        read_regular_file(target, 100)
    assert read_regular_file(target, 101) == b"x" * 101


def test_the_lock_of_one_path_is_held_by_one_holder_at_a_time(tmp_path: Path) -> None:
    target = tmp_path / "shared.yaml"
    assert lock_path_for(target) == lock_path_for(tmp_path / "." / "shared.yaml")
    inside: list[int] = []
    overlaps: list[int] = []

    def hold(n: int) -> None:
        for _ in range(20):
            with interprocess_lock(target):
                inside.append(n)
                if len(inside) > 1:
                    overlaps.append(n)
                inside.remove(n)

    threads = [threading.Thread(target=hold, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert overlaps == []


@pytest.mark.skipif(not Path("/proc/self/cmdline").is_file(), reason="needs Linux's /proc")
@pytest.mark.parametrize("chunk", [1 << 20, 7])
def test_a_file_longer_than_its_size_says_is_read_to_its_end_or_its_limit(
    monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """A regular file that holds more than ``fstat`` said when it was opened (one that grew since, or a
    /proc file, whose size is 0) is read on to its end, in chunks; over the limit it is refused."""
    import pytest_citecheck._files as files

    monkeypatch.setattr(files, "_CHUNK", chunk)
    proc = Path("/proc/self/cmdline")
    assert proc.stat().st_size == 0
    whole = proc.read_bytes()
    assert len(whole) > 20
    assert read_regular_file(proc, 10**6) == whole
    assert read_regular_file(proc, len(whole)) == whole
    assert read_regular_file(proc, 10, head_only=True) == whole[:10]
    with pytest.raises(UnreadableFileError, match="larger than 10 bytes"):
        read_regular_file(proc, 10)
