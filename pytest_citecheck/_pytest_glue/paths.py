"""Where a test's cassette is: ``<test dir>/<cassette_dir>/<module>/<test>.yaml``, from pytest's nodes.

Read by the fixtures (a test's checker) and the bookkeeping of recordings (which tests own which
cassette files); the file names themselves are ``_recording.paths``'. Also where ``citecheck
review`` finds the report this run keeps in pytest's cache (``review_report_path``).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_citecheck._recording.paths import REPEAT_FIXTURE, cassette_folder, cassette_name, without_repeat_step

if TYPE_CHECKING:
    from pytest_citecheck._options import Settings


def node_path_name(item: pytest.Item) -> str:
    # "TestClass::test_name[param]" -> "TestClass.test_name[param]": class-based and parametrised
    # tests get distinct cassette names. Joined from the nodes' own names, not by splitting the node
    # id, so a "::" inside a parametrize id stays in the raw name (and makes it sanitised and digested).
    # A pytest-repeat copy (``test_x[2-3]``) is named as the test it copies: it replays the test's cassette.
    names = []
    for node in reversed(item.listchain()):
        if isinstance(node, pytest.File):
            break
        names.append(node.name)
    name = ".".join(reversed(names)) or item.name
    callspec = getattr(item, "callspec", None)
    if callspec is not None and REPEAT_FIXTURE in callspec.params:
        return without_repeat_step(name, callspec.params[REPEAT_FIXTURE])
    return name


def owner_id(item: pytest.Item) -> str:
    """The test's node id, a pytest-repeat copy's (``test_x[2-3]``) without its step: the copies of a
    test own its cassette together, and no copy collides with another over it."""
    callspec = getattr(item, "callspec", None)
    if callspec is not None and REPEAT_FIXTURE in callspec.params:
        return without_repeat_step(item.nodeid, callspec.params[REPEAT_FIXTURE])
    return item.nodeid


def shared_cassette(item: pytest.Item) -> str | None:
    """The cassette named by the closest ``@pytest.mark.citecheck(cassette=...)``, when it is a usable name."""
    for marker in item.iter_markers("citecheck"):  # closest first
        if "cassette" in marker.kwargs:
            name = marker.kwargs["cassette"]
            return name if isinstance(name, str) and name.strip() else None
    return None


def _named_and_vcr(item: pytest.Item) -> tuple[str | None, bool]:
    """``shared_cassette(item)``, and whether a ``vcr`` marker applies to the test: one walk over its markers."""
    named: str | None = None
    looking, vcr = True, False
    for marker in item.iter_markers():  # closest first
        if marker.name == "vcr":
            vcr = True
        elif looking and marker.name == "citecheck" and "cassette" in marker.kwargs:
            looking, name = False, marker.kwargs["cassette"]
            named = name if isinstance(name, str) and name.strip() else None
    return named, vcr


def cassette_location(item: pytest.Item, settings: Settings) -> tuple[Path, str, str, str | None]:
    """The test's cassette folder and file name (``cassette_path`` joins them), the joined path's
    ``os.path.normpath`` (no ``Path`` built), and the shared cassette it names (``shared_cassette``).

    The bookkeeping of recordings works this out for every collected test; only a test that runs
    needs its path as a ``Path``. A file name holds no separator and is no ``.`` or ``..`` (it ends in
    ``.yaml``, ``cassette_name``), so it joins the normalised folder as it would the folder itself.
    """
    named, vcr = _named_and_vcr(item)
    name = cassette_name(named or node_path_name(item), beside_pytest_recording=vcr)
    folder, normalised = _folder(item.path, item.config.rootpath, settings.cassette_dir)
    return folder, name, os.path.join(normalised, name), named


def cassette_path(item: pytest.Item, settings: Settings) -> Path:
    """``<test dir>/<cassette_dir>/<module>/<test>.yaml`` (``.citecheck.yaml`` beside pytest-recording's own).

    A cassette directory outside the test's directory mirrors the test file's path relative to the
    rootdir (``_recording.paths.cassette_folder``). A test marked ``@pytest.mark.citecheck(cassette="name")``
    uses ``<module>/<name>.yaml``, shared with every test of the module that names it (the name is
    made file-system-safe like a test's).
    """
    folder, name, _, _ = cassette_location(item, settings)
    return folder / name


@functools.lru_cache(maxsize=4096)
def _folder(test_file: Path, rootdir: Path, cassette_dir: str) -> tuple[Path, str]:
    """A test module's cassette folder (``_recording.paths.cassette_folder``) and its ``os.path.normpath``:
    worked out once per module, not for each of its tests (it only joins paths, and asks the file system nothing)."""
    folder = cassette_folder(Path(test_file), rootdir, cassette_dir)
    return folder, os.path.normpath(folder)


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


def review_report_path(config: pytest.Config) -> str | None:
    """The ``--report`` that ``citecheck review``, run where pytest ran, needs to find the report this
    run keeps in pytest's cache; None when it finds it by itself, or when there is no cache."""
    if getattr(config, "cache", None) is None:
        return None
    from pytest_citecheck._review.pytest_config import IN_CACHE, report_argument

    # pytest's own rule for its cache directory (cacheprovider.resolve_from_str): the ini's
    # cache_dir, with variables and ~ expanded, relative to the rootdir.
    cache_dir = os.path.expanduser(os.path.expandvars(str(config.getini("cache_dir"))))
    kept = Path(config.rootpath) / cache_dir / IN_CACHE
    return report_argument(kept, Path(config.invocation_params.dir))
