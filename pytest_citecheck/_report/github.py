"""GitHub Actions: the run's summary on the job's page, and an annotation at each failing citation's test.

GitHub sets ``GITHUB_STEP_SUMMARY`` to a file each step may append Markdown to; the job's page
shows it. There the run appends its counts per verdict, the failing citations, the ones that need
a human review and the cost line. And a ``::error file=...,line=...::`` workflow command printed to
stdout becomes an annotation at that line of the diff: one per failing citation, at its test.

Pure code over the report's rows: ``_pytest_glue/session.py`` says which tests failed, on which
citations or with which error, and where each test is, and calls this on the xdist controller only.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_citecheck._report.row import ReportRow
from pytest_citecheck._report.run_report import VERDICT_ORDER, Report
from pytest_citecheck._text import NO_CONFIDENCE, plural, quoted_id, visible, visible_lines

# GitHub shows at most 10 error annotations per step and 50 per job; more only fill the log.
MAX_ANNOTATIONS = 50
# Rows per table in the summary (a step's summary may hold 1 MiB); the rest are counted.
MAX_TABLE_ROWS = 100
_CLAIM_WIDTH = 100


@dataclass
class Outcomes:
    """What pytest knows and the rows do not: failing citations, errors, and where each test is."""

    # Test node id -> the ids of the citations that failed it (``CitationsNotSupported``).
    failing: dict[str, list[str]] = field(default_factory=dict)
    # Test node id -> the pytest-citecheck error that failed it (a cassette miss, a Jev error, ...).
    errors: dict[str, str] = field(default_factory=dict)
    # Test node id -> (the test's file, relative to where pytest ran or to GITHUB_WORKSPACE; 1-based line).
    locations: dict[str, tuple[str, int | None]] = field(default_factory=dict)


def in_github_actions(environ: Mapping[str, str]) -> bool:
    return environ.get("GITHUB_ACTIONS") == "true"


def workspace_path(path: Path, environ: Mapping[str, str], here: Path) -> str:
    """``path`` as GitHub wants it in an annotation: relative to the repository (``GITHUB_WORKSPACE``)."""
    base = Path(environ.get("GITHUB_WORKSPACE") or here)
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def failing_rows(report: Report, outcomes: Outcomes) -> list[ReportRow]:
    """The rows of the citations that failed their test, in the order checked (one per test and id).

    A test may check a citation more than once; the row that failed it is the last one checked.
    """
    last: dict[tuple[str, str], ReportRow] = {}
    for row in report.rows:
        if row.id in outcomes.failing.get(str(row.test), ()):
            last[(str(row.test), row.id)] = row
    chosen = {id(row) for row in last.values()}
    return [row for row in report.rows if id(row) in chosen]


# --- workflow commands ------------------------------------------------------------------------


def _escape_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's runner unescapes it (``%``, CR, LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """A workflow command's property value (``file=``, ``title=``): also ``:`` and ``,``."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _error_command(location: tuple[str, int | None] | None, title: str, message: str) -> str:
    properties = []
    if location is not None:
        properties.append(f"file={_escape_property(location[0])}")
        if location[1] is not None:
            properties.append(f"line={location[1]}")
    properties.append(f"title={_escape_property(title)}")
    return f"::error {','.join(properties)}::{_escape_data(message)}"


def _why(row: ReportRow) -> str:
    verdict = row.verdict
    across = (row.closest or {}).get("across")
    if verdict == "fabricated" and isinstance(across, list) and across:  # in the document, over a section border
        return f"the quote is in the source, but runs across sections {across[0]} to {across[-1]}, so nothing judged it"
    if verdict == "fabricated":
        return "the quote is not in the source"
    confidence = "" if row.confidence is None else f" (confidence {row.confidence_cell})"
    section = f"section {row.section}" if row.section else "its section"
    if row.decided:
        return f"a human decided {verdict} for {section}"
    words = {"contradicted": "contradicts the claim", "unsupported": "does not support the claim"}
    return f"{section} {words.get(verdict, 'was judged ' + verdict)}{confidence}"


def error_commands(report: Report, outcomes: Outcomes) -> list[str]:
    """One ``::error`` command per failing citation (at its test's line), and one per citecheck error."""
    shared = report.shared_ids()
    lines = []
    for row in failing_rows(report, outcomes):
        # Every piece that came from outside is shown harmlessly (controls and escape sequences visible);
        # an id by ``repr`` alone (``quoted_id``), which already writes each of them visibly: after
        # ``visible`` it would write its backslashes twice.
        test = visible(row.test)
        title = f"citecheck: {row.verdict} citation {quoted_id(row.label(shared))}"
        message = (
            f"{test}: {quoted_id(row.id)} is {row.verdict}: {visible(_why(row))}.\nClaim: {visible_lines(row.claim)}"
        )
        if row.quote:
            message += f"\nQuote: {visible_lines(row.quote)}"
        lines.append(_error_command(outcomes.locations.get(test), title, message))
    for test, error in outcomes.errors.items():
        lines.append(
            _error_command(
                outcomes.locations.get(test), "citecheck: citation not checked", visible_lines(f"{test}: {error}")
            )
        )
    if len(lines) > MAX_ANNOTATIONS:
        more = len(lines) - MAX_ANNOTATIONS
        lines = lines[:MAX_ANNOTATIONS] + [f"({more} more citecheck failures: see the job summary)"]
    return lines


