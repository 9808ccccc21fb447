"""Step 2 for every located citation: the only place where ``check`` and ``acheck`` differ.

``check`` asks Jev on a thread pool (one thread when replaying: nothing waits on the network) and
``acheck`` in an anyio task group; both bound the requests in flight by ``concurrency`` and both
hand back the outcomes in citation order, cut at the first citation that errored (``in_order``),
so the check fails closed the same way on either path.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pytest_citecheck._check.invalid import errored_result
from pytest_citecheck._check.wiring import Wiring, async_client_for_call
from pytest_citecheck._citations.model import Citation
from pytest_citecheck._errors import (
    CassetteMissError,
    CitationInputError,
    CitecheckError,
    errors_together,
    holding_warnings,
    stop_holding,
    warn_at_caller,
)
from pytest_citecheck._gate import judged_result
from pytest_citecheck._gate.human import with_human_decision
from pytest_citecheck._judge.ask import ask, ask_async
from pytest_citecheck._judge.outgoing import Outgoing, copied, sending
from pytest_citecheck._judge.request import Question, question_for
from pytest_citecheck._locate.citations import Assembly, Located
from pytest_citecheck._locate.finders import Documents
from pytest_citecheck._options import Settings
from pytest_citecheck._recording.checking import (
    ModelPins,
    against_recordings,
    asking,
    import_for_threads,
    open_cassette,
    replayed,
)
from pytest_citecheck._rehearsal import REHEARSAL_REMEDY, SCRIPT_REHEARSAL_REMEDY
from pytest_citecheck._results import CitationResult, Judgement

if TYPE_CHECKING:
    from pytest_citecheck._judge.sharing import SharedAnswers
    from pytest_citecheck._recording.cassette import TestCassette
    from pytest_citecheck._recording.plays import PlayCount

Item = TypeVar("Item")
Outcomes = dict[int, "CitationResult | BaseException"]


@dataclass
class Plan:
    """One call's work after step 1: its settings, the source, the citations and what step 1 found."""

    settings: Settings
    source: Documents
    citations: list[Citation]
    located: list[CitationResult | Located | Assembly]
    # Sentences of the answer's own text that cite nothing (``require_cited_sentences``), and the first
    # citation that could not be checked as given (``_check.invalid``): raised once the others are checked.
    uncited: list[str] = field(default_factory=list)
    invalid: CitationInputError | None = None


@dataclass
class Asking:
    """Steps 2 to 4 for one located citation of a call: its request to Jev, recorded or replayed, then gated."""

    plan: Plan
    cassette: TestCassette | None
    record_hint: str
    # The run's answers to identical requests (``_judge.sharing``): each is sent once.
    shared: SharedAnswers | None = None
    # The model-pinning warnings, said once per cause for the run after every citation is judged.
    pins: ModelPins = field(default_factory=ModelPins)

    def judge(self, client: Any, index: int) -> CitationResult:
        """Ask through a sync client (on a worker thread, or this one)."""
        open_cassette(self.cassette, self.plan.citations[index].id, self.record_hint)
        question = self._question(index)
        outgoing = Outgoing.under(self.plan.settings, self.shared)
        with asking(self.cassette) as played, sending(outgoing):
            judgement = ask(client, question)
        return self._result(index, question, copied(judgement, outgoing), played)

    async def ajudge(self, client: Any, index: int) -> CitationResult:
        """Ask through an async client (in a task); the cassette is already open."""
        question = self._question(index)
        outgoing = Outgoing.under(self.plan.settings, self.shared)
        with asking(self.cassette) as played, sending(outgoing):
            judgement = await ask_async(client, question)
        return self._result(index, question, copied(judgement, outgoing), played)

    def _question(self, index: int) -> Question:
        citation, located = self.plan.citations[index], self.plan.located[index]
        assert isinstance(located, (Located, Assembly))
        live = self.cassette is None or self.cassette.record_mode != "none"  # replay only: no network
        text = located.judged_text(self.plan.source)
        # The rehearsal server's answers are refused unless opted in (``Judgement.rehearsal`` counts them then),
        # a script's checker (no cassette) too: a script left pointing at the server would report its table's
        # answers as Jev's. Its remedy is the constructor's keyword, not pytest's flag.
        remedy = SCRIPT_REHEARSAL_REMEDY if self.cassette is None else REHEARSAL_REMEDY
        return question_for(citation, text, self.plan.settings, self.record_hint, live=live, rehearsal_remedy=remedy)

    def _result(self, index: int, question: Question, judgement: Judgement, played: PlayCount) -> CitationResult:
        """Jev's judgement of a located citation, compared with what was recorded before (step 4) and gated (step 3)."""
        __tracebackhide__ = True
        citation, located, settings = self.plan.citations[index], self.plan.located[index], self.plan.settings
        assert isinstance(located, (Located, Assembly))
        judgement = replayed(judgement, played)
        previous = against_recordings(
            self.cassette,
            (index, citation.id),
            (citation.claim, question.section_text),
            judgement,
            strict_model=settings.strict_model,
            drift_tolerance=settings.drift_tolerance,
            record_hint=self.record_hint,
            pins=self.pins,
        )
        return judged_result(
            citation, located, judgement, settings, judged_text=question.section_text, previous=previous
        )


