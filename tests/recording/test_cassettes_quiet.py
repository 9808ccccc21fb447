"""Readable, quiet cassettes: re-recording unchanged answers, in any order, rewrites the same bytes."""

from __future__ import annotations

import random
import time

import pytest
import yaml

from pytest_citecheck.testing import JevServer

TEST_FILE = """
from cookbook import SOURCE, CITATIONS

def test_all(citecheck):
    citecheck.check(list(CITATIONS.values()), SOURCE, model="jev-1.12")
"""


@pytest.fixture
def recording(suite, monkeypatch, canary_key, cookbook_answer):
    def jittery(claim: str, section: str):
        # Answers come back in a different order on every run when requests are in flight together.
        time.sleep(random.uniform(0.0, 0.15))
        return cookbook_answer(claim, section)

    suite.makepyfile(test_quiet=TEST_FILE)
    server = JevServer(jittery).start()
    monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
    monkeypatch.setenv("TYPESAFE_API_KEY", canary_key)
    yield suite
    server.stop()


def test_rerecording_unchanged_answers_concurrently_produces_no_diff(recording, canary_key, files_containing):
    path = recording.path / "cassettes" / "test_quiet" / "test_all.yaml"
    recording.runpytest("--citecheck-record-mode=once", "--citecheck-concurrency=1").assert_outcomes(passed=1)
    first = path.read_bytes()
    assert first.count(b"- request:") == 7  # eight citations, one fabricated quote is never sent
    for _ in range(3):
        recording.runpytest("--citecheck-record-mode=rewrite", "--citecheck-concurrency=8").assert_outcomes(passed=1)
        assert path.read_bytes() == first
    assert not files_containing(recording.path, canary_key)


def test_bodies_are_readable_json_and_headers_do_not_churn(recording):
    recording.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    text = (recording.path / "cassettes" / "test_quiet" / "test_all.yaml").read_text()
    assert text.startswith("citecheck_format: 3\n")
    assert '    body: |\n      {\n        "model": "jev-1.12",\n        "questions": {' in text
    assert '      string: |\n        {\n          "answers": {' in text
    data = yaml.safe_load(text)
    for interaction in data["interactions"]:
        # No date, request id, server, length or key: only what replay needs.
        assert interaction["request"]["headers"] == {"content-type": ["application/json"]}
        assert interaction["response"]["headers"] == {"content-type": ["application/json"]}
    assert "x-typesafe-request-id" not in text.lower() and "authorization" not in text.lower()
