"""The three steps for one test: locate each quote, judge what survives with Jev, gate on confidence.

A ``Checker`` is bound to one test: its settings, its cassette, its client. It knows nothing of
pytest; the plugin builds it, hands it the client factory and the review actions, and closes it
when the test ends.
"""

from __future__ import annotations

import contextlib
import dataclasses
import warnings
import weakref
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import Any, NamedTuple

from .cassettes import TestCassette, counting_plays
from .citations import Citation, adapt_citations
from .errors import CassetteError, CitationInputError, CitecheckError
from .judge import ask
from .limits import STATE_AND_QUESTION_TOKEN_LIMIT, fits, max_section_characters, request_tokens, window_around
from .matching import QuoteLocator, quote_length
from .options import Settings
from .policy import Decision, decide, failure_message, review_message
from .results import RELATION_TO_VERDICT, CitationResult, Judgement, Passage, Status, Verdict
from .reviews import Reviews, review_key
from .sources import Source


class CitationsNotSupported(AssertionError):
    """Raised by ``assert_supported`` when citations fail the check; carries the ``Decision``."""

    def __init__(self, message: str, decision: Decision) -> None:
        super().__init__(message)
        self.decision = decision

    @property
    def failing_ids(self) -> list[str]:
        return [r.id for r in self.decision.failing]

    @property
    def results(self) -> tuple[CitationResult, ...]:
        return self.decision.results


class Located(NamedTuple):
    """What step 1 hands step 2: how the quote was found, the section to judge, the quote's offsets."""

    status: Status
    section: str
    span: tuple[int, int] | None
    similarity: float | None = None
    # With the ``window`` option: the part of the section that is judged, as offsets into it.
    window: tuple[int, int] | None = None


class CitationReviewWarning(UserWarning):
    """Verdicts below ``auto_accept`` that a human should confirm (the default review policy)."""


_LOCATORS: weakref.WeakKeyDictionary[Source, QuoteLocator] = weakref.WeakKeyDictionary()


def locator_for(source: Source) -> QuoteLocator:
    """One locator per source object, so its sections are normalised once per session, not per test."""
    locator = _LOCATORS.get(source)
    if locator is None:
        locator = _LOCATORS[source] = QuoteLocator(source)
    return locator


def as_source(source: Any, format: str, hooks: Any = None) -> Source:
    """A ``Source`` from a ``Source`` or a document's text; unknown formats go to the split hook."""
    if isinstance(source, Source):
        return source
    if isinstance(source, str):
        return Source.from_text(source, format=format, hooks=hooks)
    raise CitationInputError(f"expected a Source or the document's text, got {type(source).__name__}", field="source")


def _warn(message: str) -> None:
    warnings.warn(CitationReviewWarning(message), stacklevel=4)


def _fail_review(message: str) -> None:  # only reached if "fail" is ever dispatched as a review action
    raise AssertionError(message)


