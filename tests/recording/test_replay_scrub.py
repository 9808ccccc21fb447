"""Replay matches a request after the very scrub a recording gave it (``redaction.scrub_request``).

Replay takes only what a match depends on (``redaction.scrubbed_for_matching``: method, endpoint,
body), without building the scrubbed request; it must leave exactly what the recording's scrub
leaves, and remember the same header values as secrets, so a key in a claim still replays and never
reaches a log line.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pytest

from pytest_citecheck import _secrets
from pytest_citecheck._recording.redaction import scrub_request
from pytest_citecheck._recording.seams import scrubbed

BEARER = "sk-bearer-0123456789abcdef"
TOKEN_A, TOKEN_B = "tok-first-0123456789abcdef", "tok-second-0123456789abcdef"


@pytest.fixture(autouse=True)
def no_known_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_secrets, "_known", set())
    monkeypatch.delenv("TYPESAFE_API_KEY", raising=False)


def _request(url: str, claim: str) -> httpx2.Request:
    body = json.dumps({"state": {"claim": claim, "section": "4.1.4. exp"}, "model": "jev-1.12"}).encode()
    headers = [
        ("Authorization", f"Bearer {BEARER}"),
        ("Content-Type", "application/json"),
        ("X-Api-Token", TOKEN_A),
        ("X-Api-Token", TOKEN_B),  # one header, two values
        ("User-Agent", "typesafe-sdk/0.7"),
    ]
    return httpx2.Request("POST", url, headers=headers, content=body)


def _as_a_recording_scrubs_it(request: httpx2.Request) -> tuple[str, str, Any]:
    """What vcrpy hands ``before_record_request`` (headers as lists), scrubbed, then what a match reads of it."""
    headers: dict[str, list[str]] = {}
    for name, value in request.headers.multi_items():
        headers.setdefault(name, []).append(value)
    seen = SimpleNamespace(method=request.method, uri=str(request.url), headers=headers, body=request.content)
    scrubbed = scrub_request(seen)
    assert scrubbed is not None
    return scrubbed.method, urlsplit(scrubbed.uri).path, scrubbed.body


@pytest.mark.parametrize(
    ("url", "claim"),
    [
        ("http://127.0.0.1:9/v1/systemone", "Tokens expire."),
        ("https://proxy.example/base/prefix/v1/systemone?x=1", "Tokens expire."),
        ("http://127.0.0.1:9/v1/systemone", f"The app's key {BEARER} is in the claim."),
        ("http://127.0.0.1:9/v1/systemone", f"Escaped: {json.dumps(TOKEN_B)[1:-1]} and “curly” text."),
    ],
    ids=["plain", "behind a base-URL prefix", "a header's key in the claim", "a token and non-ASCII text"],
)
def test_replay_leaves_what_the_recording_scrub_leaves_and_remembers_the_same_secrets(url: str, claim: str) -> None:
    request = _request(url, claim)
    replayed = scrubbed(request, request.content)
    remembered_by_replay = set(_secrets._known)
    _secrets._known.clear()
    recorded = _as_a_recording_scrubs_it(request)
    assert replayed == recorded
    assert remembered_by_replay == set(_secrets._known) >= {BEARER, TOKEN_A, TOKEN_B}
    assert "/v1/systemone" == replayed[1]
    assert BEARER not in replayed[2].decode()
