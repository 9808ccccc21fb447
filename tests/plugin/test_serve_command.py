"""``citecheck serve``: the rehearsal server as the installed command, over real HTTP through the SDK.

The server's answers, keys and faults are tested in tests/judge/test_testing_server.py (through
``python -m pytest_citecheck.testing``, the same command); here: that ``citecheck`` lists and runs
it, that it reads its answers file again when the file changes, and ``--latency MS``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typesafe_sdk import Choice, RetryPolicy, TypeSafeClient, TypeSafeUnprocessableEntityError

CONSOLE_SCRIPT = shutil.which("citecheck", path=str(Path(sys.executable).parent))
QUESTION = {
    "relation": Choice(instructions="How?", criteria={"supports": "a", "contradicts": "b", "says_nothing": "c"})
}
CLAIM = "Refunds are issued within 30 days."


@contextlib.contextmanager
def serve(*args: str) -> Iterator[tuple[str, list[str]]]:
    """``citecheck serve ARGS`` in the background; yields its URL and, once it has stopped, its log lines."""
    assert CONSOLE_SCRIPT is not None, "the citecheck console script is installed with the package"
    server = subprocess.Popen(
        [CONSOLE_SCRIPT, "serve", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    log: list[str] = []
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), server.communicate(timeout=30)
        yield url, log
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
    finally:
        if server.poll() is None:
            server.kill()
        log.extend(server.communicate(timeout=30)[1].splitlines())


def ask(url: str, claim: str = CLAIM) -> Any:
    with TypeSafeClient(api_key="k", base_url=url, compression=False, retry=RetryPolicy(max_retries=0)) as client:
        return client.system_one(state={"claim": claim, "section": "Refunds: within 30 days."}, questions=QUESTION)


def rewrite(path: Path, table: Any, generation: int) -> None:
    """Write the table anew, with a modification time of its own (no waiting on the clock's resolution)."""
    path.write_text(table if isinstance(table, str) else json.dumps(table), encoding="utf-8")
    stamp = 1_700_000_000 + generation
    os.utime(path, (stamp, stamp))


def test_citecheck_help_lists_serve():
    assert CONSOLE_SCRIPT is not None
    result = subprocess.run([CONSOLE_SCRIPT, "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert "serve" in result.stdout
    assert "rehearsal server" in result.stdout


def test_serve_reads_its_answers_file_again_when_it_changes(tmp_path):
    table = tmp_path / "answers.json"
    rewrite(table, {CLAIM: ["supports", 0.93]}, 1)
    with serve("--answers", str(table)) as (url, log):
        first = ask(url)
        assert (first.answers["relation"].choice, first.answers["relation"].probabilities["supports"]) == (
            "supports",
            0.93,
        )
        rewrite(table, {CLAIM: "contradicts", "*": "says_nothing"}, 2)
        assert ask(url).answers["relation"].choice == "contradicts"
        assert ask(url, "Another claim.").answers["relation"].choice == "says_nothing"
        # A table broken mid-rehearsal answers nothing from the old one: a 422 naming the claim and field.
        rewrite(table, {CLAIM: "agrees"}, 3)
        with pytest.raises(
            TypeSafeUnprocessableEntityError, match="claim 'Refunds are issued within 30 days.': field 'choice'"
        ):
            ask(url)
        rewrite(table, {CLAIM: ["supports", 0.99]}, 4)
        assert ask(url).answers["relation"].probabilities["supports"] == 0.99
    assert sum("re-read the answers table" in line for line in log) == 2
    assert any("field 'choice' must be one of" in line and "every claim gets a 422" in line for line in log)
    assert log[-1] == "served 5 requests"


def test_serve_latency_is_in_milliseconds(tmp_path):
    with serve("--latency", "400") as (url, log):
        started = time.monotonic()
        assert ask(url).answers["relation"].choice == "supports"
        assert time.monotonic() - started >= 0.4  # a lower bound: the reply waited at least the latency
    assert "replying after 400 ms" in log[0]


@pytest.mark.parametrize("latency", ["-5", "soon", "inf"])
def test_serve_refuses_a_latency_that_is_not_milliseconds(latency):
    assert CONSOLE_SCRIPT is not None
    result = subprocess.run(
        [CONSOLE_SCRIPT, "serve", "--latency", latency],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert f"expected a number of milliseconds, 0 or more; got {latency!r}" in result.stderr
    assert result.stdout == ""


def test_the_module_command_is_the_same_server():
    result = subprocess.run(
        [sys.executable, "-m", "pytest_citecheck.testing", "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert result.stdout.startswith("usage: python -m pytest_citecheck.testing")
    assert "--latency MS" in result.stdout
    assert "read again when it changes" in " ".join(result.stdout.split())
