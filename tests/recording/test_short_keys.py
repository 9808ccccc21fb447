"""A short key is not cut out of bodies (issue 25 item 5): ``TYPESAFE_API_KEY=rehearsal``.

The docs' own rehearsal key once turned the word "rehearsal" into ``***`` in cassettes and reports,
and the replay, without the key, then missed. Now only keys long enough to be secrets are cut out
of bodies and messages; the header says once that a short key cannot be; headers are always
scrubbed (the cassette keeps only ``Content-Type``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import CANARY_KEY, Offline

from pytest_citecheck import _secrets
from pytest_citecheck.testing import choice_answer

CLAIM = "A rehearsal of a JWT can name its audience."
SYNC = f"""
from cookbook import SOURCE
from pytest_citecheck import assert_citations_supported

def test_claims():
    assert_citations_supported([{{"id": "aud", "claim": {CLAIM!r}, "quote": None, "section": "4.1.3"}}], SOURCE)
"""
ASYNC = f"""
import pytest
from cookbook import SOURCE

@pytest.mark.asyncio
async def test_claims(citecheck):
    await citecheck.aassert_supported([{{"id": "aud", "claim": {CLAIM!r}, "quote": None, "section": "4.1.3"}}], SOURCE)
"""
CASSETTE = Path("cassettes") / "test_app" / "test_claims.yaml"
NOTICE = "citecheck: TYPESAFE_API_KEY is 9 characters, too short to tell apart from ordinary words*"


@pytest.fixture(autouse=True)
def no_known_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Secrets are remembered per process: start from none, and leave none behind."""
    monkeypatch.setattr(_secrets, "_known", set())


@pytest.mark.parametrize("path", ["sync", "async"])
def test_a_short_key_is_kept_out_of_headers_but_not_cut_out_of_bodies(
    suite: pytest.Pytester, jev_server: Any, monkeypatch: pytest.MonkeyPatch, offline: Offline, path: str
) -> None:
    monkeypatch.setenv("TYPESAFE_API_KEY", "rehearsal")
    jev_server.answer = lambda claim, section: choice_answer("supports", 0.97)
    suite.makepyfile(test_app=SYNC if path == "sync" else ASYNC)
    recorded = suite.runpytest("--citecheck-record-mode=once", "--citecheck-json=report.json")
    recorded.assert_outcomes(passed=1)
    assert recorded.stdout.str().count("TYPESAFE_API_KEY is 9 characters") == 1
    recorded.stdout.fnmatch_lines([NOTICE])
    headers = {name.lower(): value for name, value in jev_server.systemone_requests[0].headers.items()}
    assert headers["authorization"] == "Bearer rehearsal"

    cassette = (suite.path / CASSETTE).read_text(encoding="utf-8")
    assert CLAIM in cassette and "***" not in cassette
    assert "Bearer" not in cassette and "authorization" not in cassette.lower()
    report = json.loads((suite.path / "report.json").read_text(encoding="utf-8"))
    assert [row["claim"] for row in report["results"]] == [CLAIM]

    offline()  # a new process, without the key, as CI replays
    replayed = suite.runpytest_subprocess()
    replayed.assert_outcomes(passed=1)
    assert "too short" not in replayed.stdout.str()


def test_a_real_key_is_still_cut_out_of_bodies_and_nothing_is_said(suite: pytest.Pytester, jev_server: Any) -> None:
    claim = f"A JWT can name its audience, says the service with key {CANARY_KEY}."
    jev_server.answer = lambda claim, section: choice_answer("supports", 0.97)
    suite.makepyfile(test_app=SYNC.replace(repr(CLAIM), repr(claim)))
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(passed=1)
    assert "too short" not in result.stdout.str()
    cassette = (suite.path / CASSETTE).read_text(encoding="utf-8")
    assert CANARY_KEY not in cassette and "says the service with key ***." in cassette
