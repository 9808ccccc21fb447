"""The answers the xdist workers of one run share on disk (``_judge.run_answers``): what is written, and that a
request waiting for another process never hangs and never takes what is not an answer.

The pytest runs on two workers are in test_shared_answers.py; these hold the store to its edges directly.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx2
import pytest

from pytest_citecheck._judge.run_answers import RunAnswers, decode_answer, remove_run, run_directory

KEY = "a" * 64
BODY = b'{"relation": "supports", "confidence": 0.9}'


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> RunAnswers:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return RunAnswers.for_run("0123456789abcdef")


def _answered(status: int = 200, body: bytes = BODY) -> httpx2.Response:
    headers = {"content-type": "application/json", "set-cookie": "session=sk-live-secret-cookie-0001", "x-other": "1"}
    response = httpx2.Response(status, headers=headers, content=body)
    response.read()
    return response


class Sender:
    def __init__(self, response: httpx2.Response) -> None:
        self.response, self.calls = response, 0

    def __call__(self) -> httpx2.Response:
        self.calls += 1
        return self.response


def test_a_2xx_answer_is_written_with_its_type_and_body_only_and_read_back(run: RunAnswers) -> None:
    first = Sender(_answered())
    assert run.send(KEY, first, deadline=5.0).content == BODY
    written = (run.directory / f"{KEY}.json").read_text()
    assert "set-cookie" not in written and "sk-live-secret" not in written and "x-other" not in written
    assert oct(os.lstat(run.directory).st_mode & 0o777) == "0o700"
    again = Sender(_answered(body=b"{}"))
    shared = run.send(KEY, again, deadline=5.0)
    assert again.calls == 0 and shared.status_code == 200 and shared.content == BODY
    assert shared.headers["content-type"] == "application/json"


def test_an_answer_that_is_not_a_2xx_is_not_written(run: RunAnswers) -> None:
    run.send(KEY, Sender(_answered(500)), deadline=5.0)
    assert not (run.directory / f"{KEY}.json").exists()
    second = Sender(_answered())
    run.send(KEY, second, deadline=5.0)
    assert second.calls == 1


HOLDER = """
import sys, time
from filelock import FileLock
lock = FileLock(sys.argv[1], timeout=0)
lock.acquire()
print("held", flush=True)
time.sleep(120)
"""


def test_a_request_waits_for_another_process_asking_at_most_its_deadline_then_asks_itself(run: RunAnswers) -> None:
    run.directory.mkdir(mode=0o700, parents=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(run.directory / f"{KEY}.lock")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        own = Sender(_answered())
        assert run.send(KEY, own, deadline=0.2).content == BODY  # the other never answers: this one asked
        assert own.calls == 1
    finally:
        holder.kill()
        holder.communicate()


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"[" * 3000, b'{"version": 1, "status": 500, "content_type": "", "body": ""}', b'{"version": 2}'],
    ids=["cut short", "nested deep", "a 500", "another version"],
)
def test_a_file_that_is_not_a_2xx_answer_is_not_taken_the_request_is_sent(run: RunAnswers, content: bytes) -> None:
    assert decode_answer(content) is None
    run.directory.mkdir(mode=0o700, parents=True)
    (run.directory / f"{KEY}.json").write_bytes(content)
    own = Sender(_answered())
    assert run.send(KEY, own, deadline=1.0).content == BODY
    assert own.calls == 1


def test_an_answer_file_that_is_a_fifo_is_not_read_and_nothing_hangs(run: RunAnswers) -> None:
    run.directory.mkdir(mode=0o700, parents=True)
    os.mkfifo(run.directory / f"{KEY}.json")
    own = Sender(_answered())
    assert run.send(KEY, own, deadline=0.2).content == BODY
    assert own.calls == 1


def test_a_run_directory_others_may_enter_is_not_used(run: RunAnswers) -> None:
    run.directory.mkdir(mode=0o755, parents=True)
    os.chmod(run.directory, 0o755)
    own = Sender(_answered())
    run.send(KEY, own, deadline=1.0)
    assert own.calls == 1 and list(run.directory.iterdir()) == []


def test_the_controller_removes_the_run_directory(run: RunAnswers) -> None:
    run.send(KEY, Sender(_answered()), deadline=1.0)
    assert run_directory("0123456789abcdef").is_dir()
    remove_run("0123456789abcdef")
    assert not run.directory.exists()
    remove_run("0123456789abcdef")  # gone already: nothing to do


def test_a_run_directory_that_is_a_symbolic_link_is_not_used(run: RunAnswers, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    run.directory.parent.mkdir(mode=0o700, exist_ok=True)
    run.directory.symlink_to(elsewhere)
    own = Sender(_answered())
    run.send(KEY, own, deadline=1.0)
    assert own.calls == 1 and list(elsewhere.iterdir()) == []
