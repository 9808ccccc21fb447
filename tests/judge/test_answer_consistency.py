"""An answer from Jev that contradicts itself is malformed: live, on replay, and never recorded.

The SDK documents a Choice answer's ``choice`` as the label with the highest probability, and
TypeSafe computes its ``confidence`` as ``(max p - 1/k) / (1 - 1/k)``. An answer that breaks either
(``supports`` with 0.96 on ``contradicts``; confidence 0.99 over 0.34/0.33/0.33) cannot be read as
a verdict. The rounding tolerance is the one every recorded jev-1.12 answer of the cookbook
(``examples/rfc7519/json_cache.json``) satisfies, which the first test checks.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support import EXAMPLE, Offline

from pytest_citecheck._errors import JudgeError
from pytest_citecheck._recording.cassette_file import read_interactions, write_interactions

CLAIM_ONLY_TEST = """
from cookbook import SOURCE
from pytest_citecheck import assert_citations_supported

def test_claim():
    assert_citations_supported(
        [{"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"}],
        SOURCE, model="jev-1.12",
    )
"""

# The examples: each would have read as "verified 0.94" (or 0.99).
CHOICE_NOT_THE_ARGMAX = {
    "type": "choice",
    "choice": "supports",
    "probabilities": {"supports": 0.02, "contradicts": 0.96, "says_nothing": 0.02},
    "confidence": 0.94,
}
CONFIDENCE_NOT_FROM_PROBABILITIES = {
    "type": "choice",
    "choice": "supports",
    "probabilities": {"supports": 0.34, "contradicts": 0.33, "says_nothing": 0.33},
    "confidence": 0.99,
}


def test_every_recorded_cookbook_answer_is_consistent_within_the_tolerance() -> None:
    from pytest_citecheck._judge.relation import CONFIDENCE_TOLERANCE, answer_inconsistency

    cache = json.loads((EXAMPLE / "json_cache.json").read_text(encoding="utf-8"))
    assert len(cache) == 7
    for answer in cache.values():
        assert answer_inconsistency(answer["choice"], answer["confidence"], answer["probabilities"]) is None, answer
    # The tolerance is not loose: the examples are far outside it.
    assert CONFIDENCE_TOLERANCE < 0.05


@pytest.mark.parametrize(
    ("answer", "phrase"),
    [
        (CHOICE_NOT_THE_ARGMAX, "chose 'supports', but its probabilities put 'contradicts' highest (0.96"),
        (CONFIDENCE_NOT_FROM_PROBABILITIES, "confidence 0.99 does not follow from its probabilities"),
    ],
    ids=["choice-not-argmax", "confidence-not-from-probabilities"],
)
def test_a_self_contradicting_answer_fails_a_live_check_naming_the_citation(
    suite: pytest.Pytester, jev_server: Any, answer: dict[str, Any], phrase: str
) -> None:
    jev_server.answer = lambda claim, section: answer
    suite.makepyfile(test_app=CLAIM_ONLY_TEST)
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*JudgeError: citation 'aud': Jev's answer contradicts itself: *{phrase}*"])
    assert "Traceback" not in result.stdout.str()
    # Not accepted, so not recorded: a later replay asks again instead of passing on it.
    cassette = suite.path / "cassettes" / "test_app" / "test_claim.yaml"
    assert not cassette.exists(), cassette.read_text()


def test_a_probability_outside_0_to_1_is_named_even_when_the_three_add_up_to_1(
    suite: pytest.Pytester, jev_server: Any
) -> None:
    # Found by hand: 1.4/-0.2/-0.2 failed with "do not form a distribution (sum 1.00)", which reads as a
    # contradiction: the sum is fine, a probability is not.
    probabilities = {"supports": 1.4, "contradicts": -0.2, "says_nothing": -0.2}
    answer = {"type": "choice", "choice": "supports", "probabilities": probabilities, "confidence": 1.0}
    jev_server.answer = lambda claim, section: answer
    suite.makepyfile(test_app=CLAIM_ONLY_TEST)
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*JudgeError: citation 'aud': Jev's probability of 'supports', 1.4, is outside 0..1 (probabilities *"]
    )
    assert not (suite.path / "cassettes" / "test_app" / "test_claim.yaml").exists()


def test_a_self_contradicting_answer_with_a_recomputed_digest_fails_on_replay(
    suite: pytest.Pytester, jev_server: Any, offline: Offline
) -> None:
    """Only ``choice`` edited, and the digest recomputed (what a forger does): the answer itself is still checked."""
    suite.makepyfile(test_app=CLAIM_ONLY_TEST)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    cassette = suite.path / "cassettes" / "test_app" / "test_claim.yaml"
    [interaction] = read_interactions(cassette)
    body = interaction["response"]["body"]["string"]
    assert body.count('"choice": "supports"') == 1
    interaction["response"]["body"]["string"] = body.replace('"choice": "supports"', '"choice": "contradicts"')
    write_interactions(cassette, [interaction])  # digests recomputed as the file is written
    offline()
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*citation 'aud': Jev's answer contradicts itself: it chose 'contradicts', but its probabilities put "
            "'supports' highest*",
            "*re-record the citation*",
        ]
    )


def test_ties_and_rounding_are_not_contradictions() -> None:
    from pytest_citecheck._judge.relation import answer_inconsistency

    # Two labels tied at the top: either may be the choice.
    assert answer_inconsistency("supports", 0.25, {"supports": 0.5, "contradicts": 0.5, "says_nothing": 0.0}) is None
    # Probabilities are rounded to two decimals, and so is the confidence: 0.94 over a top of 0.96 (0.94 exactly).
    assert answer_inconsistency("supports", 0.95, {"supports": 0.96, "contradicts": 0.03, "says_nothing": 0.01}) is None


def test_read_answer_raises_a_judge_error_for_an_inconsistent_answer() -> None:
    from typesafe_sdk._core.response_types import SystemOneResponse

    from pytest_citecheck._judge.relation import read_answer

    response = SystemOneResponse.model_validate(
        {
            "model": "jev-1.12",
            "answers": {"relation": CHOICE_NOT_THE_ARGMAX},
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )
    with pytest.raises(JudgeError) as caught:
        read_answer("aud", response)
    assert caught.value.citation == "aud" and "contradicts itself" in caught.value.cause
