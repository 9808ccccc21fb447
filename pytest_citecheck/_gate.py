"""Step 3 of the check: which results fail a test, which need a human, and the words for both.

Pure functions over ``CitationResult``s and ``Settings``; the plugin turns a ``Decision`` into a
failure, a warning, an xfail or a skip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_citecheck._errors import docs_url
from pytest_citecheck._options import Settings
from pytest_citecheck._results import CitationResult, Verdict

_CLAIM_WIDTH = 60


@dataclass(frozen=True)
class Decision:
    """What a set of results means for the test that checked them."""

    results: tuple[CitationResult, ...]
    failing: tuple[CitationResult, ...]
    review: tuple[CitationResult, ...]

    @property
    def passed(self) -> bool:
        return not self.failing


def decide(results: Sequence[CitationResult], settings: Settings) -> Decision:
    """Fail what stands (on its own, or by a human's decision) and is in ``fail_on``; send the rest to review."""
    failing = tuple(r for r in results if r.stands and r.verdict in settings.fail_on)
    review = tuple(r for r in results if r.needs_review)
    if settings.review == "fail":
        failing = tuple(r for r in results if r in failing or r in review)
    return Decision(tuple(results), failing, review)


def _confidence(result: CitationResult) -> str:
    return "-" if result.confidence is None else f"{result.confidence:.2f}"


def _shorten(text: str, width: int = _CLAIM_WIDTH) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def result_table(results: Sequence[CitationResult], *, marks: dict[str, str] | None = None) -> list[str]:
    """A fixed-width table: id, status, section, verdict, confidence, action, claim."""
    header = ("id", "status", "section", "verdict", "conf", "action", "claim")
    rows = [
        (
            r.id,
            r.status.value,
            r.section or "-",
            r.verdict.value,
            _confidence(r),
            (marks or {}).get(r.id, "auto" if r.auto else "human" if r.decision else "review"),
            _shorten(r.claim),
        )
        for r in results
    ]
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header) - 1)]
    lines = []
    for row in (header, *rows):
        cells = [cell.ljust(width) for cell, width in zip(row, widths)]
        lines.append("  " + "  ".join([*cells, row[-1]]).rstrip())
    return lines


def _hint(decision: Decision) -> str:
    verdicts = {r.verdict for r in decision.failing}
    if Verdict.FABRICATED in verdicts:
        why = "a fabricated quote is not in the source: fix the citation (or the quote the app extracts)"
    elif Verdict.CONTRADICTED in verdicts:
        why = "a contradicted claim says the opposite of its section: fix the claim or cite the right section"
    else:
        why = "fix the app's citations, or record a human decision if Jev's verdict is wrong"
    return f"What next: {why}; see {docs_url('usage', 'reading-a-failure')}"


def failure_message(decision: Decision) -> str:
    """The assertion message: a summary line, the table of every citation at issue, one hint."""
    total = len(decision.results)
    n_fail = len(decision.failing)
    n_review = len([r for r in decision.review if r not in decision.failing])
    headline = f"{n_fail} of {total} citation{'s' if total != 1 else ''} not supported"
    if n_review:
        headline += f" ({n_review} more need{'s' if n_review == 1 else ''} review)"
    shown = [r for r in decision.results if r in decision.failing or r in decision.review]
    marks = {r.id: ("FAIL (human)" if r.decision else "FAIL") if r in decision.failing else "review" for r in shown}
    diagnostics = [line for r in decision.failing for line in closest_passage_lines(r)]
    return "\n".join(
        [headline + ":", *result_table(shown, marks=marks), *diagnostics, *screen_lines(shown), _hint(decision)]
    )


def closest_passage_lines(result: CitationResult) -> list[str]:
    """For a fabricated quote: the closest passage of the source, its section and similarity."""
    closest = result.closest
    if closest is None:
        return []
    return [
        f"  {result.id}: the quote is not in the source; closest passage \u00a7{closest.section} "
        f"[{closest.start}:{closest.end}] (similarity {closest.similarity:.2f}):",
        f'    "{_shorten(closest.text, 100)}"',
        f"    did the model misquote \u00a7{closest.section}, or invent it?",
    ]


def screen_lines(results: Sequence[CitationResult]) -> list[str]:
    """Why a confident "verified" is at review: the screen flagged its claim or section."""
    flagged = [r for r in results if r.judgement is not None and r.judgement.flagged]
    if not flagged:
        return []
    ids = ", ".join(r.id for r in flagged)
    return [
        f"  flagged by the screen: {ids}: the claim or section may hold instructions addressed to an AI system, "
        "so Jev's 'supports' does not stand on its own; read the section "
        f"(see {docs_url('security', 'claims-and-sources-are-untrusted-text')})"
    ]


def review_message(decision: Decision) -> str:
    """The warning (or xfail/skip reason) for verdicts below the threshold."""
    n = len(decision.review)
    threshold = decision.review[0].auto_accept if decision.review else 0.8
    lines = [
        f"{n} citation{'s' if n != 1 else ''} below auto_accept {threshold:g} need{'s' if n == 1 else ''} a human review:"
    ]
    lines += result_table(decision.review)
    lines += screen_lines(decision.review)
    lines.append(
        f"What next: confirm or correct each verdict (see {docs_url('usage', 'review')}), "
        "or set review='fail' to make this fail."
    )
    return "\n".join(lines)
