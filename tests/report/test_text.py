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


def test_a_table_pads_a_wide_character_to_two_columns() -> None:
    """A claim or an id in Chinese, Japanese or Korean takes two columns a character on a terminal:
    the summary's columns after it stay in line (``str.ljust`` counted one each)."""
    from pytest_citecheck._text import display_width

    lines = render_table([["id", "verdict", "claim"], ["语法", "verified", "x"], ["syntax", "fabricated", "y"]])
    assert (
        len(
            {
                display_width(line[: line.index(verdict)])
                for line, verdict in zip(lines, ("verdict", "verified", "fabricated"))
            }
        )
        == 1
    )
    assert display_width("可选ｅ\u0301e") == 2 + 2 + 2 + 0 + 1  # wide, wide, fullwidth, a combining mark, narrow
