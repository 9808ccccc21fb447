"""The outcome of checking one citation, and the cookbook's mapping from Jev's answer to a verdict."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Step 2 makes judgements; re-exported for the results that carry one.
from pytest_citecheck._judge.judgement import QUESTION_FLAG_AT as QUESTION_FLAG_AT
from pytest_citecheck._judge.judgement import Judgement as Judgement
from pytest_citecheck._judge.judgement import QuestionAnswer as QuestionAnswer

# Step 1 makes passages (the closest one to a fabricated quote); re-exported for the results that carry one.
from pytest_citecheck._locate.passages import Passage as Passage

# The verdicts live apart, so that the options table (loaded by every pytest run) can name them
# without loading the result classes; re-exported here, where the rest of the package imports them.
from pytest_citecheck._status import Status as Status
from pytest_citecheck._verdicts import RELATION_TO_VERDICT as RELATION_TO_VERDICT
from pytest_citecheck._verdicts import Verdict as Verdict


@dataclass
class CitationResult:
    """Everything known about one checked citation.

    ``auto`` is True when the verdict stands on its own (a fabricated quote, or a confidence at or
    above ``auto_accept``: the gate's rule, ``_gate.stands_at``); False means a human should confirm it.
    """

    id: str
    claim: str
    quote: str | None
    status: Status
    section: str | None
    verdict: Verdict
    confidence: float | None
    auto: bool
    model: str | None = None
    span: tuple[int, int] | None = None
    judgement: Judgement | None = field(default=None, repr=False)
    auto_accept: float = 0.8
    # The section's text as judged (what a reviewer reads, and what ``span`` points into).
    section_text: str | None = field(default=None, repr=False)
    # Human review (see ``reviews``): the digest a decision is stored under, the decision that
    # applies (then ``verdict`` is the human's and ``model_verdict`` Jev's), or one gone stale.
    review_key: str | None = None
    decision: dict[str, Any] | None = None
    stale_decision: dict[str, Any] | None = None
    model_verdict: Verdict | None = None
    # Step 1's diagnostics: how close an approximate match is (1.0 for an exact one), and for a
    # fabricated quote the closest passage in the source.
    similarity: float | None = None
    closest: Passage | None = None
    # With the ``window`` option: ``[start, end)`` of the section that was judged (``section_text``).
    window: tuple[int, int] | None = None
    # With record mode rewrite: the answer the replaced recording held for this citation
    # (verdict, choice, confidence, probabilities, model) and ``drift``: flip, shift or same.
    previous: dict[str, Any] | None = None
    # With a ``Corpus``: the document ``section`` is in (None for a single source). ``cited_section``
    # and ``cited_document`` are what the citation named (None when it named none), whatever step 1
    # found; ``found-elsewhere`` means the quote is not in the place they name.
    document: str | None = None
    cited_section: str | None = None
    cited_document: str | None = None
    # An ``altered`` quote: what its elisions removed that turns the meaning (``closest`` is where it was cut from).
    removed: tuple[str, ...] | None = None
    # Verdict ``errored``: why the check raised, as (the exception's class name, its message with known
    # secrets cut out); see ``_check.invalid.errored_result``.
    error: tuple[str, str] | None = None

    @property
    def computed_confidence(self) -> float | None:
        """The confidence computed from Jev's probabilities when it is below the reported one (else None).

        The gate used the lower of the two (``Judgement.gate_confidence``): when that is the computed
        one, a report shows both. (A computed confidence above the reported one, the rounding of an
        answer such as 1.0 over 0/0 reported as 0.99, changes nothing and is not shown.)
        """
        if self.judgement is None or self.confidence is None:
            return None
        gate = self.judgement.gate_confidence
        return gate if gate < self.confidence else None

    @property
    def misattributed(self) -> bool:
        """The quote is real, but not where the citation says (status ``found-elsewhere``)."""
        return self.status is Status.FOUND_ELSEWHERE

    # A citation judged against several sections at once (an assembly): the sections, in document
    # order (``section`` is their label, "4 + 9"), its quotes, and each quote's ``[start, end)`` in
    # ``section_text``, the labelled assembly Jev read.
    sections: tuple[str, ...] | None = None
    quotes: tuple[str, ...] | None = None
    spans: tuple[tuple[int, int], ...] | None = None

    @property
    def flagged_questions(self) -> tuple[str, ...]:
        """The extra questions (option ``questions``) whose answer flags this citation."""
        if self.judgement is None:
            return ()
        return tuple(name for name, answer in self.judgement.questions.items() if answer.flagged)

    @property
    def confident_flags(self) -> tuple[str, ...]:
        """The flags whose concern reaches ``auto_accept``: they fail the test (``_gate.decide``)."""
        if self.judgement is None:
            return ()
        return tuple(name for name, answer in self.judgement.questions.items() if answer.confident_at(self.auto_accept))

    @property
    def needs_review(self) -> bool:
        """Below ``auto_accept`` and not decided by a human."""
        return not self.auto and self.decision is None

    @property
    def stands(self) -> bool:
        """The verdict counts: it stood on its own, or a human decided it."""
        return not self.needs_review

    def to_json(self, test: str | None = None) -> dict[str, Any]:
        """The JSON report's row for this result (the version 1 fields first, in their order)."""
        row: dict[str, Any] = {
            "test": test,
            "id": self.id,
            "status": self.status.value,
            "section": self.section,
            "verdict": self.verdict.value,
            "confidence": self.confidence,
            "auto": self.auto,
            "model": self.model,
            "claim": self.claim,
            "quote": self.quote,
            "span": list(self.span) if self.span is not None else None,
            "auto_accept": self.auto_accept,
            "document": self.document,
            "cited_section": self.cited_section,
            "cited_document": self.cited_document,
        }
        if self.judgement is not None:
            row.update(self._judgement_json(self.judgement))
        if self.removed is not None:  # an altered quote: the words its elisions removed
            row["removed"] = list(self.removed)
        if self.error is not None:  # verdict errored: the cause, so a report never shows it as checked
            row["error"] = {"type": self.error[0], "message": self.error[1]}
        row.update(
            section_text=self.section_text,
            review_key=self.review_key,
            model_verdict=(self.model_verdict or self.verdict).value,
            decision=self.decision,
            stale_decision=self.stale_decision,
            similarity=self.similarity,
            closest=self.closest.to_json() if self.closest is not None else None,
            window=list(self.window) if self.window is not None else None,
            previous=self.previous,
        )
        if self.sections is not None:
            row.update(
                sections=list(self.sections),
                quotes=list(self.quotes or ()),
                spans=[list(span) for span in self.spans or ()],
            )
        return row

    def _judgement_json(self, judgement: Judgement) -> dict[str, Any]:
        """The report row's fields from Jev's answer (the screen's and the extra questions' only when asked)."""
        # Field by field, not ``dataclasses.asdict``: its deep copy was most of what a row cost.
        fields: dict[str, Any] = {
            "choice": judgement.choice,
            "probabilities": dict(judgement.probabilities),
            "input_tokens": judgement.input_tokens,
            "output_tokens": judgement.output_tokens,
            "replayed": judgement.replayed,
        }
        if judgement.shared:  # a copy of an answer this run already received: nothing sent for it
            fields["shared"] = True
        if judgement.rehearsal:  # the rehearsal server's answer, accepted under option ``rehearsal``
            fields["rehearsal"] = True
        if self.computed_confidence is not None:  # the gate used it (below the reported confidence)
            fields["computed_confidence"] = self.computed_confidence
        if judgement.screen is not None:  # only screened rows carry the screen's answer
            fields.update(screen=judgement.screen, flagged=judgement.flagged)
        if judgement.questions:  # only rows asked extra questions carry their answers
            fields["questions"] = {
                name: {
                    "yes": question.yes,
                    "concern": question.concern,
                    "flagged": question.flagged,
                    "confident": question.confident_at(self.auto_accept),
                }
                for name, question in judgement.questions.items()
            }
            # "flagged": a "supports" that does not stand on its own (what review and calibrate read).
            fields["flagged"] = bool(fields.get("flagged")) or bool(self.flagged_questions)
        return fields
