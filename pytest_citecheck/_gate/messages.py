"""Step 3's words: the failure message, the review and misattribution warnings, and their table.

What a test's ``Ruling`` (``_gate.rule``) says to the person reading a red test: a summary line,
the table of every citation at issue, diagnostics (the closest passage of a fabricated quote, where
a misattributed quote really is, the screen's and extra questions' flags) and one hint for what next.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pytest_citecheck._errors import docs_url
from pytest_citecheck._gate.rule import Ruling
from pytest_citecheck._results import CitationResult, Status, Verdict

# The review command's words live on the ground floor (``_text``): the report reads them without loading the gate.
from pytest_citecheck._text import DEFAULT_REVIEW_COMMAND as DEFAULT_REVIEW_COMMAND
from pytest_citecheck._text import NO_REPORT_KEPT as NO_REPORT_KEPT
from pytest_citecheck._text import (
    cut_end,
    cut_ids_note,
    cut_middle,
    format_confidence,
    plural,
    render_table,
    visible_lines,
)
from pytest_citecheck._text import review_command as review_command

_NUMBERED = re.compile(r"^\d+(?:\.\d+)*$")
_CLAIM_WIDTH = 60


def _shorten(text: str, width: int = _CLAIM_WIDTH) -> str:
    return cut_end(text, width)


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
    rows = [_table_row(r, with_documents, (marks or {}).get(r.id)) for r in results]
    return render_table([header, *rows])


def _table_row(result: CitationResult, with_documents: bool, mark: str | None) -> tuple[str, ...]:
    action = mark or ("auto" if result.auto else "human" if result.decision else "review")
    return (
        result.id,
        result.status.value,
        *((result.document or "-",) if with_documents else ()),
        result.section or "-",
        result.verdict.value,
        format_confidence(result.confidence, result.computed_confidence),  # both, when the gate used the computed
        action,
        _shorten(result.claim),
    )


# The command that finds a run's report when it writes no --citecheck-json: pytest's cache keeps the last one.
def review_step(command: str | None = DEFAULT_REVIEW_COMMAND) -> str:
    """What to do about the verdicts that need review, with the command that finds the run's report."""
    if command is None:
        return f"{NO_REPORT_KEPT}, to confirm or correct each verdict that needs review"
    return f"run `{command}` to confirm or correct each verdict that needs review (a human's decision then stands)"


REVIEW_STEP = review_step()
MISATTRIBUTED_STEP = (
    "a misattributed citation quotes real text from another place than it names: make the app "
    "cite the section (and document) that holds the quote, or set misattributed='warn'"
)
# The step for the failing verdicts, the first that applies: (applies to the failing results, words).
_VERDICT_STEPS: tuple[tuple[Callable[[Sequence[CitationResult]], bool], str], ...] = (
    (
        lambda failing: any(r.status is Status.ALTERED for r in failing),
        "an altered quote leaves out a word that turns the meaning of its passage: quote the passage "
        "whole, or elide only text that does not change what it says",
    ),
    (  # a quote across a section border is in the source: the next step says what to do with it
        lambda failing: any(
            r.verdict is Verdict.FABRICATED and (r.closest is None or r.closest.across is None) for r in failing
        ),
        "a fabricated quote is not in the source: fix the citation (or the quote the app extracts)",
    ),
    (
        lambda failing: any(r.closest is not None and r.closest.across is not None for r in failing),
        "a quote that runs across a section border is in no one section: name the sections it runs across, "
        "or check a retriever's chunks against Corpus.from_documents(chunks)",
    ),
    (
        lambda failing: any(r.verdict is Verdict.CONTRADICTED for r in failing),
        "a contradicted claim says the opposite of its section: fix the claim or cite the right section",
    ),
    (
        lambda failing: any(r.confident_flags for r in failing),
        "an extra question flagged a citation: state the claim with the conditions its section sets, or cite "
        "the section that deals with it (or record a human decision if the flag is wrong)",
    ),
    (bool, "fix the app's citations, or record a human decision if Jev's verdict is wrong"),
)


