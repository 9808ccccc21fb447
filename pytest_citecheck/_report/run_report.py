"""The run's record of every checked citation: the JSON report and the terminal summary.

Rows are plain dicts (``CitationResult.to_json`` plus the test's node id), so they cross process
boundaries under xdist unchanged, merge across CI shards, and load back for review. Pure code: the
plugin feeds rows in and prints the lines out.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pytest_citecheck._files import atomic_write_text
from pytest_citecheck._text import format_confidence, plural, render_table

REPORT_VERSION = 1
SHORT_RUN_ROWS = 30
# TypeSafe's published price; output tokens are free.
PRICE_PER_MILLION_INPUT_TOKENS = 0.042
VERDICT_ORDER = ("verified", "unsupported", "contradicted", "fabricated")


class ReportError(ValueError):
    """A report file that cannot be read as a pytest-citecheck report."""


class Report:
    """Rows of checked citations, in the order they were checked."""

    def __init__(self, rows: Iterable[dict[str, Any]] = ()) -> None:
        self.rows: list[dict[str, Any]] = list(rows)
        # Recordings no test played, and cassette files of no collected test (see ``recordings``).
        self.unused: list[dict[str, Any]] = []
        self.orphans: list[str] = []
        # After ``merge``: "test::citation" of each row that more than one report held (counted once).
        self.duplicates: list[str] = []

    def extend(self, rows: Iterable[dict[str, Any]]) -> None:
        self.rows.extend(rows)

    def __len__(self) -> int:
        return len(self.rows)

    # --- files ------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"version": REPORT_VERSION, "results": self.rows}
        if self.unused or self.orphans:
            data.update(unused=self.unused, orphans=self.orphans)
        return data

    def write(self, path: str | Path) -> None:
        atomic_write_text(Path(path), json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> Report:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ReportError(f"{path}: no such report (write one with pytest --citecheck-json={path})") from None
        except (ValueError, UnicodeDecodeError) as error:
            raise ReportError(f"{path}: not a JSON report ({error})") from None
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise ReportError(f"{path}: not a pytest-citecheck report (no 'results' list)")
        if data.get("version") != REPORT_VERSION:
            raise ReportError(
                f"{path}: report version {data.get('version')!r}; this pytest-citecheck reads version {REPORT_VERSION}"
            )
        report = cls(data["results"])
        report.unused = list(data.get("unused") or [])
        report.orphans = list(data.get("orphans") or [])
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
        first_seen: dict[tuple[str, str, int], tuple[str, dict[str, Any]]] = {}
        seen_unused: set[tuple[str, str, str]] = set()
        for report, label in zip(reports, labels):
            checks: Counter[tuple[str, str]] = Counter()
            for row in report.rows:
                test, citation = str(row.get("test")), str(row.get("id"))
                checks[test, citation] += 1
                key = (test, citation, checks[test, citation])
                if key not in first_seen:
                    first_seen[key] = (label, row)
                    merged.rows.append(row)
                    continue
                where, first = first_seen[key]
                if first.get("verdict") != row.get("verdict"):
                    raise ReportError(
                        f"{test}::{citation} is {first.get('verdict')} in {where} but {row.get('verdict')} in {label}: "
                        "the reports disagree about the same citation; merge the reports of one run's shards only"
                    )
                if f"{test}::{citation}" not in merged.duplicates:
                    merged.duplicates.append(f"{test}::{citation}")
            for entry in report.unused:
                unused_key = (str(entry.get("test")), str(entry.get("cassette")), str(entry.get("request")))
                if unused_key not in seen_unused:
                    seen_unused.add(unused_key)
                    merged.unused.append(entry)
        # Every shard collects the whole suite, so each may find the same orphan.
        merged.orphans = sorted({orphan for report in reports for orphan in report.orphans})
        return merged

    def recording_lines(
        self, *, unused_policy: str = "warn", fail_on_flip: bool = False, verbose: bool = False
    ) -> list[str]:
        """The summary of what re-recording changed (drift) and of recordings no test used."""
        from pytest_citecheck._recording.lifecycle.drift import drift_lines
        from pytest_citecheck._recording.lifecycle.unused import unused_lines

        return drift_lines(self.rows, fail_on_flip=fail_on_flip) + unused_lines(
            self.unused, self.orphans, policy=unused_policy, verbose=verbose
        )

    # --- terminal ---------------------------------------------------------------------------

    def counts(self) -> Counter[str]:
        return Counter(row["verdict"] for row in self.rows)

    def summary_lines(self, *, verbose: bool = False) -> list[str]:
        """The terminal summary: counts, the citations that need a human (every one under ``-v``), decisions, cost.

        Empty when nothing was checked.
        """
        if not self.rows:
            return []
        counts = self.counts()
        parts = [f"{counts[v]} {v}" for v in VERDICT_ORDER if counts[v]]
        review = [row for row in self.rows if needs_review(row)]
        decided = [row for row in self.rows if row.get("decision")]
        stale = [row for row in self.rows if row.get("stale_decision") and not row.get("decision")]
        tests = len({row.get("test") for row in self.rows})
        lines = [f"{plural(len(self.rows), 'citation')} checked in {plural(tests, 'test')}: {', '.join(parts)}"]
        # Every citation while the list stays short; in a long run, the ones that are not plainly
        # verified (failures, reviews, stale decisions), with -v for the rest.
        if verbose or len(self.rows) <= SHORT_RUN_ROWS:
            shown = self.rows
        else:
            shown = [row for row in self.rows if row["verdict"] != "verified" or needs_review(row) or row in stale]
        # Citation ids are unique within a call, not across tests: when tests share one, the table
        # names each row's test (as -v always does), or its rows could not be told apart.
        shared = self.shared_ids()
        if shown:
            # Citations checked against a Corpus: which document each quote is in.
            with_documents = any(row.get("document") or row.get("cited_document") for row in self.rows)
            extra = ["section", "test"] if verbose else ["test"] if shared else []
            header = ["id", "verdict", "conf", "action", *(["document"] if with_documents else []), *extra]
            table = [header]
            for row in shown:
                cells = [str(row["id"]), row["verdict"], format_confidence(row["confidence"]), action(row)]
                if with_documents:
                    cells.append(row.get("document") or "-")
                if verbose:
                    cells.append(row.get("section") or "-")
                if extra:
                    cells.append(row.get("test") or "-")
                table.append(cells)
            lines += render_table(table)
        misattributed = [row for row in self.rows if row.get("status") == "found-elsewhere"]
        if misattributed:
            lines.append(misattributed_line(misattributed))
        approximate = [row for row in self.rows if row.get("status") == "found-approx"]
        if approximate:
            listed = ", ".join(f"{label(row, shared)} ({row.get('similarity') or 0:.2f})" for row in approximate)
            lines.append(f"{plural(len(approximate), 'quote')} matched approximately (fuzzy): {listed}.")
        lines += question_summary(self.rows)
        if decided:
            lines.append(f"{plural(len(decided), 'verdict')} decided by a human (reviews file).")
        if stale:
            lines.append(
                f"{plural(len(stale), 'human decision')} no longer appl{'ies' if len(stale) == 1 else 'y'} "
                "(the claim, section or model changed): review again."
            )
        if review:
            lines.append(
                f"{plural(len(review), 'citation')} {'below auto_accept or flagged' if any(row.get('flagged') for row in review) else 'below auto_accept'} "
                f"need{'s' if len(review) == 1 else ''} a human review: "
                "run `citecheck review`."
            )
        cost = self.cost_line()
        if cost:
            lines.append(cost)
        if not verbose and len(shown) < len(self.rows):
            lines.append("(-v lists every citation)")
        return lines

    def shared_ids(self) -> set[str]:
        """Citation ids that more than one test checked."""
        tests: dict[str, set[Any]] = {}
        for row in self.rows:
            tests.setdefault(str(row["id"]), set()).add(row.get("test"))
        return {citation_id for citation_id, seen in tests.items() if len(seen) > 1}

    def cost_line(self) -> str | None:
        """Jev requests, input tokens and their price, and how many were replayed rather than sent."""
        judged = [row for row in self.rows if "input_tokens" in row]
        if not judged:
            return None
        tokens = sum(int(row.get("input_tokens") or 0) for row in judged)
        sent = [row for row in judged if not row.get("replayed")]
        sent_tokens = sum(int(row.get("input_tokens") or 0) for row in sent)
        replayed = len(judged) - len(sent)
        return (
            f"Jev: {plural(len(judged), 'request')}, {tokens:,} input tokens = {_dollars(tokens)} "
            f"at ${PRICE_PER_MILLION_INPUT_TOKENS} per million; {replayed} replayed, {len(sent)} sent "
            f"({_dollars(sent_tokens)} spent by this run)"
        )


def misattributed_line(rows: Sequence[dict[str, Any]]) -> str:
    """The found-elsewhere citations: where each was cited and where its quote is (one mention per citation and place)."""
    from pytest_citecheck._gate import where_cited

    places = dict.fromkeys(
        f"{row['id']} ({where_cited(row.get('cited_section'), row.get('cited_document'), row.get('section'), row.get('document'))})"
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


def label(row: dict[str, Any], shared: set[str]) -> str:
    """A row's citation id, as ``test::id`` when its id is one of ``shared`` (``Report.shared_ids``)."""
    citation_id = str(row["id"])
    return f"{row['test']}::{citation_id}" if row.get("test") and citation_id in shared else citation_id


def question_summary(rows: Iterable[dict[str, Any]]) -> list[str]:
    """One line for the citations an extra question (option ``questions``) flagged, if any."""
    flags = []
    for row in rows:
        for name, answer in (row.get("questions") or {}).items():
            if isinstance(answer, dict) and answer.get("flagged"):
                strength = "confident" if answer.get("confident") else "review"
                flags.append(f"{row['id']} ({name} {float(answer.get('concern') or 0):.2f}, {strength})")
    if not flags:
        return []
    return [f"{plural(len(flags), 'flag')} from extra questions: {', '.join(flags)}."]


def needs_review(row: dict[str, Any]) -> bool:
    """A row below auto_accept that no human has decided."""
    return not row["auto"] and not row.get("decision")


def action(row: dict[str, Any]) -> str:
    """What stands behind a row's verdict: the model alone, a human, or nobody yet."""
    if row.get("decision"):
        return "human"
    return "auto" if row["auto"] else "review"
