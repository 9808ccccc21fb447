"""An xdist worker's batch of rows is compact: keys once per layout, a section's text once per batch.

Real rows (``CitationResult.to_json`` through the plugin) cross to the controller in
``tests/plugin/test_xdist.py`` and ``tests/report/test_built_rows.py`` (damaged batches); these tests
look at the batch text itself.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support import RFC7519

from pytest_citecheck import Source
from pytest_citecheck._pytest_glue.shipping import BatchError, Shipment, unpack


def _rows() -> list[dict[str, Any]]:
    """Rows as a worker holds them: five citations per test, each section cited by several tests."""
    source = Source.from_file(RFC7519)
    sections = [number for number in source.order if len(source.sections[number]) > 500][:3]
    rows = []
    for test in range(8):
        for k in range(5):
            section = sections[(test + k) % len(sections)]
            row: dict[str, Any] = {
                "test": f"test_suite.py::test_{test}",
                "id": f"t{test}c{k}",
                "status": "found",
                "section": section,
                "verdict": "verified",
                "confidence": 0.94,
                "auto": True,
                "model": "jev-1.13.0",
                "claim": f"Claim {k} of test {test}.",
                "quote": "a quote",
                "span": [4, 11],
                "document": None,
            }
            if k % 2:  # another layout: a judgement's fields
                row.update(choice="supports", probabilities={"supports": 0.96, "says_nothing": 0.04})
            if k == 4:  # an altered quote
                row["removed"] = ["not"]
            row.update(section_text=source.sections[section], reviews_file="citecheck-reviews.json")
            row.update(auto_accept_scope=None, previous=None)
            rows.append(row)
    return rows


def _shipped(rows: list[dict[str, Any]]) -> str:
    shipment = Shipment()
    for row in rows:
        shipment.add(row["test"], ("test_suite.py", 3, row["test"]), [dict(row)])
    text = shipment.take()
    assert text is not None and shipment.take() is None
    return text


def test_a_batch_carries_each_section_text_and_each_layout_once_and_unpacks_to_the_same_rows() -> None:
    rows = _rows()
    text = _shipped(rows)
    back, locations = unpack(text)
    assert back == rows
    assert [list(row) for row in back] == [list(row) for row in rows]  # the keys in their order
    assert locations == {f"test_suite.py::test_{test}": ["test_suite.py", 3] for test in range(8)}
    for section_text in {row["section_text"] for row in rows}:
        assert text.count(json.dumps(section_text, ensure_ascii=False)) == 1
    batch = json.loads(text)
    assert len(batch["layouts"]) == 3
    assert text.count('"section_text"') == 3  # once per layout, not once per row
    # A fifth of the rows' JSON (40 rows of three long sections; 2.4 MB per 1,000 RFC 7519 rows in the bench).
    assert len(text) < len(json.dumps(rows, ensure_ascii=False)) / 5


def test_the_controller_holds_one_string_per_shared_text() -> None:
    back, _ = unpack(_shipped(_rows()))
    by_text: dict[str, set[int]] = {}
    for row in back:
        by_text.setdefault(row["section_text"], set()).add(id(row["section_text"]))
    assert all(len(objects) == 1 for objects in by_text.values())


def test_a_value_that_is_not_text_in_a_shared_field_arrives_unchanged() -> None:
    rows = [{"test": "t.py::test_a", "id": "c1", "verdict": "verified", "auto": True, "section": None}]
    rows.append({**rows[0], "id": "c2", "section": {"odd": [1]}, "document": 7})
    back, _ = unpack(_shipped(rows))
    assert back == rows


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda b: {**b, "layouts": "x"}, "has no list of layouts"),
        (lambda b: {**b, "layouts": [[1]]}, "has no list of layouts"),
        (lambda b: {**b, "values": None}, "has no list of shared values"),
        (lambda b: {**b, "rows": {}}, "has no list of rows"),
        (lambda b: {**b, "rows": [[True, *b["rows"][0][1:]]]}, "has a row (number 0) that is not"),
        (lambda b: {**b, "rows": [b["rows"][0], "row"]}, "has a row (number 1) that is not"),
        (
            lambda b: {**b, "rows": [[0, *(-1 for _ in b["rows"][0][1:])]]},
            "has a row (number 0) whose field 'test' is not a shared value",
        ),
    ],
)
def test_a_batch_of_another_shape_is_refused_with_what_is_wrong(change: Any, said: str) -> None:
    batch = json.loads(_shipped(_rows()[:2]))
    with pytest.raises(BatchError, match="^" + said.replace("(", r"\(").replace(")", r"\)")):
        unpack(json.dumps(change(batch)))
