"""What ties a ``Checker`` to its surroundings: its settings, clients, cassette, reviews and callbacks.

The plugin wires a checker to one test (``checker_for`` in ``checker``); a user's ``Checker(...)``
gets the standalone wiring: the clients it was given (or the SDK's, from the environment), no
cassette and no report.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_citecheck._gate.messages import DEFAULT_REVIEW_COMMAND
from pytest_citecheck._judge.sharing import SharedAnswers
from pytest_citecheck._options import Settings
from pytest_citecheck._results import CitationResult

if TYPE_CHECKING:
    from pytest_citecheck._gate.human import Decisions
    from pytest_citecheck._recording.cassette import TestCassette

DEFAULT_RECORD_HINT = "run the test with --citecheck-record-mode=once and TYPESAFE_API_KEY set"


@dataclass(kw_only=True)
class Wiring:
    """Everything a checker uses besides the citations: built by the plugin for each test."""

    settings: Settings
    # The sync client (built on first use) and the async one: a client, which its provider closes, or a
    # callable building one per ``acheck``, which that call closes (``async_client_for_call``).
    client_factory: Callable[[], Any]
    async_client_factory: Callable[[], Any] | None = None
    cassette: TestCassette | None = None
    test_id: str | None = None
    record_hint: str = DEFAULT_RECORD_HINT
    # What the failure and review messages tell a reviewer to run: the command that finds the run's
    # report (``_gate.messages.review_command``), or None when the run keeps none (no JSON report, no cache).
    review_command: str | None = DEFAULT_REVIEW_COMMAND
    on_result: Callable[[CitationResult], None] | None = None
    # What a review does, by review policy ("xfail", "skip"; "warn" is the gate's own).
    review_actions: Mapping[str, Callable[[str], None]] = field(default_factory=dict)
    marker_options: Mapping[str, Any] = field(default_factory=dict)
    # Where the marker that gave a keyword is (``@pytest.mark.citecheck(...) on class TestX (test_x.py:8)``),
    # for the error of a refused keyword: asked only then.
    marker_origin: Callable[[str], str] | None = None
    hooks: Any = None
    reviews: Callable[[], Decisions | None] | None = None
    # Answers to identical requests, sent once (``_judge.sharing``): the plugin's one per session, else the checker's own.
    shared_answers: SharedAnswers = field(default_factory=SharedAnswers)
    # The model-pinning causes already warned of (``_recording.checking.ModelPins``), each said once: the
    # plugin's one per session, else the checker's own.
    pins_said: set[tuple[str, str]] = field(default_factory=set)
    # The test function's code: a check on a thread that runs the test's own body (pytest-run-parallel)
    # raises through the test, which has its failure (``_check.off_thread``).
    test_code: Any = None


def standalone(settings: Settings, client: Any = None, async_client: Any = None) -> Wiring:
    """A user's checker: the clients given, or the SDK's built from the environment (``TYPESAFE_API_KEY``)."""

    def live_client() -> Any:
        if client is not None:
            return client
        from typesafe_sdk import TypeSafeClient

        return built_live(TypeSafeClient)

    def live_async_client() -> Any:
        if async_client is not None:
            return async_client
        from typesafe_sdk import AsyncTypeSafeClient

        return lambda: built_live(AsyncTypeSafeClient)  # one per call, closed by it

    return Wiring(settings=settings, client_factory=live_client, async_client_factory=live_async_client)


def refused_for_want_of_a_key(error: BaseException) -> bool:
    """``error`` is typesafe-sdk refusing to build a client because no key was given, and none is set."""
    kind = type(error)
    return (
        kind.__name__ == "TypeSafeError"
        and kind.__module__.partition(".")[0] == "typesafe_sdk"
        and "api key" in str(error).lower()
        and not os.environ.get("TYPESAFE_API_KEY", "").strip()
    )


def built_live(kind: Callable[..., Any]) -> Any:
    """The SDK's client for a check outside pytest (a script asks Jev live), its refusal for want of a
    key said as such: a ``ClientUnavailableError`` with the script's ways out, not the SDK's bare error."""
    __tracebackhide__ = True
    try:
        return kind(compression=False)
    except Exception as error:
        from pytest_citecheck._errors import ClientUnavailableError

        if not refused_for_want_of_a_key(error):
            raise
        raise ClientUnavailableError(
            "no TYPESAFE_API_KEY is set, and outside pytest (a script, a notebook) a check asks Jev live: "
            f"typesafe-sdk builds no client without a key ({type(error).__name__}: {error})",
            "set TYPESAFE_API_KEY (and TYPESAFE_BASE_URL for another server), or build the checker with a client "
            "of your own: Checker(client=TypeSafeClient(api_key=...)); to replay recorded answers with no key, "
            "run the check in a pytest test",
        ) from None


def async_client_for_call(factory: Callable[[], Any] | None) -> tuple[Any, bool]:
    """The async client for one ``acheck`` and whether this call owns it (and closes it).

    The factory (the ``citecheck_async_client`` fixture) gives either a client, which its
    provider closes, or a callable building one per call, which the call closes.
    """
    provided: Any
    if factory is None:
        from typesafe_sdk import AsyncTypeSafeClient

        provided = lambda: built_live(AsyncTypeSafeClient)  # noqa: E731 - a standalone checker
    else:
        provided = factory()
    if hasattr(provided, "system_one"):
        return provided, False
    return provided(), True
