"""What the commands read of pytest's own set-up for a run from a directory: the configuration file
pytest reads (``pytest_configuration``), the rootdir it picks, and where its cache keeps the last
run's report (``last_report``).

The plugin keeps the last run's report in pytest's cache, which is at the rootdir (or where the
``cache_dir`` ini key says), not in the directory pytest ran in: a project configured at its root
and run from ``tests/`` has its cache at the root. ``citecheck review`` runs from the directory
pytest ran in (the report's reviews files are relative to it), so it looks where pytest would.
"""

from __future__ import annotations

import configparser
import os
import tomllib
from pathlib import Path
from typing import Any

# The plugin's copy of the last run's report, in pytest's cache directory.
IN_CACHE = Path("d", "citecheck", "last-report.json")
LAST_REPORT = Path(".pytest_cache") / IN_CACHE
# pytest's configuration files in its order of precedence (pytest 9 reads the two TOML files first;
# earlier versions do not know them), and the section each is read from (None: pyproject's tables).
CONFIG_FILES = (
    ("pytest.toml", "pytest"),
    (".pytest.toml", "pytest"),
    ("pytest.ini", "pytest"),
    (".pytest.ini", "pytest"),
    ("pyproject.toml", None),
    ("tox.ini", "pytest"),
    ("setup.cfg", "tool:pytest"),
)


class PytestConfigError(ValueError):
    """A pytest configuration file that cannot be read."""

    def __init__(self, path: Path, error: BaseException) -> None:
        super().__init__(f"cannot read {path}: {error}")
        self.path = path
        self.error = error


def _options(path: Path, section: str | None) -> dict[str, Any] | None:
    """The pytest options ``path`` holds, or None when pytest would pass over the file."""
    if path.suffix == ".toml":
        document = tomllib.loads(path.read_text(encoding="utf-8"))
        if section is not None:  # pytest.toml and .pytest.toml are pytest's even when empty
            table = document.get(section, {})
            return table if isinstance(table, dict) else {}
        tool = document.get("tool", {}).get("pytest", {})
        tool = tool if isinstance(tool, dict) else {}
        ini_options = tool.get("ini_options")
        native = {key: value for key, value in tool.items() if key != "ini_options"}
        return native or (ini_options if isinstance(ini_options, dict) else None)
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.read_string(path.read_text(encoding="utf-8"))
    if parser.has_section(section or ""):
        return dict(parser.items(section or ""))
    return {} if path.name in ("pytest.ini", ".pytest.ini") else None  # pytest uses those even without [pytest]


def pytest_configuration(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The configuration file pytest reads for a run from ``start`` with no path arguments, and its
    options: in ``start`` and then each parent, the first file of ``CONFIG_FILES`` that holds pytest's
    section. None when there is none. Raises ``PytestConfigError`` for a file it cannot read."""
    for directory in (start, *start.parents):
        for name, section in CONFIG_FILES:
            path = directory / name
            if not path.is_file():
                continue
            try:
                options = _options(path, section)
            except (OSError, UnicodeDecodeError, ValueError, configparser.Error, AttributeError) as error:
                raise PytestConfigError(path, error) from None
            if options is not None:
                return path, options
    return None


def _rootdir(start: Path, configuration: Path | None) -> Path:
    """pytest's rootdir for a run from ``start`` with no path arguments: its configuration file's
    directory; else the nearest ``pyproject.toml``'s, else the nearest ``setup.py``'s, else ``start``."""
    if configuration is not None:
        return configuration.parent
    for marker in ("pyproject.toml", "setup.py"):
        for directory in (start, *start.parents):
            if (directory / marker).is_file():
                return directory
    return start


def last_report(cwd: Path) -> Path:
    """The last run's report for a pytest run from ``cwd``: the one in pytest's cache at the rootdir
    (where the ini's ``cache_dir`` says, if it names one), else ``LAST_REPORT`` under ``cwd``. When
    neither is a file, the one in pytest's cache: its absence is the caller's to explain. Relative to
    ``cwd`` when it is under it (``LAST_REPORT`` itself when pytest ran at the rootdir)."""
    try:
        found = pytest_configuration(cwd)
    except PytestConfigError:  # pytest would refuse it too; look where its cache is by default
        found = None
    cache_dir = found[1].get("cache_dir") if found is not None else None
    cache = Path(os.path.expandvars(os.path.expanduser(cache_dir))) if isinstance(cache_dir, str) else None
    cached = _rootdir(cwd, None if found is None else found[0]) / (cache or Path(".pytest_cache")) / IN_CACHE
    chosen = next((path for path in (cached, cwd / LAST_REPORT) if path.is_file()), cached)
    return chosen.relative_to(cwd) if chosen.is_relative_to(cwd) else chosen


def report_argument(kept: Path, cwd: Path) -> str | None:
    """What ``citecheck review`` run from ``cwd`` needs as ``--report`` to read the last report a run
    kept at ``kept`` (in its cache at its rootdir), or None when it finds that report by itself.

    A run whose rootdir is not where a run from ``cwd`` would have it (``pytest -c ci/pytest.ini
    tests``, ``--rootdir``) keeps its cache where ``citecheck review`` does not look."""
    looked = last_report(cwd)
    if os.path.realpath(cwd / looked) == os.path.realpath(kept):
        return None
    return str(kept.relative_to(cwd)) if kept.is_relative_to(cwd) else str(kept)


def missing_report_message(path: Path) -> str:
    """Why ``citecheck review`` has no report to read: none at ``path``, where a run from here keeps it."""
    return (
        f"no report of a previous run in pytest's cache at {path}: run pytest first, from this directory. "
        "pytest keeps its cache at the rootdir (the `rootdir:` line of pytest's header), which is not this "
        "directory when the run's paths have a pytest.ini of their own (`pytest examples/app`): then pass "
        "--report ROOTDIR/.pytest_cache/d/citecheck/last-report.json, or --report a --citecheck-json report"
    )
