"""How long pytest-citecheck waits out TypeSafe's rate limit before a citation fails.

The SDK's default ``RetryPolicy`` gives up after 2 retries or 30 s, whatever the error. A suite that
judges many citations concurrently meets the rate limit by design, and a 429 with ``Retry-After``
is the server saying "later", not "no": it should slow the run down, not fail it. So rate-limit
answers get many more retries and a longer budget, while every other retryable fault (5xx, 408,
connection errors, timeouts) keeps the SDK's defaults, so a real outage still fails fast.
typesafe_sdk and tenacity are imported inside the function: nothing here costs anything until a
client is built.
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typesafe_sdk import RetryPolicy

# Retries after a 429 (each waits Retry-After, or the SDK's backoff when the header is absent)...
RATE_LIMIT_RETRIES = 12
# ...within this many seconds of waiting for one request, after which the citation errors.
RATE_LIMIT_BUDGET_SECONDS = 180.0


class LastFailure:
    """Whether the last failed attempt of one request was a 429: when the request deadline cuts its
    retries short, the error says the server was rate-limiting, not just slow (``_judge.ask``)."""

    rate_limited = False


# The request in flight's ``LastFailure``, set by ``_judge.ask`` around one request; the retry
# policy runs in the request's thread (a copy of the context) or task, so it finds the same object.
LAST_FAILURE: contextvars.ContextVar[LastFailure | None] = contextvars.ContextVar(
    "citecheck_last_failure", default=None
)


def patient_retry_policy() -> RetryPolicy:
    """The SDK's default policy, except that 429s are retried ``RATE_LIMIT_RETRIES`` times / ``RATE_LIMIT_BUDGET_SECONDS``."""
    from tenacity import RetryCallState, stop_after_attempt, stop_before_delay
    from typesafe_sdk import RetryPolicy, TypeSafeRateLimitError

    class RateLimitPatientPolicy(RetryPolicy):
        # ``_stop`` is the SDK's seam for building tenacity's stop condition (typesafe_sdk._core.retry);
        # tests/check/test_concurrency.py fails if a new SDK stops honouring it, and pyproject.toml caps typesafe-sdk
        # below 0.8 for it (_dependencies.py). No public option gives 429s their own retry budget.
        def _stop(self) -> Any:
            usual = super()._stop()
            rate_limited = stop_after_attempt(RATE_LIMIT_RETRIES + 1) | stop_before_delay(RATE_LIMIT_BUDGET_SECONDS)

            def stop(state: RetryCallState) -> bool:
                error = state.outcome.exception() if state.outcome is not None else None
                last = LAST_FAILURE.get()
                if last is not None:
                    last.rate_limited = isinstance(error, TypeSafeRateLimitError)
                return bool(rate_limited(state) if isinstance(error, TypeSafeRateLimitError) else usual(state))

            return stop

    return RateLimitPatientPolicy()
