"""The conductor: for one test, step 1 locates each quote, step 2 asks Jev, step 3 gates, step 4 records.

A ``Checker`` orders the steps and holds none of their rules: each is one call into its stage
(``_locate``, ``_judge`` through ``running``, ``_gate``, ``_recording``). It knows nothing of pytest;
the plugin wires it to a test (``checker_for``: settings, cassette, clients, review actions) and
closes it when the test ends. ``check`` and ``acheck`` share every step; they differ only in how
they wait for Jev (``running``).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Coroutine, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Unpack

from pytest_citecheck._check.invalid import locate_valid
from pytest_citecheck._check.off_thread import OffThread
from pytest_citecheck._check.running import (
    Asking,
    Outcomes,
    Plan,
    ask_in_tasks,
    ask_on_threads,
    finish,
    pending,
    settle_estimate,
)
from pytest_citecheck._check.wiring import Wiring, standalone
from pytest_citecheck._citations.adapt import adapt_answer
from pytest_citecheck._citations.coverage import coverage_failure
from pytest_citecheck._gate.enforce import enforce
from pytest_citecheck._locate.citations import as_source
from pytest_citecheck._options import Settings
from pytest_citecheck._options.keywords import CheckOptions
from pytest_citecheck._recording.checking import ModelPins
from pytest_citecheck._results import CitationResult
from pytest_citecheck._sources.source import Format, Source

if TYPE_CHECKING:
    from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient

    from pytest_citecheck._citations.model import CitationInput
    from pytest_citecheck._sources.corpus import Corpus


class Checker:
    """Checks citations: ``check`` returns results; ``assert_supported`` also enforces them.

    Inside a test, use the ``citecheck`` fixture or the functions (``assert_citations_supported``):
    they are wired to the test's cassette and report. ``Checker(...)`` is for scripts: it asks Jev
    live through ``client`` (and ``async_client`` for ``acheck``), by default the SDK's clients built
    from the environment, with no cassette; ``options`` are this checker's settings (``CheckOptions``).
    ``rehearsal=True`` takes the rehearsal server's answers (``JevServer``, ``citecheck serve``), counted;
    without it a marked answer fails its citation, as in a pytest run without ``--citecheck-rehearsal``.
    """

    def __init__(
        self,
        *,
        client: TypeSafeClient | None = None,
        async_client: AsyncTypeSafeClient | None = None,
        rehearsal: bool = False,
        **options: Unpack[CheckOptions],
    ) -> None:
        __tracebackhide__ = True
        settings = Settings().override(options, "Checker() keyword argument")
        if rehearsal is not False:  # a run-level knob: a script opts in where a run uses the flag
            settings = settings.for_script("rehearsal", rehearsal, "Checker() keyword argument")
        self._wire(standalone(settings, client, async_client))

    @classmethod
    def _wired(cls, wiring: Wiring) -> Checker:
        (checker := cls.__new__(cls))._wire(wiring)
        return checker

    def _wire(self, wiring: Wiring) -> None:
        self.settings = wiring.settings
        self.test_id = wiring.test_id
        self.cassette = wiring.cassette
        self.results: list[CitationResult] = []
        self._coroutines: list[tuple[Coroutine[Any, Any, Any], str, str, int]] = []
        self._off_thread = OffThread(wiring.test_code)
        self._wiring = wiring
        self._client: Any = None

    def settings_for(self, options: Mapping[str, Any], origin: str = "call") -> Settings:
        """This test's settings: marker keywords over the session's, then the call's over those."""
        __tracebackhide__ = True
        settings = self.settings.override(
            self._wiring.marker_options, self._wiring.marker_origin or "@pytest.mark.citecheck(...)"
        )
        return settings.override(options, f"{origin} keyword argument")

    def check(
        self,
        citations: Iterable[CitationInput],
        source: Source | Corpus | str,
        *,
        format: Format = "auto",
        **options: Unpack[CheckOptions],
    ) -> list[CitationResult]:
        """Check every citation against ``source`` and return one result per citation, in order."""
        __tracebackhide__ = True
        try:
            return self._check(self._plan(citations, source, format, options, "check()"))
        except BaseException as error:
            self._noted(error, "check")
            raise

    def acheck(
        self,
        citations: Iterable[CitationInput],
        source: Source | Corpus | str,
        *,
        format: Format = "auto",
        **options: Unpack[CheckOptions],
    ) -> Coroutine[Any, Any, list[CitationResult]]:
        """``check`` for async tests: Jev is asked through ``AsyncTypeSafeClient``, up to ``concurrency`` at once.

        Runs under asyncio or trio (pytest-asyncio, anyio); results keep the citations' order, and the
        first citation (in order) that errors fails the check, as in ``check``. Await it: a check
        that a test never awaits fails the test (``unawaited``).
        """
        return self._tracked(self._acheck_call(citations, source, format, options), "acheck")

    async def _acheck_call(self, citations: Any, source: Any, format: str, options: Any) -> list[CitationResult]:
        __tracebackhide__ = True
        try:
            return await self._acheck(self._plan(citations, source, format, options, "acheck()"))
        except BaseException as error:
            self._noted(error, "acheck", in_task=True)
            raise

    def assert_supported(
        self,
        citations: Iterable[CitationInput],
        source: Source | Corpus | str,
        *,
        format: Format = "auto",
        **options: Unpack[CheckOptions],
    ) -> list[CitationResult]:
        """Check, then fail when a citation is not supported (see ``_gate.decide``); returns the results."""
        __tracebackhide__ = True
        try:
            plan = self._plan(citations, source, format, options, "assert_citations_supported()")
            return self._enforce(self._check(plan), plan)
        except BaseException as error:
            self._noted(error, "assert_supported")
            raise

    def aassert_supported(
        self,
        citations: Iterable[CitationInput],
        source: Source | Corpus | str,
        *,
        format: Format = "auto",
        **options: Unpack[CheckOptions],
    ) -> Coroutine[Any, Any, list[CitationResult]]:
        """``assert_supported`` for async tests (see ``acheck``); await it."""
        return self._tracked(self._aassert_call(citations, source, format, options), "aassert_supported")

    async def _aassert_call(self, citations: Any, source: Any, format: str, options: Any) -> list[CitationResult]:
        __tracebackhide__ = True
        try:
            plan = self._plan(citations, source, format, options, "aassert_supported()")
            return self._enforce(await self._acheck(plan), plan)
        except BaseException as error:
            self._noted(error, "aassert_supported", in_task=True)
            raise

    def _noted(self, error: BaseException, method: str, *, in_task: bool = False) -> None:
        """A test's check that raised: noted if on a thread other than the main one, so that the test's end
        can tell whether the test ever got the failure (``lost``)."""
        if self.test_id is None:
            return
        caller = sys._getframe(2)  # 1 is the method; its caller is the test, or one of the functions of ``api``
        name = caller.f_code.co_name
        helper = caller.f_globals.get("__name__") == "pytest_citecheck._check.api" and not name.startswith("_")
        where = None
        if in_task:  # the line that made the coroutine (``_tracked``): a task's stack shows only the event loop
            running = sys._getframe(1)
            made = (entry for entry in self._coroutines if getattr(entry[0], "cr_frame", None) is running)
            where = next((f"{os.path.basename(path)}:{line}" for _, _, path, line in made), None)
        self._off_thread.note(error, f"{name}()" if helper else f"citecheck.{method}()", in_task=in_task, where=where)

    def lost(self) -> list[str]:
        """The failures of this test's checks raised on another thread that the test never got (``OffThread``)."""
        return self._off_thread.lost()

    def _tracked(self, coroutine: Coroutine[Any, Any, Any], name: str) -> Coroutine[Any, Any, Any]:
        """The coroutine itself (``anyio.run`` and ``create_task`` take it as one), remembered with where
        the test made it: a test's checker asks at its end whether each was awaited (``unawaited``)."""
        if self.test_id is not None:
            caller = sys._getframe(2)
            self._coroutines.append((coroutine, name, caller.f_code.co_filename, caller.f_lineno))
        return coroutine

    def unawaited(self) -> list[str]:
        """One line for each ``acheck`` / ``aassert_supported`` of this test that never ran to its end
        (never awaited, or left unfinished), naming where it was called; the never-started are closed
        (no "never awaited" warning: this says it)."""
        if not self._coroutines:
            return []
        import inspect  # only for a test that made a coroutine

        lines = []
        for coroutine, name, filename, lineno in self._coroutines:
            state = inspect.getcoroutinestate(coroutine)
            if state == inspect.CORO_CLOSED:  # ran to its end (returned or raised), or was closed
                continue
            started = state != inspect.CORO_CREATED
            if not started:
                coroutine.close()
            where = f"{os.path.basename(filename)}:{lineno}"
            what = "started and never finished" if started else "never awaited"
            lines.append(f"citecheck.{name}() was called at {where} and {what}")
        self._coroutines.clear()
        return lines

    # The public calls spell out their signatures (mypy checks a user's keywords against CheckOptions;
    # IDEs and docs/api.md show them) and share their bodies: _plan, _check or _acheck, _enforce.

    def _plan(
        self, citations: Iterable[CitationInput], source: Source | Corpus | str, format: str, options: Any, origin: str
    ) -> Plan:
        """Step 1: settings, input checks, locating each quote, size limits; a quote found nowhere is fabricated."""
        __tracebackhide__ = True
        settings = self.settings_for(options, origin)
        document = as_source(source, format, self._wiring.hooks)
        adapted = adapt_answer(citations, self._wiring.hooks, source=document)
        steps, invalid = locate_valid(adapted.citations, adapted.invalid, document, settings)
        return Plan(settings, document, adapted.citations, steps, adapted.uncited, invalid)

    def _check(self, plan: Plan) -> list[CitationResult]:
        """Steps 2 and 4 for what step 1 left pending, on threads; then finish every result."""
        __tracebackhide__ = True
        indices, step = self._asking(plan)
        return self._finish(plan, ask_on_threads(step, self.client, indices) if indices else {})

    async def _acheck(self, plan: Plan) -> list[CitationResult]:
        """``_check`` for async tests: ask in tasks."""
        __tracebackhide__ = True
        indices, step = self._asking(plan)
        factory = self._wiring.async_client_factory
        return self._finish(plan, await ask_in_tasks(step, factory, indices) if indices else {})

    def _asking(self, plan: Plan) -> tuple[list[int], Asking]:
        """The citations step 1 left pending, and step 2 for them."""
        pins = ModelPins(self._wiring.pins_said)
        return pending(plan.located), Asking(
            plan, self.cassette, self._wiring.record_hint, self._wiring.shared_answers, pins
        )

    def _finish(self, plan: Plan, outcomes: Outcomes) -> list[CitationResult]:
        """Every result in order, with a human's decision, reported; then the first error is raised."""
        __tracebackhide__ = True
        settle_estimate(plan, outcomes, self.cassette, self._wiring.review_actions.get("skip"))
        return finish(plan, outcomes, self._wiring, self.results)

    def _enforce(self, results: list[CitationResult], plan: Plan) -> list[CitationResult]:
        __tracebackhide__ = True
        uncovered = coverage_failure(plan.citations, plan.uncited, plan.settings)  # no silent pass
        enforce(
            results, plan.settings, self._wiring.review_actions, uncovered, self._wiring.review_command
        )  # step 3: fail, warn or review
        return results

    def client(self) -> Any:
        """The sync client, built on first use: once, when the test's threads first ask at the same time."""
        client = self._client
        if client is None:
            with _BUILDING_CLIENT:
                if self._client is None:
                    self._client = self._wiring.client_factory()
                client = self._client
        return client

    def save(self) -> None:
        """Save what the cassette recorded so far (raises ``RecordingNotSavedError`` if it cannot be written)."""
        if self.cassette is not None:
            self.cassette.save()

    def close(self) -> None:
        """Save the cassette (if one was opened)."""
        if self.cassette is not None:
            self.cassette.close()


# Re-entrant: a client factory is a user's fixture too (``citecheck_client``), which may itself check.
_BUILDING_CLIENT = threading.RLock()


def checker_for(**wiring: Any) -> Checker:
    """The plugin's checker for one test, with what a user cannot construct (``Wiring``'s fields)."""
    return Checker._wired(Wiring(**wiring))
