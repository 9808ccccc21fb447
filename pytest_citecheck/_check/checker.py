"""The three steps for one test: locate each quote, judge what survives with Jev, gate on confidence.

A ``Checker`` is bound to one test: its settings, its cassette, its client. It knows nothing of
pytest; the plugin builds it, hands it the client factory and the review actions, and closes it
when the test ends. ``check`` and ``acheck`` share every step; they differ only in how they wait
for Jev (``running``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Unpack

from pytest_citecheck._check.running import in_order, judge_in_tasks, judge_on_threads, pending
from pytest_citecheck._citations.adapt import adapt_citations
from pytest_citecheck._citations.model import Citation
from pytest_citecheck._errors import CassetteError, CitecheckError
from pytest_citecheck._gate import (
    Ruling,
    decide,
    fabricated_result,
    failure_message,
    judged_result,
    misattributed_message,
    review_message,
)
from pytest_citecheck._judge.ask import ask, ask_async
from pytest_citecheck._judge.request import Question, question_for
from pytest_citecheck._judge.sizes import check_sizes
from pytest_citecheck._locate.citations import Assembly, Located, Unfound, as_source, locate_all, source_of
from pytest_citecheck._locate.finders import Documents
from pytest_citecheck._options import CheckOptions, Settings
from pytest_citecheck._recording.cassette import TestCassette
from pytest_citecheck._recording.cassette_file import CassetteDigestError
from pytest_citecheck._recording.plays import PlayCount, counting_plays
from pytest_citecheck._results import CitationResult, Judgement, Verdict
from pytest_citecheck._review.decisions import Reviews, review_key
from pytest_citecheck._sources.source import Format, Source

if TYPE_CHECKING:
    from pytest_citecheck._citations.model import CitationInput
    from pytest_citecheck._sources.corpus import Corpus

DEFAULT_RECORD_HINT = "run the test with --citecheck-record-mode=once and TYPESAFE_API_KEY set"


class CitationsNotSupported(AssertionError):
    """Raised by ``assert_supported`` when citations fail the check; carries the gate's ``Ruling``."""

    def __init__(self, message: str, decision: Ruling) -> None:
        super().__init__(message)
        self.decision = decision

    @property
    def failing_ids(self) -> list[str]:
        return [r.id for r in self.decision.failing]

    @property
    def results(self) -> tuple[CitationResult, ...]:
        return self.decision.results


class CitationReviewWarning(UserWarning):
    """Verdicts below ``auto_accept`` that a human should confirm (the default review policy)."""


class CitationMisattributedWarning(UserWarning):
    """Citations whose quote is real but in another section or document than they name (``misattributed="warn"``)."""


def _warn(message: str) -> None:
    warnings.warn(CitationReviewWarning(message), stacklevel=4)


def _fail_review(message: str) -> None:  # only reached if "fail" is ever dispatched as a review action
    raise AssertionError(message)


@dataclasses.dataclass
class _Plan:
    """One call's work after step 1: its settings, the source, the citations and what step 1 found."""

    settings: Settings
    source: Documents
    citations: list[Citation]
    located: list[CitationResult | Located | Assembly]


