"""A human's decision stands: the digest a decision is stored under, and applying one to a result.

A reviewer's decision (``citecheck review``, kept in the reviews file by ``_review.decisions``) is
stored under ``review_key``: a digest of the claim, the section text, the question and the model.
``with_human_decision`` runs before ``decide``: a decided citation no longer needs review and its
verdict is the human's; a decision whose digest no longer matches is attached as stale, and changes nothing.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable
from hashlib import sha256
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any, Protocol

from pytest_citecheck._locate.citations import source_of
from pytest_citecheck._locate.finders import Documents
from pytest_citecheck._results import CitationResult, Verdict


class Decisions(Protocol):
    """The reviews file's decisions (``_review.decisions.Reviews``), as the gate reads them."""

    def lookup(self, key: str, test: str | None, citation: str) -> Any: ...


@functools.cache
def question_fingerprint() -> str:
    """The relation question as canonical JSON: a changed question invalidates every decision (worked out once)."""
    from pytest_citecheck._judge.relation import CRITERIA, INSTRUCTIONS, QUESTION_NAME

    return json.dumps({"name": QUESTION_NAME, "instructions": INSTRUCTIONS, "criteria": CRITERIA}, sort_keys=True)


# The section's text is most of a key's payload, and a section is cited again and again: the JSON
# form of the last few long texts is kept (encoding one costs some 40 instructions a character).
_encoded_long_text = functools.lru_cache(maxsize=64)(encode_basestring)


def _encoded_text(text: str) -> str:
    return _encoded_long_text(text) if len(text) >= 256 else encode_basestring(text)


# What ``json.dumps(payload, sort_keys=True, ensure_ascii=False)`` writes, through one encoder.
_PAYLOAD = json.JSONEncoder(sort_keys=True, ensure_ascii=False)
_ENCODE = (
    None
    if c_make_encoder is None
    else c_make_encoder(None, _PAYLOAD.default, _encoded_text, None, ": ", ", ", True, False, True)
)


@functools.cache
def _between_model_and_section() -> str:
    """The payload's JSON from after the model to before the section: the question, written once."""
    return ', "question": ' + encode_basestring(question_fingerprint()) + ', "section": '


def review_key(claim: str, section_text: str, model: str | None) -> str:
    """The digest a decision is stored under: claim, section text, question and model."""
    if type(claim) is str and type(section_text) is str and (model is None or type(model) is str):
        # What the encoder writes (keys sorted: claim, model, question, section), put together
        # directly: the encoder calls back into Python for each of the payload's eight strings.
        text = (
            '{"claim": '
            + encode_basestring(claim)
            + ', "model": '
            + ("null" if model is None else encode_basestring(model))
            + _between_model_and_section()
            + _encoded_text(section_text)
            + "}"
        )
    else:
        payload = {"claim": claim, "section": section_text, "question": question_fingerprint(), "model": model}
        text = _PAYLOAD.encode(payload) if _ENCODE is None else "".join(_ENCODE(payload, 0))
    return sha256(text.encode("utf-8")).hexdigest()


def with_human_decision(
    result: CitationResult, source: Documents, decisions: Callable[[], Decisions | None] | None, test: str | None
) -> CitationResult:
    """Attach the section text and review key, and a human's decision if one applies.

    ``decisions`` is read only when a judged result needs it (reading the reviews file can fail).
    """
    if result.confidence is None:
        return result  # fabricated: nothing was judged, so there is nothing a human can decide
    section_text = result.section_text
    if section_text is None:
        judged = source_of(source, result.document)
        section_text = judged.text if result.section is None else judged.sections[result.section]
    key = review_key(result.claim, section_text, result.model)
    changes: dict[str, Any] = {"section_text": section_text, "review_key": key, "model_verdict": result.verdict}
    reviews = decisions() if decisions is not None else None
    if reviews is not None:
        found = reviews.lookup(key, test, result.id)
        if found.decision is not None:
            changes.update(decision=found.decision, verdict=Verdict(found.decision["verdict"]))
        elif found.stale is not None:
            changes.update(stale_decision=found.stale)
    return _replaced(result, changes)


_FIELD_COUNT = len(dataclasses.fields(CitationResult))


def _replaced(result: CitationResult, changes: dict[str, Any]) -> CitationResult:
    """``dataclasses.replace(result, **changes)``: a ``CitationResult`` (a plain dataclass: no
    ``__post_init__``, no field outside ``__init__``) copied field by field, without calling
    ``__init__`` with its 28 arguments, which cost as much as the rest of this step. A subclass
    (its ``__init__`` may do more), or a result given attributes beyond its fields (``replace``
    drops them), is copied by ``dataclasses.replace``."""
    if type(result) is not CitationResult or len(result.__dict__) != _FIELD_COUNT:
        return dataclasses.replace(result, **changes)
    copy = object.__new__(CitationResult)
    fields = copy.__dict__
    fields.update(result.__dict__)
    fields.update(changes)
    return copy
