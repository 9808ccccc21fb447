"""Report rows from an xdist worker to the controller: in batches, each one JSON text.

A worker's rows used to ride on every test report, as lists of dicts that execnet serialised and
the controller took apart report by report. A worker now gathers them and ships a batch of
``BATCH_ROWS`` on the report that fills it (``REPORT_FIELD``), and what is left when it finishes in
its ``workeroutput`` (``OUTPUT_KEY``): one string per batch, which the C JSON codec writes and
reads. With each batch go the locations of the tests whose rows it holds (for the GitHub
annotations and step summary, which link a citation to its test). A worker that crashes loses
the rows of its last unshipped batch (its tests' outcomes still reach the controller).
"""

from __future__ import annotations

import json
from typing import Any

BATCH_ROWS = 500
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
        text = json.dumps({"rows": self.rows, "locations": self.locations}, ensure_ascii=False, separators=(",", ":"))
        self.rows, self.locations = [], {}
        return text


def unpack(text: str) -> tuple[list[dict[str, Any]], dict[str, list[Any]]]:
    """A batch's rows, and the location (path, line) of each test that has rows in it."""
    data = json.loads(text)
    return data["rows"], data["locations"]