def ask_on_threads(step: Asking, client: Callable[[], Any], indices: list[int]) -> Outcomes:
    """``check``'s step 2: up to ``concurrency`` threads (one when replaying: nothing waits on the network)."""
    workers = min(step.plan.settings.concurrency, len(indices))
    replay = step.cassette is not None and (step.cassette.record_mode == "none" or step.plan.settings.estimate)
    if replay:
        # Replay only (or an estimate, which sends nothing): every answer comes from memory (or the check
        # fails on a miss) and nothing waits on the network, so threads would only add their start-up and GIL contention.
        workers = 1
    if workers > 1 or replay:
        if workers > 1:
            import_for_threads()  # before any thread starts (see there)
        try:
            # On this thread, before any worker starts (or the first request): the cassette is read
            # once, here (or refused: closed when its test ended), and the client may come from a pytest fixture.
            open_cassette(step.cassette, step.plan.citations[indices[0]].id, step.record_hint)
            client()
        except Exception as error:
            return {indices[0]: error}
    with _serving_throughout(step.cassette if replay else None):
        outcomes = judge_on_threads(indices, lambda index: step.judge(client(), index), workers, goes_on=_goes_on(step))
    step.pins.say(outcomes)
    return outcomes


def _serving_throughout(cassette: TestCassette | None) -> contextlib.AbstractContextManager[Any]:
    """Replaying on this one thread: the cassette's patches stay in place from the first request to
    the last, rather than put in and taken out around each (a class's attributes set twice per
    citation, and what the interpreter had cached about the class lost each time). Nothing but this
    check runs on this thread in between; each request still counts itself in (``asking``)."""
    recording = cassette.replaying if cassette is not None else None
    return recording.serving() if recording is not None else contextlib.nullcontext()


def _goes_on(step: Asking) -> Callable[[BaseException], bool]:
    """Which errors let the check go on with the next citation, rather than stop at the first error.

    In an estimate run, a request counted and not sent (``NotSent``): the next is still asked (and
    counted). Replaying only, any error of ours (a miss, a model mismatch under ``strict_model``, a
    recorded answer that is not usable, a warning made an error): nothing is sent, so every other
    citation is judged from the cassette and every error is named at once (``failure``), not one per
    run. Recording stops at the first error: a server that is down or refuses the key would otherwise be
    asked once per citation. Anything else (not ours: a bug) stops the check wherever it is raised.
    """
    cassette = step.cassette
    counted: tuple[type[BaseException], ...] = ()
    if step.plan.settings.estimate:
        from pytest_citecheck._estimate.recording import NotSent

        counted = (NotSent,)

    def goes_on(error: BaseException) -> bool:
        if isinstance(error, counted):
            return True
        # ``replaying``: an open cassette that can only be replayed (``replay.Recording``).
        return isinstance(error, (CitecheckError, Warning)) and cassette is not None and cassette.replaying is not None

    return goes_on


