"""Before sending, a claim and a section of few characters are known to fit one Jev request without
encoding them (issue 27): the shortcut must agree with the estimate (``fits``) at its edge, for text of
the widest characters, one byte or four, however they are split between the claim and the section."""

from __future__ import annotations

import pytest

from pytest_citecheck._judge.sizes import _SURELY_FIT_CHARACTERS, _size_problem
from pytest_citecheck._limits import fits


@pytest.mark.parametrize("character", ["a", "é", "漢", "🙂"])
@pytest.mark.parametrize("claim_share", [0, 1, 2, 3, 0.5])
def test_the_shortcut_never_passes_what_the_estimate_refuses(character: str, claim_share: float) -> None:
    for total in (_SURELY_FIT_CHARACTERS - 1, _SURELY_FIT_CHARACTERS, _SURELY_FIT_CHARACTERS + 1, 40_000):
        claim_length = int(total * claim_share) if claim_share < 1 else int(claim_share)
        claim, text = character * claim_length, character * (total - claim_length)
        if total <= _SURELY_FIT_CHARACTERS:
            assert fits(claim, text)  # what the shortcut takes for granted
        assert (_size_problem(claim, text) is None) == fits(claim, text)
