"""Step 2 for every located citation: the only place where ``check`` and ``acheck`` differ.

``check`` asks Jev on a thread pool (one thread when replaying: nothing waits on the network) and
``acheck`` in an anyio task group; both bound the requests in flight by ``concurrency`` and both
hand back the outcomes in citation order, cut at the first citation that errored (``in_order``),
so the check fails closed the same way on either path.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import TypeVar

from pytest_citecheck._results import CitationResult

Item = TypeVar("Item")
Outcomes = dict[int, "CitationResult | BaseException"]


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


def judge_on_threads(indices: list[int], judge: Callable[[int], CitationResult], workers: int) -> Outcomes:
    """Judge ``indices`` with up to ``workers`` threads; on the first error the rest are cancelled."""
    outcomes: Outcomes = {}
    if workers <= 1:
        for index in indices:
            try:
                outcomes[index] = judge(index)
            except Exception as error:
                outcomes[index] = error
                break
        return outcomes
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="citecheck") as pool:
        futures: dict[int, Future[CitationResult]] = {index: pool.submit(judge, index) for index in indices}
        done, _ = wait(futures.values(), return_when=FIRST_EXCEPTION)
        if any(future.exception() is not None for future in done):
            for future in futures.values():
                future.cancel()
    for index, future in futures.items():
        if not future.cancelled():
            failure = future.exception()
            outcomes[index] = failure if failure is not None else future.result()
    return outcomes


async def judge_in_tasks(indices: list[int], judge: Callable[[int], Awaitable[CitationResult]], limit: int) -> Outcomes:
    """Judge ``indices`` concurrently, at most ``limit`` at once, under asyncio or trio (anyio)."""
    import anyio

    outcomes: Outcomes = {}
    semaphore = anyio.Semaphore(limit)

    async def one(index: int) -> None:
        async with semaphore:
            try:
                outcomes[index] = await judge(index)
            except Exception as error:  # kept, so one citation's error does not cancel the others' answers
                outcomes[index] = error

    async with anyio.create_task_group() as group:
        for index in indices:
            group.start_soon(one, index)
    return outcomes
