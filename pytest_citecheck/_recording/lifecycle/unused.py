"""Unused recordings: interactions no test played, and cassette files that belong to no collected test."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_citecheck._recording.cassette_file import is_citecheck_cassette, read_interactions, write_interactions
from pytest_citecheck._recording.damage import CassetteFormatError
from pytest_citecheck._recording.lifecycle.stale import shorten
from pytest_citecheck._recording.matching import request_key, state_of
from pytest_citecheck._recording.paths import REPEAT_FIXTURE
from pytest_citecheck._text import plural

_SHOWN = 10  # entries of each kind listed without -v
# Why a run is not complete enough to delete after, by pytest's exit status.
_EXIT_STATUS = {
    1: "tests failed",
    2: "the run was interrupted",
    3: "pytest hit an internal error",
    4: "pytest was used wrongly",
    5: "no tests ran",
}


def unused_entry(test: str, cassette: str, body: Any) -> dict[str, Any]:
    """One unplayed interaction, as it travels (xdist, shard reports) and is shown."""
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


def repeated_tests(items: Iterable[Any]) -> bool:
    """True when pytest-repeat runs copies of tests (``test_x[1-2]``): their cassettes are not the tests' own."""
    return any(REPEAT_FIXTURE in getattr(getattr(item, "callspec", None), "params", ()) for item in items)


def deletion_refusal(*, exit_status: int, crashed_workers: int, repeated: bool, reruns: int) -> str | None:
    """Why ``--citecheck-unused=delete`` must delete nothing after this run, or None when it may.

    Only a complete run of what was collected, where nothing failed, nothing was interrupted and no
    xdist worker crashed, shows which recordings no test needs; and only tests under their own
    names (not pytest-repeat's copies, not pytest-rerunfailures' second tries) show whose they are.
    """
    if repeated:
        return "pytest-repeat ran copies of the tests under other names; run without --count to delete"
    if reruns:
        return "pytest-rerunfailures may run a test again (--reruns); run without it to delete"
    if crashed_workers:
        return f"{plural(crashed_workers, 'xdist worker')} crashed, so some tests never ran to the end"
    if exit_status:
        reason = _EXIT_STATUS.get(exit_status, f"pytest exited with status {exit_status}")
        return f"{reason}; delete after a run in which every test passes"
    return None


def delete_after_run(
    unused: Sequence[Mapping[str, Any]], orphans: Sequence[str], base: Path, **run: Any
) -> tuple[str | None, list[str]]:
    """Delete what no test needs if the run allows it (``deletion_refusal(**run)``); paths are relative to ``base``.

    Returns why nothing was deleted (or None), and what could not be changed, as lines to show.
    """
    refusal = deletion_refusal(**run)
    if refusal is not None:
        return refusal, [f"deleted nothing: {refusal}"]
    _, problems = delete_unused(
        [{**entry, "cassette": str(base / entry["cassette"])} for entry in unused], [str(base / o) for o in orphans]
    )
    return None, [f"left a file as it was: {problem}" for problem in problems]


def delete_unused(unused: Sequence[Mapping[str, Any]], orphans: Sequence[str]) -> tuple[list[str], list[str]]:
    """Remove unused interactions from their cassettes and orphan files.

    Returns what was changed, and one line for each file that could not be (a full or read-only
    file system, a damaged cassette): those are said, and the run goes on.
    """
    by_file: dict[str, set[str]] = {}
    for entry in unused:
        by_file.setdefault(entry["cassette"], set()).add(entry["request"])
    changed: list[str] = []
    problems: list[str] = []
    for cassette, requests in sorted(by_file.items()):
        _attempt(
            f"cannot remove unused interactions from {cassette}",
            problems,
            changed,
            cassette,
            lambda path=Path(cassette), asked=requests: _drop_requests(path, asked),
        )
    for orphan in orphans:
        _attempt(
            f"cannot delete {orphan}",
            problems,
            changed,
            orphan,
            lambda path=Path(orphan): path.unlink(missing_ok=True) or True,
        )
    for folder in {Path(orphan).parent for orphan in orphans}:
        with contextlib.suppress(OSError):  # only a directory the orphans left empty goes
            folder.rmdir()
    return changed, problems


def _attempt(what: str, problems: list[str], changed: list[str], name: str, change: Any) -> None:
    try:
        if change():
            changed.append(name)
    except OSError as error:
        problems.append(f"{what} ({error.strerror or type(error).__name__})")
    except CassetteFormatError as error:
        problems.append(f"{what} ({error})")


def _drop_requests(path: Path, requests: set[str]) -> bool:
    """Rewrite ``path`` without the interactions of these requests; True if it changed."""
    if not path.exists():
        return False
    interactions = read_interactions(path)
    kept = [i for i in interactions if request_key(i.get("request", {}).get("body")) not in requests]
    if len(kept) == len(interactions):
        return False
    write_interactions(path, kept)
    return True


def unused_lines(
    unused: Sequence[Mapping[str, Any]],
    orphans: Sequence[str],
    *,
    policy: str,
    verbose: bool = False,
    blocked: str | None = None,
) -> list[str]:
    """The summary of unused recordings: counts, each one (all under ``-v``), and what to run.

    ``blocked``: why ``--citecheck-unused=delete`` deletes (or would delete) nothing after this run
    (``deletion_refusal``): the hint then says when it will work, not to run the same command again."""
    if not unused and not orphans:
        return []
    done = policy == "delete"
    lines = [("Deleted " if done else "Unused recordings: ") + "; ".join(_counts(unused, orphans))]
    shown_unused = list(unused) if verbose else list(unused)[:_SHOWN]
    shown_orphans = list(orphans) if verbose else list(orphans)[:_SHOWN]
    lines += [
        f"  unused  {entry['test']}: {shorten(entry.get('claim') or '?', 60)!r} (model {entry.get('model') or '?'})"
        for entry in shown_unused
    ]
    lines += [f"  orphan  {orphan}" for orphan in shown_orphans]
    hidden = len(unused) - len(shown_unused) + len(orphans) - len(shown_orphans)
    if hidden:
        lines.append(f"  … and {hidden} more (-v lists them all)")
    if not done and blocked is not None:
        reason = blocked.split(";")[0]  # "tests failed; delete after a run in which every test passes"
        lines.append(
            f"Remove them: run with --citecheck-unused=delete once every test passes (this run cannot delete: {reason})"
        )
    elif not done:
        lines.append("Remove them: run the same pytest command again with --citecheck-unused=delete")
    return lines


def _counts(unused: Sequence[Mapping[str, Any]], orphans: Sequence[str]) -> list[str]:
    parts = []
    if unused:
        files = {entry["cassette"] for entry in unused}
        parts.append(
            f"{plural(len(unused), 'recorded interaction')} in {plural(len(files), 'cassette')} not played by "
            "tests that ran to the end"
        )
    if orphans:
        parts.append(f"{plural(len(orphans), 'cassette')} of no collected test")
    return parts
