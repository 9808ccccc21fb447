"""Step 2 of the check: send one citation's ``Question`` to Jev, and read its answer strictly.

The request and its reading are ``_judge.request`` (the cookbook's question in ``_judge.relation``);
what can go wrong on the way is turned into a ``JudgeError`` naming the citation, the cause and the
remedy (``_judge.failures``): the check fails closed. typesafe_sdk is imported lazily, so a suite
that checks no citation never pays for it.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from pytest_citecheck._errors import JudgeError
from pytest_citecheck._judge.failures import RequestDeadlineExceeded, translate_error
from pytest_citecheck._judge.judgement import Judgement
from pytest_citecheck._judge.no_key import NO_KEY_CAUSE, NO_KEY_REMEDY, no_key_was_set
from pytest_citecheck._judge.request import Question
from pytest_citecheck._judge.retry import LAST_FAILURE, LastFailure

if TYPE_CHECKING:
    from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient


def _translated(question: Question, error: BaseException, client: Any) -> JudgeError | None:
    """``translate_error``; a 401 to a client the plugin built with no key set says so (``_judge.no_key``)."""
    if no_key_was_set(client, error):
        return JudgeError(question.citation_id, NO_KEY_CAUSE, NO_KEY_REMEDY)
    return translate_error(question.citation_id, error, record_hint=question.record_hint)


@contextmanager
def errors_translated(question: Question, client: Any = None) -> Iterator[None]:
    """Turn what asking Jev raised into a ``JudgeError`` naming the citation (the check fails closed)."""
    try:
        yield
    except Exception as error:
        translated = _translated(question, error, client)
        if translated is None:
            raise
        raise translated from None


def ask(client: TypeSafeClient, question: Question) -> Judgement:
    """Ask Jev about one citation through a sync client, within the question's deadline."""
    # ``errors_translated``, spelt out: asked once per citation, and most often with no deadline (replaying).
    try:
        if question.deadline is None:
            response = client.system_one(**question.request())
        else:
            response = within_deadline(lambda: client.system_one(**question.request()), question.deadline)
    except Exception as error:
        translated = _translated(question, error, client)
        if translated is None:
            raise
        raise translated from None
    return question.read(response)


async def ask_async(client: AsyncTypeSafeClient, question: Question) -> Judgement:
    """Ask Jev about one citation through an async client: ``ask``, awaiting the answer."""
    with errors_translated(question, client):
        response = await awaited_within_deadline(lambda: client.system_one(**question.request()), question.deadline)
    return question.read(response)


def within_deadline(call: Callable[[], Any], deadline: float | None) -> Any:
    """``call()``, or ``RequestDeadlineExceeded`` once ``deadline`` seconds have passed without its answer.

    The SDK's own timeout is per read, so the call runs on a daemon thread this one waits for: a
    server that trickles its answer keeps only that thread (until it finishes or its client closes),
    never the test. The thread runs in a copy of this context, so the cassette counts its plays; an
    answer that arrives after the deadline is never accepted, so never saved.
    """
    if deadline is None:
        return call()
    outcome: dict[str, Any] = {}
    done = threading.Event()
    last = LastFailure()

    def run() -> None:
        try:
            outcome["answer"] = call()
        except BaseException as error:  # handed to the waiting thread, raised there
            outcome["error"] = error
        finally:
            done.set()

    context = contextvars.copy_context()
    context.run(LAST_FAILURE.set, last)
    threading.Thread(target=context.run, args=(run,), name="citecheck-request", daemon=True).start()
    if not done.wait(deadline):
        raise RequestDeadlineExceeded(deadline, rate_limited=last.rate_limited)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["answer"]


async def awaited_within_deadline(call: Callable[[], Awaitable[Any]], deadline: float | None) -> Any:
    """``await call()``, cancelled with ``RequestDeadlineExceeded`` after ``deadline`` seconds (asyncio or trio)."""
    if deadline is None:
        return await call()
    import anyio

    last = LastFailure()
    token = LAST_FAILURE.set(last)
    try:
        with anyio.move_on_after(deadline):
            return await call()
    finally:
        LAST_FAILURE.reset(token)
    raise RequestDeadlineExceeded(deadline, rate_limited=last.rate_limited)
