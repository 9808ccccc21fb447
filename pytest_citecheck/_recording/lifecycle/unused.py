"""Unused recordings: interactions no test played, and cassette files that belong to no collected test."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_citecheck._recording.cassette_file import is_citecheck_cassette, read_interactions, write_interactions
from pytest_citecheck._recording.lifecycle.stale import shorten
from pytest_citecheck._recording.matching import request_key, state_of
from pytest_citecheck._text import plural

_SHOWN = 10  # entries of each kind listed without -v


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


def delete_unused(unused: Sequence[Mapping[str, Any]], orphans: Sequence[str]) -> list[str]:
    """Remove unused interactions from their cassettes and orphan files; returns what was changed."""
    by_file: dict[str, set[str]] = {}
    for entry in unused:
        by_file.setdefault(entry["cassette"], set()).add(entry["request"])
    changed = [cassette for cassette, requests in sorted(by_file.items()) if _drop_requests(Path(cassette), requests)]
    for orphan in orphans:
        Path(orphan).unlink(missing_ok=True)
        changed.append(orphan)
    for folder in {Path(orphan).parent for orphan in orphans}:
        with contextlib.suppress(OSError):  # only a directory the orphans left empty goes
            folder.rmdir()
    return changed


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
    unused: Sequence[Mapping[str, Any]], orphans: Sequence[str], *, policy: str, verbose: bool = False
) -> list[str]:
    """The summary of unused recordings: counts, each one (all under ``-v``), and what to run."""
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
    if not done:
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
