"""A script's ``Checker`` (a client, no cassette) keeps to Jev's limits and sends identical requests once,
as a pytest run does (issue 27 items 6 and 7; docs/reliability.md).

An evaluation script checking a few thousand answers is where the limits bite first: it sends as fast
as its threads allow. Each case asks, through the real SDK over HTTP, a loopback server that enforces a
scaled-down limit the way Jev does (429 beyond it); the checker is configured to the same limit, so the
server must refuse nothing. Nothing is timed here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient

from bench.limited_jev import LimitedJevServer
from pytest_citecheck import Checker, Source

SECTIONS = {str(n): f"{n}.  Section {n}\n\n   Rule {n} says that value {n} is allowed." for n in range(1, 41)}
SOURCE = Source(sections=SECTIONS)


def cited(first: int, count: int) -> list[dict[str, str]]:
    return [
        {"id": f"c{n}", "claim": f"claim {n}", "quote": f"value {n} is allowed", "section": str(n)}
        for n in range(first, first + count)
    ]


@pytest.fixture
def limited_server(canary_key: str) -> Iterator[Any]:
    servers: list[LimitedJevServer] = []

    def start(**limits: Any) -> LimitedJevServer:
        server = LimitedJevServer(**limits).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()  # its shared files go with it (``_judge.pacing.forget_server``)


def test_a_scripts_checker_keeps_to_the_rate_and_the_requests_in_flight(limited_server: Any, canary_key: str) -> None:
    # 600 a minute with a burst of 3, and 3 in flight: 30 citations sent as fast as 3 threads allow
    # would be some 60 a second; paced, they take about 2.5 s and the server refuses none.
    server = limited_server(max_rpm=600, burst=3, max_in_flight=3, hold=0.05)
    with TypeSafeClient(api_key=canary_key, base_url=server.url, compression=False) as client:
        results = Checker(client=client, rehearsal=True, max_rpm=600, concurrency=3).check(cited(1, 30), SOURCE)
    assert [result.verdict.value for result in results] == ["verified"] * 30
    assert server.refused == []
    assert len(server.systemone_requests) == 30


def test_a_scripts_async_checker_keeps_to_the_rate(limited_server: Any, canary_key: str) -> None:
    server = limited_server(max_rpm=600, burst=3, max_in_flight=3, hold=0.05)

    async def check() -> list[Any]:
        async with AsyncTypeSafeClient(api_key=canary_key, base_url=server.url, compression=False) as client:
            return await Checker(async_client=client, rehearsal=True, max_rpm=600, concurrency=3).acheck(
                cited(1, 30), SOURCE
            )

    results = asyncio.run(check())
    assert [result.verdict.value for result in results] == ["verified"] * 30
    assert server.refused == []


def test_a_scripts_checker_sends_identical_requests_once(limited_server: Any, canary_key: str) -> None:
    server = limited_server()
    same = {"claim": "claim 7", "quote": "value 7 is allowed", "section": "7"}
    citations = [{"id": f"same-{n}", **same} for n in range(3)] + cited(8, 1)
    with TypeSafeClient(api_key=canary_key, base_url=server.url, compression=False) as client:
        checker = Checker(client=client, rehearsal=True)
        results = checker.check(citations, SOURCE)
        again = checker.check([{"id": "same-again", **same}], SOURCE)
    assert [result.verdict.value for result in results + again] == ["verified"] * 5
    # One request for the three identical citations and the later check of the same one, one for claim 8.
    assert sorted(request.body["state"]["claim"] for request in server.systemone_requests) == ["claim 7", "claim 8"]
    assert [result.judgement.shared for result in results + again].count(True) == 3
