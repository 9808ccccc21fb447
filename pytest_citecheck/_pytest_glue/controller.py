"""On an xdist controller: the reports and workers' ends that register the session's plugins.

Loaded only on a controller (``plugin.pytest_sessionstart`` registers ``ControllerTrigger`` when
xdist's ``dsession`` is there): a controller builds no checker, so it learns that the run has
citations from the reports its workers send.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_citecheck._pytest_glue import session_plugins
from pytest_citecheck._pytest_glue.stash import SESSION_PLUGINS

# A test's report carries these (set in ``session`` and ``plugin``) when it has something for the session's plugins.
_REPORT_FIELDS = ("citecheck_rows", "citecheck_batch", "citecheck_unused", "citecheck_failing", "citecheck_error")
# What an xdist worker leaves in its ``workeroutput`` for the session's plugins: orphan cassettes, unshipped rows.
_OUTPUT_KEYS = ("citecheck_orphans", "citecheck_rows")


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
