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
