"""``citecheck review``: read the last run's report, show what needs a human, record decisions.

It lists the citations below ``auto_accept`` that no human has decided (``--all``: every judged
citation), showing each one's claim and its section with the quoted passage highlighted. On a
terminal it asks for a decision per citation; scripts pass ``--accept ID`` (confirm Jev's verdict)
and ``--set ID=VERDICT`` (override it), with ``--note`` and ``--by``. Decisions go to the reviews
file named in the report (see ``reviews``), which the next pytest run applies.

Bad input changes nothing: every id and verdict is checked before any file is written, and a
report this version cannot read is refused with the reason.
"""

from __future__ import annotations

import argparse
import getpass
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from pytest_citecheck._report.dead_decisions import dead_lines
from pytest_citecheck._report.row import ReportRow
from pytest_citecheck._report.run_report import Report, ReportError
from pytest_citecheck._review.decisions import (
    DECIDABLE_VERDICTS,
    DecisionConflictError,
    Reviews,
    ReviewsFileError,
    still_decided,
)
from pytest_citecheck._review.display import _use_color, also_decided, describe
from pytest_citecheck._review.pytest_config import LAST_REPORT, last_report, missing_report_message
from pytest_citecheck._review.staging import ReviewInputError, Session, reviews_path
from pytest_citecheck._text import quoted_id, short_id, stop_commands, visible

EXIT_OK, EXIT_USAGE = 0, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citecheck review",
        description="Review the citations of the last pytest run that are below auto_accept, and record decisions.",
    )
    parser.add_argument(
        "--report",
        metavar="PATH",
        help=f"JSON report to read (default: the last run's, in pytest's cache at the rootdir: {LAST_REPORT})",
    )
    parser.add_argument(
        "--reviews", metavar="PATH", help="reviews file to write (default: the one the report names for each test)"
    )
    parser.add_argument("--list", action="store_true", help="only list what needs review; do not prompt")
    parser.add_argument(
        "--all", action="store_true", help="list every judged citation, not only those that need review"
    )
    parser.add_argument(
        "--accept", metavar="ID", action="append", default=[], help="confirm Jev's verdict for this citation"
    )
    parser.add_argument(
        "--set",
        metavar="ID=VERDICT",
        action="append",
        default=[],
        dest="set_",
        help=f"set this citation's verdict ({', '.join(DECIDABLE_VERDICTS)})",
    )
    parser.add_argument(
        "--replace", action="store_true", help="replace a decision a citation already has (else refused, or asked)"
    )
    parser.add_argument("--note", metavar="TEXT", help="a note stored with every decision of this invocation")
    parser.add_argument("--by", metavar="NAME", help="who decides (default: git config user.name, else the login name)")
    parser.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto", help="highlight quotes with colour"
    )
    return parser


# --- reading the report ---------------------------------------------------------------------


def load_rows(path: Path, *, last_run: bool = False) -> list[ReportRow]:
    """The report's rows to review; ``last_run``: ``path`` is where pytest's cache keeps the last run's."""
    try:
        report = Report.load(path)
    except ReportError as error:
        raise ReviewInputError(missing_report_message(path) if last_run and not path.exists() else str(error)) from None
    judged = [row for row in report.rows if row.judged]
    if judged and any(not row.has("review_key") or not row.has("section_text") for row in judged):
        raise ReviewInputError(
            f"{path} was written by a pytest-citecheck without review support (no review keys); rerun pytest to write a new one"
        )
    return report.distinct


def accept_form(row: ReportRow, rows: Sequence[ReportRow]) -> str:
    """The id ``--accept`` takes for ``row``: its citation id, or ``TEST::ID`` when that id names several."""
    others = {(other.review_key, other.reviews_file) for other in rows if other.id == row.id}
    return row.qualified_id if len(others) > 1 else row.id


def _matches(rows: Sequence[ReportRow], wanted: str) -> list[ReportRow]:
    matches = [row for row in rows if row.id == wanted]
    if not matches and "::" in wanted:
        test, citation = wanted.rsplit("::", 1)
        matches = [row for row in rows if row.test == test and row.id == citation]
    return matches


