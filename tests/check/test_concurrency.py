"""Live checking judges citations concurrently, keeps their order, fails closed, and waits out 429s.

These run the real ``Checker`` with the real SDK over HTTP against the loopback ``JevServer``.
Nothing here is timed: concurrency is proven by a barrier that only opens when several requests
are in flight at once, and the bound by counting them.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from pytest_citecheck import Checker, JudgeError, Source, Status, Verdict
from pytest_citecheck._check.checker import checker_for
from pytest_citecheck._options import Settings
from pytest_citecheck._recording.cassette import TestCassette
from pytest_citecheck._recording.cassette_file import read_interactions
from pytest_citecheck.testing import JevServer, Reply

SECTIONS = {
    str(n): f"{n}.  Section {n}\n\n   Paragraph number {n} says that value {n} is allowed." for n in range(1, 41)
}
SOURCE = Source(sections=SECTIONS)


def citations(count: int) -> list[dict[str, str | None]]:
    """Found quotes, with every fifth one fabricated and every seventh claim-only."""
    made: list[dict[str, str | None]] = []
    for n in range(1, count + 1):
        if n % 5 == 0:
            made.append({"id": f"c{n}", "claim": f"claim {n}", "quote": f"value {n} is forbidden", "section": None})
        elif n % 7 == 0:
            made.append({"id": f"c{n}", "claim": f"claim {n}", "quote": None, "section": str(n)})
        else:
            made.append({"id": f"c{n}", "claim": f"claim {n}", "quote": f"value {n} is allowed", "section": None})
    return made


def client_factory(server: JevServer):
    def build():
        from typesafe_sdk import TypeSafeClient

        from pytest_citecheck._judge.retry import patient_retry_policy

        return TypeSafeClient(api_key="sk-test", base_url=server.url, compression=False, retry=patient_retry_policy())

    return build


def check(checker: Checker, cited: list[dict[str, str | None]]) -> list:
    """``checker.check`` over ``SOURCE``, closing the client it built (the plugin's fixture does that in a run)."""
    try:
        return checker.check(cited, SOURCE)
    finally:
        if checker._client is not None:
            checker._client.close()
        checker.close()


class InFlight:
    """Counts requests the server is answering at once; the first ``parties`` wait for each other."""

    def __init__(self, parties: int) -> None:
        self.barrier = threading.Barrier(parties, timeout=10)
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0
        self.calls = 0

    def __call__(self, claim: str, section: str) -> tuple[str, float]:
        with self.lock:
            self.now += 1
            self.calls += 1
            self.most = max(self.most, self.now)
            first_wave = self.calls <= self.barrier.parties
        try:
            if first_wave:
                self.barrier.wait()  # BrokenBarrierError (a 500) unless `parties` requests overlap
            number = int(claim.split()[-1])
            return ("contradicts" if number % 3 == 0 else "supports", 0.97)
        finally:
            with self.lock:
                self.now -= 1


def test_citations_are_judged_concurrently_up_to_the_limit_and_results_keep_their_order() -> None:
    flight = InFlight(parties=4)
    with JevServer(flight, latency=0.02) as server:
        checker = checker_for(settings=Settings(concurrency=4, rehearsal=True), client_factory=client_factory(server))
        results = check(checker, citations(30))
    assert [r.id for r in results] == [f"c{n}" for n in range(1, 31)]
    assert flight.most == 4  # the barrier needed 4 at once; the pool never allowed a 5th
    expected = []
    for n in range(1, 31):
        if n % 5 == 0:
            expected.append((Status.MISSING, Verdict.FABRICATED))
        else:
            status = Status.SECTION_ONLY if n % 7 == 0 else Status.FOUND
            expected.append((status, Verdict.CONTRADICTED if n % 3 == 0 else Verdict.VERIFIED))
    assert [(r.status, r.verdict) for r in results] == expected
    assert all(r.section == str(n) for r, n in zip(results, range(1, 31)) if r.status is not Status.MISSING)
    assert len(server.systemone_requests) == 24  # fabricated quotes never reach the model


def test_concurrency_one_asks_one_citation_at_a_time() -> None:
    flight = InFlight(parties=1)
    with JevServer(flight) as server:
        check(
            checker_for(settings=Settings(concurrency=1, rehearsal=True), client_factory=client_factory(server)),
            citations(12),
        )
    assert flight.most == 1


def test_a_failing_citation_fails_the_check_with_the_first_failure_in_citation_order() -> None:
    def answer(claim: str, section: str) -> tuple[str, float] | Reply:
        if claim in ("claim 4", "claim 9"):
            # The later citation fails first, so the error chosen is the order's, not the clock's.
            return Reply(422, {"detail": "bad request"}, delay=0.3 if claim == "claim 4" else 0.0)
        return ("supports", 0.97)

    reported = []
    with JevServer(answer) as server:
        checker = checker_for(
            settings=Settings(concurrency=8, rehearsal=True),
            client_factory=client_factory(server),
            on_result=reported.append,
        )
        with pytest.raises(JudgeError) as raised:
            check(checker, citations(12))
    assert raised.value.citation == "c4"
    assert "HTTP 422" in str(raised.value)
    # Every citation is reported, in order: those before the failing one with their verdicts; the failing
    # ones errored, naming their cause; the rest as judged before the check stopped, or errored, not checked.
    assert [r.id for r in reported] == [f"c{n}" for n in range(1, 13)]
    assert [r.verdict for r in reported[:4]] == [Verdict.VERIFIED] * 3 + [Verdict.ERRORED]
    assert reported[3].error is not None and reported[3].error[0] == "JudgeError"
    assert "HTTP 422" in reported[3].error[1]
    stopped = "not checked: the check stopped at citation 'c4', whose check raised first"
    for result in reported[4:]:  # its own result, c9's own error if c9 was asked in time, or not checked
        assert (
            result.error is None or result.error[1] == stopped or (result.id == "c9" and "HTTP 422" in result.error[1])
        )
        assert (result.error is None) == (result.verdict is not Verdict.ERRORED)
    assert checker.results == reported[:3]  # the results the check kept: those before the error


def test_concurrent_recording_then_replay_gives_the_same_verdicts(tmp_path: Path) -> None:
    path = tmp_path / "cassette.yaml"
    with JevServer(InFlight(parties=3)) as server:
        recorder = checker_for(
            settings=Settings(concurrency=3, record_mode="once", model="jev-1.13.0", rehearsal=True),
            client_factory=client_factory(server),
            cassette=TestCassette(path, "once"),
        )
        recorded = check(recorder, citations(20))
    assert not any(r.judgement.replayed for r in recorded if r.judgement)
    with JevServer(lambda claim, section: Reply(500, {"detail": "must not be asked"})) as offline:
        replayer = checker_for(
            settings=Settings(concurrency=8, model="jev-1.13.0", rehearsal=True),
            client_factory=client_factory(offline),
            cassette=TestCassette(path, "none"),
        )
        replayed = check(replayer, citations(20))
        assert offline.systemone_requests == []
    assert [(r.id, r.verdict, r.confidence) for r in replayed] == [(r.id, r.verdict, r.confidence) for r in recorded]
    judged = [r for r in replayed if r.judgement is not None]
    assert judged and all(r.judgement.replayed for r in judged)


def test_identical_requests_are_recorded_once_and_that_answer_replays_for_each(tmp_path: Path) -> None:
    path = tmp_path / "cassette.yaml"
    same = [{"id": f"dup{n}", "claim": "claim 3", "quote": "value 3 is allowed", "section": None} for n in range(6)]
    with JevServer(lambda claim, section: ("supports", 0.97)) as server:
        recorder = checker_for(
            settings=Settings(concurrency=6, model="jev-1.13.0", rehearsal=True),
            client_factory=client_factory(server),
            cassette=TestCassette(path, "once"),
        )
        check(recorder, same)
        assert len(server.systemone_requests) == 1  # sent once, the answer shared (_judge.sharing)
    assert len(read_interactions(path)) == 1  # one question, one recording (two would be refused when read)
    with JevServer(lambda claim, section: Reply(500, {"detail": "must not be asked"})) as offline:
        replayer = checker_for(
            settings=Settings(concurrency=6, model="jev-1.13.0", rehearsal=True),
            client_factory=client_factory(offline),
            cassette=TestCassette(path, "none"),
        )
        results = check(replayer, same)
        assert offline.systemone_requests == []
    assert [r.verdict for r in results] == [Verdict.VERIFIED] * 6
    assert replayer.cassette is not None and replayer.cassette.play_count == 6


def test_a_rate_limit_with_retry_after_slows_the_run_down_instead_of_failing_it(
    suite: pytest.Pytester, jev_server: JevServer
) -> None:
    # More 429s than the SDK's default policy (2 retries) would sit out for one request.
    limited = 5
    lock = threading.Lock()
    seen = {"calls": 0}
    real_answer = jev_server.answer

    def answer(claim: str, section: str):
        with lock:
            seen["calls"] += 1
            call = seen["calls"]
        if call <= limited:
            return Reply(429, {"detail": "Too many requests"}, {"retry-after": "0.05"})
        return real_answer(claim, section)

    jev_server.answer = answer
    suite.makepyfile(
        test_app="""
        from pytest_citecheck import assert_citations_supported
        from cookbook import SOURCE, pick

        def test_accurate():
            assert_citations_supported(pick("epoch_seconds"), SOURCE)
        """
    )
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(passed=1)
    assert len(jev_server.systemone_requests) == limited + 1
    # The SDK numbers its retries: the server saw one request retried `limited` times, not new requests.
    retry_counts = [
        {k.lower(): v for k, v in r.headers.items()}.get("x-typesafe-retry-count")
        for r in jev_server.systemone_requests
    ]
    assert retry_counts == [None, *(str(n) for n in range(1, limited + 1))]
