"""The three steps for one test: locate each quote, judge what survives with Jev, gate on confidence.

A ``Checker`` is bound to one test: its settings, its cassette, its client. It knows nothing of
pytest; the plugin builds it, hands it the client factory and the review actions, and closes it
when the test ends.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from .cassettes import TestCassette
from .citations import Citation, adapt_citations
from .errors import CassetteError, CitationInputError, CitecheckError
from .judge import ask
from .matching import QuoteLocator
from .options import Settings
from .policy import Decision, decide, failure_message, review_message
from .results import RELATION_TO_VERDICT, CitationResult, Judgement, Status, Verdict
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
        from .formats import FORMATS

        if format not in FORMATS and hooks is not None:
            sections = hooks.pytest_citecheck_split_sections(text=source, format=format)
            if sections is not None:
                return Source(sections=sections, format=format)
        return Source.from_text(source, format=format)
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
        settings = self.settings_for(options, "check()")
        document = as_source(source, format, self._hooks)
        adapted = adapt_citations(citations, self._hooks)
        for citation in adapted:
            self._validate_section(citation, document)
        locator = locator_for(document)
        results = []
        for citation in adapted:
            result = self._check_one(citation, document, locator, settings)
            results.append(result)
            self.results.append(result)
            if self._on_result is not None:
                self._on_result(result)
        return results

    def assert_supported(self, citations: Any, source: Any, *, format: str = "rfc", **options: Any) -> list[CitationResult]:
        """Check, then fail when a citation is not supported (see ``policy.decide``); returns the results."""
        __tracebackhide__ = True
        settings = self.settings_for(options, "assert_citations_supported()")
        results = self.check(citations, source, format=format, **options)
        decision = decide(results, settings)
        if decision.failing:
            raise CitationsNotSupported(failure_message(decision), decision)
        if decision.review:
            self._review_actions[settings.review](review_message(decision))
        return results

    @staticmethod
    def _validate_section(citation: Citation, source: Source) -> None:
        if citation.section is not None and citation.section not in source.sections:
            known = list(source.sections)
            sample = ", ".join(known[:8]) + (", …" if len(known) > 8 else "")
            raise CitationInputError(f"names section {citation.section!r}, which the source does not have (it has {sample})",
                                     citation=citation.id, field="section")

    def _check_one(self, citation: Citation, source: Source, locator: QuoteLocator, settings: Settings) -> CitationResult:
        __tracebackhide__ = True
        span = None
        if citation.quote is None:
            status, section_id = Status.SECTION_ONLY, citation.section
        else:
            match = locator.find(citation.quote)
            if match is None:
                return CitationResult(
                    id=citation.id, claim=citation.claim, quote=citation.quote, status=Status.MISSING, section=None,
                    verdict=Verdict.FABRICATED, confidence=None, auto=True, auto_accept=settings.auto_accept,
                )
            status, section_id, span = Status.FOUND, match.section, (match.start, match.end)
        assert section_id is not None
        judgement = self._judge(citation, source.sections[section_id], settings)
        return CitationResult(
            id=citation.id, claim=citation.claim, quote=citation.quote, status=status, section=section_id,
            verdict=RELATION_TO_VERDICT[judgement.choice], confidence=judgement.confidence,
            auto=judgement.confidence >= settings.auto_accept, model=judgement.model, span=span,
            judgement=judgement, auto_accept=settings.auto_accept,
        )

    def _judge(self, citation: Citation, section_text: str, settings: Settings) -> Judgement:
        __tracebackhide__ = True
        client = self.client()
        played_before = self._open_cassette(citation)
        judgement = ask(client, citation.id, citation.claim, section_text, settings.model, record_hint=self._record_hint)
        if self.cassette is not None and self.cassette.play_count > played_before:
            judgement = Judgement(**{**judgement.__dict__, "replayed": True})
        return judgement

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
