"""Endurance: one session replaying 5,000 citations keeps memory flat; a 10,000-row report still loads.

The session is 1,000 tests of 5 citations each, with the default client and a cassette per test. The
1,000 cassettes are real: one is recorded through ``JevServer``, and the other 999 are that file
with the claims' test number changed (the recorded request bodies are the only thing that differs
between them, and replay matches on them). The replay runs as a subprocess whose ``conftest.py``
measures, per test after a warm-up, how much the process's resident set grows and, over the last
400 tests, how much Python memory stays allocated (tracemalloc). The bounds are generous: what they
catch is a leak that keeps something per test (a checker, a client, a cassette — found this way
once), not the report rows every test adds. No time is asserted: speed lives in ``bench/``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from copy import deepcopy
from pathlib import Path

import pytest
from support import Offline, inner_pytest_command

from pytest_citecheck._recording.cassette_file import read_interactions, write_interactions
from pytest_citecheck.testing import JevServer

TESTS = 1_000
PER_TEST = 5
CITATIONS = TESTS * PER_TEST
WARM_UP = 200
TRACE_FROM = 600
# Per test (5 citations), after warm-up. What stays per test by design: the report's 5 rows and
# pytest's TestReports, 13 KB traced when this was written. The leak this caught: every test's
# checker kept alive by its item's stash (client, cassette, parsed bodies: 40+ KB per test).
MAX_TRACED_GROWTH_PER_TEST = 20_000
MAX_RSS_GROWTH_PER_TEST = 64_000
REPORT_ROWS = 10_000

# Both tests stand on one 5,000-citation replay in a process of its own (about a minute).
pytestmark = pytest.mark.slow

INNER = f"""
import pytest
from pytest_citecheck import Source, assert_citations_supported

SOURCE = Source(sections={{
    "1": "1.  Scope\\n\\nThis document defines the widget protocol and nothing else.",
    "2": "2.  Rules\\n\\nA widget MUST be blue. A widget MAY be large, and it SHOULD be round.",
}})

@pytest.mark.parametrize("n", range({TESTS}))
def test_cite(n):
    assert_citations_supported(
        [
            {{"id": f"c{{n}}-{{k}}", "claim": f"Widgets have to be blue (claim number {{n}}, part {{k}}).",
             "quote": "A widget MUST be blue.", "section": "2"}}
            for k in range({PER_TEST})
        ],
        SOURCE,
    )
"""

PROBE = f"""
import gc, json, os, tracemalloc

WARM_UP, TRACE_FROM = {WARM_UP}, {TRACE_FROM}
state = {{"count": 0}}

def rss():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

def pytest_runtest_logfinish(nodeid, location):
    state["count"] += 1
    if state["count"] == WARM_UP:
        gc.collect()
        state["start"], state["start_rss"] = state["count"], rss()
    if state["count"] == TRACE_FROM:
        gc.collect()
        state["trace_start"] = state["count"]
        tracemalloc.start()

def pytest_sessionfinish(session):
    gc.collect()
    state["end"] = state["count"]
    state["end_rss"] = rss()
    state["traced"] = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else None
    tracemalloc.stop()
    with open("memory.json", "w") as out:
        json.dump(state, out)
"""


def _run(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        inner_pytest_command("--no-header", *args), cwd=root, env=env, capture_output=True, text=True, timeout=1200
    )


@pytest.fixture(scope="module")
def replayed(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, dict[str, float], subprocess.CompletedProcess[str]]:
    root = tmp_path_factory.mktemp("endurance")
    (root / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (root / "test_endure.py").write_text(INNER)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TYPESAFE_")}
    with JevServer() as server:
        recorded = _run(
            root,
            {**env, "TYPESAFE_API_KEY": "sk-endurance", "TYPESAFE_BASE_URL": server.url},
            "--citecheck-record-mode=once",
            "test_endure.py::test_cite[0]",
        )
        assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    folder = root / "cassettes" / "test_endure"
    template = read_interactions(folder / "test_cite[0].yaml")
    assert sum(i["request"]["body"].count("(claim number 0, part") for i in template) == PER_TEST, template
    for n in range(1, TESTS):
        # Written through the cassette writer, so each copy carries the digests of its own requests.
        copies = deepcopy(template)
        for interaction in copies:
            body = interaction["request"]["body"]
            interaction["request"]["body"] = body.replace("(claim number 0, part", f"(claim number {n}, part")
        write_interactions(folder / f"test_cite[{n}].yaml", copies)

    (root / "conftest.py").write_text(PROBE)
    result = _run(
        root,
        Offline.env(env),
        "--citecheck-record-mode=none",
        "--citecheck-json=report.json",
    )
    memory = json.loads((root / "memory.json").read_text())
    return root, memory, result


def test_replaying_5000_citations_in_one_session_keeps_memory_flat(
    replayed: tuple[Path, dict[str, float], subprocess.CompletedProcess[str]],
) -> None:
    root, memory, result = replayed
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert re.search(rf"\b{TESTS} passed\b", result.stdout), result.stdout[-500:]
    rows = json.loads((root / "report.json").read_text())["results"]
    assert len(rows) == CITATIONS and all(row["replayed"] and row["verdict"] == "verified" for row in rows)
    assert memory["end"] == TESTS
    traced_per_test = memory["traced"] / (memory["end"] - memory["trace_start"])
    rss_per_test = (memory["end_rss"] - memory["start_rss"]) / (memory["end"] - memory["start"])
    print(f"after warm-up: {traced_per_test:,.0f} B traced and {rss_per_test:,.0f} B RSS per test")
    assert traced_per_test < MAX_TRACED_GROWTH_PER_TEST, f"Python memory grows {traced_per_test:,.0f} bytes per test"
    assert rss_per_test < MAX_RSS_GROWTH_PER_TEST, f"the process grows {rss_per_test:,.0f} bytes per test"


def test_a_10000_row_report_still_loads_in_citecheck_review(
    replayed: tuple[Path, dict[str, float], subprocess.CompletedProcess[str]],
    tmp_path: Path,
) -> None:
    root, _, _ = replayed
    real = json.loads((root / "report.json").read_text())
    rows = []
    for copy in range(REPORT_ROWS // len(real["results"])):
        for row in real["results"]:
            # Every row needs a human: the review list is as long as the report.
            rows.append({**row, "id": f"{row['id']}-{copy}", "test": f"{row['test']}-{copy}", "auto": False})
    assert len(rows) == REPORT_ROWS
    big = tmp_path / "big-report.json"
    big.write_text(json.dumps({**real, "results": rows}))
    listed = subprocess.run(
        [sys.executable, "-m", "pytest_citecheck", "review", "--report", str(big), "--list", "--color=never"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert listed.returncode == 0, listed.stdout[-2000:] + listed.stderr[-2000:]
    for row in (rows[0], rows[REPORT_ROWS // 2], rows[-1]):
        assert row["id"] in listed.stdout
    assert "Traceback" not in listed.stderr