def _hint(ruling: Ruling, review: str | None) -> str:
    unsupported = _unsupported(ruling)
    misattributed = bool(unsupported) and all(
        r.status is Status.FOUND_ELSEWHERE and r.verdict is not Verdict.CONTRADICTED for r in unsupported
    )
    if misattributed:
        steps, see = [MISATTRIBUTED_STEP], docs_url("usage", "misattributed-citations")
    else:
        step = next((words for applies, words in _VERDICT_STEPS if applies(unsupported)), None)
        steps, see = ([step] if step else []), docs_url("usage", "reading-a-failure")
    if ruling.review:
        steps.append(review_step(review))
    return f"What next: {'; '.join(steps)}; see {see}"


def _unsupported(ruling: Ruling) -> list[CitationResult]:
    """The failing results that do not fail only for needing review."""
    return [r for r in ruling.failing if r not in ruling.review]


def _need(count: int) -> str:
    return "needs" if count == 1 else "need"


def _headline(ruling: Ruling, unsupported: Sequence[CitationResult]) -> str:
    """ "2 of 5 citations not supported (1 more needs review)", and why reviews fail the test when they do."""
    total, n_review = len(ruling.results), len(ruling.review)
    reviews_fail = any(r in ruling.failing for r in ruling.review)
    of_total = " of " + plural(total, "citation")
    more = f"{n_review} more {_need(n_review)} review"
    if not unsupported:
        headline = f"{n_review}{of_total} {_need(n_review)} review"
    elif not n_review:
        headline = f"{len(unsupported)}{of_total} not supported"
    else:
        headline = f"{len(unsupported)}{of_total} not supported" + (f", {more}" if reviews_fail else f" ({more})")
    if reviews_fail:
        headline += f" (below auto_accept {ruling.review[0].auto_accept:g}; review='fail' fails the test)"
    return headline


def failure_message(ruling: Ruling, review: str | None = DEFAULT_REVIEW_COMMAND) -> str:
    """The assertion message: a summary line, the table of every citation at issue, one hint.

    ``review``: the command that finds the run's report (``review_command``; None: the run keeps none).
    A citation that fails the test only because it needs review (``review="fail"``) is said to
    need review, not to be unsupported: its verdict may well be ``verified``.
    """
    unsupported = _unsupported(ruling)
    shown = [r for r in ruling.results if r in ruling.failing or r in ruling.review]
    marks = {r.id: ("FAIL (human)" if r.decision else "FAIL") if r in unsupported else "needs review" for r in shown}
    diagnostics = [line for r in ruling.failing for line in closest_passage_lines(r) + elsewhere_lines(r)]
    # Ids, claims and quotes are untrusted: shown harmlessly (controls visible, no workflow command).
    return visible_lines(
        "\n".join(
            [
                _headline(ruling, unsupported) + ":",
                *result_table(shown, marks=marks),
                *diagnostics,
                *screen_lines(shown),
                *question_lines(shown),
                *missing_quote_lines(ruling.failing),
                *cut_ids_note(r.id for r in shown),
                _hint(ruling, review),
            ]
        )
    )


def place(section: str | None, document: str | None) -> str:
    """ "§3" (a numbered section), "section 'Refunds > EU'" (a heading path), with " of 'terms.md'" when a
    document is named; "'terms.md'" alone for a whole document."""
    if section is None:
        return repr(document if document is None else cut_middle(document))
    if " + " in section:  # the sections of an assembly: "§4 + §9"
        return " + ".join(place(part, None) for part in section.split(" + ")) + (
            f" of {document!r}" if document is not None else ""
        )
    # Section and document names come from the source (a heading, a file name): a long one is cut.
    where = f"\u00a7{section}" if _NUMBERED.match(section) else f"section {cut_middle(section)!r}"
    return where + (f" of {cut_middle(document)!r}" if document is not None else "")


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
    return [f"  {cut_middle(result.id)}: {where} (which Jev judged)"]


