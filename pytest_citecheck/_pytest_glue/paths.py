"""Where a test's cassette is: ``<test dir>/<cassette_dir>/<module>/<test>.yaml``, from pytest's nodes.

Read by the fixtures (a test's checker) and the bookkeeping of recordings (which tests own which
cassette files); the file names themselves are ``_recording.paths``'.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from types import EllipsisType
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_citecheck._options import Settings


def node_path_name(item: pytest.Item) -> str:
    # "TestClass::test_name[param]" -> "TestClass.test_name[param]": class-based and parametrised
    # tests get distinct cassette names. Joined from the nodes' own names, not by splitting the node
    # id, so a "::" inside a parametrize id stays in the raw name (and makes it sanitised and digested).
    names = []
    for node in reversed(item.listchain()):
        if isinstance(node, pytest.File):
            break
        names.append(node.name)
    return ".".join(reversed(names)) or item.name


def shared_cassette(item: pytest.Item) -> str | None:
    """The cassette named by the closest ``@pytest.mark.citecheck(cassette=...)``, when it is a usable name."""
    for marker in item.iter_markers("citecheck"):  # closest first
        if "cassette" in marker.kwargs:
            name = marker.kwargs["cassette"]
            return name if isinstance(name, str) and name.strip() else None
    return None


def cassette_path(item: pytest.Item, settings: Settings, *, shared: str | None | EllipsisType = ...) -> Path:
    """``<test dir>/<cassette_dir>/<module>/<test>.yaml`` (``.citecheck.yaml`` beside pytest-recording's own).

    A cassette directory outside the test's directory mirrors the test file's path relative to the
    rootdir (``_recording.paths.cassette_folder``). A test marked ``@pytest.mark.citecheck(cassette="name")``
    uses ``<module>/<name>.yaml``, shared with every test of the module that names it (the name is
    made file-system-safe like a test's). ``shared``: that name when the caller looked it up already
    (``shared_cassette``; None for none), else it is looked up here.
    """
    from pytest_citecheck._recording.paths import cassette_name

    name = cassette_name(
        (shared_cassette(item) if isinstance(shared, EllipsisType) else shared) or node_path_name(item),
        beside_pytest_recording=item.get_closest_marker("vcr") is not None,
    )
    return _folder(item.path, item.config.rootpath, settings.cassette_dir) / name


@functools.lru_cache(maxsize=4096)
def _folder(test_file: Path, rootdir: Path, cassette_dir: str) -> Path:
    """A test module's cassette folder (``_recording.paths.cassette_folder``): worked out once per module,
    not for each of its tests (it only joins paths, and asks the file system nothing)."""
    from pytest_citecheck._recording.paths import cassette_folder

    return cassette_folder(Path(test_file), rootdir, cassette_dir)


# What a cassette directory holds: this plugin's cassettes and pytest-recording's, both YAML.
_CASSETTE_SUFFIXES = (".yaml", ".yml")


def holds_only_cassettes(directory: Path) -> bool:
    """True when every file under ``directory`` is a cassette (YAML), none is a link, and all of it could be read.

    pytest need not walk such a directory (``plugin.pytest_ignore_collect``): it asks every installed
    plugin about each file it finds there, thousands of cassettes in a large suite, and none is a test.
    A directory holding anything else (a test module, a link, a file it cannot read) is walked as before.
    """
    pending = [os.fspath(directory)]
    try:
        while pending:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:  # the kind of each entry comes with the listing: no call per file
                    if entry.is_symlink():
                        return False
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    elif not entry.name.endswith(_CASSETTE_SUFFIXES):
                        return False
    except OSError:
        return False
    return True
