"""``with_human_decision`` copies a result without ``CitationResult.__init__`` (issue 27: replay's cost per
citation): the copy must equal what ``dataclasses.replace`` gives, field for field, and leave the original alone;
and ``review_key`` writes the payload's JSON itself: the digest must be that of ``json.dumps``'s, for any text."""

from __future__ import annotations

import dataclasses
import json
from hashlib import sha256

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_citecheck._gate.human import question_fingerprint, review_key, with_human_decision
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


TEXTS = st.one_of(
    st.text(max_size=40),
    st.text(min_size=256, max_size=600),  # long enough for the kept encodings of section texts
    st.sampled_from(['"quoted" \\ back\\slash\n\ttab', "\x00\x1f\x7f\u2028\u2029 é 漢字 🙂", ""]),
)


@settings(max_examples=300, deadline=None)
@given(TEXTS, TEXTS, st.one_of(st.none(), TEXTS))
def test_the_review_key_is_the_digest_of_the_payloads_json(claim: str, section: str, model: str | None) -> None:
    payload = {"claim": claim, "section": section, "question": question_fingerprint(), "model": model}
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False)
    assert review_key(claim, section, model) == sha256(text.encode("utf-8")).hexdigest()
    assert review_key(claim, section, model) == review_key(claim, section, model)


class _Text(str):
    pass


def test_a_key_of_other_types_is_the_digest_of_their_json() -> None:
    for claim, section, model in [(_Text("c"), "s", "m"), ("c", _Text("s"), None), ("c", "s", _Text("m"))]:
        payload = {"claim": claim, "section": section, "question": question_fingerprint(), "model": model}
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False)
        assert review_key(claim, section, model) == sha256(text.encode("utf-8")).hexdigest()


def test_a_lone_surrogate_fails_alike() -> None:
    with pytest.raises(UnicodeEncodeError):
        review_key("\ud800", "s", None)
    with pytest.raises(UnicodeEncodeError):
        review_key(_Text("\ud800"), "s", None)
