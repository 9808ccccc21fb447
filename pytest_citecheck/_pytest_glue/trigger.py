"""When the session's plugins load: ``session_plugins`` registers them, ``SessionTrigger`` decides when.

pytest loads this module with the plugin; ``session`` (the session's report) and ``bookkeeping``
(of recordings) only when the run has something for them to do, imported here inside
``session_plugins``. Neither imports this module, so they make no cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from pytest_citecheck._pytest_glue.stash import COLLECTED, SESSION_PLUGINS, SETTINGS, collected_modules

if TYPE_CHECKING:
    from pytest_citecheck._pytest_glue.bookkeeping import CassetteBookkeeping
    from pytest_citecheck._pytest_glue.session import CitecheckRun


def session_plugins(config: pytest.Config) -> tuple[CitecheckRun, CassetteBookkeeping]:
    """The session's report and recording bookkeeping (``session``), registered with pytest when first needed.

    That is: when reports were asked for, when the collected tests have cassettes, when a test builds
    a checker, or when a report arrives carrying citation rows (an xdist controller). Registered in
    the middle of a hook call, they miss that call: the caller hands it on.
    """
    if SESSION_PLUGINS not in config.stash:
        from pytest_citecheck._pytest_glue.bookkeeping import CassetteBookkeeping
        from pytest_citecheck._pytest_glue.session import CitecheckRun

        run = CitecheckRun(config)
        bookkeeping = CassetteBookkeeping(config, run)
        config.pluginmanager.register(run, "citecheck-run")
        config.pluginmanager.register(bookkeeping, "citecheck-cassettes")
        config.stash[SESSION_PLUGINS] = (run, bookkeeping)
    return config.stash[SESSION_PLUGINS]


# A test's report carries these (set in ``session`` and ``plugin``) when it has something for the session's plugins.
_REPORT_FIELDS = ("citecheck_rows", "citecheck_batch", "citecheck_unused", "citecheck_failing", "citecheck_error")
# What an xdist worker leaves in its ``workeroutput`` for the session's plugins: orphan cassettes, unshipped rows.
_OUTPUT_KEYS = ("citecheck_orphans", "citecheck_rows")


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

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # Only an xdist controller takes in reports it did not make: only it watches them (no hook per test otherwise).
        if self.config.pluginmanager.has_plugin("dsession"):
            self.config.pluginmanager.register(ControllerTrigger(self.config), "citecheck-controller-trigger")


class ControllerTrigger:
    """On an xdist controller, which builds no checker: the first report with rows (or an error of ours,
    or unused recordings) registers the session's plugins, and is handed on to them."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if SESSION_PLUGINS in self.config.stash or not any(hasattr(report, field) for field in _REPORT_FIELDS):
            return
        run, bookkeeping = session_plugins(self.config)
        run.pytest_runtest_logreport(report)
        bookkeeping.pytest_runtest_logreport(report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        # After xdist's own (its workers are down): the answers they shared (``_judge.run_answers``) go.
        nodes = getattr(self.config.pluginmanager.getplugin("dsession"), "nodemanager", None)
        run_id = getattr(nodes, "testrunuid", None)
        if isinstance(run_id, str) and run_id:
            from pytest_citecheck._judge.run_answers import remove_run

            remove_run(run_id)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        # An xdist worker's orphan cassettes and last rows reach the controller with the worker's end; a
        # worker that crashed (``error``), perhaps before any report registered them, keeps
        # --citecheck-unused=delete from deleting and is named as the reason.
        output = getattr(node, "workeroutput", {})
        if SESSION_PLUGINS in self.config.stash:
            return
        if error is None and not any(output.get(key) for key in _OUTPUT_KEYS):
            return
        run, bookkeeping = session_plugins(self.config)
        run.pytest_testnodedown(node, error)
        bookkeeping.pytest_testnodedown(node, error)
