"""The run's record of every checked citation: the JSON report and the terminal summary.

Rows are ``ReportRow``s (``_report.row``): they cross process boundaries under xdist as the JSON
objects ``CitationResult.to_json`` writes (taken in by ``extend_built``), merge across CI shards, and
load back for review, checked against the row schema (``from_json``, ``extend``). Pure code: the plugin feeds rows in and prints the lines out.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_citecheck._files import UnreadableFileError, atomic_write_chunks, read_regular_file
from pytest_citecheck._report.dead_decisions import are_entries, dead_lines
from pytest_citecheck._report.row import VERDICT_ORDER as VERDICT_ORDER
from pytest_citecheck._report.row import ReportRow, RowError, as_row, errored_lines, rehearsal_lines
from pytest_citecheck._text import (
    DEFAULT_REVIEW_COMMAND,
    NO_REPORT_KEPT,
    cut_ids_note,
    cut_middle,
    plural,
    render_table,
    review_command,
    stop_commands,
    visible,
)

REPORT_VERSION = 1
SHORT_RUN_ROWS = 30
# The largest JSON file read (a report, a reviews file): far above any real one.
READ_LIMIT = 1 << 30
# TypeSafe's published price; output tokens are free.
PRICE_PER_MILLION_INPUT_TOKENS = 0.042


class ReportError(ValueError):
    """A report file that cannot be read as a pytest-citecheck report."""


class Report:
    """Rows of checked citations, in the order they were checked."""

    def __init__(self, rows: Iterable[ReportRow | Mapping[str, Any]] = ()) -> None:
        self.rows: list[ReportRow] = [as_row(row) for row in rows]
        # Recordings no test played, cassettes of no collected test, why a delete run cannot delete them.
        self.unused: list[dict[str, Any]] = []
        self.orphans: list[str] = []
        self.unused_blocked: str | None = None
        # Decisions in reviews files for citations that no longer exist (``dead_decisions``).
        self.dead_decisions: list[dict[str, Any]] = []
        # After ``merge``: "test::citation" of each row that more than one report held (counted once).
        self.duplicates: list[str] = []
        # An estimate run's counts (``_estimate.tally.RunEstimate.to_json``), written as the report's "estimate".
        self.estimate: dict[str, Any] | None = None

    def extend(self, rows: Iterable[ReportRow | Mapping[str, Any]]) -> None:
        """Add rows; a JSON object is checked against the whole row schema (``ReportRow.from_json``)."""
        self.rows.extend([as_row(row) for row in rows])

    def extend_built(self, rows: Iterable[dict[str, Any]]) -> None:
        """Add the JSON objects this plugin's own code built in this run (``ReportRow.built``: a cheap check,
        not the whole schema); ``RowError`` names the citation and field of a malformed one, adding none."""
        self.rows.extend([ReportRow.built(row) for row in rows])

    def __len__(self) -> int:
        return len(self.rows)

    # --- files ------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"version": REPORT_VERSION, "results": [row.to_json() for row in self.rows], **self._after_results()}

    def _after_results(self) -> dict[str, Any]:
        """The report's fields after its rows: recordings no test used, orphan cassettes, an estimate."""
        data: dict[str, Any] = {}
        if self.unused or self.orphans:
            data.update(unused=self.unused, orphans=self.orphans)
        if self.dead_decisions:
            data["dead_decisions"] = self.dead_decisions
        if self.estimate is not None:
            data["estimate"] = self.estimate
        return data

    def write(self, path: str | Path, *, compact: bool = False) -> None:
        """Write the JSON report to ``path`` atomically, row by row (the text is never held whole); a
        symbolic link at ``path`` is kept and the file it points to replaced (``_files.write_target``)."""
        atomic_write_chunks(Path(path), self.json_chunks(compact=compact), follow_links=True)

    def json_chunks(self, *, compact: bool = False) -> Iterator[str]:
        """The JSON report's text in pieces, a row each: together, ``json.dumps(self.to_json(), indent=2)``.
        ``compact``: a row to a line, by the C encoder (``indent`` takes the pure-Python one, twice as long)."""
        yield f'{{\n  "version": {REPORT_VERSION},\n  "results": ['
        for index, row in enumerate(self.rows):
            # A JSON string holds no line break, so indenting each line nests the row as dumps would.
            text = json.dumps(row.to_json(), ensure_ascii=False, indent=None if compact else 2)
            yield ("," if index else "") + "\n    " + (text if compact else text.replace("\n", "\n    "))
        yield "\n  ]" if self.rows else "]"
        for name, field in self._after_results().items():
            value = json.dumps(field, indent=2, ensure_ascii=False).replace("\n", "\n  ")
            yield f",\n  {json.dumps(name)}: {value}"
        yield "\n}\n"

    @classmethod
    def load(cls, path: str | Path) -> Report:
        """The report in ``path``; ``ReportError`` (one line naming the file and the cause) for anything else."""
        return cls.from_json(
            read_json(path, missing=f"no such report (write one with pytest --citecheck-json={path})"), path
        )

    @classmethod
    def from_json(cls, data: Any, path: str | Path) -> Report:
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise ReportError(f"{path}: not a pytest-citecheck report (no 'results' list)")
        if data.get("version") != REPORT_VERSION:
            raise ReportError(
                f"{path}: report version {_shown(data.get('version'))}; this pytest-citecheck reads version {REPORT_VERSION}"
            )
        report = cls()
        for index, row in enumerate(data["results"]):
            try:
                report.rows.append(ReportRow.from_json(row))
            except RowError as error:
                raise ReportError(f"{path}: result {index} {error}") from None
        report.unused = _unused_entries(path, data)
        orphans = data.get("orphans") or []
        if not isinstance(orphans, list) or not all(isinstance(orphan, str) for orphan in orphans):
            raise ReportError(f"{path}: field 'orphans' is {_shown(orphans)}, expected a list of paths")
        report.orphans = list(orphans)
        report.dead_decisions = _dead_decisions(path, data)
        return report

    @classmethod
    def merge(cls, reports: Sequence[Report], names: Sequence[str] | None = None) -> Report:
        """One report from several (``names`` label them in errors).

        A row is identified by its test and citation id (and, for a citation a test checks more than
        once, which check it is). A row that more than one report holds — the same shard passed twice,
        shards that overlap — is counted once and listed in ``duplicates``; if the reports disagree on
        its verdict, no merge can be right, and it is a ``ReportError``.
        """
        labels = list(names) if names is not None else [f"report {n}" for n in range(1, len(reports) + 1)]
        merged = cls()
        first_seen: dict[tuple[str, str, int], tuple[str, ReportRow]] = {}
        seen_unused: set[tuple[str, str, str]] = set()
        for report, label in zip(reports, labels):
            checks: Counter[tuple[str, str]] = Counter()
            for row in report.rows:
                checks[str(row.test), row.id] += 1
                key = (str(row.test), row.id, checks[str(row.test), row.id])
                if key not in first_seen:
                    first_seen[key] = (label, row)
                    merged.rows.append(row)
                    continue
                merged._note_duplicate(row, label, *first_seen[key])
            for entry in report.unused:
                unused_key = (str(entry.get("test")), str(entry.get("cassette")), str(entry.get("request")))
                if unused_key not in seen_unused:
                    seen_unused.add(unused_key)
                    merged.unused.append(entry)
        # Every shard collects the whole suite, so each may find the same orphan.
        merged.orphans = sorted({orphan for report in reports for orphan in report.orphans})
        dead = {(str(e.get("reviews_file")), str(e.get("key"))): e for r in reports for e in r.dead_decisions}
        merged.dead_decisions = list(dead.values())
        return merged

    def _note_duplicate(self, row: ReportRow, label: str, where: str, first: ReportRow) -> None:
        if first.verdict != row.verdict:
            raise ReportError(
                f"{row.qualified_id} is {first.verdict} in {where} but {row.verdict} in {label}: "
                "the reports disagree about the same citation; merge the reports of one run's shards only"
            )
        if row.qualified_id not in self.duplicates:
            self.duplicates.append(row.qualified_id)

    def recording_lines(
        self, *, unused_policy: str = "warn", fail_on_flip: bool = False, verbose: bool = False
    ) -> list[str]:
        """The summary of what re-recording changed (drift) and of recordings no test used. Each part's code
        loads only when it has something to say: an xdist controller never loads what reads cassettes."""
        lines: list[str] = []
        drifted = [row.to_json() for row in self.rows if row.previous]
        if drifted:
            from pytest_citecheck._recording.lifecycle.drift import drift_lines

            lines += drift_lines(drifted, fail_on_flip=fail_on_flip)
        if self.unused or self.orphans:
            from pytest_citecheck._recording.lifecycle.unused import unused_lines

            blocked = self.unused_blocked
            lines += unused_lines(self.unused, self.orphans, policy=unused_policy, verbose=verbose, blocked=blocked)
        return lines

    # --- terminal ---------------------------------------------------------------------------

    @property
    def distinct(self) -> list[ReportRow]:
        """One row per test and citation id: its last check (a citation checked twice in a test, or a
        test rerun by pytest-rerunfailures, counts once), in the order first checked."""
        last: dict[tuple[str | None, str], ReportRow] = {}
        for row in self.rows:
            last[(row.test, row.id)] = row
        return list(last.values())

    def repeats(self) -> dict[str, int]:
        """``test::id`` -> how many times it was checked, for the citations checked more than once."""
        counted = Counter(row.qualified_id for row in self.rows)
        return {name: count for name, count in counted.items() if count > 1}

    def counts(self) -> Counter[str]:
        """Citations per verdict, each citation (test and id) once."""
        return Counter(row.verdict for row in self.distinct)

    @property
    def tests(self) -> int:
        """How many tests checked citations."""
        return len({row.test for row in self.rows})

    def section_lines(self, settings: Any, *, verbose: bool, cached: bool, environ: Mapping[str, str]) -> list[str]:
        """The terminal summary's citecheck section: the summary and the recording lines, shown
        harmlessly (``visible``), inside a ``::stop-commands::`` block under GitHub Actions.

        ``settings``: the run's (its JSON report, unused policy, fail_on_flip); ``cached``: pytest's cache is on.
        """
        lines = self.summary_lines(verbose=verbose, review_hint=review_hint(settings.json, cached=cached))
        lines += self.recording_lines(
            unused_policy=settings.unused, fail_on_flip=settings.fail_on_flip, verbose=verbose
        )
        lines += dead_lines(self.dead_decisions, verbose=verbose)
        return stop_commands([visible(line) for line in lines], environ)

    def summary_lines(self, *, verbose: bool = False, review_hint: str = "run `citecheck review`.") -> list[str]:
        """The terminal summary: counts, the citations that need a human (every one under ``-v``), decisions, cost.

        ``review_hint``: what to do about the citations that need review (``review_hint()``). Empty when
        nothing was checked.
        """
        if not self.rows:
            return []
        distinct = self.distinct
        counts = self.counts()
        parts = [f"{counts[v]} {v}" for v in VERDICT_ORDER if counts[v]]
        lines = [f"{plural(len(distinct), 'citation')} checked in {plural(self.tests, 'test')}: {', '.join(parts)}"]
        shown = self.shown_rows(verbose)
        lines += self.table_lines(shown, verbose)
        lines += self.note_lines(review_hint)
        lines += cut_ids_note(row.id for row in shown)
        if not verbose and len(shown) < len(distinct):
            lines.append("(-v lists every citation)")
        return lines

    def shown_rows(self, verbose: bool) -> list[ReportRow]:
        """Every citation while the list stays short; in a long run, the ones that are not plainly
        verified (failures, reviews, stale decisions), with -v for the rest."""
        distinct = self.distinct
        if verbose or len(distinct) <= SHORT_RUN_ROWS:
            return distinct
        return [row for row in distinct if row.verdict != "verified" or row.needs_review or row.stale]

    def table_lines(self, shown: Sequence[ReportRow], verbose: bool) -> list[str]:
        """The table of ``shown``: id, verdict, confidence, action, and the columns the rows need."""
        if not shown:
            return []
        # Citations checked against a Corpus: which document each quote is in. Citation ids are
        # unique within a call, not across tests: when tests share one, the table names each row's
        # test (as -v always does), or its rows could not be told apart.
        columns = [
            *(["document"] if any(row.document or row.cited_document for row in self.rows) else []),
            *(["section", "test"] if verbose else ["test"] if self.shared_ids() else []),
        ]
        table = [["id", "verdict", "conf", "action", *columns]]
        for row in shown:
            extra = [getattr(row, column) or "-" for column in columns]
            table.append([row.id, row.verdict, row.confidence_cell, row.action, *extra])
        return render_table(table)

    def note_lines(self, review_hint: str = "run `citecheck review`.") -> list[str]:
        """The lines under the table: errors, repeats, misattributed and fuzzy quotes, flags, decisions, reviews, cost."""
        shared = self.shared_ids()
        distinct = self.distinct
        lines = errored_lines(distinct) + repeat_lines(self.repeats())
        misattributed = [row for row in distinct if row.misattributed]
        if misattributed:
            lines.append(misattributed_line(misattributed))
        approximate = [row for row in distinct if row.approximate]
        if approximate:
            listed = ", ".join(f"{cut_middle(row.label(shared))} ({row.similarity or 0:.2f})" for row in approximate)
            lines.append(f"{plural(len(approximate), 'quote')} matched approximately (fuzzy): {listed}.")
        lines += question_summary(distinct)
        lines += decision_lines(distinct, review_hint)
        cost = self.cost_line()
        return lines + ([cost] if cost else []) + rehearsal_lines(self.rows)

    def shared_ids(self) -> set[str]:
        """Citation ids that more than one test checked."""
        tests: dict[str, set[Any]] = {}
        for row in self.rows:
            tests.setdefault(row.id, set()).add(row.test)
        return {citation_id for citation_id, seen in tests.items() if len(seen) > 1}

    def cost_line(self) -> str | None:
        """Jev requests, input tokens and their price; how many were replayed, really sent, or answered
        with a copy of an answer the run already received (identical requests are sent once: ``shared``).
        Only what was sent is priced as spent."""
        judged = [row for row in self.rows if row.requested]
        if not judged:
            return None
        tokens = sum(row.input_tokens or 0 for row in judged)
        sent = [row for row in judged if not row.replayed and not row.shared]
        sent_tokens = sum(row.input_tokens or 0 for row in sent)
        shared = sum(1 for row in judged if row.shared and not row.replayed)
        replayed = len(judged) - len(sent) - shared
        copies = f", {shared} shared" if shared else ""
        return (
            f"Jev: {plural(len(judged), 'request')}, {tokens:,} input tokens = {_dollars(tokens)} "
            f"at ${PRICE_PER_MILLION_INPUT_TOKENS} per million; {replayed} replayed, {len(sent)} sent{copies} "
            f"({_dollars(sent_tokens)} spent by this run)"
        )