class Checker:
    """Checks citations for one test. ``check`` returns results; ``assert_supported`` also enforces them."""

    def __init__(
        self,
        *,
        settings: Settings,
        client_factory: Callable[[], Any],
        cassette: TestCassette | None = None,
        test_id: str | None = None,
        record_hint: str = DEFAULT_RECORD_HINT,
        on_result: Callable[[CitationResult], None] | None = None,
        review_actions: Mapping[str, Callable[[str], None]] | None = None,
        marker_options: Mapping[str, Any] | None = None,
        hooks: Any = None,
        reviews: Callable[[], Reviews | None] | None = None,
        async_client_factory: Callable[[], Any] | None = None,
    ) -> None:
        self.settings = settings
        self.test_id = test_id
        self.cassette = cassette
        self.results: list[CitationResult] = []
        self._client_factory = client_factory
        self._client: Any = None
        self._record_hint = record_hint
        self._on_result = on_result
        self._review_actions = {"warn": _warn, "fail": _fail_review, **(review_actions or {})}
        self._marker_options = dict(marker_options or {})
        self._hooks = hooks
        self._reviews = reviews
        self._async_client_factory = async_client_factory

    def settings_for(self, options: Mapping[str, Any], origin: str = "call") -> Settings:
        """This test's settings: marker keywords over the session's, then the call's over those."""
        __tracebackhide__ = True
        settings = self.settings.override(self._marker_options, "@pytest.mark.citecheck(...)")
        return settings.override(options, f"{origin} keyword argument")

    # --- the public calls -------------------------------------------------------------------

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
        return self._check(self._plan(citations, source, format, options, "check()"))

    async def acheck(
        self,
        citations: Iterable[CitationInput],
        source: Source | Corpus | str,
        *,
        format: Format = "auto",
        **options: Unpack[CheckOptions],
    ) -> list[CitationResult]:
        """``check`` for async tests: Jev is asked through ``AsyncTypeSafeClient``, up to ``concurrency`` at once.

        Runs under asyncio or trio (pytest-asyncio, anyio); results keep the citations' order, and the
        first citation (in order) that errors fails the check, as in ``check``.
        """
        __tracebackhide__ = True
        return await self._acheck(self._plan(citations, source, format, options, "acheck()"))

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
        plan = self._plan(citations, source, format, options, "assert_citations_supported()")
        return self._enforce(self._check(plan), plan.settings)

    async def aassert_supported(
        self,
        citations: Iterable[CitationInput],
        source: Source | Corpus | str,
        *,
        format: Format = "auto",
        **options: Unpack[CheckOptions],
    ) -> list[CitationResult]:
        """``assert_supported`` for async tests (see ``acheck``)."""
        __tracebackhide__ = True
        plan = self._plan(citations, source, format, options, "aassert_supported()")
        return self._enforce(await self._acheck(plan), plan.settings)

    # The four public calls keep their signatures spelled out, the price of mypy checking a user's
    # keywords against ``CheckOptions`` at each call and of IDEs and docs/api.md showing the
    # parameters. Their bodies are shared: ``_plan`` (step 1), ``_check`` or ``_acheck`` (step 2 and
    # the human decisions), and for the asserting calls ``_enforce`` (step 3).

    def _check(self, plan: _Plan) -> list[CitationResult]:
        """Judge what step 1 left pending on threads, then finish every result."""
        __tracebackhide__ = True
        indices = pending(plan.located)
        outcomes = self._judge_on_threads(plan, indices) if indices else {}
        return self._finish(*in_order(plan.located, outcomes), plan.source)

    async def _acheck(self, plan: _Plan) -> list[CitationResult]:
        """``_check`` for async tests: judge what is pending in tasks."""
        __tracebackhide__ = True
        indices = pending(plan.located)
        outcomes = await self._judge_in_tasks(plan, indices) if indices else {}
        return self._finish(*in_order(plan.located, outcomes), plan.source)

    # --- step 1, before and after step 2 ------------------------------------------------------

    def _plan(
        self,
        citations: Iterable[CitationInput],
        source: Source | Corpus | str,
        format: str,
        options: Mapping[str, Any],
        origin: str,
    ) -> _Plan:
        """Everything before Jev: settings, input checks, step 1, size limits."""
        __tracebackhide__ = True
        settings = self.settings_for(options, origin)
        document = as_source(source, format, self._hooks)
        adapted = adapt_citations(citations, self._hooks, source=document)
        located = locate_all(adapted, document, settings)
        check_sizes(adapted, located, document)
        steps = [
            fabricated_result(item, settings.auto_accept) if isinstance(item, Unfound) else item for item in located
        ]
        return _Plan(settings, document, adapted, steps)

    def _finish(
        self, judged: Sequence[CitationResult], error: BaseException | None, source: Documents
    ) -> list[CitationResult]:
        """Apply human decisions and report every result judged; then raise the first error, if any."""
        __tracebackhide__ = True
        results = []
        for result in judged:
            result = self._apply_review(result, source)
            results.append(result)
            self.results.append(result)
            if self._on_result is not None:
                self._on_result(result)
        if error is not None:
            raise error
        return results

    def _enforce(self, results: list[CitationResult], settings: Settings) -> list[CitationResult]:
        """Step 3 for ``assert_supported``: fail what stands on its own, send the rest to review."""
        __tracebackhide__ = True
        decision = decide(results, settings)
        if decision.failing:
            raise CitationsNotSupported(failure_message(decision), decision)
        if decision.misattributed and settings.misattributed == "warn":
            warnings.warn(CitationMisattributedWarning(misattributed_message(decision)), stacklevel=3)
        if decision.review:
            self._review_actions[settings.review](review_message(decision))
        return results

    def _apply_review(self, result: CitationResult, source: Documents) -> CitationResult:
        """Attach the section text and review key, and a human's decision if one applies.

        Runs before ``_gate.decide``: a decided citation no longer needs review and its verdict is
        the human's. A decision whose digest no longer matches is attached as stale, and changes nothing.
        """
        if result.confidence is None:
            return result  # fabricated: nothing was judged, so there is nothing a human can decide
        section_text = result.section_text
        if section_text is None:
            judged = source_of(source, result.document)
            section_text = judged.text if result.section is None else judged.sections[result.section]
        key = review_key(result.claim, section_text, result.model)
        changes: dict[str, Any] = {"section_text": section_text, "review_key": key, "model_verdict": result.verdict}
        reviews = self._reviews() if self._reviews is not None else None
        if reviews is not None:
            found = reviews.lookup(key, self.test_id, result.id)
            if found.decision is not None:
                changes.update(decision=found.decision, verdict=Verdict(found.decision["verdict"]))
            elif found.stale is not None:
                changes.update(stale_decision=found.stale)
        return dataclasses.replace(result, **changes)

    # --- step 2: sync and async differ only in how they wait ---------------------------------

    def _judge_on_threads(self, plan: _Plan, indices: list[int]) -> dict[int, CitationResult | BaseException]:
        workers = min(plan.settings.concurrency, len(indices))
        if self.cassette is not None and self.cassette.record_mode == "none":
            # Replay only: every answer comes from memory (or the check fails on a miss) and nothing
            # waits on the network, so threads would only add their start-up and GIL contention.
            workers = 1
        if workers > 1:
            try:
                # On this thread, before any worker starts: the client may come from a pytest fixture,
                # and opening the cassette patches the HTTP transport for the whole process.
                self.client()
                self._open_cassette(plan.citations[indices[0]])
            except Exception as error:
                return {indices[0]: error}

        def judge(index: int) -> CitationResult:
            citation, located = plan.citations[index], plan.located[index]
            assert isinstance(located, (Located, Assembly))
            client = self.client()
            self._open_cassette(citation)
            question = self._question(citation, located.judged_text(plan.source), plan.settings)
            with self._asking() as played:
                judgement = ask(client, question)
            return self._result(citation, located, question, judgement, played, plan.settings)

        return judge_on_threads(indices, judge, workers)

    async def _judge_in_tasks(self, plan: _Plan, indices: list[int]) -> dict[int, CitationResult | BaseException]:
        self._open_cassette(plan.citations[indices[0]])
        client, owned = self._async_client_for_call()

        async def judge(index: int) -> CitationResult:
            citation, located = plan.citations[index], plan.located[index]
            assert isinstance(located, (Located, Assembly))
            question = self._question(citation, located.judged_text(plan.source), plan.settings)
            with self._asking() as played:
                judgement = await ask_async(client, question)
            return self._result(citation, located, question, judgement, played, plan.settings)

        try:
            return await judge_in_tasks(indices, judge, plan.settings.concurrency)
        finally:
            if owned:
                # Its connections belong to this call's event loop: closed here, while it runs.
                await client.aclose()

    def _question(self, citation: Citation, judged_text: str, settings: Settings) -> Question:
        return question_for(citation, judged_text, settings, self._record_hint)

    @contextlib.contextmanager
    def _asking(self) -> Iterator[PlayCount]:
        """Around one request: the cassette's patches, and a count of the answers it replayed.

        Counted per thread (and per task), so concurrent citations each know whether theirs was replayed;
        vcrpy's patches are on only while Jev is asked: the app's own HTTP in between is not ours to see.
        """
        active = self.cassette.active() if self.cassette is not None else contextlib.nullcontext()
        with counting_plays() as played, active:
            yield played
        # Reached only when the answer was read without error: only accepted answers are ever saved.
        if self.cassette is not None:
            self.cassette.accept(played)

    def _result(
        self,
        citation: Citation,
        located: Located | Assembly,
        question: Question,
        judgement: Judgement,
        played: PlayCount,
        settings: Settings,
    ) -> CitationResult:
        """Jev's judgement of a located citation, gated (step 3) and compared with what was recorded before."""
        __tracebackhide__ = True
        if played.count:
            judgement = dataclasses.replace(judgement, replayed=True)
        previous = self._against_recordings(citation, question.section_text, judgement, settings)
        return judged_result(
            citation, located, judgement, settings, judged_text=question.section_text, previous=previous
        )

    def _against_recordings(
        self, citation: Citation, section_text: str, judgement: Judgement, settings: Settings
    ) -> dict[str, Any] | None:
        """Model pinning (warn, or fail when strict) and, after a rewrite, the drift from the replaced recording."""
        __tracebackhide__ = True
        from pytest_citecheck._recording.lifecycle.drift import drift, previous_answer
        from pytest_citecheck._recording.lifecycle.pinning import ModelMismatchError, ModelPinWarning, model_problem

        if self.cassette is None:
            return None
        recorded = self.cassette.interaction_for(citation.claim, section_text)
        requested = recorded[0].get("model") if recorded is not None else None
        problem = model_problem(requested, judgement.model, replayed=judgement.replayed)
        if problem is not None:
            kind, cause, remedy = problem
            if settings.strict_model and kind == "mismatch":
                raise ModelMismatchError(citation.id, cause, f"{remedy} ({self._record_hint})")
            warnings.warn(ModelPinWarning(f"citation {citation.id!r}: {cause}\n  -> {remedy}"), stacklevel=2)
        if not self.cassette.previous:
            return None
        before = previous_answer(citation.claim, section_text, self.cassette.previous)
        if before is None:
            return None
        change = drift(
            before, judgement.choice, judgement.confidence, judgement.probabilities, settings.drift_tolerance
        )
        return {**before, "drift": change}

    # --- the client and the cassette ---------------------------------------------------------

    def _async_client_for_call(self) -> tuple[Any, bool]:
        """The async client for one ``acheck`` and whether this call owns it (and closes it).

        The factory (the ``citecheck_async_client`` fixture) gives either a client, which its
        provider closes, or a callable building one per call, which the call closes.
        """
        provided: Any
        if self._async_client_factory is None:
            from typesafe_sdk import AsyncTypeSafeClient

            provided = lambda: AsyncTypeSafeClient(compression=False)  # noqa: E731 - a standalone checker
        else:
            provided = self._async_client_factory()
        if hasattr(provided, "system_one"):
            return provided, False
        return provided(), True

    def _open_cassette(self, citation: Citation) -> None:
        __tracebackhide__ = True
        if self.cassette is None or self.cassette.is_open:
            return
        try:
            self.cassette.open()
        except CitecheckError:
            raise
        except CassetteDigestError as error:  # an interaction changed since it was recorded
            raise CassetteError(
                citation.id,
                f"cassette {self.cassette.path}: {error}",
                f"re-record with {self._record_hint} (or restore the file from version control)",
            ) from None
        except Exception as error:  # corrupt YAML, a newer format, a damaged or unreadable file
            raise CassetteError(
                citation.id,
                f"cannot read cassette {self.cassette.path}: {error}",
                getattr(error, "remedy", None)
                or "restore it from version control, or delete it and re-record with --citecheck-record-mode=rewrite",
            ) from None

    def client(self) -> Any:
        if self._client is None:
            self._client = self._client_factory()
        return self._client

    def save(self) -> None:
        """Save what the cassette recorded so far (raises ``RecordingNotSavedError`` if it cannot be written)."""
        if self.cassette is not None:
            self.cassette.save()

    def close(self) -> None:
        """Save the cassette (if one was opened)."""
        if self.cassette is not None:
            self.cassette.close()
