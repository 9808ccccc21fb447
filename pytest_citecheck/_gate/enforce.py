"""Step 3 applied to a test: fail what the ruling fails, warn of misattributions, send the rest to review.

The exceptions and warnings a test sees are public (``pytest_citecheck`` exports them); what a
review does (warn, xfail, skip) is the caller's ``review_actions``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pytest_citecheck._errors import warn_at_caller
from pytest_citecheck._gate.messages import (
    DEFAULT_REVIEW_COMMAND,
    failure_message,
    misattributed_message,
    review_message,
)
from pytest_citecheck._gate.rule import Ruling, decide
from pytest_citecheck._options import Settings
from pytest_citecheck._results import CitationResult
from pytest_citecheck._secrets import redact_known


class CitationsNotSupported(AssertionError):
    """Raised by ``assert_supported`` when citations fail the check; carries the gate's ``Ruling``."""

    __module__ = "pytest_citecheck"  # where users import it from (and what a traceback shows)

    def __init__(self, message: str, decision: Ruling) -> None:
        super().__init__(message)
        # Named ``decision`` since the first release (a public attribute); it is the gate's ruling.
        self.decision = decision

    @property
    def failing_ids(self) -> list[str]:
        return [r.id for r in self.decision.failing]

    @property
    def results(self) -> tuple[CitationResult, ...]:
        return self.decision.results


class CitationReviewWarning(UserWarning):
    """Verdicts below ``auto_accept`` that a human should confirm (the default review policy)."""

    __module__ = "pytest_citecheck"


class CitationMisattributedWarning(UserWarning):
    """Citations whose quote is real but in another section or document than they name (``misattributed="warn"``)."""

    __module__ = "pytest_citecheck"


def _warn_review(message: str) -> None:
    __tracebackhide__ = True
    warn_at_caller(CitationReviewWarning(message))


def _fail_review(message: str) -> None:  # only reached if "fail" is ever dispatched as a review action
    raise AssertionError(message)


DEFAULT_REVIEW_ACTIONS: Mapping[str, Callable[[str], None]] = {"warn": _warn_review, "fail": _fail_review}


def enforce(
    results: Sequence[CitationResult],
    settings: Settings,
    review_actions: Mapping[str, Callable[[str], None]],
    uncovered: str | None = None,
    review_command: str | None = DEFAULT_REVIEW_COMMAND,
) -> None:
    """Raise ``CitationsNotSupported`` when the ruling fails the test, or the answer cites too little
    (``uncovered``: ``_citations.coverage``); otherwise warn and review as the ruling says.

    Each message quotes the citations' ids, claims and quotes, so every known secret is cut out of it
    (``_secrets.redact_known``): an app's key inside a claim reached the terminal and JUnit XML.

    ``review_command``: what the messages tell a reviewer to run (``messages.review_command``)."""
    __tracebackhide__ = True
    ruling = decide(results, settings)
    if ruling.failing or uncovered:
        failures = [failure_message(ruling, review_command)] if ruling.failing else []
        message = "\n\n".join([*failures, *([uncovered] if uncovered else [])])
        raise CitationsNotSupported(redact_known(message), ruling)
    if ruling.misattributed and settings.misattributed == "warn":
        warn_at_caller(CitationMisattributedWarning(redact_known(misattributed_message(ruling))))
    if ruling.review:
        review = redact_known(review_message(ruling, review_command))
        {**DEFAULT_REVIEW_ACTIONS, **review_actions}[settings.review](review)
