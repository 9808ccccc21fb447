"""Coexistence with pytest-recording: its cassette holds the app's HTTP, ours only TypeSafe's."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@pytest.fixture
def app_server(monkeypatch):
    """A second loopback server: the app's own backend, which is not TypeSafe."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            return

        def do_GET(self):
            payload = json.dumps({"answer": "JWT stands for JSON Web Token", "path": self.path}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("APP_URL", f"http://127.0.0.1:{server.server_address[1]}")
    yield server
    server.shutdown()
    server.server_close()


TEST_FILE = """
import os
import httpx2
import pytest
from cookbook import SOURCE, pick

@pytest.mark.vcr
def test_app_and_citations(citecheck):
    base = os.environ.get("APP_URL", "http://127.0.0.1:9")
    before = httpx2.get(base + "/ask?q=before").json()
    citecheck.assert_supported(pick("epoch_seconds", "aud_reject"), SOURCE, model="jev-1.12")
    after = httpx2.get(base + "/ask?q=after").json()
    assert before["answer"] == after["answer"] == "JWT stands for JSON Web Token"
"""


def test_each_cassette_holds_only_its_own_traffic_in_record_and_replay(
    suite, jev_server, app_server, offline, canary_key, files_containing
):
    suite.makepyfile(test_coexist=TEST_FILE)
    result = suite.runpytest("--record-mode=once", "--citecheck-record-mode=once")
    result.assert_outcomes(passed=1)
    folder = suite.path / "cassettes" / "test_coexist"
    theirs = (folder / "test_app_and_citations.yaml").read_text()
    ours = (folder / "test_app_and_citations.citecheck.yaml").read_text()
    assert theirs.count("uri: http://127.0.0.1") == 2 and "/ask?q=before" in theirs and "/ask?q=after" in theirs
    assert "systemone" not in theirs and "claim" not in theirs
    assert ours.count("- request:") == 2 and "/ask" not in ours and 'JSON Web Token"' not in ours
    assert ours.count("uri: https://api.typesafe.ai/v1/systemone") == 2
    assert len(jev_server.systemone_requests) == 2
    assert not files_containing(suite.path, canary_key)

    # Replay both with nothing listening: the app's backend (same URL, pytest-recording matches on
    # the port) and TypeSafe are gone.
    app_server.shutdown()
    app_server.server_close()
    offline()
    replay = suite.runpytest("--record-mode=none", "--citecheck-unused=fail")
    replay.assert_outcomes(passed=1)
    assert replay.ret == 0
    assert (folder / "test_app_and_citations.yaml").read_text() == theirs
    assert (folder / "test_app_and_citations.citecheck.yaml").read_text() == ours


BLOCKED_TEST_FILE = """
from pytest_citecheck import assert_citations_supported
from cookbook import SOURCE, pick

def test_answer():
    assert_citations_supported(pick("epoch_seconds"), SOURCE)
"""


@pytest.mark.parametrize("mode", ["once", "rewrite"])
def test_recording_under_block_network_fails_naming_the_citation_the_cause_and_the_remedy(suite, jev_server, mode):
    """pytest-recording's ``--block-network`` while recording (a new cassette, or a rewrite): its bare
    ``RuntimeError: Network is disabled for host '127.0.0.1'`` came through with a traceback into
    httpcore2. Still a failure (fail closed), now the plugin's own error naming the citation, that the
    network is blocked by pytest-recording's --block-network, and what to pass; nothing is recorded."""
    suite.makepyfile(test_blocked=BLOCKED_TEST_FILE)
    if mode == "rewrite":
        suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    cassette = suite.path / "cassettes" / "test_blocked" / "test_answer.yaml"
    before = cassette.read_bytes() if cassette.exists() else None
    # In a process of its own: httpcore2 closes a socket whose connect raised an OSError, not
    # pytest-recording's RuntimeError, so the blocked socket is left open to the garbage collector.
    result = suite.runpytest_subprocess(f"--citecheck-record-mode={mode}", "--block-network")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "RuntimeError" not in out and "httpcore" not in out and "Traceback" not in out
    result.stdout.fnmatch_lines(
        [
            "JudgeError: citation 'epoch_seconds': *refused by pytest-recording's --block-network*",
            "  -> record without --block-network*--allowed-hosts=*--citecheck-record-mode=none*",
        ]
    )
    # The host to allow, when pytest-recording names it (0.15 does: "Network is disabled for host
    # '127.0.0.1'"; 0.13, the lowest version the test group allows, says only "Network is disabled").
    host = "127.0.0.1" if "for host '127.0.0.1'" in out else "HOST"
    assert f"--allowed-hosts={host}" in out
    assert (cassette.read_bytes() if cassette.exists() else None) == before
    # Replaying under --block-network needs no socket, and passes.
    if mode == "rewrite":
        suite.runpytest("--citecheck-record-mode=none", "--block-network").assert_outcomes(passed=1)
