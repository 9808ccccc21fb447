"""Dead decisions: decisions in a reviews file for a citation that no longer exists.

A decision applies to one test's citation (its ``test`` and ``citation`` fields, and the digest it
is stored under), and to the other tests' citations it also decided (``also_decides``): it is dead
only when every one of them is gone. When the test is deleted or renamed, or the citation is taken out of it, the
decision never applies again, and nothing would say so: it sits in the file for ever. This finds
them, after a run, from what the run can tell for sure; it never changes a reviews file (a user
wrote it: removing a decision is theirs to do).

A decision is dead when:
- its test module is gone from the disk;
- its test module was collected in full, and no collected test has its test's id (renamed or deleted);
- its test ran to the end in this run (passed, first try) and checked no citation of its id.

A module collected only in part (``file.py::test_x`` on the command line), a test that failed or was
not run, and runs that rename or narrow their tests (``--lf``, pytest-repeat) say nothing: no
decision is reported from them. Pure code: the pytest glue (``_pytest_glue.bookkeeping``) gives it
the collected tests and the ones that ran to the end; the rows of the run's report say what was checked.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from pytest_citecheck._text import plural, quoted_id, short_id

# Why a decision is dead, as the summary and ``citecheck review --list`` say it.
GONE_MODULE = "its test module is gone"
GONE_TEST = "no test of that name was collected (renamed or deleted)"
NOT_CHECKED = "its test ran to the end and checked no citation of that id"
# A decision whose test ran to the end here: dead unless the report has a row of its test and citation
# (decided where the rows are: an xdist controller), then said as NOT_CHECKED.
IF_NOT_CHECKED = "ran"


def candidates(
    decisions: Mapping[str, Mapping[str, Any]],
    *,
    collected: Collection[str],
    whole_modules: Collection[str],
    finished: Collection[str],
    module_exists: Callable[[str], bool],
) -> list[tuple[str, str]]:
    """``(key, why)`` of each decision of a reviews file that looks dead from this process.

    ``collected``: the node ids of every collected test (deselected ones too); ``whole_modules``: the
    module part of a node id (``tests/test_a.py``) of each module collected in full; ``finished``:
    the tests that ran to the end; ``module_exists``: whether a module part names a file that exists.
    ``why`` is ``IF_NOT_CHECKED`` for a test that ran to the end (settled by ``settle``).
    """
    found = []
    for key, entry in decisions.items():
        test, citation = entry.get("test"), entry.get("citation")
        if not isinstance(test, str) or not isinstance(citation, str):
            continue  # a decision written by hand without them: nothing to tell its citation by
        why = _why(test, collected, whole_modules, finished, module_exists)
        # A decision that also decided other tests' citations (reviews format 2, ``also_decides``) is
        # dead only when every one of those tests is gone: one still there may apply it.
        others = [str(other.get("test")) for other in entry.get("also_decides", ())]
        if why is not None and others and why == IF_NOT_CHECKED:
            why = None  # settled per citation by the rows of the one test: not enough for the others
        if why is not None and all(
            _why(other, collected, whole_modules, finished, module_exists) in (GONE_TEST, GONE_MODULE)
            for other in others
        ):
            found.append((key, why))
    return found


def _why(
    test: str,
    collected: Collection[str],
    whole_modules: Collection[str],
    finished: Collection[str],
    module_exists: Callable[[str], bool],
) -> str | None:
    """Why the decision for one test's citation looks dead from this process, or None."""
    module = test.split("::", 1)[0]
    if test in finished:
        return IF_NOT_CHECKED
    if test in collected:
        return None
    if module in whole_modules:
        return GONE_TEST
    if not module_exists(module):
        return GONE_MODULE
    return None


def entry_of(path: str, key: str, why: str, decision: Mapping[str, Any]) -> dict[str, Any]:
    """A dead decision as the report holds it: where it is, what it decided, and why it is dead."""
    return {
        "reviews_file": path,
        "key": key,
        "test": decision.get("test"),
        "citation": decision.get("citation"),
        "verdict": decision.get("verdict"),
        "by": decision.get("by"),
        "at": decision.get("at"),
        "why": why,
    }


def settle(
    found: Iterable[Mapping[str, Any]], checked: Collection[tuple[str, str]], keys: Collection[str]
) -> list[dict[str, Any]]:
    """The dead decisions among ``found`` (from every process, each once). One that applied in this run
    (its key is a row's ``review_key``, in ``keys``) is not dead, whatever its test is called now; one
    whose test ran to the end is dead only if no row has its test and citation (``checked``)."""
    settled: dict[tuple[str, str], dict[str, Any]] = {}
    for entry in found:
        where = (str(entry.get("reviews_file")), str(entry.get("key")))
        if where[1] in keys:
            continue
        if entry.get("why") == IF_NOT_CHECKED:
            if (str(entry.get("test")), str(entry.get("citation"))) in checked:
                continue
            entry = {**entry, "why": NOT_CHECKED}
        settled.setdefault(where, dict(entry))
    return sorted(settled.values(), key=lambda entry: tuple(str(entry.get(name)) for name in _ORDER))


# Dead decisions are listed by file, test and citation.
_ORDER = ("reviews_file", "test", "citation")


def are_entries(value: Any) -> bool:
    """``value`` is a list of dead decisions as ``entry_of`` makes them (read back from a report)."""
    return isinstance(value, list) and all(
        isinstance(entry, dict)
        and isinstance(entry.get("reviews_file"), str)
        and isinstance(entry.get("key"), str)
        and all(isinstance(item, str | None) for item in entry.values())
        for entry in value
    )


# How many dead decisions the summary names one by one (all under -v).
_SHOWN = 5


def dead_lines(dead: Sequence[Mapping[str, Any]], *, verbose: bool = False) -> list[str]:
    """The summary's lines about dead decisions: how many, each one (the first few), what to do."""
    if not dead:
        return []
    files = {entry.get("reviews_file") for entry in dead}
    lines = [
        f"{plural(len(dead), 'human decision')} in {plural(len(files), 'reviews file')} "
        f"{'applies' if len(dead) == 1 else 'apply'} to no citation any more:"
    ]
    shown = list(dead) if verbose else list(dead[:_SHOWN])
    lines += [
        f"  dead  {short_id(entry.get('test'))} {quoted_id(entry.get('citation'))} "
        f"({entry.get('verdict')} by {entry.get('by')}) in {entry.get('reviews_file')}: {entry.get('why')}"
        for entry in shown
    ]
    if len(dead) > len(shown):
        lines.append(f"  … and {len(dead) - len(shown)} more (-v lists them all)")
    lines.append("Remove them from the reviews file by hand (nothing removes a decision for you), or keep them.")
    return lines
