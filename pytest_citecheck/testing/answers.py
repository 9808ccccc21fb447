"""The answers table of the rehearsal server (``citecheck serve --answers FILE``): claim -> Jev's answer.

A JSON object mapping each claim (``"*"``: any other claim) to a choice, ``[choice, probability]``
or ``{"choice": ..., "probabilities": {...}}``. ``load_answers`` reads one; ``AnswersFile`` reads it
again whenever the file changes, so a rehearsal can change its answers without a restart.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any

from pytest_citecheck.testing.server import LABELS, Answerer, Reply, confidence_of, probabilities_for


class AnswersError(ValueError):
    """An answers table that cannot be used, naming the claim and what is wrong with its entry."""


# The claim of the answers table's catch-all entry, used for every claim the table does not list.
ANY_CLAIM = "*"
_FIELDS = ("choice", "probability", "probabilities")


def _as_object(where: str, entry: Any) -> dict[str, Any]:
    """An entry in its object form: ``"supports"`` and ``["supports", 0.93]`` are shorthands for it."""
    if isinstance(entry, str):
        entry = {"choice": entry}
    elif isinstance(entry, list):
        if len(entry) != 2:
            raise AnswersError(f"{where}: a list entry is [choice, probability], got {entry!r}")
        entry = {"choice": entry[0], "probability": entry[1]}
    if not isinstance(entry, dict):
        raise AnswersError(f"{where}: expected a choice, [choice, probability] or an object, got {entry!r}")
    unknown = set(entry) - set(_FIELDS)
    if unknown:
        raise AnswersError(f"{where}: unknown field {sorted(unknown)[0]!r} ({', '.join(_FIELDS)})")
    if entry.get("choice") not in LABELS:
        raise AnswersError(f"{where}: field 'choice' must be one of {', '.join(LABELS)}; got {entry.get('choice')!r}")
    return entry


def _exact(where: str, choice: str, probabilities: Any) -> dict[str, float]:
    """``probabilities`` as given, when they name each label once with a probability and favour ``choice``."""
    if (
        not isinstance(probabilities, dict)
        or set(probabilities) != set(LABELS)
        or not all(_is_probability(value) for value in probabilities.values())
    ):
        raise AnswersError(
            f"{where}: field 'probabilities' must give each of {', '.join(LABELS)} a number from 0 to 1; "
            f"got {probabilities!r}"
        )
    if max(probabilities, key=probabilities.__getitem__) != choice:
        raise AnswersError(f"{where}: field 'probabilities' puts the most on another label than {choice!r}")
    return {label: float(probabilities[label]) for label in LABELS}


def _answer_entry(claim: str, entry: Any) -> dict[str, Any]:
    """One answers-table entry as the ``relation`` answer it scripts (its probabilities as given)."""
    where = f"answers table, claim {claim!r}"
    entry = _as_object(where, entry)
    choice = entry["choice"]
    if "probabilities" in entry:
        probabilities = _exact(where, choice, entry["probabilities"])
    else:
        top = entry.get("probability", 0.96)
        if not _is_probability(top) or top <= 1 / len(LABELS):
            raise AnswersError(f"{where}: field 'probability' must be a number above 1/3 and at most 1; got {top!r}")
        probabilities = probabilities_for(choice, float(top))
    return {
        "type": "choice",
        "choice": choice,
        "probabilities": probabilities,
        "confidence": confidence_of(probabilities),
    }


def _is_probability(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and 0 <= value <= 1


def load_answers(path: str) -> dict[str, dict[str, Any]]:
    """Read an answers table: a JSON object mapping each claim (``"*"``: any other) to its answer.

    An answer is a choice (``"supports"``, ``"contradicts"``, ``"says_nothing"``; probability 0.96),
    ``[choice, probability]`` (the probability of that choice, kept exactly), or
    ``{"choice": ..., "probabilities": {label: p, ...}}`` (kept exactly). Raises ``AnswersError``.
    """
    try:
        with open(path, encoding="utf-8") as file:
            table = json.load(file, object_pairs_hook=_no_repeated_keys)
    except OSError as error:
        raise AnswersError(f"cannot read the answers table {path}: {error.strerror or error}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise AnswersError(f"the answers table {path} is not JSON ({error})") from None
    if not isinstance(table, dict) or not table:
        raise AnswersError(f"the answers table {path} must be a JSON object mapping claims to answers")
    answers: dict[str, dict[str, Any]] = {}
    for claim, entry in table.items():
        if claim.strip() in answers:  # claims match without their surrounding whitespace
            raise AnswersError(
                f"answers table: claim {claim!r} is listed twice (claims match without surrounding spaces)"
            )
        answers[claim.strip()] = _answer_entry(claim, entry)
    return answers


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when it names a key twice (``json`` would keep the last silently)."""
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise AnswersError(f"answers table: {key!r} is listed twice in one object (which one counts?)")
        seen[key] = value
    return seen


def _answer_from(
    answers: Mapping[str, dict[str, Any]], claim: str, log: Callable[[str], None]
) -> dict[str, Any] | Reply:
    scripted = answers.get(claim.strip(), answers.get(ANY_CLAIM))
    if scripted is None:
        log(f"no answer for claim {claim!r}: answered 422 (add it to the answers table, or a {ANY_CLAIM!r} entry)")
        return Reply(422, {"detail": f"the answers table has no answer for the claim {claim!r}"})
    log(f"{scripted['choice']} {scripted['probabilities'][scripted['choice']]!r} for claim {claim!r}")
    return dict(scripted)


def table_answerer(answers: Mapping[str, dict[str, Any]], log: Callable[[str], None]) -> Answerer:
    """Answers each claim from ``answers``; a claim it does not list gets ``"*"``'s answer, or a 422 naming it."""

    def answer(claim: str, section: str) -> dict[str, Any] | Reply:
        return _answer_from(answers, claim, log)

    return answer


class AnswersFile:
    """An answers table read from ``path`` at start (``AnswersError`` if it cannot be used), and again
    whenever the file changes (its modification time, size or inode), checked at each request.

    A change that makes the table unusable is logged, and every claim then gets a 422 naming the
    problem until the file is fixed: nothing is answered from a table you no longer have.
    """

    def __init__(self, path: str, log: Callable[[str], None]) -> None:
        self.path = path
        self.log = log
        self._lock = threading.Lock()
        self._stamp = self._stamp_now()
        self._answers: dict[str, dict[str, Any]] = load_answers(path)
        self._error: AnswersError | None = None

    def _stamp_now(self) -> tuple[int, int, int] | None:
        try:
            status = os.stat(self.path)
        except OSError:
            return None
        return (status.st_mtime_ns, status.st_size, status.st_ino)

    def current(self) -> dict[str, dict[str, Any]] | AnswersError:
        """The table as the file now says, or why the file as it is now cannot be used."""
        with self._lock:
            stamp = self._stamp_now()
            if stamp != self._stamp:
                self._stamp = stamp
                try:
                    self._answers, self._error = load_answers(self.path), None
                    self.log(f"re-read the answers table {self.path}: {len(self._answers)} answers")
                except AnswersError as error:
                    self._error = error
                    self.log(f"{error}; every claim gets a 422 until the table is fixed")
            return self._error or self._answers

    def answer(self, claim: str, section: str) -> dict[str, Any] | Reply:
        answers = self.current()
        if isinstance(answers, AnswersError):
            return Reply(422, {"detail": f"{answers} (the rehearsal server answers again once it is fixed)"})
        return _answer_from(answers, claim, self.log)
