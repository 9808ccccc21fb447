"""Report rows from an xdist worker to the controller: in batches, each one JSON text.

A worker's rows used to ride on every test report, as lists of dicts that execnet serialised and
the controller took apart report by report. A worker now gathers them and ships a batch of
``BATCH_ROWS`` on the report that fills it (``REPORT_FIELD``), and what is left when it finishes in
its ``workeroutput`` (``OUTPUT_KEY``): one string per batch, which the C JSON codec writes and
reads. With each batch go the locations of the tests whose rows it holds (for the GitHub
annotations and step summary, which link a citation to its test). A worker that crashes loses
the rows of its last unshipped batch (its tests' outcomes still reach the controller).

A batch is compact (format 2): each row's keys are written once per batch (``layouts``: rows of a
run share a few key orders), and the values of ``SHARED_FIELDS`` once per batch (``values``): the
five citations of a test name the same test, model and reviews file, and a section's full text
(most of a row's bytes) is cited by many rows. A row is ``[layout index, value, ...]`` with, in a
shared field, the index of its value (or null). At 5 citations per test a batch is about a fifth of
the rows' JSON (2.4 MB per 1,000 rows of RFC 7519 citations: 0.5 MB), so the worker writes, and
the controller parses, a fifth; and the controller's rows share one string per section's text.

The controller takes a batch's rows as built by this plugin (``Report.extend_built``: a cheap check,
not the whole row schema), because they were: its own worker processes, started by xdist for this
run from the same installation, built them with the same code that builds a serial run's rows, from
typed results, and sent them over execnet, not through any file a user or another tool writes.
Only a broken setup (a remote worker with another pytest-citecheck installed) sends anything else,
so what is checked is cheap and enough to fail closed there: the batch's format (``BATCH_FORMAT``),
its shape (``unpack``: its layouts, its shared values, each row against its layout), and each row's
required fields and the fields read from a file (``_report.schema.check_built``). A batch that fails is left out of the report and fails the run
with a line saying why; it never stops the run with an internal error.
"""

from __future__ import annotations

import json
from typing import Any

BATCH_ROWS = 500
# The shape of a batch; a worker whose batches carry another number runs another pytest-citecheck.
BATCH_FORMAT = 2
# The fields whose values are written once per batch (``values``) and referred to by index.
SHARED_FIELDS = frozenset({"test", "section", "document", "model", "section_text", "reviews_file", "auto_accept_scope"})
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
        layouts: dict[tuple[str, ...], tuple[int, list[bool]]] = {}
        values: list[Any] = []
        indexes: dict[Any, int] = {}
        packed = []
        for row in self.rows:
            keys = tuple(row)
            found = layouts.get(keys)
            if found is None:
                found = layouts[keys] = (len(layouts), [key in SHARED_FIELDS for key in keys])
            number, shared = found
            line: list[Any] = [number]
            for value, is_shared in zip(row.values(), shared):
                if is_shared and value is not None:
                    value = _index(value, values, indexes)
                line.append(value)
            packed.append(line)
        batch = {
            "format": BATCH_FORMAT,
            "layouts": [list(keys) for keys in layouts],
            "values": values,
            "rows": packed,
            "locations": self.locations,
        }
        text = json.dumps(batch, ensure_ascii=False, separators=(",", ":"))
        self.rows, self.locations = [], {}
        return text


def _index(value: Any, values: list[Any], indexes: dict[Any, int]) -> int:
    """The index of ``value`` in the batch's shared ``values``, added there when new (strings once each)."""
    if not isinstance(value, str):  # not what this plugin writes there: kept as is, not shared
        values.append(value)
        return len(values) - 1
    index = indexes.get(value)
    if index is None:
        index = indexes[value] = len(values)
        values.append(value)
    return index


class BatchError(ValueError):
    """A batch from a worker that is not what this pytest-citecheck ships (the message says what)."""


def unpack(text: Any) -> tuple[list[Any], dict[str, list[Any]]]:
    """A batch's rows (JSON objects again), and the location (path, line) of each test that has rows in
    it; ``BatchError`` for anything else (the rows themselves are checked as they are taken,
    ``Report.extend_built``)."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        raise BatchError("is not JSON") from None
    found = data.get("format") if isinstance(data, dict) else None
    if found != BATCH_FORMAT:
        raise BatchError(
            f"is batch format {found!r:.20}, not {BATCH_FORMAT}: does the worker run another pytest-citecheck?"
        )
    layouts, values, rows, locations = _parts(data)
    plans = [[(key, key in SHARED_FIELDS) for key in keys] for keys in layouts]
    return [_unpacked(row, number, plans, values) for number, row in enumerate(rows)], locations


def _parts(data: dict[str, Any]) -> tuple[list[list[str]], list[Any], list[Any], dict[str, list[Any]]]:
    """A batch's layouts, shared values, rows and locations, each of the type it must be."""
    layouts, values, rows, locations = (data.get(key) for key in ("layouts", "values", "rows", "locations"))
    if not isinstance(layouts, list) or not all(_is_layout(keys) for keys in layouts):
        raise BatchError("has no list of layouts (field names, each once)")
    if not isinstance(values, list):
        raise BatchError("has no list of shared values")
    if not isinstance(rows, list):
        raise BatchError("has no list of rows")
    if not isinstance(locations, dict) or not all(_is_location(where) for where in locations.values()):
        raise BatchError("has no locations of its tests ([path, line] each)")
    return layouts, values, rows, locations


def _unpacked(row: Any, number: int, plans: list[list[tuple[str, bool]]], values: list[Any]) -> dict[str, Any]:
    """Row ``number`` of a batch as its JSON object: its layout's keys, its shared fields' values looked up."""
    plan = plans[row[0]] if isinstance(row, list) and row and _is_index(row[0], len(plans)) else None
    if plan is None or len(row) != len(plan) + 1:
        raise BatchError(f"has a row (number {number}) that is not [layout, one value per field]")
    data = {}
    for (key, shared), value in zip(plan, row[1:]):
        if shared and value is not None:
            if not _is_index(value, len(values)):
                raise BatchError(f"has a row (number {number}) whose field {key!r} is not a shared value")
            value = values[value]
        data[key] = value
    return data


def _is_index(value: Any, size: int) -> bool:
    return type(value) is int and 0 <= value < size


def _is_layout(keys: Any) -> bool:
    return isinstance(keys, list) and all(isinstance(key, str) for key in keys) and len(set(keys)) == len(keys)


def _is_location(where: Any) -> bool:
    return (
        isinstance(where, list)
        and len(where) == 2
        and isinstance(where[0], str)
        and (where[1] is None or (isinstance(where[1], int) and not isinstance(where[1], bool)))
    )
