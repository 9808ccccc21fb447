"""Where a test's cassette lives: a folder per test module, a file-system-safe, distinct name per test."""

from __future__ import annotations

import os
import re
from hashlib import sha256
from pathlib import Path

_UNSAFE_NAME = re.compile(r"[^\w.\-\[\]=,+@ ]|\s")
# pytest-repeat runs a test as copies, ``test_x[1-3]``, ``test_x[2-3]``, ``test_x[3-3]``: it parametrizes
# this fixture (last, with the id ``{step}-{count}``) with the step's index.
REPEAT_FIXTURE = "__pytest_repeat_step_number"


def without_repeat_step(name: str, step: object) -> str:
    """``name`` (a test's name or node id) without pytest-repeat's id of the copy ``step``.

    ``test_x[2-3]`` is ``test_x``, ``test_x[a-2-3]`` is ``test_x[a]``: a copy is the test itself, asking
    what it asks, so it replays (and records) the test's own cassette. A name that does not end in the
    step's id is left as it is.
    """
    if type(step) is not int:
        return name
    found = re.search(rf"([\[-]){step + 1}-[0-9]+\]\Z", name)
    if found is None:
        return name
    return name[: found.start()] + ("" if found.group(1) == "[" else "]")


def cassette_name(test_name: str, *, beside_pytest_recording: bool = False) -> str:
    """A file-system-safe, distinct file name for a test (parametrised ids included).

    pytest-recording names a ``@pytest.mark.vcr`` test's cassette ``cassettes/<module>/<test>.yaml``
    too; such a test's citecheck cassette is ``<test>.citecheck.yaml`` so neither overwrites the other.
    """
    safe = _UNSAFE_NAME.sub("_", test_name)
    if safe != test_name or len(safe) > 120:
        # Two names that differ only in replaced characters must not share a file.
        safe = f"{safe[:100]}-{sha256(test_name.encode()).hexdigest()[:8]}"
    return safe + (".citecheck.yaml" if beside_pytest_recording else ".yaml")


def is_shared_directory(cassette_dir: str) -> bool:
    """A cassette directory outside the test's own directory (``../cassettes``, an absolute path).

    Tests of several directories then write into it, so a module's folder must say which module.
    """
    base = Path(cassette_dir)
    return base.is_absolute() or ".." in base.parts


def cassette_folder(test_file: Path, rootdir: Path, cassette_dir: str) -> Path:
    """The folder of a test module's cassettes.

    In the test's own directory (the default ``cassettes``): ``<test dir>/<cassette_dir>/<module>/``.
    Anywhere else, the folder mirrors the test file's path relative to the rootdir:
    ``<cassette_dir>/<dir/of/test_module>/``, so ``tests/a/test_x.py`` and ``tests/b/test_x.py``
    never share one (and never take each other's cassettes for orphans). A test file outside the
    rootdir (``pytest -c ci/pytest.ini tests``: rootdir ``ci/``) mirrors its path from the directory
    the two share (the project's): ``tests/test_x``, never the machine's path to the project, which a
    checkout anywhere else would miss.

    The physical path is mirrored, so a test directory reached through a symbolic link inside the
    rootdir (``suite -> tests``, ``pytest suite``) uses the cassettes of the directory it reaches, not
    a folder named after the link; a link to a directory outside the rootdir keeps its name in the
    project (the only one it has there).
    """
    if not is_shared_directory(cassette_dir):
        return test_file.parent / cassette_dir / test_file.stem
    real_file, real_root = Path(os.path.realpath(test_file)), Path(os.path.realpath(rootdir))
    try:
        relative = real_file.relative_to(real_root)
        # ``..`` from the test's own directory, as the file system takes it: from the directory the link reaches.
        parent = real_file.parent
    except ValueError:
        parent = test_file.parent
        try:
            relative = test_file.relative_to(rootdir)
        except ValueError:
            relative = _from_shared_ancestor(test_file, rootdir)
    base = Path(os.path.normpath(parent / cassette_dir))  # an absolute directory wins the join
    return base / relative.with_suffix("")


def _from_shared_ancestor(test_file: Path, rootdir: Path) -> Path:
    """A test file's path from the deepest directory it shares with the rootdir (its whole path, without
    the anchor, when they share none: another drive).

    Both are resolved first: one path can name the project through a symbolic link and the other not
    (``cd`` into a linked checkout, ``pytest -c "$PWD/ci/pytest.ini" tests``: the rootdir keeps the
    link, the test files have the physical path), and the two would share only the directory above
    the checkout, so the folder would carry the checkout's own name (``cassettes/proj/tests/…``)."""
    real_file, real_root = Path(os.path.realpath(test_file)), Path(os.path.realpath(rootdir))
    try:
        return real_file.relative_to(real_root)
    except ValueError:
        pass
    try:
        shared = Path(os.path.commonpath([real_file, real_root]))
    except ValueError:  # different drives, or one relative and one absolute
        return real_file.relative_to(real_file.anchor)
    return real_file.relative_to(shared)
