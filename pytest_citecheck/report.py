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

from .cassettes import atomic_write_text

REPORT_VERSION = 1
VERDICT_ORDER = ("verified", "unsupported", "contradicted", "fabricated")


class ReportError(ValueError):
    """A report file that cannot be read as a pytest-citecheck report."""


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


class Report:
    """Rows of checked citations, in the order they were checked."""

    def __init__(self, rows: Iterable[dict[str, Any]] = ()) -> None:
        self.rows: list[dict[str, Any]] = list(rows)

    def extend(self, rows: Iterable[dict[str, Any]]) -> None:
        self.rows.extend(rows)

    def __len__(self) -> int:
        return len(self.rows)

    # --- files ------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"version": REPORT_VERSION, "results": self.rows}

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
            raise ReportError(f"{path}: report version {data.get('version')!r}; this pytest-citecheck reads version {REPORT_VERSION}")
        return cls(data["results"])

    @classmethod
    def merge(cls, reports: Sequence[Report]) -> Report:
        merged = cls()
        for report in reports:
            merged.extend(report.rows)
        return merged

    # --- terminal ---------------------------------------------------------------------------

    def counts(self) -> Counter[str]:
        return Counter(row["verdict"] for row in self.rows)

    def summary_lines(self, *, verbose: bool = False) -> list[str]:
        """The terminal summary: a count line, a row per citation, one hint. Empty when nothing was checked."""
        if not self.rows:
            return []
        counts = self.counts()
        parts = [f"{counts[v]} {v}" for v in VERDICT_ORDER if counts[v]]
        review = sum(1 for row in self.rows if not row["auto"])
        tests = len({row.get("test") for row in self.rows})
        lines = [f"{plural(len(self.rows), 'citation')} checked in {plural(tests, 'test')}: {', '.join(parts)}"]
        header = ["id", "verdict", "conf", "action"] + (["section", "test"] if verbose else [])
        table = [header]
        for row in self.rows:
            confidence = "-" if row["confidence"] is None else f"{row['confidence']:.2f}"
            cells = [str(row["id"]), row["verdict"], confidence, "auto" if row["auto"] else "review"]
            if verbose:
                cells += [row.get("section") or "-", row.get("test") or "-"]
            table.append(cells)
        widths = [max(len(cells[i]) for cells in table) for i in range(len(header))]
        lines += ["  " + "  ".join(cell.ljust(w) for cell, w in zip(cells, widths)).rstrip() for cells in table]
        if review:
            lines.append(f"{plural(review, 'citation')} below auto_accept need{'s' if review == 1 else ''} a human review.")
        return lines
