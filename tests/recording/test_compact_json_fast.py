"""``compact_json`` writes a text or an integer without the encoder (issue 27: a digest's method, URI
and status per interaction); it must write what the encoder writes, for every value, and fail alike."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_citecheck._recording import matching
from pytest_citecheck._recording.matching import compact_json

ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
VALUES = st.one_of(
    st.text(),
    st.text(min_size=256, max_size=400),
    st.integers(),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False),
    st.dictionaries(st.text(max_size=5), st.one_of(st.text(max_size=300), st.integers(), st.booleans()), max_size=4),
)


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_as_the_encoder_writes_it(value: object) -> None:
    assert compact_json(value) == ENCODER.encode(value)


def test_an_integer_too_long_to_write_fails_alike() -> None:
    huge = 10**5000
    with pytest.raises(ValueError):
        ENCODER.encode(huge)
    with pytest.raises(ValueError):
        compact_json(huge)


def test_texts_past_what_the_table_keeps_are_still_written_exactly() -> None:
    """The short texts' table starts again when full (``matching._MOST_SHORT_TEXTS``): every body
    written before, across and after that is what the encoder writes, its texts seen again or not."""
    bodies = [
        {"claim": f"claim {number} \u201cquoted\u201d\n", "section": f"s{number % 7}" * 40, "n": number}
        for number in range(matching._MOST_SHORT_TEXTS * 2 + 5)
    ]
    for body in bodies + bodies[::-1]:
        assert compact_json(body) == ENCODER.encode(body)