# --- the step summary -----------------------------------------------------------------------


# Markdown that user text must not make: links and images (``[``, ``]``, ``!``, ``(``, ``)``),
# emphasis (``*``, ``~``), code, table cells, GitHub's math (``$``); each is backslash-escaped.
_MARKDOWN = re.compile(r"([\\`|$\[\]!()*~])")


def _cell(value: Any, width: int | None = None) -> str:
    """Text safe in a Markdown table cell: one line, controls visible, no HTML, no Markdown, no autolink."""
    from pytest_citecheck._secrets import redact_known

    text = " ".join(visible(" ".join(redact_known(str(value)).split())).split())  # no key cut in two
    if width is not None and len(text) > width:
        text = text[: width - 1] + "…"
    text = html.escape(_MARKDOWN.sub(r"\\\1", text), quote=False)
    # GitHub links bare URLs: "https\://" and "www\." render as typed, but are not links.
    return text.replace("://", "\\://").replace("www.", "www\\.")


def _test_cell(test: str, outcomes: Outcomes) -> str:
    location = outcomes.locations.get(test)
    return _cell(test) + (f" (line {location[1]})" if location is not None and location[1] is not None else "")


def _table(header: Sequence[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows[:MAX_TABLE_ROWS]]
    if len(rows) > MAX_TABLE_ROWS:
        lines += ["", f"… and {len(rows) - MAX_TABLE_ROWS} more (every row is in the JSON and HTML reports)."]
    return lines


def step_summary(report: Report, outcomes: Outcomes) -> str:
    """The run's summary as GitHub-flavoured Markdown."""
    lines = _count_lines(report)
    failing = failing_rows(report, outcomes)
    if failing:
        lines += ["", f"### Failing: {plural(len(failing), 'citation')}", ""]
        lines += _table(
            list(FAILING_COLUMNS), [[cell(row, outcomes) for cell in FAILING_COLUMNS.values()] for row in failing]
        )
    if outcomes.errors:
        lines += ["", f"### Not checked: {plural(len(outcomes.errors), 'test')} with an error", ""]
        lines += _table(
            ["test", "error"],
            [[_test_cell(test, outcomes), _cell(error, 300)] for test, error in outcomes.errors.items()],
        )
    review = [row for row in report.distinct if row.needs_review]
    if review:
        lines += ["", f"### Needs a human review: {plural(len(review), 'citation')} below auto_accept", ""]
        lines += _table(
            list(REVIEW_COLUMNS), [[cell(row, outcomes) for cell in REVIEW_COLUMNS.values()] for row in review]
        )
        lines += [
            "",
            "Decide them with `citecheck review --report REPORT.json` (or `python -m pytest_citecheck review`) "
            "and commit the reviews file.",
        ]
    cost = report.cost_line()
    if cost:
        lines += ["", _cell(cost)]
    return "\n".join(lines) + "\n\n"


def _count_lines(report: Report) -> list[str]:
    counts = report.counts()
    distinct = report.distinct
    review = sum(1 for row in distinct if row.needs_review)
    decided = sum(1 for row in distinct if row.decided)
    return [
        f"## pytest-citecheck: {plural(len(distinct), 'citation')} checked in {plural(report.tests, 'test')}",
        "",
        "| verdict | citations |",
        "|---|---:|",
        # ``errored`` only when a check raised (the four verdicts always): a run without one reads as before.
        *(f"| {verdict} | {counts[verdict]} |" for verdict in VERDICT_ORDER if counts[verdict] or verdict != "errored"),
        f"| *needs review* | {review} |",
        *([f"| *decided by a human* | {decided} |"] if decided else []),
    ]


Cell = Callable[[ReportRow, Outcomes], str]
FAILING_COLUMNS: dict[str, Cell] = {
    "test": lambda row, outcomes: _test_cell(str(row.test), outcomes),
    "citation": lambda row, _: _cell(row.id),
    "verdict": lambda row, _: (
        f"**{row.verdict}**"
        + (" (human)" if row.decided else "")
        + (" (misattributed: FAIL)" if row.misattributed else "")
    ),
    "confidence": lambda row, _: row.confidence_cell,
    "section": lambda row, _: _cell(row.section or NO_CONFIDENCE),
    "claim": lambda row, _: _cell(row.claim, _CLAIM_WIDTH),
}
REVIEW_COLUMNS: dict[str, Cell] = {
    "test": FAILING_COLUMNS["test"],
    "citation": FAILING_COLUMNS["citation"],
    "verdict": lambda row, _: row.verdict,
    "confidence": FAILING_COLUMNS["confidence"],
    "auto_accept": lambda row, _: f"{row.auto_accept:g}",
    "claim": FAILING_COLUMNS["claim"],
}


def append_step_summary(path: str, markdown: str) -> None:
    """Append to GitHub's summary file (other steps and tools append to it too: never rewrite it).

    Every known secret is cut out (``_secrets.redact_known``): the summary quotes claims and ids."""
    from pytest_citecheck._secrets import redact_known

    with open(path, "a", encoding="utf-8") as summary:
        summary.write(redact_known(markdown))
