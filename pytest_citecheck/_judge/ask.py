"""Step 2 of the check: send one citation's ``Question`` to Jev, and read its answer strictly.

The request and its reading are ``_judge.request`` (the cookbook's question in ``_judge.relation``);
what can go wrong on the way is turned into a ``JudgeError`` naming the citation, the cause and the
remedy (``_judge.failures``): the check fails closed. typesafe_sdk is imported lazily, so a suite
that checks no citation never pays for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from pytest_citecheck._judge.failures import translate_error
from pytest_citecheck._judge.request import Question
from pytest_citecheck._results import Judgement

if TYPE_CHECKING:
    from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient


@contextmanager
def errors_translated(question: Question) -> Iterator[None]:
    """Turn what asking Jev raised into a ``JudgeError`` naming the citation (the check fails closed)."""
    try:
        yield
    except Exception as error:
        translated = translate_error(question.citation_id, error, record_hint=question.record_hint)
        if translated is None:
            raise
        raise translated from None


def ask(client: TypeSafeClient, question: Question) -> Judgement:
    """Ask Jev about one citation through a sync client."""
    with errors_translated(question):
        response = client.system_one(**question.request())
    return question.read(response)


async def ask_async(client: AsyncTypeSafeClient, question: Question) -> Judgement:
    """Ask Jev about one citation through an async client: ``ask``, awaiting the answer."""
    with errors_translated(question):
        response = await client.system_one(**question.request())
    return question.read(response)
