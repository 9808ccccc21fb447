"""Drift: a ``rewrite`` compared with what was recorded before, a *flip* or a *shift*."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pytest_citecheck._recording.matching import parsed_body, state_of
from pytest_citecheck._text import format_confidence, plural
from pytest_citecheck._verdicts import RELATION_TO_VERDICT


def answer_of(response_body: Any) -> dict[str, Any] | None:
    """The ``relation`` answer of a recorded response body, or None."""
    answers = response_body.get("answers") if isinstance(response_body, dict) else None
    answer = answers.get("relation") if isinstance(answers, dict) else None
    return answer if isinstance(answer, dict) and answer.get("choice") in RELATION_TO_VERDICT else None


def previous_answer(claim: str, section: str, previous: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The answer a replaced recording held for this claim (and section), as the report's ``previous`` fields."""
    same_claim = None
    for interaction in previous:
        state = state_of(parsed_body(interaction.get("request", {}).get("body")))
        if state.get("claim") != claim:
            continue
        found = _as_previous(parsed_body((interaction.get("response", {}).get("body") or {}).get("string")))
        if found is None:
            continue
        if state.get("section") == section:
            return found
        same_claim = same_claim or found
    return same_claim


def _as_previous(response: Any) -> dict[str, Any] | None:
    answer = answer_of(response)
    if answer is None:
        return None
    return {
        "verdict": RELATION_TO_VERDICT[answer["choice"]].value,
        "choice": answer["choice"],
        "confidence": answer.get("confidence"),
        "probabilities": dict(answer.get("probabilities") or {}),
        "model": response.get("model") if isinstance(response, dict) else None,
    }


def drift(
    previous: Mapping[str, Any], choice: str, confidence: float, probabilities: Mapping[str, float], tolerance: float
) -> str:
    """``flip`` (another verdict), ``shift`` (a number moved by more than ``tolerance``) or ``same``."""
    if previous.get("choice") != choice:
        return "flip"
    moves = [abs(float(previous.get("confidence") or 0.0) - confidence)]
    old = previous.get("probabilities") or {}
    moves += [abs(float(old.get(label, 0.0)) - float(p)) for label, p in probabilities.items()]
    # A hair's margin: probabilities are rounded to two decimals, so 0.05 apart is exactly 0.05.
    return "shift" if max(moves) > tolerance + 1e-9 else "same"


def drift_lines(rows: Sequence[Mapping[str, Any]], *, fail_on_flip: bool = False) -> list[str]:
    """The summary of what a rewrite changed: one line per flip and per shift."""
    flips = [row for row in rows if (row.get("previous") or {}).get("drift") == "flip"]
    shifts = [row for row in rows if (row.get("previous") or {}).get("drift") == "shift"]
    if not flips and not shifts:
        return []
    lines = [f"Drift since the previous recording: {plural(len(flips), 'flip')}, {plural(len(shifts), 'shift')}"]
    for row in flips + shifts:
        before = row["previous"]
        lines.append(
            f"  {before['drift']:5}  {row.get('test')} {row['id']!r}: {before['verdict']} {format_confidence(before.get('confidence'))}"
            f" ({before.get('model') or '?'}) -> {row['verdict']} {format_confidence(row.get('confidence'))} ({row.get('model') or '?'})"
        )
    if flips:
        lines.append(
            "A flip changes what the test decides: check the citation, then commit the new cassette"
            + ("" if fail_on_flip else " (--citecheck-fail-on-flip makes a flip fail the run)")
            + "."
        )
    return lines
