"""The lock directory is swept of what no one has touched for a day (``_judge.sweeping``), and of nothing else.

A test suite that starts a loopback server on a new port each time leaves ten files a test there
(the rate limiter's state, its lock, the slots); before the sweep this machine's held ~7,700.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2
import pytest

from pytest_citecheck._files import lock_path_for, locks_directory
from pytest_citecheck._judge import sweeping
from pytest_citecheck._judge.pacing import server_key, state_path
from pytest_citecheck._judge.sweeping import STALE_SECONDS, sweep, sweep_if_due
from pytest_citecheck.testing import JevServer

DAY_AND_AN_HOUR_AGO = time.time() - STALE_SECONDS - 3600


@pytest.fixture
def directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(sweeping, "_swept_in_this_process", False)
    found = locks_directory()
    found.mkdir(mode=0o700)
    return found


def _old(path: Path) -> Path:
    os.utime(path, (DAY_AND_AN_HOUR_AGO, DAY_AND_AN_HOUR_AGO))
    return path


def _file(path: Path, *, old: bool = True) -> Path:
    path.write_text("")
    return _old(path) if old else path


HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.flock(fd, fcntl.LOCK_EX)
os.utime(sys.argv[1], (float(sys.argv[2]), float(sys.argv[2])))
print("held", flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="flock: POSIX")
def test_what_no_one_touched_for_a_day_goes_and_nothing_else(directory: Path, tmp_path: Path) -> None:
    stale = [
        _file(directory / "0123456789abcdef0123456789abcdef.lock"),  # a cassette's lock
        _file(directory / "inflight-abc-0.lock"),
        _file(directory / "rate-abc.json"),
    ]
    answers = directory / "answers-0123456789"
    answers.mkdir(mode=0o700)
    _file(answers / "k.json")
    _old(answers)
    kept = [
        _file(directory / "inflight-abc-1.lock", old=False),  # taken within the day
        _file(directory / "rate-def.json", old=False),
        _file(directory / "notes.txt"),  # not ours to judge
    ]
    elsewhere = _file(tmp_path / "elsewhere.lock")
    (directory / "link.lock").symlink_to(elsewhere)
    os.utime(directory / "link.lock", (DAY_AND_AN_HOUR_AGO, DAY_AND_AN_HOUR_AGO), follow_symlinks=False)
    held = _file(directory / "inflight-abc-2.lock")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(held), str(DAY_AND_AN_HOUR_AGO)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert sweep(directory, time.time()) == 4
    finally:
        holder.kill()
        holder.communicate()
    assert not any(path.exists() for path in stale) and not answers.exists()
    assert all(path.exists() for path in kept)
    assert held.exists()  # in use: held by another process, however old its time
    assert (directory / "link.lock").is_symlink() and elsewhere.exists()


def test_the_sweep_runs_once_a_day_and_once_a_process(directory: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _file(directory / "rate-abc.json")
    _file(directory / ".swept", old=False)  # swept within the day
    sweep_if_due(directory)
    assert first.exists()
    monkeypatch.setattr(sweeping, "_swept_in_this_process", False)
    _old(directory / ".swept")
    sweep_if_due(directory)
    assert not first.exists()
    second = _file(directory / "rate-def.json")
    _old(directory / ".swept")
    sweep_if_due(directory)  # this process swept already
    assert second.exists()


RECORDING = """
from pytest_citecheck import Source

def test_records(citecheck):
    source = Source(sections={"1": "1.  One\\n\\n   Rule one says that value one is allowed."})
    citecheck.assert_supported([{"id": "c1", "claim": "one", "quote": "value one is allowed", "section": "1"}], source)
"""


def test_a_recording_run_sweeps_the_stale_files_of_its_lock_directory(
    pytester: pytest.Pytester, jev_server, inner_ini: str, tmp_path_factory: pytest.TempPathFactory, monkeypatch
) -> None:
    own_tmp = tmp_path_factory.mktemp("tmpdir")
    monkeypatch.setenv("TMPDIR", str(own_tmp))
    directory = own_tmp / locks_directory().name
    directory.mkdir(mode=0o700)
    stale = [_file(directory / f"inflight-{port}-0.lock") for port in range(200)]
    fresh = _file(directory / "inflight-fresh-0.lock", old=False)
    pytester.makeini(inner_ini)
    pytester.makepyfile(test_recorded=RECORDING)
    pytester.runpytest_subprocess("--citecheck-record-mode=rewrite").assert_outcomes(passed=1)
    assert not any(path.exists() for path in stale)
    assert fresh.exists() and (directory / ".swept").exists()


def test_a_rehearsal_server_that_stops_takes_the_limiters_files_for_it_along(
    pytester: pytest.Pytester, inner_ini: str, canary_key: str, tmp_path_factory, monkeypatch
) -> None:
    own_tmp = tmp_path_factory.mktemp("tmpdir")
    monkeypatch.setenv("TMPDIR", str(own_tmp))  # the recording run's lock directory ...
    monkeypatch.setattr(tempfile, "tempdir", str(own_tmp))  # ... is the one the server cleans in this process
    server = JevServer().start()
    monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
    monkeypatch.setenv("TYPESAFE_API_KEY", canary_key)
    pytester.makeini(inner_ini)
    pytester.makepyfile(test_recorded=RECORDING)
    try:
        pytester.runpytest_subprocess("--citecheck-record-mode=rewrite").assert_outcomes(passed=1)
        key = server_key(httpx2.URL(server.url))
        state = state_path(key)
        assert state.is_file() and lock_path_for(state).is_file()
        assert list(state.parent.glob(f"inflight-{key}-*.lock"))
        another = _file(state.parent / "inflight-0123456789abcdef0123-0.lock", old=False)
    finally:
        server.stop()
    assert not state.exists() and not lock_path_for(state).exists()
    assert not list(state.parent.glob(f"*{key}*"))
    assert another.exists()  # another server's