def misattributed_message(ruling: Ruling) -> str:
    """The warning for found-elsewhere citations under ``misattributed="warn"``."""
    n = len(ruling.misattributed)
    lines = [
        f"{plural(n, 'citation')} quote{'s' if n == 1 else ''} another place than {'it names' if n == 1 else 'they name'} (misattributed='warn'):"
    ]
    lines += result_table(ruling.misattributed, marks={r.id: "warn" for r in ruling.misattributed})
    lines += [line for r in ruling.misattributed for line in elsewhere_lines(r)]
    lines += cut_ids_note(r.id for r in ruling.misattributed)
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
            f"  {cut_middle(result.id)}: the quote is altered: its elision removes {removed}, which turns the meaning; "
            f"the passage {where} [{closest.start}:{closest.end}] says:",
            f'    "{_shorten(closest.text, 100)}"',
        ]
    if closest.across is not None:
        return _across_lines(result, closest.across, closest.document)
    return [
        f"  {cut_middle(result.id)}: the quote is not in the source; closest passage {where} "
        f"[{closest.start}:{closest.end}] (similarity {closest.similarity:.2f}):",
        f'    "{_shorten(closest.text, 100)}"',
        # Its letters are there: the quote starts or ends inside a word and turns it ("acceptable" of
        # "unacceptable", "must not" of "must notify") or inside a number ("32" of "32k", "1" of ">1"), or an
        # elision cuts a word (docs: matching, Words and Numbers).
        "    its words are there, but it starts or ends inside a word or a number and turns it (or an elision "
        "cuts a word): quote whole words and whole numbers"
        if closest.similarity >= 0.995
        else f"    did the model misquote {where}, or invent it?",
    ]


def _across_lines(result: CitationResult, sections: tuple[str, ...], document: str | None) -> list[str]:
    """A quote that is in the document, but runs across a section border: where, and what works."""
    where = f"{place(sections[0], None)} to {place(sections[-1], None)}" + (
        f" of {cut_middle(document)!r}" if document is not None else ""
    )
    named = f"section={list(sections)!r}" + (f", document={document!r}" if document is not None else "")
    return [
        f"  {cut_middle(result.id)}: the quote is in the source, but runs across {where}, and a quote is "
        "looked for within one section (or across the sections its citation names), so nothing was judged:",
        f"    name the sections it runs across ({named}), or quote within one section; "
        "for a retriever's chunk, check against Corpus.from_documents(chunks), whose sections hold whole chunks",
    ]


def screen_lines(results: Sequence[CitationResult]) -> list[str]:
    """Why a confident "verified" is at review: the screen flagged its claim or section."""
    flagged = [r for r in results if r.judgement is not None and r.judgement.flagged]
    if not flagged:
        return []
    ids = ", ".join(cut_middle(r.id) for r in flagged)
    return [
        f"  flagged by the screen: {ids}: the claim or section may hold instructions addressed to an AI system, "
        "so Jev's 'supports' does not stand on its own; read the section "
        f"(see {docs_url('security', 'claims-and-sources-are-untrusted-text')})"
    ]


def missing_quote_lines(results: Sequence[CitationResult]) -> list[str]:
    """For a citation of several quotes made fabricated by one of them: which quote is not in the source."""
    return [
        f"  {cut_middle(r.id)}: quote {r.quotes.index(r.quote) + 1} of {len(r.quotes)} is not in the source: {_shorten(r.quote, 80)!r}"
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
                lines.append(f"  {cut_middle(result.id)}: {name}: not flagged (concern {answer.concern:.2f})")
                continue
            lines.append(f"  {cut_middle(result.id)}: {name}: {state}: {EXTRA_QUESTIONS[name].concern}")
    return lines


def review_message(ruling: Ruling, review: str | None = DEFAULT_REVIEW_COMMAND) -> str:
    """The warning (or xfail/skip reason) for verdicts below the threshold; ``review`` as for ``failure_message``."""
    n = len(ruling.review)
    threshold = ruling.review[0].auto_accept if ruling.review else 0.8
    lines = [f"{plural(n, 'citation')} below auto_accept {threshold:g} need{'s' if n == 1 else ''} a human review:"]
    lines += result_table(ruling.review)
    lines += screen_lines(ruling.review)
    lines += question_lines(ruling.review)
    lines += cut_ids_note(r.id for r in ruling.review)
    how = f"with `{review}`" if review is not None else f"({NO_REPORT_KEPT})"
    lines.append(
        f"What next: confirm or correct each verdict {how} (see {docs_url('usage', 'review')}), "
        "or set review='fail' to make this fail."
    )
    return visible_lines("\n".join(lines))
