"""What a cassette holds can be trusted: only accepted answers, each with a digest of itself.

- A 2xx answer the checker refused (an unknown label, an answer that contradicts itself) fails the
  test and is never written: the next recording asks Jev again instead of replaying it forever.
- Every recorded interaction carries a digest of its canonical request and response; an
  interaction edited by hand (or by a merge-conflict resolution) fails the replay and says so.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_citecheck.testing import choice_answer

TWO_CITATIONS = """
from cookbook import SOURCE
from pytest_citecheck import assert_citations_supported

def test_claims(citecheck):
    citecheck.check(
        [
            {"id": "exp", "claim": "A JWT can carry an expiration time.", "quote": None, "section": "4.1.4"},
            {"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"},
        ],
        SOURCE, model="jev-1.12", concurrency=1,
    )
"""
CASSETTE = Path("cassettes") / "test_app" / "test_claims.yaml"


def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TYPESAFE_API_KEY", raising=False)
    monkeypatch.setenv("TYPESAFE_BASE_URL", "http://127.0.0.1:9")


def recorded_claims(path: Path) -> list[str]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [re.search(r'"claim": "([^"]*)"', i["request"]["body"]).group(1) for i in data["interactions"]]  # type: ignore[union-attr]


# --- item 6: a malformed 2xx answer is never saved ------------------------------------------------


def test_a_refused_2xx_answer_is_not_recorded_and_is_asked_again(suite: pytest.Pytester, jev_server: Any) -> None:
    def answer(claim: str, section: str) -> dict[str, Any]:
        if "audience" in claim:
            return {**choice_answer("supports", 0.97), "choice": "maybe"}
        return choice_answer("supports", 0.97)

    jev_server.answer = answer
    suite.makepyfile(test_app=TWO_CITATIONS)
    first = suite.runpytest("--citecheck-record-mode=once")
    first.assert_outcomes(failed=1)
    first.stdout.fnmatch_lines(["*citation 'aud': Jev answered with an unknown label 'maybe'*"])
    # The answer that was accepted is kept; the refused one is not.
    assert recorded_claims(suite.path / CASSETTE) == ["A JWT can carry an expiration time."]
    assert "maybe" not in (suite.path / CASSETTE).read_text()

    # The next recording run asks Jev again for the refused one (and only for it), and then passes.
    jev_server.answer = lambda claim, section: ("supports", 0.97)
    asked_before = len(jev_server.systemone_requests)
    second = suite.runpytest("--citecheck-record-mode=new_episodes")
    second.assert_outcomes(passed=1)
    asked = [r.body["state"]["claim"] for r in jev_server.systemone_requests[asked_before:]]
    assert asked == ["A JWT can name its audience."]
    assert sorted(recorded_claims(suite.path / CASSETTE)) == [
        "A JWT can carry an expiration time.",
        "A JWT can name its audience.",
    ]


def test_a_refused_answer_alone_writes_no_cassette_and_ci_cannot_replay_it(
    suite: pytest.Pytester, jev_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    jev_server.answer = lambda claim, section: {**choice_answer("supports", 0.97), "choice": "maybe"}
    suite.makepyfile(test_app=TWO_CITATIONS.replace("concurrency=1", "concurrency=2"))
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(failed=1)
    assert not (suite.path / CASSETTE).exists()
    offline(monkeypatch)
    replay = suite.runpytest()
    replay.assert_outcomes(failed=1)
    replay.stdout.fnmatch_lines(["*no recorded answer matches this citation's request*"])


def test_a_refused_answer_does_not_replace_a_rewritten_recording(suite: pytest.Pytester, jev_server: Any) -> None:
    suite.makepyfile(test_app=TWO_CITATIONS)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    before = (suite.path / CASSETTE).read_bytes()
    jev_server.answer = lambda claim, section: {**choice_answer("supports", 0.97), "choice": "maybe"}
    suite.runpytest("--citecheck-record-mode=rewrite").assert_outcomes(failed=1)
    assert (suite.path / CASSETTE).read_bytes() == before