def resolve(rows: Sequence[ReportRow], wanted: str) -> ReportRow:
    """The report row an id names: a citation id, or ``TEST_NODE_ID::CITATION_ID`` when ids repeat."""
    matches = _matches(rows, wanted)
    if not matches:
        pending = sorted({row.id for row in rows if row.needs_review})
        known = f"citations that need review: {', '.join(pending)}" if pending else "no citation in it needs review"
        raise ReviewInputError(f"unknown citation id {wanted!r}: it is not in the report ({known})")
    if len({(row.review_key, row.reviews_file) for row in matches}) > 1:
        options = ", ".join(sorted({row.qualified_id for row in matches}))
        raise ReviewInputError(
            f"citation id {wanted!r} is ambiguous (checked in several tests); name one of: {options}"
        )
    row = matches[0]
    if row.errored:
        raise ReviewInputError(
            f"citation {wanted!r} errored ({visible(row.cause.splitlines()[0])}): its check raised, so there is no "
            "verdict to review; fix the cause and run its test again"
        )
    if not row.review_key:
        raise ReviewInputError(
            f"citation {wanted!r} is {row.verdict}: its quote is not in the source, so there is no verdict to review; "
            "fix the citation instead"
        )
    return row


# --- recording --------------------------------------------------------------------------------