async def ask_in_tasks(step: Asking, async_client_factory: Callable[[], Any] | None, indices: list[int]) -> Outcomes:
    """``acheck``'s step 2: up to ``concurrency`` tasks under asyncio or trio."""
    try:
        open_cassette(step.cassette, step.plan.citations[indices[0]].id, step.record_hint)
        client, owned = async_client_for_call(async_client_factory)
    except Exception as error:  # the first citation's error, as on threads: every citation is still reported
        return {indices[0]: error}
    try:
        outcomes = await judge_in_tasks(
            indices, lambda index: step.ajudge(client, index), step.plan.settings.concurrency
        )
    finally:
        if owned:
            # Its connections belong to this call's event loop: closed here, while it runs.
            await client.aclose()
    step.pins.say(outcomes)
    return outcomes


def settle_estimate(plan: Plan, outcomes: Outcomes, cassette: Any, skip: Callable[[str], object] | None) -> None:
    """An estimate run (``--citecheck-estimate``): a check that would have sent a request is skipped, unjudged."""
    __tracebackhide__ = True
    if plan.settings.estimate:
        from pytest_citecheck._estimate.recording import settle

        settle(outcomes, cassette, skip)


def pending(located: Sequence[CitationResult | Item]) -> list[int]:
    """The indices step 1 did not settle: those step 2 must judge."""
    return [index for index, item in enumerate(located) if not isinstance(item, CitationResult)]


def in_order(
    located: Sequence[CitationResult | Item], outcomes: Outcomes
) -> tuple[list[CitationResult], BaseException | None]:
    """Every result in citation order up to the first error (in order), and that error.

    A citation is left without an outcome only after an earlier one failed, which ends the list there.
    """
    results: list[CitationResult] = []
    for index, item in enumerate(located):
        outcome = item if isinstance(item, CitationResult) else outcomes.get(index)
        if isinstance(outcome, BaseException):
            return results, outcome
        assert outcome is not None
        results.append(outcome)
    return results, None


def finish(plan: Plan, outcomes: Outcomes, wiring: Wiring, kept: list[CitationResult]) -> list[CitationResult]:
    """The results in citation order (up to the first error), each with a human's decision applied
    (before the gate) and reported as it is made (``wiring.on_result``) and ``kept``; then the first
    error (an invalid citation's, else a request's) is raised. Every citation of the call is reported,
    those after the first error too: each with what it got (``reported_after``)."""
    __tracebackhide__ = True
    judged, error = in_order(plan.located, outcomes)
    results = []
    for result in judged:
        result = with_human_decision(result, plan.source, wiring.reviews, wiring.test_id)
        results.append(result)
        kept.append(result)
        if wiring.on_result is not None:
            wiring.on_result(result)  # an invalid citation's result too: verdict errored, with its cause
    if error is not None and wiring.on_result is not None:
        for result in reported_after(plan, outcomes, len(judged), wiring):
            wiring.on_result(result)
    replaying = wiring.cassette is not None and wiring.cassette.replaying is not None
    if plan.invalid is not None:
        raise plan.invalid if error is None else plan.invalid.with_others(failure(outcomes, replaying=replaying))
    if error is not None:
        raise failure(outcomes, replaying=replaying)
    return results


def failure(outcomes: Outcomes, *, replaying: bool) -> BaseException:
    """What a check whose requests raised fails with: its first error, in citation order; or, when replay
    raised for several citations (``replaying``: it goes on past its errors), one error naming each, in
    citation order, with its cause and remedy: a ``CassetteMissError`` naming every miss, then every other
    error; with no miss and every error ours, of the class the errors share (``errors_together``).
    Recording, the first error stands for the rest (requests already in flight when the server refused
    the key fail alike: each is in its row)."""
    errors = [outcome for _, outcome in sorted(outcomes.items()) if isinstance(outcome, BaseException)]
    if len(errors) < 2:
        return errors[0]
    misses = [error for error in errors if isinstance(error, CassetteMissError)]
    if not misses:
        # Only ours, and only replaying: anything else (a bug) stops the check, and is raised as it is.
        ours = replaying and all(isinstance(error, (CitecheckError, Warning)) for error in errors)
        return errors_together(errors) if ours else errors[0]
    return CassetteMissError.together(misses, [error for error in errors if not isinstance(error, CassetteMissError)])


