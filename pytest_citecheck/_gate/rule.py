"""Step 3's rule: when Jev's verdict stands on its own (``auto_accept``), and what a test's results mean.

``judged_result`` turns a located citation and Jev's judgement into its ``CitationResult``, deciding
there whether the verdict stands on its own (``stands_at``) or needs a human (``needs_review``);
``decide`` then rules on a test's results: which fail it, which go to review, which are misattributed.
Pure functions over results and ``Settings``; the plugin turns a ``Ruling`` into a failure, a
warning, an xfail or a skip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pytest_citecheck._locate.citations import Unfound
from pytest_citecheck._options import Settings
from pytest_citecheck._results import RELATION_TO_VERDICT, CitationResult, Judgement, Status, Verdict

if TYPE_CHECKING:
    from pytest_citecheck._citations.model import Citation


def stands_at(judgement: Judgement, auto_accept: float) -> bool:
    """The verdict stands on its own: confident enough, and not a "supports" the screen or a question flagged.

    Confident enough: the lower of the reported confidence and the one computed from the
    probabilities reaches ``auto_accept`` (a confidence within the reading's tolerance of the formula,
    but above it, does not carry a verdict over the threshold). Text that steers the model tends to
    buy a "supports"; a failing verdict keeps failing.
    """
    flagged = judgement.flagged or any(answer.flagged for answer in judgement.questions.values())
    return judgement.gate_confidence >= auto_accept and not (flagged and judgement.choice == "supports")


class Placed(Protocol):
    """Where step 1 placed a citation's quote (``_locate``'s ``Located`` or ``Assembly``)."""

    @property
    def status(self) -> Status: ...
    @property
    def section(self) -> str | None: ...
    @property
    def span(self) -> tuple[int, int] | None: ...
    @property
    def similarity(self) -> float | None: ...
    @property
    def window(self) -> tuple[int, int] | None: ...
    @property
    def document(self) -> str | None: ...


def judged_result(
    citation: Citation,
    placed: Placed,
    judgement: Judgement,
    settings: Settings,
    *,
    judged_text: str,
    previous: dict[str, Any] | None = None,
) -> CitationResult:
    """The result of a citation Jev judged: its verdict, and whether it stands at ``auto_accept``.

    ``judged_text`` is what Jev read; it is kept when it is a window of the section (the reports
    show what was judged). An assembly of several sections attaches its sections and quotes.
    """
    result = CitationResult(
        id=citation.id,
        claim=citation.claim,
        quote=citation.quote,
        status=placed.status,
        section=placed.section,
        verdict=RELATION_TO_VERDICT[judgement.choice],
        confidence=judgement.confidence,
        auto=stands_at(judgement, settings.auto_accept),
        model=judgement.model,
        span=placed.span,
        judgement=judgement,
        auto_accept=settings.auto_accept,
        previous=previous,
        similarity=placed.similarity,
        section_text=None if placed.window is None else judged_text,
        window=placed.window,
        document=placed.document,
        cited_section=citation.section,
        cited_document=citation.document,
    )
    attach = getattr(placed, "attach", None)  # an assembly adds its sections, quotes and labelled text
    return result if attach is None else attach(result)


def fabricated_result(unfound: Unfound, auto_accept: float) -> CitationResult:
    """The final result for a quote the source does not say: fabricated (``missing``, with the closest
    passage as a hint, or ``altered``, with the passage and the words its elisions removed)."""
    citation = unfound.citation
    return CitationResult(
        id=citation.id,
        claim=citation.claim,
        quote=citation.quote,
        status=unfound.status,
        section=None,
        verdict=Verdict.FABRICATED,
        confidence=None,
        auto=True,
        auto_accept=auto_accept,
        closest=unfound.closest,
        cited_section=citation.section,
        cited_document=citation.document,
        sections=unfound.sections,
        quotes=unfound.quotes,
        removed=unfound.removed or None,
    )


@dataclass(frozen=True)
class Ruling:
    """What a set of results means for the test that checked them (not a reviewer's decision: see ``_review``)."""

    results: tuple[CitationResult, ...]
    failing: tuple[CitationResult, ...]
    review: tuple[CitationResult, ...]
    # Found elsewhere than cited (whatever ``misattributed`` does with them: they fail when it is "fail").
    misattributed: tuple[CitationResult, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.failing


def decide(results: Sequence[CitationResult], settings: Settings) -> Ruling:
    """Fail what stands (on its own, or by a human's decision) and is in ``fail_on``; send the rest to review.

    A misattributed citation (``found-elsewhere``) also fails when ``misattributed`` is "fail",
    whatever Jev said of the section that holds its quote: the answer points the reader to the wrong place.
    A confident flag from an extra question fails too (``fails_on_a_flag``).
    """
    return Ruling(
        tuple(results),
        tuple(r for r in results if fails(r, settings)),
        tuple(r for r in results if r.needs_review),
        tuple(r for r in results if r.status is Status.FOUND_ELSEWHERE),
    )


def fails(result: CitationResult, settings: Settings) -> bool:
    """Whether this result fails its test under ``settings`` (see ``decide``)."""
    return (
        (result.stands and result.verdict in settings.fail_on)
        or fails_on_a_flag(result, settings)
        or (settings.review == "fail" and result.needs_review)
        or (settings.misattributed == "fail" and result.status is Status.FOUND_ELSEWHERE)
    )


def fails_on_a_flag(result: CitationResult, settings: Settings) -> bool:
    """A confident flag from an extra question (option ``questions``) fails its test as "unsupported" would.

    Confident: Jev's probability of the flagging answer is at or above ``auto_accept`` (and at least
    0.5). The citation, as cited, does not support the claim as made, so it fails when
    ``unsupported`` is in ``fail_on``, whatever the relation said; a human decision overrides it.
    """
    return result.decision is None and bool(result.confident_flags) and Verdict.UNSUPPORTED in settings.fail_on
