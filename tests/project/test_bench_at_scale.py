"""The at-scale benchmark times what it says: lookups that find decisions and stale ones, and a whole report.

No timing here (speed goals live in ``bench/``): the reviews file it builds decides citations both
under their own keys and under older ones, each is found, and the report it writes holds every row.
"""

from __future__ import annotations

from pathlib import Path

from bench import at_scale, report_html
from pytest_citecheck._report.run_report import Report


def test_its_reviews_file_has_decisions_and_stale_ones_and_each_is_found(tmp_path: Path) -> None:
    rows = report_html.rows(200)
    reviews = at_scale._reviews(rows, tmp_path / "reviews.json")
    lookups = [reviews.lookup(row["review_key"], row["test"], row["id"]) for row in rows]
    decided = sum(lookup.decision is not None for lookup in lookups)
    stale = sum(lookup.stale is not None for lookup in lookups)
    assert (decided, stale) == (10, 5)
    _, found = at_scale._seconds(rows, reviews, tmp_path / "report.json")
    assert found == decided + stale
    assert len(Report.load(tmp_path / "report.json")) == 200


def test_its_rows_say_how_many_decisions_were_found(tmp_path: Path) -> None:
    _, found_row = at_scale.run((100, 1_000), runs=1, log=lambda _line: None)
    assert found_row.met and found_row.ours == found_row.reference.split()[0] == "75"
