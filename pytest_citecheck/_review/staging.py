"""Where ``citecheck review`` puts a decision: the reviews file a report row names (or ``--reviews``),
and the decisions of one invocation staged per file, each recording the other citations of the
report it decides too (``_review.covered``), and written together."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_citecheck._report.row import ReportRow
from pytest_citecheck._review.decisions import Reviews
from pytest_citecheck._review.display import decided_too
from pytest_citecheck._text import quoted_id


class ReviewInputError(ValueError):
    """An id, verdict or report the command cannot act on; nothing has been written."""


def reviews_path(row: ReportRow, override: str | None) -> Path:
    if override:
        return Path(override)
    if not row.reviews_file:
        raise ReviewInputError(
            f"the report does not say which reviews file citation {quoted_id(row.id)} uses; pass --reviews PATH"
        )
    path = Path(row.reviews_file)
    if not path.parent.is_dir():
        # The report names the file from the directory pytest ran in (a CI checkout's root, say):
        # from anywhere else a new directory would be made for a file no test reads.
        raise ReviewInputError(
            f"the report puts citation {quoted_id(row.id)}'s decisions in {path}, but there is no directory "
            f"{path.parent} here: run citecheck review from the directory pytest ran in, or pass --reviews PATH"
        )
    return path


class Session:
    """Decisions of one invocation, staged per reviews file and written together. ``rows``: the
    report's, so each decision records the other citations it decides (``_review.covered``)."""

    def __init__(self, override: str | None, rows: Sequence[ReportRow]) -> None:
        self.override = override
        self.rows = rows
        self.files: dict[Path, Reviews] = {}

    def file_for(self, row: ReportRow) -> Reviews:
        path = reviews_path(row, self.override)
        if path not in self.files:
            self.files[path] = Reviews.load(path)
        return self.files[path]

    def record(self, row: ReportRow, verdict: str | None, *, by: str, note: str | None) -> dict[str, Any]:
        return self.file_for(row).record(row, verdict, by=by, note=note, also=decided_too(row, self.rows))

    def save(self) -> list[Path]:
        for reviews in self.files.values():
            reviews.save()
        return list(self.files)
