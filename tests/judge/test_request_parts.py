"""The parts of one citation's request made once and reused, or made the short way (issue 27): the SDK's
question objects, the context that holds a citation's requests to its limits (``outgoing.sending``), and
the ``Judgement`` read from its answer (``read_judgement``), which must be the one the class makes."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typesafe_sdk import Choice, Noul

from pytest_citecheck._judge.judgement import Judgement, read_judgement
from pytest_citecheck._judge.outgoing import _OUTGOING, Outgoing, sending
from pytest_citecheck._judge.relation import (
    CRITERIA,
    INSTRUCTIONS,
    SCREEN_CRITERIA,
    SCREEN_INSTRUCTIONS,
    questions_for,
)
from pytest_citecheck._options import Settings


def test_the_questions_are_the_cookbooks_each_time() -> None:
    relation = Choice(instructions=INSTRUCTIONS, criteria=dict(CRITERIA))
    screen = Noul(instructions=SCREEN_INSTRUCTIONS, criteria=SCREEN_CRITERIA)
    for _ in range(2):
        plain, screened = questions_for(screen=False), questions_for(screen=True)
        assert plain == {"relation": relation}
        assert screened == {"relation": relation, "addressed_to_ai": screen}
        assert list(screened) == ["relation", "addressed_to_ai"]
        plain.clear()  # a request's own mapping: emptying it takes nothing from the next
    assert questions_for(screen=False)["relation"].model_dump() == relation.model_dump()


def test_sending_holds_the_requests_inside_it_and_no_others() -> None:
    first, second = (Outgoing.under(Settings(), None) for _ in range(2))
    assert _OUTGOING.get() is None
    with sending(first):
        assert _OUTGOING.get() is first
        with pytest.raises(RuntimeError), sending(second):
            assert _OUTGOING.get() is second
            raise RuntimeError("the request failed")
        assert _OUTGOING.get() is first
    assert _OUTGOING.get() is None


def test_each_citation_has_its_own_outgoing_under_the_same_limits() -> None:
    settings = Settings().override({"max_rpm": 60, "concurrency": 2}, "test")
    first, second = Outgoing.under(settings, None), Outgoing.under(settings, None)
    assert first is not second and first.pacing == second.pacing
    assert (first.pacing.max_rpm, first.pacing.concurrency) == (60, 2)
    first.answered_with_copy = True
    assert not second.answered_with_copy
    other = Outgoing.under(Settings().override({"max_rpm": 30}, "test"), None)
    assert other.pacing.max_rpm == 30


LABELS = st.sampled_from(["supports", "contradicts", "says_nothing"])
FRACTIONS = st.floats(0, 1)
FIELDS = st.fixed_dictionaries(
    {
        "choice": LABELS,
        "confidence": FRACTIONS,
        "probabilities": st.dictionaries(LABELS, FRACTIONS),
        "model": st.one_of(st.none(), st.text(max_size=10)),
        "input_tokens": st.integers(0, 10**6),
        "output_tokens": st.integers(0, 10**6),
        "screen": st.one_of(st.none(), FRACTIONS),
        "flagged": st.booleans(),
        "computed_confidence": st.one_of(st.none(), FRACTIONS),
    }
)


@settings(max_examples=200, deadline=None)
@given(FIELDS)
def test_a_judgement_read_is_the_one_the_class_makes(fields: dict[str, Any]) -> None:
    read, made = read_judgement(**fields), Judgement(**fields)
    assert read == made and type(read) is Judgement
    assert list(vars(read)) == [field.name for field in dataclasses.fields(Judgement)] == list(vars(made))
    assert vars(read) == vars(made)
    assert read.questions == {} and read.questions is not read_judgement(**fields).questions
    with pytest.raises(dataclasses.FrozenInstanceError):
        read.choice = "contradicts"  # type: ignore[misc]
    assert dataclasses.replace(read, replayed=True) == dataclasses.replace(made, replayed=True)