class Checker:
    """Checks citations for one test. ``check`` returns results; ``assert_supported`` also enforces them."""

    def __init__(
        self,
        *,
        settings: Settings,
        client_factory: Callable[[], Any],
        cassette: TestCassette | None = None,
        test_id: str | None = None,
        record_hint: str = "run the test with --citecheck-record-mode=once and TYPESAFE_API_KEY set",
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

    # --- settings ---------------------------------------------------------------------------

    def settings_for(self, options: Mapping[str, Any], origin: str = "call") -> Settings:
        """This test's settings: marker keywords over the session's, then the call's over those."""
        __tracebackhide__ = True
        settings = self.settings.override(self._marker_options, "@pytest.mark.citecheck(...)")
        return settings.override(options, f"{origin} keyword argument")

    # --- the three steps --------------------------------------------------------------------

    def check(self, citations: Any, source: Any, *, format: str = "rfc", **options: Any) -> list[CitationResult]:
        """Check every citation against ``source`` and return one result per citation, in order."""
        __tracebackhide__ = True
        settings, document, adapted, located = self._prepare(citations, source, format, options, "check()")
        judged, error = self._judge_located(adapted, document, located, settings)
        return self._finish(judged, error, document)

    def assert_supported(self, citations: Any, source: Any, *, format: str = "rfc", **options: Any) -> list[CitationResult]:
        """Check, then fail when a citation is not supported (see ``policy.decide``); returns the results."""
        __tracebackhide__ = True
        settings = self.settings_for(options, "assert_citations_supported()")
        return self._enforce(self.check(citations, source, format=format, **options), settings)

    def _prepare(
        self, citations: Any, source: Any, format: str, options: Mapping[str, Any], origin: str
    ) -> tuple[Settings, Source, list[Citation], list[CitationResult | Located]]:
        """Everything before Jev, for ``check`` and ``acheck`` alike: settings, input checks, step 1, size limits."""
        __tracebackhide__ = True
        settings = self.settings_for(options, origin)
        document = as_source(source, format, self._hooks)
        adapted = adapt_citations(citations, self._hooks)
        for citation in adapted:
            self._validate_section(citation, document)
            self._validate_quote(citation, settings)
        locator = locator_for(document)
        located = [self._locate(citation, document, locator, settings) for citation in adapted]
        for citation, item in zip(adapted, located):
            if isinstance(item, Located):
                self._check_size(citation, document, item)
        return settings, document, adapted, located

    def _finish(self, judged: Sequence[CitationResult], error: BaseException | None, document: Source) -> list[CitationResult]:
        """Apply human decisions and report every result judged; then raise the first error, if any."""
        __tracebackhide__ = True
        results = []
        for result in judged:
            result = self._apply_review(result, document)
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
        if decision.review:
            self._review_actions[settings.review](review_message(decision))
        return results

    def _apply_review(self, result: CitationResult, source: Source) -> CitationResult:
        """Attach the section text and review key, and a human's decision if one applies.

        Runs before ``policy.decide``: a decided citation no longer needs review and its verdict is
        the human's. A decision whose digest no longer matches is attached as stale, and changes nothing.
        """
        if result.section is None or result.confidence is None:
            return result  # fabricated: nothing was judged, so there is nothing a human can decide
        section_text = result.section_text if result.section_text is not None else source.sections[result.section]
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

    @staticmethod
    def _validate_section(citation: Citation, source: Source) -> None:
        if citation.section is not None and citation.section not in source.sections:
            known = list(source.sections)
            sample = ", ".join(known[:8]) + (", …" if len(known) > 8 else "")
            raise CitationInputError(f"names section {citation.section!r}, which the source does not have (it has {sample})",
                                     citation=citation.id, field="section")

    @staticmethod
    def _validate_quote(citation: Citation, settings: Settings) -> None:
        if citation.quote is None:
            return
        length = quote_length(citation.quote, casefold=settings.casefold)
        if length < settings.min_quote_length:
            raise CitationInputError(
                f"is {length} characters after normalisation, too short to identify a passage (min_quote_length is "
                f"{settings.min_quote_length}): quote more of the passage, or lower min_quote_length",
                citation=citation.id, field="quote",
            )

    @staticmethod
    def _check_size(citation: Citation, source: Source, located: Located) -> None:
        """Fail before sending when the text to judge is too large for one Jev request."""
        text = source.sections[located.section]
        if located.window is not None:
            text = text[located.window[0] : located.window[1]]
        if fits(citation.claim, text):
            return
        tokens = request_tokens(citation.claim, text)
        if located.window is not None:
            remedy = "use a smaller window"
        elif citation.quote is not None:
            remedy = f"set window=N (at most about {max_section_characters(citation.claim):,} characters) to judge the text around the quote"
        else:
            remedy = "split the document into smaller sections, or quote the passage so a window around it can be judged"
        raise CitationInputError(
            f"section {located.section!r} is too large for one Jev request: about {tokens:,} tokens with the claim and "
            f"question, over the {STATE_AND_QUESTION_TOKEN_LIMIT:,} allowed for state plus question; {remedy}",
            citation=citation.id, field="section",
        )

    def _check_one(self, citation: Citation, source: Source, locator: QuoteLocator, settings: Settings) -> CitationResult:
        __tracebackhide__ = True
        located = self._locate(citation, source, locator, settings)
        if isinstance(located, CitationResult):
            return located
        return self._judged(citation, source, located, settings)

    def _judge_located(
        self, citations: Sequence[Citation], source: Source, located: Sequence[CitationResult | Located], settings: Settings
    ) -> tuple[list[CitationResult], BaseException | None]:
        """Step 2 for every citation step 1 did not settle, up to ``settings.concurrency`` requests at a time.

        Returns the results in citation order. When a citation errors, the check fails closed: the
        results of the citations before it are returned with its error (for the first failing
        citation in order), the requests not started yet are cancelled and the others discarded.
        """
        pending = [index for index, item in enumerate(located) if not isinstance(item, CitationResult)]
        outcomes: dict[int, CitationResult | BaseException] = {}

        def judge(index: int) -> CitationResult:
            item = located[index]
            assert not isinstance(item, CitationResult)
            return self._judged(citations[index], source, item, settings)

        workers = min(settings.concurrency, len(pending))
        if self.cassette is not None and self.cassette.record_mode == "none":
            # Replay only: every answer comes from memory (or the check fails on a miss) and nothing
            # waits on the network, so threads would only add their start-up and GIL contention.
            workers = 1
        if workers <= 1:
            for index in pending:
                try:
                    outcomes[index] = judge(index)
                except Exception as error:
                    outcomes[index] = error
                    break
        else:
            try:
                # On this thread, before any worker starts: the client may come from a pytest fixture,
                # and opening the cassette patches the HTTP transport for the whole process.
                self.client()
                self._open_cassette(citations[pending[0]])
            except Exception as error:
                outcomes[pending[0]] = error
            else:
                with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="citecheck") as pool:
                    futures: dict[int, Future[CitationResult]] = {index: pool.submit(judge, index) for index in pending}
                    done, _ = wait(futures.values(), return_when=FIRST_EXCEPTION)
                    if any(future.exception() is not None for future in done):
                        for future in futures.values():
                            future.cancel()
                for index, future in futures.items():
                    if not future.cancelled():
                        failure = future.exception()
                        outcomes[index] = failure if failure is not None else future.result()
        results: list[CitationResult] = []
        for index, item in enumerate(located):
            outcome = item if isinstance(item, CitationResult) else outcomes.get(index)
            if isinstance(outcome, BaseException):
                return results, outcome
            # A citation is left unjudged only after an earlier one failed, which returned above.
            assert outcome is not None
            results.append(outcome)
        return results, None

    def _locate(self, citation: Citation, source: Source, locator: QuoteLocator, settings: Settings) -> CitationResult | Located:
        """Step 1: the final result of a quote that is not in the source, or what step 2 must judge."""
        if citation.quote is None:
            assert citation.section is not None
            return Located(Status.SECTION_ONLY, citation.section, None)
        prefer = source.section_at(citation.location[0]) if citation.location is not None else None
        match = locator.find(citation.quote, casefold=settings.casefold, prefer_section=prefer)
        status = Status.FOUND
        if match is None:
            # Only quotes that are not found pay for the alignment: the closest passage is both the
            # fuzzy candidate and, below the tolerance, the diagnostic for a fabricated quote.
            closest = locator.closest(citation.quote, casefold=settings.casefold)
            if closest is None or settings.fuzzy is None or closest.similarity < settings.fuzzy:
                passage = None
                if closest is not None:
                    passage = Passage(closest.section, closest.start, closest.end,
                                      source.sections[closest.section][closest.start : closest.end], closest.similarity)
                return CitationResult(
                    id=citation.id, claim=citation.claim, quote=citation.quote, status=Status.MISSING, section=None,
                    verdict=Verdict.FABRICATED, confidence=None, auto=True, auto_accept=settings.auto_accept,
                    closest=passage,
                )
            match, status = closest, Status.FOUND_APPROX
        window = None
        if settings.window is not None:
            window = window_around(source.sections[match.section], match.start, match.end, settings.window)
        return Located(status, match.section, (match.start, match.end), match.similarity, window)

    def _judged(self, citation: Citation, source: Source, located: Located, settings: Settings) -> CitationResult:
        """Steps 2 and 3 for a citation step 1 located (safe to run on a worker thread)."""
        __tracebackhide__ = True
        judged_text = self._judged_text(source, located)
        judgement = self._judge(citation, judged_text, settings)
        return self._result(citation, located, judged_text, judgement, settings)

    @staticmethod
    def _judged_text(source: Source, located: Located) -> str:
        """What Jev reads: the whole section, or the window around the quote when one is set."""
        section_text = source.sections[located.section]
        return section_text if located.window is None else section_text[located.window[0] : located.window[1]]

    def _result(self, citation: Citation, located: Located, judged_text: str, judgement: Judgement, settings: Settings) -> CitationResult:
        """Jev's judgement of a located citation, gated (step 3) and compared with what was recorded before."""
        __tracebackhide__ = True
        previous = self._against_recordings(citation, judged_text, judgement, settings)
        return CitationResult(
            id=citation.id, claim=citation.claim, quote=citation.quote, status=located.status, section=located.section,
            verdict=RELATION_TO_VERDICT[judgement.choice], confidence=judgement.confidence,
            auto=judgement.stands_at(settings.auto_accept), model=judgement.model, span=located.span,
            judgement=judgement, auto_accept=settings.auto_accept, previous=previous, similarity=located.similarity,
            section_text=None if located.window is None else judged_text, window=located.window,
        )

    def _against_recordings(self, citation: Citation, section_text: str, judgement: Judgement, settings: Settings) -> dict[str, Any] | None:
        """Model pinning (warn, or fail when strict) and, after a rewrite, the drift from the replaced recording."""
        __tracebackhide__ = True
        from .recordings import ModelMismatchError, ModelPinWarning, drift, model_problem, previous_answer

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
        change = drift(before, judgement.choice, judgement.confidence, judgement.probabilities, settings.drift_tolerance)
        return {**before, "drift": change}

    def _judge(self, citation: Citation, section_text: str, settings: Settings) -> Judgement:
        __tracebackhide__ = True
        client = self.client()
        self._open_cassette(citation)
        # Counted per thread (and per task), so concurrent citations each know whether theirs was replayed.
        with counting_plays() as played, self._cassette_active():
            judgement = ask(
                client, citation.id, citation.claim, section_text, settings.model, record_hint=self._record_hint, screen=settings.screen
            )
        if played.count:
            judgement = Judgement(**{**judgement.__dict__, "replayed": True})
        return judgement

    # --- async: the same three steps with AsyncTypeSafeClient --------------------------------

    async def acheck(self, citations: Any, source: Any, *, format: str = "rfc", **options: Any) -> list[CitationResult]:
        """``check`` for async tests: Jev is asked through ``AsyncTypeSafeClient``, up to ``concurrency`` at once.

        Runs under asyncio or trio (pytest-asyncio, anyio); results keep the citations' order, and the
        first citation (in order) that errors fails the check, as in ``check``.
        """
        __tracebackhide__ = True
        settings, document, adapted, located = self._prepare(citations, source, format, options, "acheck()")
        outcomes = await self._ajudge_located(adapted, document, located, settings)
        judged = [outcome for outcome in outcomes if not isinstance(outcome, BaseException)]
        errors = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
        return self._finish(judged, errors[0] if errors else None, document)

    async def aassert_supported(self, citations: Any, source: Any, *, format: str = "rfc", **options: Any) -> list[CitationResult]:
        """``assert_supported`` for async tests (see ``acheck``)."""
        __tracebackhide__ = True
        settings = self.settings_for(options, "aassert_supported()")
        return self._enforce(await self.acheck(citations, source, format=format, **options), settings)

    async def _ajudge_located(
        self, citations: Sequence[Citation], source: Source, located: Sequence[CitationResult | Located], settings: Settings
    ) -> list[CitationResult | BaseException]:
        """Every located citation judged concurrently (bounded); outcomes in order, cut after the first error."""
        import anyio

        outcomes: dict[int, CitationResult | BaseException] = {}
        limit = anyio.Semaphore(settings.concurrency)

        async def judge(index: int, item: Located, client: Any) -> None:
            async with limit:
                try:
                    outcomes[index] = await self._ajudged(client, citations[index], source, item, settings)
                except Exception as error:  # kept, so one citation's error does not cancel the others' answers
                    outcomes[index] = error

        pending = [(index, item) for index, item in enumerate(located) if isinstance(item, Located)]
        if pending:
            self._open_cassette(citations[pending[0][0]])
            client, owned = self._async_client_for_call()
            try:
                async with anyio.create_task_group() as group:
                    for index, item in pending:
                        group.start_soon(judge, index, item, client)
            finally:
                if owned:
                    # Its connections belong to this call's event loop: closed here, while it runs.
                    await client.aclose()
        ordered: list[CitationResult | BaseException] = []
        for index, item in enumerate(located):
            outcome = item if isinstance(item, CitationResult) else outcomes[index]
            ordered.append(outcome)
            if isinstance(outcome, BaseException):
                break
        return ordered

    async def _ajudged(self, client: Any, citation: Citation, source: Source, located: Located, settings: Settings) -> CitationResult:
        __tracebackhide__ = True
        from .judge import ask_async

        judged_text = self._judged_text(source, located)
        with counting_plays() as played, self._cassette_active():
            judgement = await ask_async(
                client, citation.id, citation.claim, judged_text, settings.model, record_hint=self._record_hint, screen=settings.screen
            )
        if played.count:
            judgement = Judgement(**{**judgement.__dict__, "replayed": True})
        return self._result(citation, located, judged_text, judgement, settings)

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

    def _cassette_active(self) -> contextlib.AbstractContextManager[Any]:
        # vcrpy's patches only while Jev is asked: the app's own HTTP in between is not ours to see.
        return self.cassette.active() if self.cassette is not None else contextlib.nullcontext()

    def _open_cassette(self, citation: Citation) -> int:
        __tracebackhide__ = True
        if self.cassette is None:
            return 0
        if not self.cassette.is_open:
            try:
                self.cassette.open()
            except CitecheckError:
                raise
            except Exception as error:  # corrupt YAML, a newer format, an unreadable file
                raise CassetteError(
                    citation.id,
                    f"cannot read cassette {self.cassette.path}: {error}",
                    "restore it from version control, or delete it and re-record with --citecheck-record-mode=rewrite",
                ) from None
        return self.cassette.play_count

    def client(self) -> Any:
        if self._client is None:
            self._client = self._client_factory()
        return self._client

    def close(self) -> None:
        """Save the cassette (if one was opened)."""
        if self.cassette is not None:
            self.cassette.close()