def read_json(path: str | Path, *, missing: str) -> Any:
    """The JSON in ``path``; ``ReportError`` naming the file and the cause (absent, a directory, unreadable, not JSON, too deep)."""
    try:
        return json.loads(read_regular_file(Path(path), READ_LIMIT).decode("utf-8"))
    except FileNotFoundError:
        raise ReportError(f"{path}: {missing}") from None
    except UnreadableFileError as error:
        raise ReportError(f"{path}: cannot read it: {error}") from None
    except OSError as error:
        raise ReportError(f"{path}: cannot read it ({error.strerror or error})") from None
    except RecursionError:
        raise ReportError(f"{path}: not a JSON report (nested too deeply)") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise ReportError(f"{path}: not a JSON report ({error})") from None


def _unused_entries(path: str | Path, data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The report's unused recordings: objects naming their test and cassette, every value plain text."""
    value = data.get("unused") or []
    if not isinstance(value, list) or not all(_is_unused_entry(entry) for entry in value):
        raise ReportError(
            f"{path}: field 'unused' is {_shown(value)}, expected a list of objects with a test and a cassette"
        )
    return list(value)


def _dead_decisions(path: str | Path, data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The report's dead decisions (``dead_decisions``)."""
    value = data.get("dead_decisions") or []
    if not are_entries(value):
        raise ReportError(
            f"{path}: field 'dead_decisions' is {_shown(value)}, expected a list of objects with a reviews_file and a key"
        )
    return list(value)


def _is_unused_entry(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("test"), str)
        and isinstance(entry.get("cassette"), str)
        and all(isinstance(item, str | int | float | bool | None) for item in entry.values())
    )


def _shown(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def repeat_lines(repeats: Mapping[str, int]) -> list[str]:
    """The citations checked more than once (counted once above): which, and how many times."""
    if not repeats:
        return []
    listed = ", ".join(f"{cut_middle(name)} ({count} times)" for name, count in list(repeats.items())[:5])
    more = f" and {len(repeats) - 5} more" if len(repeats) > 5 else ""
    checks = sum(repeats.values()) - len(repeats)
    return [f"{plural(checks, 'repeated check')} counted once (the last check stands): {listed}{more}."]


def decision_lines(rows: Sequence[ReportRow], review_hint: str = "run `citecheck review`.") -> list[str]:
    """Human decisions that apply, ones gone stale, and the citations that still need a human."""
    lines = []
    decided = [row for row in rows if row.decided]
    stale = [row for row in rows if row.stale]
    review = [row for row in rows if row.needs_review]
    if decided:
        lines.append(f"{plural(len(decided), 'verdict')} decided by a human (reviews file).")
    if stale:
        lines.append(
            f"{plural(len(stale), 'human decision')} no longer appl{'ies' if len(stale) == 1 else 'y'} "
            "(the claim, section or model changed): review again."
        )
    if review:
        why = "below auto_accept or flagged" if any(row.flagged for row in review) else "below auto_accept"
        lines.append(
            f"{plural(len(review), 'citation')} {why} need{'s' if len(review) == 1 else ''} a human review: "
            + review_hint
        )
    return lines


def review_hint(json_path: str | Path | None, *, cached: bool) -> str:
    """What the summary tells a reviewer to run: a command that finds this run's report.

    ``json_path``: the run's JSON report, if it wrote one; ``cached``: pytest's cache (where
    ``citecheck review`` looks by default) is on.
    """
    command = review_command(None if json_path is None else str(json_path), cached=cached)
    return NO_REPORT_KEPT + "." if command is None else f"run `{command}`."


DEFAULT_REVIEW_HINT = f"run `{DEFAULT_REVIEW_COMMAND}`."


def misattributed_line(rows: Sequence[ReportRow]) -> str:
    """The found-elsewhere citations: where each was cited and where its quote is (one mention per citation and place)."""
    from pytest_citecheck._gate import where_cited

    places = dict.fromkeys(
        f"{cut_middle(row.id)} ({where_cited(row.cited_section, row.cited_document, row.section, row.document)})"
        for row in rows
    )
    shown = list(places)[:5]
    more = f" and {len(places) - len(shown)} more" if len(places) > len(shown) else ""
    n = len(rows)
    return (
        f"{plural(n, 'citation')} quote{'s' if n == 1 else ''} another place than "
        f"{'it names' if n == 1 else 'they name'}: {', '.join(shown)}{more}."
    )


def _dollars(tokens: int) -> str:
    return f"${tokens * PRICE_PER_MILLION_INPUT_TOKENS / 1_000_000:.6f}"


def question_summary(rows: Iterable[ReportRow]) -> list[str]:
    """One line for the citations an extra question (option ``questions``) flagged, if any."""
    flags = []
    for row in rows:
        for name, answer in row.questions.items():
            if answer.get("flagged"):
                strength = "confident" if answer.get("confident") else "review"
                flags.append(f"{cut_middle(row.id)} ({name} {float(answer.get('concern') or 0):.2f}, {strength})")
    if not flags:
        return []
    return [f"{plural(len(flags), 'flag')} from extra questions: {', '.join(flags)}."]
