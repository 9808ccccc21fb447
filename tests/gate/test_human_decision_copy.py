"""``with_human_decision`` copies a result without ``CitationResult.__init__`` (issue 27: replay's cost per
citation): the copy must equal what ``dataclasses.replace`` gives, field for field, and leave the original alone."""

from __future__ import annotations

import dataclasses

from pytest_citecheck._gate.human import review_key, with_human_decision
from pytest_citecheck._results import CitationResult, Status, Verdict
from pytest_citecheck._sources.source import Source

SOURCE = Source(sections={"1": "The fee is 50 euros, paid at the start of each month."})


def _result(**changes: object) -> CitationResult:
    fields = dict(
        id="c1",
        claim="The fee is 50 euros.",
        quote="The fee is 50 euros",
        status=Status.FOUND,
        section="1",
        verdict=Verdict.VERIFIED,
        confidence=0.9,
        auto=True,
        model="jev-1.13.0",
        span=(0, 19),
    )
    return CitationResult(**{**fields, **changes})  # type: ignore[arg-type]


class _Decisions:
    def __init__(self, decision: dict[str, object] | None = None, stale: dict[str, object] | None = None) -> None:
        self.found = type("Lookup", (), {"decision": decision, "stale": stale})()

    def lookup(self, key: str, test: str | None, citation: str) -> object:
        return self.found


def test_the_copy_is_what_replace_gives() -> None:
    result = _result()
    before = dataclasses.asdict(result)
    copied = with_human_decision(result, SOURCE, None, "test_x")
    text = SOURCE.sections["1"]
    expected = dataclasses.replace(
        result,
        section_text=text,
        review_key=review_key(result.claim, text, result.model),
        model_verdict=Verdict.VERIFIED,
    )
    assert copied == expected and copied is not result
    assert type(copied) is CitationResult and list(vars(copied)) == list(vars(expected))
    assert dataclasses.asdict(result) == before  # the original is unchanged


def test_a_decision_and_a_stale_one() -> None:
    decided = with_human_decision(_result(), SOURCE, lambda: _Decisions({"verdict": "contradicted"}), "t")  # type: ignore[arg-type,return-value]
    assert decided.verdict is Verdict.CONTRADICTED and decided.model_verdict is Verdict.VERIFIED
    assert decided.decision == {"verdict": "contradicted"}
    stale = with_human_decision(_result(), SOURCE, lambda: _Decisions(stale={"verdict": "verified"}), "t")  # type: ignore[arg-type,return-value]
    assert stale.stale_decision == {"verdict": "verified"} and stale.verdict is Verdict.VERIFIED


class _Tagged(CitationResult):
    pass


def test_a_subclass_and_extra_attributes_go_through_replace() -> None:
    sub = _Tagged(**dataclasses.asdict(_result()))
    assert type(with_human_decision(sub, SOURCE, None, "t")) is _Tagged
    tagged = _result()
    tagged.note = "mine"  # type: ignore[attr-defined]
    copied = with_human_decision(tagged, SOURCE, None, "t")
    assert not hasattr(copied, "note")  # as dataclasses.replace leaves it
