"""The report row's schema: what each field of a row's JSON object may hold (``SCHEMA``).

Two checks read it. ``validate`` checks every field, for a row read from anything a user or another
tool could have written: a report file, a shard, rows handed to ``Report`` as JSON objects.
``check_built`` is the cheap check of a row this plugin's own code just built from a
``CitationResult`` (in the test's process, or in an xdist worker of the same run, see
``_pytest_glue.shipping``): the fields ``CitationResult.to_json`` writes from typed values are not
checked again; the required fields are, and the fields that carry what was read from a file without
this schema (``FROM_FILES``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

# The cookbook's four verdicts, then ``errored``: a citation whose check raised (its row's ``error`` says why).
VERDICT_ORDER = ("verified", "unsupported", "contradicted", "fabricated", "errored")


class RowError(ValueError):
    """A report row with a field of the wrong type or value (the message names the field)."""


# --- the schema: one check per field --------------------------------------------------------


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_fraction(value: Any) -> bool:
    return is_number(value) and 0.0 <= value <= 1.0


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63


def _is_span(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(_is_count(end) for end in value)


def is_plain(value: Any) -> bool:
    return isinstance(value, str | bool | None) or is_number(value) or _is_span(value)


def _is_text_map(value: Any) -> bool:
    """A decision, a stale decision, a previous answer, a closest passage: an object of plain values.

    One level of nesting is allowed (a previous answer's probabilities), no more.
    """
    return isinstance(value, dict) and all(
        is_plain(item) or (isinstance(item, dict) and all(is_plain(inner) for inner in item.values()))
        for item in value.values()
    )


def _is_previous(value: Any) -> bool:
    """What a re-recorded citation's previous answer was: its drift and verdict named, its confidence a fraction."""
    return (
        _is_text_map(value)
        and isinstance(value.get("drift"), str)
        and isinstance(value.get("verdict"), str)
        and (value.get("confidence") is None or _is_fraction(value["confidence"]))
    )


def _is_question(value: Any) -> bool:
    return isinstance(value, dict) and all(
        _is_fraction(item) if name in ("yes", "concern") else isinstance(item, bool) for name, item in value.items()
    )


def _is_error(value: Any) -> bool:
    """An errored citation's cause: the exception's class name and its message."""
    return isinstance(value, dict) and isinstance(value.get("type"), str) and isinstance(value.get("message"), str)


def _optional(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: value is None or check(value)


def _list_of(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: value is None or (isinstance(value, list) and all(check(item) for item in value))


def _map_of(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: value is None or (isinstance(value, dict) and all(check(item) for item in value.values()))


_STRING = (lambda value: isinstance(value, str), "a string")
_OPTIONAL_STRING = (_optional(lambda value: isinstance(value, str)), "a string or null")
_OPTIONAL_FRACTION = (_optional(_is_fraction), "a number from 0 to 1 or null")
_OPTIONAL_MAP = (_optional(_is_text_map), "an object of plain values or null")
_OPTIONAL_FLAG = (_optional(lambda value: isinstance(value, bool)), "true or false")
_VERDICT = (lambda value: value in VERDICT_ORDER, f"one of {', '.join(VERDICT_ORDER)}")

# Field -> (check, what is expected). ``REQUIRED`` fields must be present; the rest may be absent
# (reports of earlier versions, rows written by hand) and read as None, or their default.
SCHEMA: dict[str, tuple[Callable[[Any], bool], str]] = {
    "test": _OPTIONAL_STRING,
    "id": _STRING,
    "status": _OPTIONAL_STRING,
    "section": _OPTIONAL_STRING,
    "verdict": _VERDICT,
    "confidence": _OPTIONAL_FRACTION,
    "computed_confidence": _OPTIONAL_FRACTION,
    "auto": (lambda value: isinstance(value, bool), "true or false"),
    "model": _OPTIONAL_STRING,
    "claim": _OPTIONAL_STRING,
    "quote": _OPTIONAL_STRING,
    "span": (_optional(_is_span), "[start, end] or null"),
    "auto_accept": _OPTIONAL_FRACTION,
    "document": _OPTIONAL_STRING,
    "cited_section": _OPTIONAL_STRING,
    "cited_document": _OPTIONAL_STRING,
    "choice": _OPTIONAL_STRING,
    "probabilities": (_map_of(_is_fraction), "an object of numbers from 0 to 1"),
    "input_tokens": (_optional(_is_count), "a count"),
    "output_tokens": (_optional(_is_count), "a count"),
    "replayed": _OPTIONAL_FLAG,
    "shared": _OPTIONAL_FLAG,
    "rehearsal": _OPTIONAL_FLAG,
    "screen": _OPTIONAL_FRACTION,
    "flagged": _OPTIONAL_FLAG,
    "questions": (_map_of(_is_question), "an object of question answers"),
    "section_text": _OPTIONAL_STRING,
    "review_key": _OPTIONAL_STRING,
    "model_verdict": (_optional(lambda value: value in VERDICT_ORDER), f"one of {', '.join(VERDICT_ORDER)} or null"),
    "decision": _OPTIONAL_MAP,
    "stale_decision": _OPTIONAL_MAP,
    "similarity": _OPTIONAL_FRACTION,
    "closest": _OPTIONAL_MAP,
    "window": (_optional(_is_span), "[start, end] or null"),
    "previous": (_optional(_is_previous), "an object with drift, verdict and confidence, or null"),
    "sections": (_list_of(lambda value: isinstance(value, str)), "a list of strings"),
    "quotes": (_list_of(lambda value: isinstance(value, str)), "a list of strings"),
    "spans": (_list_of(_is_span), "a list of [start, end]"),
    "reviews_file": _OPTIONAL_STRING,
    "auto_accept_scope": _OPTIONAL_STRING,
    "outcome": (_optional(lambda value: value == "fail"), '"fail" or null'),
    "removed": (_list_of(lambda value: isinstance(value, str)), "a list of strings"),
    "error": (_optional(_is_error), "an object with a type and a message, or null"),
}
REQUIRED = ("id", "verdict", "auto")


# What a built row carries from a file, as read there: a human's decision and a stale one (the reviews
# file, ``_review.decisions``) and a replaced recording's answer (the old cassette,
# ``_recording.lifecycle.drift``). Almost always null, so checking them costs a look-up each.
FROM_FILES = ("decision", "stale_decision", "previous")
_BUILT_CHECKED = REQUIRED + FROM_FILES


def validate(data: Any) -> None:
    """Raise ``RowError`` naming the first field of ``data`` that ``SCHEMA`` does not allow."""
    _check(data, SCHEMA)


def check_built(data: Any) -> None:
    """``validate`` for a row this plugin built (``ReportRow.built``): the object, its required fields and
    ``FROM_FILES`` (the other fields were written by ``CitationResult.to_json`` from typed values)."""
    _check(data, _BUILT_CHECKED)


def _check(data: Any, names: Iterable[str]) -> None:
    if not isinstance(data, dict):
        raise RowError(f"is {type(data).__name__}, expected an object")
    where = f"(citation {data['id']!r}): " if isinstance(data.get("id"), str) else ""
    for name in REQUIRED:
        if name not in data:
            raise RowError(f"{where}no field {name!r}")
    for name in names:
        if name in data:
            check, expected = SCHEMA[name]
            if not check(data[name]):
                shown = repr(data[name])
                shown = shown if len(shown) <= 60 else shown[:57] + "..."
                raise RowError(f"{where}field {name!r} is {shown}, expected {expected}")
