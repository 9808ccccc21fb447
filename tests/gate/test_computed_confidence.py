"""The gate uses the lower of the reported and the computed confidence (issue 24, item 9).

Probabilities 0.86/0.07/0.07 give 0.79 by TypeSafe's formula, ``(max p - 1/k) / (1 - 1/k)``; a
reported 0.81 is within the reading's tolerance of it, so the answer is read, but it must not carry
the verdict over ``auto_accept`` 0.8. The real SDK over HTTP to the loopback JevServer, sync and async.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient

from pytest_citecheck import Checker, CitationResult, CitationReviewWarning, Source, Verdict
from pytest_citecheck.testing import JevServer

SOURCE = Source(sections={"1": "Refunds are granted within 30 days of purchase, on request."})
CITATION = {"id": "r1", "claim": "Refunds are possible for 30 days.", "quote": "granted within 30 days", "section": "1"}
PROBABILITIES = {"supports": 0.86, "contradicts": 0.07, "says_nothing": 0.07}


def answer(reported: float) -> Any:
    def script(claim: str, section: str) -> dict[str, Any]:
        return {"type": "choice", "choice": "supports", "probabilities": PROBABILITIES, "confidence": reported}

    return script


def check_sync(server: JevServer) -> list[CitationResult]:
    client = TypeSafeClient(api_key="sk-test", base_url=server.url, compression=False)
    try:
        with pytest.warns(CitationReviewWarning) as warned:
            results = Checker(client=client, rehearsal=True, auto_accept=0.8).assert_supported([CITATION], SOURCE)
    finally:
        client.close()
    assert "0.81 (computed 0.79)" in str(warned[0].message)
    return results


def check_async(server: JevServer) -> list[CitationResult]:
    async def main() -> list[CitationResult]:
        client = AsyncTypeSafeClient(api_key="sk-test", base_url=server.url, compression=False)
        try:
            with pytest.warns(CitationReviewWarning):
                return await Checker(async_client=client, rehearsal=True, auto_accept=0.8).aassert_supported(
                    [CITATION], SOURCE
                )
        finally:
            await client.aclose()

    return anyio.run(main)


@pytest.mark.parametrize("check", [check_sync, check_async], ids=["sync", "async"])
def test_a_reported_confidence_above_the_formula_does_not_carry_a_verdict_over_auto_accept(check: Any) -> None:
    with JevServer(answer(0.81)) as server:
        [result] = check(server)
    assert result.verdict is Verdict.VERIFIED
    assert result.confidence == 0.81 and result.computed_confidence == 0.79
    assert not result.auto and result.needs_review


@pytest.mark.parametrize("reported", [0.79, 0.78])
def test_when_the_reported_confidence_is_the_lower_the_gate_uses_it_and_nothing_extra_is_shown(
    reported: float,
) -> None:
    with JevServer(answer(reported)) as server:
        client = TypeSafeClient(api_key="sk-test", base_url=server.url, compression=False)
        [result] = Checker(client=client, rehearsal=True, auto_accept=0.785).check([CITATION], SOURCE)
        client.close()
    assert result.auto is (reported >= 0.785)
    assert result.computed_confidence is None and result.judgement.computed_confidence == 0.79
