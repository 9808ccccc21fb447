"""Report rows from an xdist worker to the controller: in batches, each one JSON text.

A worker's rows used to ride on every test report, as lists of dicts that execnet serialised and
the controller took apart report by report. A worker now gathers them and ships a batch of
``BATCH_ROWS`` on the report that fills it (``REPORT_FIELD``), and what is left when it finishes in
its ``workeroutput`` (``OUTPUT_KEY``): one string per batch, which the C JSON codec writes and
reads. With each batch go the locations of the tests whose rows it holds (for the GitHub
annotations and step summary, which link a citation to its test). A worker that crashes loses
the rows of its last unshipped batch (its tests' outcomes still reach the controller).

The controller takes a batch's rows as built by this plugin (``Report.extend_built``: a cheap check,
not the whole row schema), because they were: its own worker processes, started by xdist for this
run from the same installation, built them with the same code that builds a serial run's rows, from
typed results, and sent them over execnet, not through any file a user or another tool writes.
Only a broken setup (a remote worker with another pytest-citecheck installed) sends anything else,
so what is checked is cheap and enough to fail closed there: the batch's format (``BATCH_FORMAT``),
its shape (``unpack``), and each row's required fields and the fields read from a file
(``_report.schema.check_built``). A batch that fails is left out of the report and fails the run
with a line saying why; it never stops the run with an internal error.
"""

from __future__ import annotations

import json
from typing import Any

BATCH_ROWS = 500
# The shape of a batch; a worker whose batches carry another number runs another pytest-citecheck.
BATCH_FORMAT = 1
REPORT_FIELD = "citecheck_batch"
OUTPUT_KEY = "citecheck_rows"


class Shipment:
    """A worker's rows not shipped yet, and where their tests are."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.locations: dict[str, list[Any]] = {}

    def add(self, nodeid: str, location: tuple[str, int | None, str], rows: list[dict[str, Any]]) -> None:
        self.rows.extend(rows)
        self.locations.setdefault(nodeid, [location[0], location[1]])

    @property
    def full(self) -> bool:
        return len(self.rows) >= BATCH_ROWS

    def take(self) -> str | None:
        """The batch as one JSON text (None when empty), and an empty shipment after it."""
        if not self.rows:
            return None
        batch = {"format": BATCH_FORMAT, "rows": self.rows, "locations": self.locations}
        text = json.dumps(batch, ensure_ascii=False, separators=(",", ":"))
        self.rows, self.locations = [], {}
        return text


class BatchError(ValueError):
    """A batch from a worker that is not what this pytest-citecheck ships (the message says what)."""


def unpack(text: Any) -> tuple[list[Any], dict[str, list[Any]]]:
    """A batch's rows, and the location (path, line) of each test that has rows in it; ``BatchError``
    for anything else (the rows themselves are checked as they are taken, ``Report.extend_built``)."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        raise BatchError("is not JSON") from None
    found = data.get("format") if isinstance(data, dict) else None
    if found != BATCH_FORMAT:
        raise BatchError(
            f"is batch format {found!r:.20}, not {BATCH_FORMAT}: does the worker run another pytest-citecheck?"
        )
    rows, locations = data.get("rows"), data.get("locations")
    if not isinstance(rows, list):
        raise BatchError("has no list of rows")
    if not isinstance(locations, dict) or not all(_is_location(where) for where in locations.values()):
        raise BatchError("has no locations of its tests ([path, line] each)")
    return rows, locations


def _is_location(where: Any) -> bool:
    return (
        isinstance(where, list)
        and len(where) == 2
        and isinstance(where[0], str)
        and (where[1] is None or (isinstance(where[1], int) and not isinstance(where[1], bool)))
    )
