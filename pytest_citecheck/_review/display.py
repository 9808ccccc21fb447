"""How ``citecheck review`` shows a citation: its verdict, claim, quote, flags, decisions, and its section
with the quoted passage highlighted; and which other citations a decision decides too."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Sequence
from typing import TextIO

from pytest_citecheck._report.row import ReportRow
from pytest_citecheck._text import plural, short_id, visible, visible_lines


def _use_color(choice: str, stream: TextIO) -> bool:
    if choice != "auto":
        return choice == "always"
    return stream.isatty() and not os.environ.get("NO_COLOR")


def highlight(text: str, span: Sequence[int] | None, color: bool) -> str:
    """The section text with the quoted passage marked: reverse video on a terminal, »…« otherwise."""
    if not span or len(span) != 2 or not 0 <= span[0] <= span[1] <= len(text):
        return visible_lines(text)
    start, end = int(span[0]), int(span[1])
    # Each piece shown harmlessly first: the marks are the only escape sequences that reach the terminal.
    before, passage, after = (visible_lines(piece) for piece in (text[:start], text[start:end], text[end:]))
    if color:
        return before + "\x1b[1;7m" + passage + "\x1b[0m" + after
    return before + "»" + passage + "«" + after


def _state(row: ReportRow) -> str:
    if row.misattributed:
        return f"misattributed: {row.action}"
    if row.decided:
        return "decided by a human"
    return "needs review" if row.needs_review else "stands on its own"


def describe(row: ReportRow, *, color: bool, position: str = "", name: str | None = None) -> str:
    """The citation as a reviewer reads it; ``name`` is the id ``--accept`` takes (the citation id by default)."""
    lines = [
        f"{position}{visible(short_id(name or row.id))}: Jev says {row.said} "
        f"(confidence {row.confidence_cell}, auto_accept {row.auto_accept:g}), {_state(row)}",
        f"  test:    {visible(short_id(row.test))}",
        f"  claim:   {visible(row.claim)}",
        f"  quote:   {visible(row.quote) if row.quote else '(none: claim-only citation)'}",
    ]
    lines += flag_lines(row)
    if row.decision:
        decision = row.decision
        lines.append(visible(f"  decided: {decision.get('verdict')} by {decision.get('by')} on {decision.get('at')}"))
    if row.stale and row.stale_decision:
        stale = row.stale_decision
        lines.append(
            visible(f"  stale:   {stale.get('by')} decided {stale.get('verdict')} on {stale.get('at')}, ")
            + "but the claim, section or model changed since"
        )
    text = row.section_text or ""
    lines.append(f"  section {visible(row.section)}:")
    shown = highlight(text.strip("\n"), _shifted_span(text, row.span), color)
    lines.append(textwrap.indent(shown, "    | ", predicate=lambda line: True).replace("| \n", "|\n"))
    return "\n".join(lines)


def flag_lines(row: ReportRow) -> list[str]:
    """What the extra questions flagged (option ``questions``), and the quotes of a citation of several sections."""
    from pytest_citecheck._judge.questions import EXTRA_QUESTIONS

    quotes = row.quotes or ()
    lines = [f"  quotes:  {visible(quote)}" for quote in quotes if len(quotes) > 1]
    for name, answer in row.questions.items():
        if answer.get("flagged") and name in EXTRA_QUESTIONS:
            strength = "confident, fails the test" if answer.get("confident") else "needs review"
            lines.append(
                f"  flagged: {name} (concern {float(answer.get('concern') or 0):.2f}, {strength}): "
                f"{EXTRA_QUESTIONS[name].concern}"
            )
    return lines


def _shifted_span(text: str, span: Sequence[int] | None) -> list[int] | None:
    # The displayed text drops leading newlines; move the span with it.
    if not span:
        return None
    cut = len(text) - len(text.lstrip("\n"))
    return [max(0, span[0] - cut), max(0, span[1] - cut)]


def decided_too(row: ReportRow, rows: Sequence[ReportRow]) -> list[tuple[str, str]]:
    """The (test, citation) of each other citation of the report a decision on ``row`` decides: the
    same key and reviews file. Each once: a test that checked one citation twice is one citation."""
    return list(
        dict.fromkeys(
            (str(other.test), other.id)
            for other in rows
            if other.review_key == row.review_key
            and other.reviews_file == row.reviews_file
            and (other.test, other.id) != (row.test, row.id)
        )
    )


def also_decided(row: ReportRow, rows: Sequence[ReportRow]) -> str | None:
    """The other citations of the report this decision decides too: a decision is keyed by claim,
    section text, questions and model (docs/review.md), so every citation that shares them, in any
    test that reads the same reviews file, takes it. Said, so a reviewer is not surprised by how far
    one ``--set`` reaches."""
    others = decided_too(row, rows)
    if not others:
        return None
    ids = [citation for _, citation in others]
    names = ", ".join(visible(short_id(citation)) for citation in ids[:3]) + (", …" if len(ids) > 3 else "")
    tests = len({test for test, _ in others})
    return (
        f"  the same decision also decides {plural(len(others), 'other citation')} in {plural(tests, 'test')} "
        f"of this report (the same claim, section text and model): {names}"
    )
