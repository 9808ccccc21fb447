"""Step 3 of the check: which results fail a test, which need a human, and the words for both.

Pure functions over ``CitationResult``s and ``Settings``; the plugin turns a ``Decision`` into a
failure, a warning, an xfail or a skip.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_citecheck._errors import docs_url
from pytest_citecheck._locate.citations import Unfound
from pytest_citecheck._options import Settings
from pytest_citecheck._results import CitationResult, Status, Verdict
from pytest_citecheck._text import format_confidence, render_table, visible_lines

_NUMBERED = re.compile(r"^\d+(?:\.\d+)*$")
_CLAIM_WIDTH = 60


@dataclass(frozen=True)
class Decision:
    """What a set of results means for the test that checked them."""

    results: tuple[CitationResult, ...]
    failing: tuple[CitationResult, ...]
    review: tuple[CitationResult, ...]
    # Found elsewhere than cited (whatever ``misattributed`` does with them: they fail when it is "fail").
    misattributed: tuple[CitationResult, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.failing


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


def decide(results: Sequence[CitationResult], settings: Settings) -> Decision:
    """Fail what stands (on its own, or by a human's decision) and is in ``fail_on``; send the rest to review.

    A misattributed citation (``found-elsewhere``) also fails when ``misattributed`` is "fail",
    whatever Jev said of the section that holds its quote: the answer points the reader to the wrong place.
    A confident flag from an extra question fails too (``fails_on_a_flag``).
    """
    failing = tuple(r for r in results if (r.stands and r.verdict in settings.fail_on) or fails_on_a_flag(r, settings))
    review = tuple(r for r in results if r.needs_review)
    misattributed = tuple(r for r in results if r.status is Status.FOUND_ELSEWHERE)
    if settings.review == "fail":
        failing = tuple(r for r in results if r in failing or r in review)
    if settings.misattributed == "fail":
        failing = tuple(r for r in results if r in failing or r in misattributed)
    return Decision(tuple(results), failing, review, misattributed)


def fails_on_a_flag(result: CitationResult, settings: Settings) -> bool:
    """A confident flag from an extra question (option ``questions``) fails its test as "unsupported" would.

    Confident: Jev's probability of the flagging answer is at or above ``auto_accept`` (and at least
    0.5). The citation, as cited, does not support the claim as made, so it fails when
    ``unsupported`` is in ``fail_on``, whatever the relation said; a human decision overrides it.
    """
    return result.decision is None and bool(result.confident_flags) and Verdict.UNSUPPORTED in settings.fail_on


def _shorten(text: str, width: int = _CLAIM_WIDTH) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def result_table(results: Sequence[CitationResult], *, marks: dict[str, str] | None = None) -> list[str]:
    """A fixed-width table: id, status, (document,) section, verdict, confidence, action, claim.

    The document column is there only when a result names one (citations checked against a ``Corpus``).
    """
    with_documents = any(r.document is not None or r.cited_document is not None for r in results)
    header = (
        "id",
        "status",
        *(("document",) if with_documents else ()),
        "section",
        "verdict",
        "conf",
        "action",
        "claim",
    )
    rows = [
        (
            r.id,
            r.status.value,
            *((r.document or "-",) if with_documents else ()),
            r.section or "-",
            r.verdict.value,
            format_confidence(r.confidence),
            (marks or {}).get(r.id, "auto" if r.auto else "human" if r.decision else "review"),
            _shorten(r.claim),
        )
        for r in results
    ]
    return render_table([header, *rows])


REVIEW_STEP = (
    "run `citecheck review` to confirm or correct each verdict that needs review (a human's decision then stands)"
)


def _hint(decision: Decision) -> str:
    unsupported = [r for r in decision.failing if r not in decision.review]
    if unsupported and all(
        r.status is Status.FOUND_ELSEWHERE and r.verdict is not Verdict.CONTRADICTED for r in unsupported
    ):
        steps = [
            "a misattributed citation quotes real text from another place than it names: make the app "
            "cite the section (and document) that holds the quote, or set misattributed='warn'"
        ]
        if decision.review:
            steps.append(REVIEW_STEP)
        return f"What next: {'; '.join(steps)}; see {docs_url('usage', 'misattributed-citations')}"
    first = _first_step(unsupported)
    steps = [] if first is None else [first]
    if decision.review:
        steps.append(REVIEW_STEP)
    return f"What next: {'; '.join(steps)}; see {docs_url('usage', 'reading-a-failure')}"


def _first_step(unsupported: Sequence[CitationResult]) -> str | None:
    """What to do first about the citations that fail on their verdict (the worst kind among them)."""
    verdicts = {r.verdict for r in unsupported}
    if any(r.status is Status.ALTERED for r in unsupported):
        return (
            "an altered quote leaves out a word that turns the meaning of its passage: quote the passage "
            "whole, or elide only text that does not change what it says"
        )
    if Verdict.FABRICATED in verdicts:
        return "a fabricated quote is not in the source: fix the citation (or the quote the app extracts)"
    if Verdict.CONTRADICTED in verdicts:
        return "a contradicted claim says the opposite of its section: fix the claim or cite the right section"
    if any(r.confident_flags for r in unsupported):
        return (
            "an extra question flagged a citation: state the claim with the conditions its section sets, or cite "
            "the section that deals with it (or record a human decision if the flag is wrong)"
        )
    if verdicts:
        return "fix the app's citations, or record a human decision if Jev's verdict is wrong"
    return None


def _need(count: int) -> str:
    return "needs" if count == 1 else "need"


def failure_message(decision: Decision) -> str:
    """The assertion message: a summary line, the table of every citation at issue, one hint.

    A citation that fails the test only because it needs review (``review="fail"``) is said to
    need review, not to be unsupported: its verdict may well be ``verified``.
    """
    total = len(decision.results)
    unsupported = [r for r in decision.failing if r not in decision.review]
    n_review = len(decision.review)
    reviews_fail = any(r in decision.failing for r in decision.review)
    of_total = f" of {total} citation{'s' if total != 1 else ''}"
    if unsupported:
        headline = f"{len(unsupported)}{of_total} not supported"
        if n_review:
            headline += (
                f", {n_review} more {_need(n_review)} review"
                if reviews_fail
                else f" ({n_review} more {_need(n_review)} review)"
            )
    else:
        headline = f"{n_review}{of_total} {_need(n_review)} review"
    if reviews_fail:
        headline += f" (below auto_accept {decision.review[0].auto_accept:g}; review='fail' fails the test)"
    shown = [r for r in decision.results if r in decision.failing or r in decision.review]
    marks = {r.id: ("FAIL (human)" if r.decision else "FAIL") if r in unsupported else "needs review" for r in shown}
    diagnostics = [line for r in decision.failing for line in closest_passage_lines(r) + elsewhere_lines(r)]
    # Ids, claims and quotes are untrusted: shown harmlessly (controls visible, no workflow command).
    return visible_lines(
        "\n".join(
            [
                headline + ":",
                *result_table(shown, marks=marks),
                *diagnostics,
                *screen_lines(shown),
                *question_lines(shown),
                *missing_quote_lines(decision.failing),
                _hint(decision),
            ]
        )
    )


def place(section: str | None, document: str | None) -> str:
    """ "§3" (a numbered section), "section 'Refunds > EU'" (a heading path), with " of 'terms.md'" when a
    document is named; "'terms.md'" alone for a whole document."""
    if section is None:
        return repr(document)
    if " + " in section:  # the sections of an assembly: "§4 + §9"
        return " + ".join(place(part, None) for part in section.split(" + ")) + (
            f" of {document!r}" if document is not None else ""
        )
    where = f"\u00a7{section}" if _NUMBERED.match(section) else f"section {section!r}"
    return where + (f" of {document!r}" if document is not None else "")


def where_cited(
    cited_section: str | None, cited_document: str | None, section: str | None, document: str | None
) -> str:
    """For a found-elsewhere citation: "cited §3, the quote is in §2" (with documents when a corpus was checked).

    The quote's document is left out when it is the cited one: "cited §5 of 'GPL-3', the quote is in §6".
    """
    found = place(section, None if document == cited_document else document)
    return f"cited {place(cited_section, cited_document)}, the quote is in {found}"


def elsewhere_lines(result: CitationResult) -> list[str]:
    """For a misattributed citation: where it was cited and where its quote really is (what Jev judged)."""
    if result.status is not Status.FOUND_ELSEWHERE:
        return []
    section = result.section
    if result.sections and result.cited_section:  # an assembly: the sections its quotes are in beyond those cited
        cited = result.cited_section.split(" + ")
        section = " + ".join(part for part in result.sections if part not in cited) or section
    where = where_cited(result.cited_section, result.cited_document, section, result.document)
    return [f"  {result.id}: {where} (which Jev judged)"]


def misattributed_message(decision: Decision) -> str:
    """The warning for found-elsewhere citations under ``misattributed="warn"``."""
    n = len(decision.misattributed)
    lines = [
        f"{n} citation{'s' if n != 1 else ''} quote{'s' if n == 1 else ''} another place than {'it names' if n == 1 else 'they name'} (misattributed='warn'):"
    ]
    lines += result_table(decision.misattributed, marks={r.id: "warn" for r in decision.misattributed})
    lines += [line for r in decision.misattributed for line in elsewhere_lines(r)]
    lines.append(
        "What next: make the app cite the section (and document) that holds the quote; "
        f"misattributed='fail' makes this fail (see {docs_url('usage', 'misattributed-citations')})."
    )
    return visible_lines("\n".join(lines))


def closest_passage_lines(result: CitationResult) -> list[str]:
    """For a fabricated quote: the closest passage of the source, its section and similarity."""
    closest = result.closest
    if closest is None:
        return []
    where = place(closest.section, closest.document)
    if result.status is Status.ALTERED:
        removed = "; ".join(repr(_shorten(words, 60)) for words in result.removed or ())
        return [
            f"  {result.id}: the quote is altered: its elision removes {removed}, which turns the meaning; "
            f"the passage {where} [{closest.start}:{closest.end}] says:",
            f'    "{_shorten(closest.text, 100)}"',
        ]
    return [
        f"  {result.id}: the quote is not in the source; closest passage {where} "
        f"[{closest.start}:{closest.end}] (similarity {closest.similarity:.2f}):",
        f'    "{_shorten(closest.text, 100)}"',
        f"    did the model misquote {where}, or invent it?",
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


def missing_quote_lines(results: Sequence[CitationResult]) -> list[str]:
    """For a citation of several quotes made fabricated by one of them: which quote is not in the source."""
    return [
        f"  {r.id}: quote {r.quotes.index(r.quote) + 1} of {len(r.quotes)} is not in the source: {_shorten(r.quote, 80)!r}"
        for r in results
        if r.verdict is Verdict.FABRICATED and r.quotes and r.quote in r.quotes
    ]


def question_lines(results: Sequence[CitationResult]) -> list[str]:
    """Jev's answer to each extra question asked, for the citations shown: flagged or not, and what a flag means."""
    from pytest_citecheck._judge.questions import EXTRA_QUESTIONS

    lines = []
    for result in results:
        if result.judgement is None:
            continue
        for name, answer in result.judgement.questions.items():
            if answer.confident_at(result.auto_accept):
                state = f"FLAGGED, confident ({answer.concern:.2f} >= auto_accept {result.auto_accept:g}): fails"
            elif answer.flagged:
                state = f"flagged ({answer.concern:.2f} < auto_accept {result.auto_accept:g}): needs review"
            else:
                lines.append(f"  {result.id}: {name}: not flagged (concern {answer.concern:.2f})")
                continue
            lines.append(f"  {result.id}: {name}: {state}: {EXTRA_QUESTIONS[name].concern}")
    return lines


def review_message(decision: Decision) -> str:
    """The warning (or xfail/skip reason) for verdicts below the threshold."""
    n = len(decision.review)
    threshold = decision.review[0].auto_accept if decision.review else 0.8
    lines = [
        f"{n} citation{'s' if n != 1 else ''} below auto_accept {threshold:g} need{'s' if n == 1 else ''} a human review:"
    ]
    lines += result_table(decision.review)
    lines += screen_lines(decision.review)
    lines += question_lines(decision.review)
    lines.append(
        f"What next: confirm or correct each verdict with `citecheck review` (see {docs_url('usage', 'review')}), "
        "or set review='fail' to make this fail."
    )
    return visible_lines("\n".join(lines))
