"""What the plugin keeps on pytest's config and items (``pytest.StashKey``s), and when the session's plugins load.

Apart from ``_session``, which holds the session's report and recording bookkeeping: pytest loads
this module with the plugin, and ``_session`` only when the run has something for it to do.
"""

from __future__ import annotations

from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_citecheck._check.checker import Checker  # noqa: F401  (named in CHECKER's type)
    from pytest_citecheck._options import Settings  # noqa: F401  (named in SETTINGS' type)
    from pytest_citecheck._session import CassetteBookkeeping, CitecheckRun

SETTINGS = pytest.StashKey["Settings"]()
PENDING_ROWS = pytest.StashKey[list[dict[str, Any]]]()
CHECKER = pytest.StashKey["Checker"]()
RAN_TO_END = pytest.StashKey[bool]()
# Every collected test, deselected ones included (``-k``, ``-m``): their cassettes are not orphans.
COLLECTED = pytest.StashKey[list[pytest.Item]]()
SESSION_PLUGINS = pytest.StashKey["tuple[CitecheckRun, CassetteBookkeeping]"]()


def session_plugins(config: pytest.Config) -> tuple[CitecheckRun, CassetteBookkeeping]:
    """The session's report and recording bookkeeping (``_session``), registered with pytest when first needed.

    That is: when reports were asked for, when the collected tests have cassettes, when a test builds
    a checker, or when a report arrives carrying citation rows (an xdist controller). Registered in
    the middle of a hook call, they miss that call: the caller hands it on.
    """
    if SESSION_PLUGINS not in config.stash:
        from pytest_citecheck._session import CassetteBookkeeping, CitecheckRun

        run = CitecheckRun(config)
        bookkeeping = CassetteBookkeeping(config, run)
        config.pluginmanager.register(run, "citecheck-run")
        config.pluginmanager.register(bookkeeping, "citecheck-cassettes")
        config.stash[SESSION_PLUGINS] = (run, bookkeeping)
    return config.stash[SESSION_PLUGINS]


def collected_modules(items: list[pytest.Item]) -> dict[int, Path]:
    """The collected tests' module paths, by identity: a module's tests share its path object, so
    grouping costs a dict entry per test, not a path built or compared per test (and no Python
    code per test: ``map`` and ``zip`` loop in C, which matters at the end of every collection)."""
    paths: list[Path] = list(map(attrgetter("path"), items))
    return dict(zip(map(id, paths), paths))


# A test's report carries these (set in ``_session`` and ``plugin``) when it has something for the session's plugins.
_REPORT_FIELDS = ("citecheck_rows", "citecheck_unused", "citecheck_failing", "citecheck_error")


class SessionTrigger:
    """Registers the session's plugins (``session_plugins``) when the run turns out to need them.

    Registered by ``plugin.pytest_configure`` in their place: it notes the collected tests, and
    costs a suite that checks no citation a few hook calls.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        config.stash[COLLECTED] = []
        settings = config.stash[SETTINGS]
        if settings.json or settings.html:
            session_plugins(config)  # written at the end even if nothing was checked

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self.config.stash[COLLECTED].extend(items)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.config.stash[COLLECTED].extend(items)  # deselected before we saw them; a duplicate only repeats a name

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Cassettes beside the collected tests: unused recordings and orphan cassettes are looked for."""
        if SESSION_PLUGINS in self.config.stash:
            return
        cassette_dir = self.config.stash[SETTINGS].cassette_dir
        modules = collected_modules(self.config.stash[COLLECTED]).values()
        if any((folder / cassette_dir).is_dir() for folder in {module.parent for module in modules}):
            session_plugins(self.config)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # Under xdist the controller builds no checker: the first report with rows (or an error of
        # ours, or unused recordings) registers the session's plugins, and is handed on to them.
        if SESSION_PLUGINS in self.config.stash or not any(hasattr(report, field) for field in _REPORT_FIELDS):
            return
        run, bookkeeping = session_plugins(self.config)
        run.pytest_runtest_logreport(report)
        bookkeeping.pytest_runtest_logreport(report)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        # An xdist worker's orphan cassettes reach the controller with the worker's end.
        if SESSION_PLUGINS in self.config.stash or not getattr(node, "workeroutput", {}).get("citecheck_orphans"):
            return
        session_plugins(self.config)[1].pytest_testnodedown(node, error)