def reviewer_name(explicit: str | None) -> str:
    if explicit and explicit.strip():
        return explicit.strip()
    try:
        name = subprocess.run(
            ["git", "config", "user.name"], capture_output=True, text=True, timeout=5, check=False
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        name = ""
    try:
        return name or getpass.getuser()
    except (KeyError, OSError):  # a user id with no passwd entry (a container run with --user): no login name
        raise ReviewInputError("cannot tell who decides (no git user.name, no login name): pass --by NAME") from None


def parse_set(value: str) -> tuple[str, str]:
    citation, sep, verdict = value.rpartition("=")
    if not sep or not citation:
        raise ReviewInputError(f"--set {value!r}: expected ID=VERDICT, e.g. --set c5=verified")
    verdict = verdict.strip().lower()
    if verdict not in DECIDABLE_VERDICTS:
        raise ReviewInputError(
            f"--set {value!r}: unknown verdict {verdict!r}; choose one of {', '.join(DECIDABLE_VERDICTS)}"
        )
    return citation.strip(), verdict


def decision_text(entry: Mapping[str, Any]) -> str:
    """A recorded decision in a few words: its verdict, who, when, and the note."""
    note = f", note: {entry['note']!r}" if entry.get("note") else ""
    return visible(f"{entry.get('verdict')} by {entry.get('by')} on {entry.get('at')}{note}")


def stood_on_its_own(row: ReportRow) -> str | None:
    """For a citation whose verdict needed no human (at or above auto_accept): the words that say so."""
    if not row.auto:
        return None
    return f"stood on its own ({row.said} at {row.confidence_cell}, auto_accept {row.auto_accept:g})"


def apply_flags(
    rows: list[ReportRow],
    args: argparse.Namespace,
    out: TextIO,
    ask: Callable[[str], str] = input,
    on_terminal: bool | None = None,
) -> int:
    """Record ``--accept`` and ``--set`` decisions: all of them, or (on any bad input) none.

    A citation that already has a decision keeps it unless ``--replace`` is given (or, on a
    terminal, the reviewer says yes); a citation that stood on its own needs a ``--note`` saying why.
    """
    if on_terminal is None:
        on_terminal = sys.stdin.isatty()
    wanted: list[tuple[str, str | None]] = [(citation, None) for citation in args.accept]
    wanted += [parse_set(value) for value in args.set_]
    session = Session(args.reviews, rows)
    by = reviewer_name(args.by)
    decided = []
    for citation, verdict in wanted:
        row = resolve(rows, citation)
        own = _own_needs_note(row, args.note)
        existing = session.file_for(row).decisions.get(str(row.review_key))
        if existing is not None and not args.replace:
            _confirm_replace(row, existing, ask if on_terminal else None)
        entry = session.record(row, verdict, by=by, note=args.note)
        decided.append((row, entry, existing, own))
    paths = session.save()
    for row, entry, existing, own in decided:
        _print_recorded(row, entry, existing, own, out)
        also = also_decided(row, rows)
        if also is not None:
            print(also, file=out)
    print(f"Wrote {', '.join(str(p) for p in paths)}; rerun pytest to apply.", file=out)
    return EXIT_OK


def _own_needs_note(row: ReportRow, note: str | None) -> str | None:
    own = stood_on_its_own(row)
    if own is not None and not note:
        raise ReviewInputError(
            f"citation {quoted_id(row.id)} {own}: it needs no review, so a decision on it must say "
            "why: pass --note TEXT (the decision then takes the place of Jev's verdict on every run)"
        )
    return own


def _confirm_replace(row: ReportRow, existing: Mapping[str, Any], ask: Callable[[str], str] | None) -> None:
    shown = f"citation {quoted_id(row.id)} already has a decision: {decision_text(existing)}"
    if not (ask is not None and ask(f"{shown}. Replace it? [y/N] ").strip().lower() in {"y", "yes"}):
        raise ReviewInputError(f"{shown}; the decision was kept (pass --replace to replace it)")


def _print_recorded(
    row: ReportRow, entry: Mapping[str, Any], existing: Mapping[str, Any] | None, own: str | None, out: TextIO
) -> None:
    how = "confirmed" if entry["action"] == "confirm" else f"set (Jev said {entry['model_verdict']})"
    line = visible(f"{short_id(row.id)}: {entry['verdict']} {how} by {entry['by']}")
    if existing is not None:
        line += f"; replaces {existing.get('by')}'s decision ({decision_text(existing)})"
    print(line, file=out)
    if own is not None:
        print(
            f"  {visible(short_id(row.id))} {own}: this documented decision now takes the place of Jev's verdict",
            file=out,
        )


def list_rows(rows: list[ReportRow], *, every: bool, color: bool, out: TextIO) -> list[ReportRow]:
    shown = [row for row in rows if row.review_key and (every or row.needs_review)]
    if not shown:
        print("Nothing needs review: every judged citation stands on its own or has a human decision.", file=out)
        return shown
    pending = sum(1 for row in shown if row.needs_review)
    print(f"{pending} citation{'s' if pending != 1 else ''} need{'s' if pending == 1 else ''} review.\n", file=out)
    for index, row in enumerate(shown, start=1):
        name = accept_form(row, rows)
        print(describe(row, color=color, position=f"[{index}/{len(shown)}] ", name=name), file=out)
        print(file=out)
    return shown


# Said when answers were piped in: the prompts read a terminal, never a pipe.
NEEDS_A_TERMINAL = (
    "No decision was recorded: answering the prompts needs a terminal, and this input is not one. "
    "From a script, decide with --accept ID or --set ID=VERDICT, using the ids listed above."
)
PROMPT_KEYS = {"v": "verified", "u": "unsupported", "c": "contradicted"}
# The answers the decision prompt takes: the words it shows, and their first letters.
_WORDS = ("accept", "verified", "unsupported", "contradicted", "skip", "quit")
ANSWERS = {**{word[0]: word[0] for word in _WORDS}, **{word: word[0] for word in _WORDS}}


class _EndOfInput(Exception):
    """Ctrl-D (the end of input) at the note prompt: the decision being noted is not recorded, and the
    review ends there, as Ctrl-D at the decision prompt ends it."""


def _ask(ask: Callable[[str], str], question: str, on_eof: str | None) -> str:
    """The answer, stripped; at the end of input ``on_eof`` (None: raise ``_EndOfInput``)."""
    try:
        return ask(question).strip()
    except EOFError:
        if on_eof is None:
            raise _EndOfInput from None
        return on_eof


def _choose(row: ReportRow, ask: Callable[[str], str], out: TextIO) -> str:
    """The reviewer's answer to one citation: a, v, u, c, s or q (q at the end of input); the words
    the prompt shows (accept, verified, ..., quit) are taken too, in any case."""
    question = f"Decision? [a]ccept {row.said}, [v]erified, [u]nsupported, [c]ontradicted, [s]kip, [q]uit: "
    while True:
        answer = ANSWERS.get(_ask(ask, question, "q").lower())
        if answer is not None:
            return answer
        print(
            "  please answer a, v, u, c, s or q (or accept, verified, unsupported, contradicted, skip, quit)", file=out
        )


def _decide_one(
    row: ReportRow,
    answer: str,
    args: argparse.Namespace,
    by: str,
    io: tuple[Callable[[str], str], TextIO],
    rows: Sequence[ReportRow],
) -> bool:
    """Record ``answer`` for ``row`` in its reviews file (written at once); False when nothing was recorded."""
    ask, out = io
    session = Session(args.reviews, rows)  # one file write per answer: quitting later loses nothing
    existing = session.file_for(row).decisions.get(str(row.review_key))
    if existing is not None and not args.replace:
        if _ask(ask, f"Replace the decision {decision_text(existing)}? [y/N] ", "").lower() not in {"y", "yes"}:
            print("  kept the existing decision\n", file=out)
            return False
    own = stood_on_its_own(row)
    wording = "required: it " + own + ", so say why" if own else "optional, Enter to skip"
    # Ctrl-D here cancels: a decision takes the place of Jev's verdict on every run, so one the reviewer
    # broke off is not recorded (Enter is "no note").
    note = args.note if args.note is not None else _ask(ask, f"Note ({wording}): ", None) or None
    if own and not note:
        print(f"  not recorded: {visible(short_id(row.id))} {own}; a decision on it needs a note\n", file=out)
        return False
    entry = session.record(row, None if answer == "a" else PROMPT_KEYS[answer], by=by, note=note)
    try:
        session.save()
    except DecisionConflictError as error:  # another reviewer answered this citation while we were asking
        print(f"  not recorded: {visible(error)}\n", file=out)
        return False
    print(f"  recorded {entry['verdict']} ({entry['action']}) in {reviews_path(row, args.reviews)}\n", file=out)
    return True


def _decided_since(row: ReportRow, override: str | None, out: TextIO) -> bool:
    """The reviews file already holds a decision for ``row`` (made after the report was written, or
    earlier in this review): say so and skip it."""
    existing = Reviews.load(reviews_path(row, override)).decisions.get(str(row.review_key))
    if existing is None:
        return False
    print(
        f"{visible(short_id(row.id))}: already decided ({decision_text(existing)}); skipped (--all shows it again)\n",
        file=out,
    )
    return True


def interactive(rows: list[ReportRow], args: argparse.Namespace, out: TextIO, ask: Callable[[str], str] = input) -> int:
    """Prompt for a decision on each citation that needs review; each answer is saved as it is given."""
    pending = [row for row in rows if row.review_key and (args.all or row.needs_review)]
    if not pending:
        print("Nothing needs review: every judged citation stands on its own or has a human decision.", file=out)
        return EXIT_OK
    for row in pending:  # before the first prompt, so a report that names no reviews file changes nothing
        reviews_path(row, args.reviews)
    color = _use_color(args.color, out)
    by = reviewer_name(args.by)
    recorded = 0
    for index, row in enumerate(pending, start=1):
        if not args.all and _decided_since(row, args.reviews, out):
            continue
        print(describe(row, color=color, position=f"[{index}/{len(pending)}] ", name=accept_form(row, rows)), file=out)
        answer = _choose(row, ask, out)
        if answer == "q":
            break
        if answer == "s":
            print(file=out)
            continue
        try:
            recorded += _decide_one(row, answer, args, by, (ask, out), rows)
        except _EndOfInput:
            print(f"\n  not recorded: {visible(short_id(row.id))} (end of input at the note prompt)\n", file=out)
            break
    print(f"{recorded} decision{'s' if recorded != 1 else ''} recorded; rerun pytest to apply.", file=out)
    return EXIT_OK


def main(argv: Sequence[str]) -> int:
    args = _parser().parse_args(list(argv))
    # Under GitHub Actions the output (claims, ids, names from the report) runs inside a
    # ::stop-commands:: block: no line of it is a workflow command.
    opening, *closing = stop_commands(["-"], os.environ)
    if closing:
        print(opening, flush=True)
    try:
        return _run(args, sys.stdout)
    except (ReviewInputError, ReviewsFileError) as error:
        print(f"citecheck review: {visible(error)}\nNothing was changed.", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        # Ctrl-C at a prompt: every decision said to be recorded is in its file (each is written
        # whole, atomically), the one being asked about is not; no traceback.
        print(
            "\ncitecheck review: interrupted; decisions reported as recorded are kept, nothing else was written.",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    finally:
        if closing:
            print(closing[-1], flush=True)


def _run(args: argparse.Namespace, out: TextIO) -> int:
    report = Path(args.report) if args.report else last_report(Path.cwd())
    rows = load_rows(report, last_run=not args.report)
    if args.accept or args.set_:
        return apply_flags(rows, args, out)
    if args.list or not (sys.stdin.isatty() and out.isatty()):
        shown = list_rows(rows, every=args.all, color=_use_color(args.color, out), out=out)
        for line in dead_lines(still_decided(Report.load(report).dead_decisions), verbose=True):
            print(visible(line), file=out)  # decisions for citations the run found no more, if still in their file
        if shown and not args.list and not sys.stdin.isatty():
            print(NEEDS_A_TERMINAL, file=out)
        return EXIT_OK
    return interactive(rows, args, out)
