"""Replay without vcrpy (``_recording/replay.py``): what it loads, what it sends, which files it reads.

A cassette that can only be replayed (record mode ``none``, or ``once`` when the file exists) is read
by our own index instead of vcrpy's linear scan; the rules must stay vcrpy's: the same file
replays the same way, a miss is a ``CassetteMissError``, and nothing goes to the network.
"""

from __future__ import annotations

import json
import re

import pytest
import yaml

SUITE = """
from cookbook import SOURCE, pick
from pytest_citecheck import assert_citations_supported

def test_cite():
    assert_citations_supported(pick("epoch_seconds", "aud_reject", "clock_skew"), SOURCE)
"""

# Printed by the inner session when it ends: which heavy modules the replay imported.
MODULES_CONFTEST = """
import sys

def pytest_sessionfinish(session):
    loaded = [name for name in ("vcr", "httpcore2", "h11", "ssl_context_built") if name in sys.modules]
    print("\\nLOADED:", ",".join(loaded) or "none")
"""


def record(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_app=SUITE)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)


def test_replay_loads_neither_vcrpy_nor_an_http_stack(suite, jev_server, offline):
    # What a fresh process imports is what is tested here: a subprocess, not an in-process run
    # (this process imported vcrpy long ago).
    record(suite)
    jev_server.stop()
    offline()
    suite.makeconftest(MODULES_CONFTEST)
    # pytest-recording (a test dependency here, not ours) imports vcrpy when it loads at its lowest
    # supported version: left out, so that what is counted is what pytest-citecheck imports.
    result = suite.runpytest_subprocess("--citecheck-record-mode=none", "-s", "-p", "no:recording")
    result.assert_outcomes(passed=1)
    assert "LOADED: none" in result.stdout.str()


def test_a_cassette_that_exists_is_replayed_in_record_mode_once_and_a_changed_citation_misses(
    suite, jev_server, monkeypatch
):
    record(suite)
    served = len(jev_server.systemone_requests)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    assert len(jev_server.systemone_requests) == served  # replayed, nothing asked again
    suite.makepyfile(test_app=SUITE.replace('pick("epoch_seconds", ', 'pick("epoch_seconds", "duplicate_names", '))
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*CassetteMissError: citation 'duplicate_names': no recorded answer matches*"])
    assert len(jev_server.systemone_requests) == served  # a miss in a cassette that exists is not recorded


def test_a_cassette_with_its_bodies_written_another_way_replays_the_same(suite, jev_server, offline):
    # A cassette edited by hand, or by another tool: the same JSON, another layout and key order.
    record(suite)
    path = suite.path / "cassettes" / "test_app" / "test_cite.yaml"
    data = yaml.safe_load(path.read_text())
    for interaction in data["interactions"]:
        body = json.loads(interaction["request"]["body"])
        interaction["request"]["body"] = json.dumps(dict(reversed(list(body.items()))), separators=(",", ":"))
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    jev_server.stop()
    offline()
    result = suite.runpytest("--citecheck-record-mode=none", "--citecheck-json=report.json")
    result.assert_outcomes(passed=1)
    rows = json.loads((suite.path / "report.json").read_text())["results"]
    assert [(row["id"], row["verdict"], row["replayed"]) for row in rows] == [
        ("epoch_seconds", "verified", True),
        ("aud_reject", "verified", True),
        ("clock_skew", "verified", True),
    ]


def test_in_record_mode_none_the_default_client_sends_nothing(suite, jev_server):
    # The server is up and the key is set: only the client's own transport stands in the way.
    suite.makepyfile(
        test_direct="""
        import pytest
        from pytest_citecheck._judge.relation import questions_for

        def test_use_the_client_directly(citecheck_client):
            with pytest.raises(Exception) as raised:
                citecheck_client.system_one({"claim": "c", "section": "s"}, questions_for(screen=False))
            print("RAISED", type(raised.value).__name__, raised.value)
        """
    )
    result = suite.runpytest("--citecheck-record-mode=none", "-s")
    result.assert_outcomes(passed=1)
    assert jev_server.systemone_requests == []
    output = result.stdout.str()
    assert re.search(r"RAISED ReplayOnlyError .*record mode none replays cassettes only.*POST /v1/systemone", output)


# Installed first thing in the inner session: every module of ours imported on a thread other than
# the main one. pytest's assertion rewriter compiles our modules as they are imported (a pytester
# run marks the plugin's package for rewriting), and CPython 3.11 can fail a compile that runs on
# two threads at once ("SystemError: AST constructor recursion depth mismatch"): whatever a request
# thread needs must already be imported when the threads start.
THREAD_IMPORTS_CONFTEST = """
import sys, threading

class _Watch:
    def find_spec(self, name, path=None, target=None):
        if name.startswith("pytest_citecheck") and threading.current_thread() is not threading.main_thread():
            ON_THREADS.append(name)
        return None

ON_THREADS = []
sys.meta_path.insert(0, _Watch())

def pytest_sessionfinish(session):
    print("\\nON THREADS:", ",".join(sorted(set(ON_THREADS))) or "none")
"""


def test_request_threads_import_nothing_of_ours(suite, jev_server):
    # Recording (threads ask Jev), then a cassette that exists in mode once with a changed citation:
    # replayed on threads, and the miss is explained on the thread that met it.
    suite.makeconftest(THREAD_IMPORTS_CONFTEST)
    suite.makepyfile(test_app=SUITE)
    recorded = suite.runpytest_subprocess("--citecheck-record-mode=once", "-s")
    recorded.assert_outcomes(passed=1)
    assert "ON THREADS: none" in recorded.stdout.str()
    suite.makepyfile(test_app=SUITE.replace('pick("epoch_seconds", ', 'pick("epoch_seconds", "duplicate_names", '))
    missed = suite.runpytest_subprocess("--citecheck-record-mode=once", "-s")
    missed.assert_outcomes(failed=1)
    missed.stdout.fnmatch_lines(["*CassetteMissError: citation 'duplicate_names': no recorded answer matches*"])
    assert "ON THREADS: none" in missed.stdout.str()
