"""Whether the recordings a run replays can still be trusted: stale, unused, orphaned, re-pinned, drifted.

A cassette is only as good as its match with the tests that replay it. This module owns the
bookkeeping and the words for each way that match can break:

- **stale**: a request misses, but the cassette holds one for the same citation (same claim, or
  same section): say what changed (claim, section, question, model), so the miss reads as a diff;
- **model**: the model that answered a recording is not the model the test asks for (or the test
  asks for an alias such as ``jev-latest``, whose meaning moves): warn, or fail when strict;
- **unused**: interactions a test that ran to the end did not play, and cassette files that belong
  to no collected test: listed in the summary, failed, or deleted;
- **drift**: a ``rewrite`` compared with what was recorded before: a *flip* (another verdict) or a
  *shift* (the same verdict, a confidence or probability moved beyond the tolerance).

Pure code over plain dicts (a cassette's JSON bodies, the report's rows), so what a worker finds
crosses to the xdist controller and into a shard's JSON report unchanged.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_citecheck._errors import JudgeError
from pytest_citecheck._results import RELATION_TO_VERDICT
from pytest_citecheck._text import format_confidence, plural

_CLAIM_WIDTH = 70
_ALIAS = re.compile(r"^[^\d]*$")  # no version number at all: jev-latest, jev-preview


class ModelPinWarning(UserWarning):
    """A recording made with, or replayed for, another model than the one the test asks for."""


class ModelMismatchError(JudgeError):
    """With ``--citecheck-strict-model``: the recorded answer came from another model than the one asked for."""


# --- reading a recorded request or answer -------------------------------------------------------


def state_of(body: Any) -> dict[str, Any]:
    state = body.get("state") if isinstance(body, dict) else None
    return state if isinstance(state, dict) else {}


def shorten(text: Any, width: int = _CLAIM_WIDTH) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def answer_of(response_body: Any) -> dict[str, Any] | None:
    """The ``relation`` answer of a recorded response body, or None."""
    answers = response_body.get("answers") if isinstance(response_body, dict) else None
    answer = answers.get("relation") if isinstance(answers, dict) else None
    return answer if isinstance(answer, dict) and answer.get("choice") in RELATION_TO_VERDICT else None


# --- model pinning --------------------------------------------------------------------------


def is_alias(model: str) -> bool:
    """A model name without a version (``jev-latest``): what it means changes when TypeSafe moves it."""
    return bool(_ALIAS.match(model))


def answered_as_asked(requested: str, answered: str) -> bool:
    """The answering model is the requested one (``jev-1.12`` is answered by ``jev-1.12`` or ``jev-1.12.3``)."""
    return answered == requested or answered.startswith(requested + ".")


def model_problem(requested: str | None, answered: str | None, *, replayed: bool) -> tuple[str, str, str] | None:
    """(kind, cause, remedy) when this answer's model is not one the test can rely on, else None.

    ``alias``: recorded just now with an alias (a warning, as TypeSafe advises pinning);
    ``mismatch``: the answer came from another model than the one asked for, or is replayed for
    an alias that may have moved since (what ``--citecheck-strict-model`` fails on).
    """
    if not requested or not answered:
        return None
    pin = f"pin the model: --citecheck-model={answered} (or citecheck_model = {answered} in the ini file, or model= in the marker)"
    if is_alias(requested):
        if not replayed:
            return (
                "alias",
                f"recorded with the alias {requested!r}, answered by {answered!r}: thresholds tuned on it may drift "
                "when TypeSafe points the alias at another version",
                pin,
            )
        if answered == requested:
            return None  # the server named no version: nothing to compare
        return (
            "mismatch",
            f"the recorded answer came from model {answered!r}, but the test asks for the alias {requested!r}, "
            "which may now name another version",
            f"{pin}, then re-record",
        )
    if not answered_as_asked(requested, answered):
        return (
            "mismatch",
            f"the answer came from model {answered!r}, but the test asks for {requested!r}",
            "re-record with the model you mean, or pin the one that answered",
        )
    return None


# --- stale recordings -----------------------------------------------------------------------


def stale_cause(miss: Any) -> str | None:
    """The cause of a cassette miss (vcrpy's exception) when the cassette holds this citation with another request."""
    from pytest_citecheck._recording.cassettes import _parsed

    cassette, failed = getattr(miss, "cassette", None), getattr(miss, "failed_request", None)
    if cassette is None or failed is None:
        return None
    recorded = [_parsed(request.body) for request, _ in list(getattr(cassette, "data", []))]
    change = describe_change(_parsed(failed.body), recorded)
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
    # The closest: the fewest differing fields.
    best = min(candidates, key=lambda body: len(_changes(failed, body)))
    changes = _changes(failed, best)
    return "; ".join(changes) if changes else None


def _changes(now: Any, then: Any) -> list[str]:
    now_state, then_state = state_of(now), state_of(then)
    changes = []
    if now_state.get("claim") != then_state.get("claim"):
        changes.append(
            f"the claim changed: recorded {shorten(then_state.get('claim'))!r}, now {shorten(now_state.get('claim'))!r}"
        )
    if now_state.get("section") != then_state.get("section"):
        changes.append(
            f"the section text changed ({_first_difference(str(then_state.get('section')), str(now_state.get('section')))})"
        )
    if set(now_state) - {"claim", "section"} or set(then_state) - {"claim", "section"}:
        if {k: v for k, v in now_state.items() if k not in {"claim", "section"}} != {
            k: v for k, v in then_state.items() if k not in {"claim", "section"}
        }:
            changes.append("the state's other fields changed")
    if isinstance(now, dict) and isinstance(then, dict):
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


# --- drift ----------------------------------------------------------------------------------


def previous_answer(claim: str, section: str, previous: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The answer a replaced recording held for this claim (and section), as the report's ``previous`` fields."""
    from pytest_citecheck._recording.cassettes import _parsed

    same_claim = None
    for interaction in previous:
        body = _parsed(interaction.get("request", {}).get("body"))
        state = state_of(body)
        if state.get("claim") != claim:
            continue
        response = _parsed((interaction.get("response", {}).get("body") or {}).get("string"))
        answer = answer_of(response)
        if answer is None:
            continue
        found = {
            "verdict": RELATION_TO_VERDICT[answer["choice"]].value,
            "choice": answer["choice"],
            "confidence": answer.get("confidence"),
            "probabilities": dict(answer.get("probabilities") or {}),
            "model": response.get("model") if isinstance(response, dict) else None,
        }
        if state.get("section") == section:
            return found
        same_claim = same_claim or found
    return same_claim


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


# --- unused interactions and orphan cassettes ------------------------------------------------


def unused_entry(test: str, cassette: str, body: Any) -> dict[str, Any]:
    """One unplayed interaction, as it travels (xdist, shard reports) and is shown."""
    from pytest_citecheck._recording.cassettes import request_key

    state = state_of(body)
    return {
        "test": test,
        "cassette": cassette,
        "claim": state.get("claim"),
        "model": body.get("model") if isinstance(body, dict) else None,
        "request": request_key(body),
    }


def find_orphans(expected: Mapping[str, Iterable[str]]) -> list[str]:
    """Citecheck cassettes in these directories (dir -> the file names of its collected tests) that no test owns."""
    from pytest_citecheck._recording.cassettes import is_citecheck_cassette

    orphans = []
    for directory, names in expected.items():
        folder = Path(directory)
        if not folder.is_dir():
            continue
        wanted = set(names)
        for path in sorted(folder.glob("*.yaml")):
            if path.name not in wanted and is_citecheck_cassette(path):
                orphans.append(str(path))
    return orphans


def orphaned_module_cassettes(test_dirs: Mapping[str, Iterable[str]], cassette_dir: str) -> list[str]:
    """Citecheck cassettes in ``<test dir>/<cassette_dir>/<module>/`` whose ``<module>.py`` is gone.

    ``test_dirs`` maps each directory tests were collected from to the module names (file stems)
    collected there. A deleted or renamed test module leaves its whole cassette directory behind;
    no selection of tests can make those cassettes play again, so a partial run may report them too.
    """
    from pytest_citecheck._recording.cassettes import is_citecheck_cassette

    orphans = []
    for directory, modules in test_dirs.items():
        root = Path(directory) / cassette_dir
        if not root.is_dir():
            continue
        collected = set(modules)
        for folder in sorted(path for path in root.iterdir() if path.is_dir()):
            if folder.name in collected or (Path(directory) / f"{folder.name}.py").exists():
                continue
            orphans += [str(path) for path in sorted(folder.glob("*.yaml")) if is_citecheck_cassette(path)]
    return orphans


def delete_unused(unused: Sequence[Mapping[str, Any]], orphans: Sequence[str]) -> list[str]:
    """Remove unused interactions from their cassettes and orphan files; returns what was changed."""
    from pytest_citecheck._recording.cassettes import read_interactions, request_key, write_interactions

    by_file: dict[str, set[str]] = {}
    for entry in unused:
        by_file.setdefault(entry["cassette"], set()).add(entry["request"])
    changed = []
    for cassette, requests in sorted(by_file.items()):
        path = Path(cassette)
        if not path.exists():
            continue
        interactions = read_interactions(path)
        kept = [i for i in interactions if request_key(i.get("request", {}).get("body")) not in requests]
        if len(kept) != len(interactions):
            write_interactions(path, kept)
            changed.append(cassette)
    for orphan in orphans:
        Path(orphan).unlink(missing_ok=True)
        changed.append(orphan)
    for folder in {Path(orphan).parent for orphan in orphans}:
        with contextlib.suppress(OSError):  # only a directory the orphans left empty goes
            folder.rmdir()
    return changed


def unused_lines(
    unused: Sequence[Mapping[str, Any]], orphans: Sequence[str], *, policy: str, verbose: bool = False
) -> list[str]:
    """The summary of unused recordings: counts, each one (all under ``-v``), and what to run."""
    if not unused and not orphans:
        return []
    files = {entry["cassette"] for entry in unused}
    done = policy == "delete"
    parts = []
    if unused:
        parts.append(
            f"{plural(len(unused), 'recorded interaction')} in {plural(len(files), 'cassette')} not played by "
            "tests that ran to the end"
        )
    if orphans:
        parts.append(f"{plural(len(orphans), 'cassette')} of no collected test")
    lines = [("Deleted " if done else "Unused recordings: ") + "; ".join(parts)]
    shown_unused = list(unused) if verbose else list(unused)[:10]
    for entry in shown_unused:
        lines.append(
            f"  unused  {entry['test']}: {shorten(entry.get('claim') or '?', 60)!r} (model {entry.get('model') or '?'})"
        )
    shown_orphans = list(orphans) if verbose else list(orphans)[:10]
    for orphan in shown_orphans:
        lines.append(f"  orphan  {orphan}")
    hidden = len(unused) - len(shown_unused) + len(orphans) - len(shown_orphans)
    if hidden:
        lines.append(f"  … and {hidden} more (-v lists them all)")
    if not done:
        lines.append("Remove them: run the same pytest command again with --citecheck-unused=delete")
    return lines
