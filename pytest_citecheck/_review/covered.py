"""Which citations one decision covers: its own test and citation, and the others it also decided.

A decision is keyed by claim, section text, question and model, so one ``--accept`` decides every
citation of the report that shares them, in any test reading the same reviews file (``citecheck
review`` says so). Its entry names the first as ``test`` and ``citation`` and the others under
``also_decides`` (reviews format 2), so each of them is told when the decision no longer applies to
it, and a new decision for one of them takes that one out of the old decision, leaving the others
decided. Files of format 1, whose decisions name one citation each, read as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

ALSO = "also_decides"

Pair = tuple[Any, Any]


def pairs_of(entry: Mapping[str, Any]) -> list[Pair]:
    """The (test, citation) of each citation ``entry`` covers, its own first."""
    own = (entry.get("test"), entry.get("citation"))
    return [own, *((other["test"], other["citation"]) for other in entry.get(ALSO, ()))]


def covering(entry: Mapping[str, Any], pairs: Sequence[Pair]) -> dict[str, Any]:
    """``entry`` covering exactly ``pairs`` (each once; the first is its own test and citation)."""
    unique = list(dict.fromkeys(pairs))
    changed = {key: value for key, value in entry.items() if key != ALSO}
    changed["test"], changed["citation"] = unique[0]
    others = sorted(unique[1:], key=lambda pair: (str(pair[0]), str(pair[1])))
    if others:
        changed[ALSO] = [{"test": test, "citation": citation} for test, citation in others]
    return changed


def without_pairs(entry: Mapping[str, Any], taken: Iterable[Pair]) -> dict[str, Any] | None:
    """``entry`` no longer covering ``taken`` (a newer decision covers them): None when nothing is left."""
    gone = set(taken)
    left = [pair for pair in pairs_of(entry) if pair not in gone]
    return covering(entry, left) if left else None


def as_applied(entry: Mapping[str, Any], key: str) -> dict[str, Any]:
    """A decision as a report row carries it: its fields and key, without the file's list of citations."""
    return {**{name: value for name, value in entry.items() if name != ALSO}, "key": key}


def also_problem(entry: Mapping[str, Any]) -> str | None:
    """What is wrong with a decision's ``also_decides``, or None (absent is fine)."""
    if ALSO not in entry:
        return None
    value = entry[ALSO]
    if isinstance(value, list) and all(
        isinstance(other, dict)
        and set(other) == {"test", "citation"}
        and all(isinstance(item, str) for item in other.values())
        for other in value
    ):
        return None
    return f"field {ALSO!r} is {value!r:.60}, expected a list of {{test, citation}} objects"
