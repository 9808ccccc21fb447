"""The ground-floor formatting every report shares: plurals, confidence cells, plain-text tables."""

from __future__ import annotations

from pytest_citecheck._text import NO_CONFIDENCE, format_confidence, plural, render_table


def test_plural_adds_an_s_unless_the_count_is_one() -> None:
    assert [plural(n, "citation") for n in (0, 1, 2)] == ["0 citations", "1 citation", "2 citations"]


def test_a_missing_confidence_shows_one_placeholder_everywhere() -> None:
    assert NO_CONFIDENCE == "-"
    assert format_confidence(None) == "-"
    assert format_confidence(0.946) == "0.95"
    assert format_confidence(1) == "1.00"


def test_a_table_pads_left_aligned_columns_and_strips_the_right_edge() -> None:
    lines = render_table([["id", "verdict", "claim"], ["a", "fabricated", "x"], ["long_id", "verified", ""]])
    assert lines == [
        "  id       verdict     claim",
        "  a        fabricated  x",
        "  long_id  verified",
    ]


def test_a_table_right_aligns_the_columns_asked_for() -> None:
    lines = render_table([["", "n"], [">", "5"], ["", "120"]], right=[1], indent="")
    assert lines == ["     n", ">    5", "   120"]
    assert render_table([]) == []
