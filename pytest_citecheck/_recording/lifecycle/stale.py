"""Stale recordings: a request missed, but the cassette holds one for the same citation; say what changed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_citecheck._recording.matching import state_of

_CLAIM_WIDTH = 70
_CITATION_FIELDS = {"claim", "section"}


def shorten(text: Any, width: int = _CLAIM_WIDTH) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis (known secrets cut out first)."""
    from pytest_citecheck._text import cut_end

    return cut_end(text, width)


def stale_message(failed: Any, recorded: Sequence[Any]) -> str | None:
    """The cause of a cassette miss when the cassette holds this citation with another request, else None."""
    change = describe_change(failed, recorded)
    if change is None:
        return None
    return f"the cassette holds a recording of this citation, but its request changed: {change}"


def describe_change(failed: Any, recorded: Sequence[Any]) -> str | None:
    """What changed between a request that missed and the recorded request of the same citation.

    The same citation is a recorded request with the same claim (its section, question or model
    changed) or else with the same section (its claim changed). None when nothing recorded is close.
    """
    state = state_of(failed)
    same_claim = [body for body in recorded if state_of(body).get("claim") == state.get("claim")]
    same_section = [body for body in recorded if state_of(body).get("section") == state.get("section")]
    candidates = same_claim or same_section
    if not candidates or not state:
        return None
    # The closest: the fewest differing fields, then the claim most like this one. A section often holds
    # several citations (each recorded): a claim edited a little is told from its neighbours' claims.
    from rapidfuzz.fuzz import ratio  # here: the session's bookkeeping imports this module, on every run

    claim = str(state.get("claim"))
    best = min(
        candidates, key=lambda body: (len(_changes(failed, body)), -ratio(claim, str(state_of(body).get("claim"))))
    )
    changes = _changes(failed, best)
    return "; ".join(changes) if changes else None


def _changes(now: Any, then: Any) -> list[str]:
    return _state_changes(state_of(now), state_of(then)) + _request_changes(now, then)


def _state_changes(now: dict[str, Any], then: dict[str, Any]) -> list[str]:
    changes = []
    if now.get("claim") != then.get("claim"):
        changes.append(f"the claim changed: recorded {shorten(then.get('claim'))!r}, now {shorten(now.get('claim'))!r}")
    if now.get("section") != then.get("section"):
        difference = _first_difference(str(then.get("section")), str(now.get("section")))
        changes.append(f"the section text changed ({difference})")
    others_now = {k: v for k, v in now.items() if k not in _CITATION_FIELDS}
    others_then = {k: v for k, v in then.items() if k not in _CITATION_FIELDS}
    if others_now != others_then:
        changes.append("the state's other fields changed")
    return changes


def _request_changes(now: Any, then: Any) -> list[str]:
    if not (isinstance(now, dict) and isinstance(then, dict)):
        return []
    changes = []
    if now.get("questions") != then.get("questions"):
        changes.append("the question changed (another pytest-citecheck version, or a changed relation question)")
    if now.get("model") != then.get("model"):
        changes.append(f"recorded with model {then.get('model')!r}, the test now asks {now.get('model')!r}")
    return changes


def _first_difference(old: str, new: str) -> str:
    index = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    start = max(0, index - 15)
    return (
        f"first difference at character {index}: recorded '{_excerpt(old, start, index)}', "
        f"now '{_excerpt(new, start, index)}'"
    )


# The request holds the section's exact text, so a whitespace-only edit is a change (docs/cassettes.md):
# the excerpt must show it, not fold it away as shorten() does.
_VISIBLE = {" ": "␠", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def visible_whitespace(text: str) -> str:
    """``text`` with every whitespace character shown: ␠ for a space, \\n, \\t, \\r, \\u00a0 for the rest."""
    return "".join(_VISIBLE.get(char, f"\\u{ord(char):04x}" if char.isspace() else char) for char in text)


def _excerpt(text: str, start: int, index: int) -> str:
    end = index + 25
    return ("…" if start > 0 else "") + visible_whitespace(text[start:end]) + ("…" if end < len(text) else "")
