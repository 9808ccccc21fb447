"""Replay: a generated suite of tests checking citations, replayed from cassettes, run by pytest.

The suite (``tests`` files of ``per_test`` citations each, quotes drawn from RFC 7519's sections)
is recorded once against the Jev-compatible server, then timed in a pytest subprocess:

- **Replay**: ``--citecheck-record-mode=none``, no key, a base URL where nothing listens (citations are
  judged one after another: nothing waits on the network).
- **Floor**: the same suite with a ``citecheck_client`` whose ``httpx2.MockTransport`` answers from
  memory, and no cassette: everything but reading the recorded answers.

A separate, untimed run counts cassette loads, which must be one per test, not one per citation.
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import Row, clean_env, ms, secs

REPO = Path(__file__).resolve().parent.parent
RFC7519 = REPO / "examples" / "rfc7519" / "rfc7519.txt"

CONFTEST = """
import json, os
import pytest

if os.environ.get("BENCH_FLOOR"):
    @pytest.fixture
    def citecheck_client():
        import httpx2
        from typesafe_sdk import TypeSafeClient
        from pytest_citecheck.testing import choice_answer

        body = json.dumps({"model": "jev-1.13.0", "answers": {"relation": choice_answer("supports", 0.97)},
                           "usage": {"input_tokens": 400, "output_tokens": 40}}).encode()
        transport = httpx2.MockTransport(lambda request: httpx2.Response(200, content=body, headers={"content-type": "application/json"}))
        client = TypeSafeClient(api_key="sk-floor", base_url="https://api.typesafe.ai", compression=False, transport=transport)
        yield client
        client.close()

    @pytest.fixture
    def citecheck(citecheck):
        citecheck.cassette = None  # the floor reads no recording
        return citecheck

if os.environ.get("BENCH_COUNT_LOADS"):
    from pytest_citecheck._recording import cassettes
    loads = []
    original = cassettes.AtomicPersister.load_cassette.__func__

    @classmethod
    def counting(cls, path, serializer):
        loads.append(str(path))
        return original(cls, path, serializer)

    cassettes.AtomicPersister.load_cassette = counting

    def pytest_sessionfinish(session):
        with open(os.environ["BENCH_COUNT_LOADS"], "w") as handle:
            json.dump(loads, handle)
"""


def _sentences(section: str) -> list[str]:
    flat = " ".join(section.split())
    return [s for s in re.split(r"(?<=\.)\s+", flat) if 50 <= len(s) <= 300 and "-" not in s]


def write_suite(root: Path, tests: int, per_test: int) -> int:
    """Write the suite under ``root``; returns the number of citations."""
    from pytest_citecheck import Source

    source = Source.from_file(RFC7519)
    quotes = [(number, s) for number in source.order for s in _sentences(source.sections[number])]
    (root / "rfc7519.txt").write_text(RFC7519.read_text())
    (root / "pytest.ini").write_text("[pytest]\ncitecheck_model = jev-1.13.0\nfilterwarnings =\n    ignore\n")
    (root / "conftest.py").write_text(CONFTEST)
    per_file = 10
    total = 0
    for file_number in range(0, tests, per_file):
        lines = [
            "import pathlib",
            "from pytest_citecheck import Source, assert_citations_supported",
            "SOURCE = Source.from_file(pathlib.Path(__file__).parent / 'rfc7519.txt')",
        ]
        for test_number in range(file_number, min(tests, file_number + per_file)):
            citations = []
            for k in range(per_test):
                section, quote = quotes[(test_number * per_test + k) % len(quotes)]
                citations.append(
                    {
                        "id": f"t{test_number}c{k}",
                        "claim": f"Claim {k} of test {test_number}: section {section} holds.",
                        "quote": quote,
                        "section": None,
                    }
                )
                total += 1
            lines += ["", f"def test_{test_number}():", f"    assert_citations_supported({citations!r}, SOURCE)"]
        (root / f"test_suite_{file_number // per_file}.py").write_text("\n".join(lines) + "\n")
    return total


def _pytest(root: Path, *args: str, **env: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *args]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=root, env=clean_env(**env), capture_output=True, text=True)
    return time.perf_counter() - started, done


def _passed(done: subprocess.CompletedProcess[str], tests: int) -> bool:
    return done.returncode == 0 and f"{tests} passed" in done.stdout


def run(tests: int, per_test: int, runs: int, log: Any = print) -> list[Row]:
    from pytest_citecheck.testing import JevServer

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        citations = write_suite(root, tests, per_test)
        with JevServer() as server:
            _, recorded = _pytest(
                root, "--citecheck-record-mode=once", TYPESAFE_BASE_URL=server.url, TYPESAFE_API_KEY="sk-bench-record"
            )
            requests = len(server.systemone_requests)
        if not _passed(recorded, tests):
            raise RuntimeError(
                f"recording the replay suite failed:\n{recorded.stdout[-3000:]}\n{recorded.stderr[-2000:]}"
            )
        offline = {"TYPESAFE_BASE_URL": "http://127.0.0.1:9"}
        replay_args = ("--citecheck-record-mode=none",)
        # Replay judges one citation after another (nothing waits on the network); so does the
        # floor, or its thread pool would make the replay look cheaper than it is.
        floor_args = (*replay_args, "--citecheck-concurrency=1")
        _pytest(root, *replay_args, **offline)  # warm up: bytecode and the OS file cache, for both variants
        _pytest(root, *floor_args, BENCH_FLOOR="1", **offline)
        replay_times, floor_times, ok = [], [], True
        for _ in range(runs):  # interleaved, so drift in the machine's load hits both alike
            elapsed, done = _pytest(root, *replay_args, **offline)
            replay_times.append(elapsed)
            ok &= _passed(done, tests)
            elapsed, done = _pytest(root, *floor_args, BENCH_FLOOR="1", **offline)
            floor_times.append(elapsed)
            ok &= _passed(done, tests)
        loads_file = root / "loads.json"
        _pytest(root, *replay_args, BENCH_COUNT_LOADS=str(loads_file), **offline)
        loads = json.loads(loads_file.read_text()) if loads_file.exists() else []
    replay, floor = statistics.median(replay_times), statistics.median(floor_times)
    added = (replay - floor) / citations
    log(
        f"replay: {secs(replay)}, floor {secs(floor)}, {ms(added)} added per citation; {len(loads)} cassette loads; "
        f"{requests} requests recorded; all passed: {ok}"
    )
    return [
        Row(
            f"Replay: {tests} tests, {citations} citations, pytest run, vs an in-memory transport and no cassette",
            secs(replay),
            f"floor {secs(floor)}",
            f"{ms(added)} added per citation",
            "≤ 2 ms per citation",
            added <= 0.002 and ok,
            note="" if ok else "some runs did not pass",
            guard_ok=added <= 0.050 and ok,
            guard="≤ 50 ms per citation (small, noisy suite)",
        ),
        Row(
            "Replay: cassette loads",
            f"{len(loads)} loads",
            f"{tests} tests, {citations} citations",
            "",
            "once per test",
            len(loads) == tests,
            guard_ok=len(loads) == tests,
            guard="once per test",
        ),
    ]