def reported_after(plan: Plan, outcomes: Outcomes, first: int, wiring: Wiring) -> list[CitationResult]:
    """What the reports list for the citations from the first that errored (index ``first``) on: an
    error is an ``errored`` result naming its cause; a result (judged on another thread or task before
    the error stopped the check, or settled by step 1) is itself; a citation never asked is ``errored``,
    naming the citation whose error stopped the check (replay goes on past a cassette miss: the first
    other error, if any). None is left out: a report that listed only the citations before the error
    would read as if they were all there was, all verified."""
    errors = [index for index in sorted(outcomes) if isinstance(outcomes[index], BaseException)]
    stopped_at = next((index for index in errors if not isinstance(outcomes[index], CassetteMissError)), first)
    stopper = plan.citations[stopped_at].id
    stopping = outcomes[stopped_at]
    reported = []
    for index in range(first, len(plan.located)):
        item = plan.located[index]
        outcome = item if isinstance(item, CitationResult) else outcomes.get(index)
        citation = plan.citations[index]
        where = item if isinstance(item, (Located, Assembly)) else None
        if isinstance(outcome, BaseException):
            reported.append(errored_result(citation, where, outcome))
        elif outcome is None:
            assert isinstance(stopping, BaseException)
            reported.append(errored_result(citation, where, stopping, stopped_at=stopper))
        else:
            reported.append(with_human_decision(outcome, plan.source, wiring.reviews, wiring.test_id))
    return reported


def judge_on_threads(
    indices: list[int],
    judge: Callable[[int], CitationResult],
    workers: int,
    *,
    goes_on: Callable[[BaseException], bool] = lambda error: False,
) -> Outcomes:
    """Judge ``indices`` with up to ``workers`` threads; on the first error the rest are cancelled.

    ``goes_on``: whether the check goes on after an error (an estimate's ``NotSent``, a miss in replay).
    """
    outcomes: Outcomes = {}
    if workers <= 1:
        for index in indices:
            try:
                outcomes[index] = judge(index)
            except Exception as error:
                outcomes[index] = error
                if not goes_on(error):
                    break
        return outcomes
    held: list[tuple[int, Warning]] = []

    def judged(index: int) -> CitationResult:
        token = holding_warnings(index, held)  # issued below, on this call's thread
        try:
            return judge(index)
        finally:
            stop_holding(token)

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="citecheck") as pool:
        futures: dict[int, Future[CitationResult]] = {index: pool.submit(judged, index) for index in indices}
        waiting: set[Future[CitationResult]] = set(futures.values())
        while waiting:
            done, waiting = wait(waiting, return_when=FIRST_EXCEPTION)
            if any((failed := future.exception()) is not None and not goes_on(failed) for future in done):
                for future in futures.values():
                    future.cancel()
                break
    for index, future in futures.items():
        if not future.cancelled():
            failure = future.exception()
            outcomes[index] = failure if failure is not None else future.result()
    issue_held(held, outcomes)
    return outcomes


def issue_held(held: list[tuple[int, Warning]], outcomes: Outcomes) -> None:
    """The warnings held while judging on threads or in tasks, issued at the test's line; one raised
    (``filterwarnings = error``) is its citation's outcome, as it would have been, issued there. In
    citation order (threads and tasks finish in any order), each citation's in the order it issued them."""
    for index, warning in sorted(held, key=lambda pair: pair[0]):
        try:
            warn_at_caller(warning)
        except Warning as error:
            outcomes[index] = error


async def judge_in_tasks(indices: list[int], judge: Callable[[int], Awaitable[CitationResult]], limit: int) -> Outcomes:
    """Judge ``indices`` concurrently, at most ``limit`` at once, under asyncio or trio (anyio)."""
    import anyio

    outcomes: Outcomes = {}
    semaphore = anyio.Semaphore(limit)

    held: list[tuple[int, Warning]] = []

    async def one(index: int) -> None:
        holding_warnings(index, held)  # in this task's own context; issued below, in the caller's
        async with semaphore:
            try:
                outcomes[index] = await judge(index)
            except Exception as error:  # kept, so one citation's error does not cancel the others' answers
                outcomes[index] = error

    async with anyio.create_task_group() as group:
        for index in indices:
            group.start_soon(one, index)
    issue_held(held, outcomes)
    return outcomes
