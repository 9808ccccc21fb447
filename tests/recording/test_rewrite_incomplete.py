"""A rewrite that does not complete keeps the previous cassette whole (issue 25 item 3).

In ``--citecheck-record-mode=rewrite``, a 503 on citation 3 of 5 once left a cassette of 2
interactions, and the next replay then said "the claim changed" for the rest. Now the new
recording replaces the old file only when every request of the test was answered and accepted;
otherwise the test fails on the error, and the old file stays, byte for byte, and still replays.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import Offline

from pytest_citecheck.testing import Reply, choice_answer

CLAIMS = [f"Claim number {n} about JSON Web Tokens." for n in range(1, 6)]
CITATIONS = [{"id": f"c{n}", "claim": claim, "quote": None, "section": "4.1.3"} for n, claim in enumerate(CLAIMS, 1)]
SYNC = f"""
from cookbook import SOURCE
from pytest_citecheck import assert_citations_supported

def test_claims():
    assert_citations_supported({CITATIONS!r}, SOURCE, model="jev-1.12", concurrency=1)
"""
ASYNC = f"""
import pytest
from cookbook import SOURCE

@pytest.mark.asyncio
async def test_claims(citecheck):
    await citecheck.aassert_supported({CITATIONS!r}, SOURCE, model="jev-1.12", concurrency=1)
"""
CASSETTE = Path("cassettes") / "test_app" / "test_claims.yaml"


def failing_on(claim_number: int, reply: Any) -> Any:
    def answer(claim: str, section: str) -> Any:
        return reply if claim == CLAIMS[claim_number - 1] else choice_answer("supports", 0.95)

    return answer


REFUSED = {**choice_answer("supports", 0.95), "choice": "maybe"}


@pytest.mark.parametrize("path", ["sync", "async"])
@pytest.mark.parametrize(
    "reply",
    [Reply(503, {"detail": "overloaded"}, headers={"retry-after": "0"}), REFUSED],
    ids=["503", "refused-answer"],
)
def test_a_rewrite_that_fails_half_way_keeps_the_previous_cassette_whole(
    suite: pytest.Pytester, jev_server: Any, offline: Offline, path: str, reply: Any
) -> None:
    suite.makepyfile(test_app=SYNC if path == "sync" else ASYNC)
    jev_server.answer = lambda claim, section: choice_answer("supports", 0.97)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    before = (suite.path / CASSETTE).read_bytes()
    assert before.count(b"- request:") == 5

    jev_server.answer = failing_on(3, reply)
    result = suite.runpytest("--citecheck-record-mode=rewrite")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*citation 'c3'*"])
    assert (suite.path / CASSETTE).read_bytes() == before

    offline()
    suite.runpytest().assert_outcomes(passed=1)


def test_a_rewrite_that_completes_replaces_the_cassette(suite: pytest.Pytester, jev_server: Any) -> None:
    suite.makepyfile(test_app=SYNC)
    jev_server.answer = lambda claim, section: choice_answer("supports", 0.97)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    jev_server.answer = lambda claim, section: choice_answer("supports", 0.91)
    suite.runpytest("--citecheck-record-mode=rewrite").assert_outcomes(passed=1)
    text = (suite.path / CASSETTE).read_text(encoding="utf-8")
    assert text.count("- request:") == 5 and '"confidence": 0.97' not in text
