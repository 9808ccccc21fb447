"""Orphan cassettes: files in the cassette folders of the collected modules that no collected test owns.

Pure code over paths: the pytest glue (``_pytest_glue.session``) says which modules were collected,
which of them only in part, and which cassette file names their tests use; this module looks in
their folders (``paths.cassette_folder``), and beside them for the folders of modules that are gone.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from pytest_citecheck._recording.lifecycle.unused import find_orphans, orphaned_module_cassettes
from pytest_citecheck._recording.paths import cassette_folder, is_shared_directory


def orphan_cassettes(
    modules: Iterable[Path],
    names_in: Callable[[Path], set[str]],
    *,
    rootdir: Path,
    cassette_dir: str,
    partial: Iterable[Path] = (),
) -> list[str]:
    """Every orphan cassette of these collected modules (``names_in(module)``: its tests' cassette file names).

    Modules in ``partial`` (some of their tests named on the command line) are not looked in: the
    cassettes of their other tests would look orphaned.
    """
    modules = list(modules)
    orphans = _of_deleted_modules(modules, cassette_dir)
    skipped = {str(cassette_folder(module.resolve(), rootdir, cassette_dir)) for module in partial}
    expected: dict[str, set[str]] = {}
    for module in modules:
        folder = os.path.normpath(cassette_folder(module, rootdir, cassette_dir))
        if folder in expected or not Path(folder).is_dir() or str(Path(folder).resolve()) in skipped:
            continue
        expected[folder] = set()
    if not expected:
        return orphans
    for module in modules:
        folder = os.path.normpath(cassette_folder(module, rootdir, cassette_dir))
        if folder in expected:
            expected[folder] |= names_in(module)
    return orphans + find_orphans(expected)


def _of_deleted_modules(modules: Iterable[Path], cassette_dir: str) -> list[str]:
    """Cassettes beside the collected modules whose own module is gone (a cassette folder in the test's directory)."""
    if is_shared_directory(cassette_dir):
        return []  # one directory shared by tests of several directories: a module may live elsewhere
    test_dirs: dict[str, set[str]] = {}
    for module in modules:
        test_dirs.setdefault(str(module.parent), set()).add(module.stem)
    if not any((Path(directory) / cassette_dir).is_dir() for directory in test_dirs):
        return []
    return orphaned_module_cassettes(test_dirs, cassette_dir)
