"""``--citecheck-estimate`` as a pytest plugin: ``EstimateRun`` gathers what each test would have sent.

Registered by ``plugin.pytest_configure`` only in an estimate run. Each test's cassette is an
``EstimatingCassette`` (``estimating_cassette``, from ``fixtures.make_checker``) with the test's
``TestTally``; the tally rides on the test's reports (so it reaches the xdist controller, which adds up
every worker's), and the controller prints the table, puts it in the JSON report and fails the run
when a check was skipped for want of an answer. The counting itself is ``_estimate``'s.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_citecheck._pytest_glue.stash import SETTINGS

if TYPE_CHECKING:
    from pytest_citecheck._estimate.recording import EstimatingCassette
    from pytest_citecheck._estimate.tally import RunEstimate, TestTally  # noqa: F401  (TestTally: named in TALLY's type)

TALLY = pytest.StashKey["TestTally"]()


def estimating_cassette(item: pytest.Item, path: Path, record_mode: str, *, shared: bool) -> EstimatingCassette:
    """The cassette of ``item`` in an estimate run, counting into the test's tally."""
    from pytest_citecheck._estimate.recording import EstimatingCassette
    from pytest_citecheck._estimate.tally import TestTally

    tally = item.stash.setdefault(TALLY, TestTally(module=item.nodeid.split("::", 1)[0]))
    return EstimatingCassette(path, record_mode, shared=shared, tally=tally)


class EstimateRun:
    """The run's estimate: tallies arrive on test reports (from this process or xdist workers)."""

    def __init__(self, config: pytest.Config) -> None:
        from pytest_citecheck._estimate.tally import RunEstimate

        self.config = config
        settings = config.stash[SETTINGS]
        self.kept_files = settings.unused == "delete"
        if self.kept_files:  # a dry run changes no file: unused recordings are listed, as with warn
            config.stash[SETTINGS] = settings._replace(unused="warn")
        self.estimate: RunEstimate = RunEstimate(
            settings.record_mode, settings.estimate_input_price, settings.estimate_output_price
        )

    @property
    def _is_controller(self) -> bool:
        return not hasattr(self.config, "workerinput")

    def pytest_report_header(self, config: pytest.Config) -> str:
        return "citecheck: estimate only (--citecheck-estimate): nothing is sent to Jev and no cassette is written"

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        report = yield
        tally = item.stash.get(TALLY, None)
        taken = tally.take() if tally is not None else None
        if taken is not None:
            report.citecheck_estimate = taken  # each count rides on exactly one report
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        taken = getattr(report, "citecheck_estimate", None)
        if isinstance(taken, dict):
            self.estimate.extend(taken)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Before the reports are written and unused recordings settled: the exit status, the JSON section."""
        if not self._is_controller:
            return
        if self.estimate.not_judged and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED  # an estimate never passes for a test run
        if self.config.stash[SETTINGS].json:
            from pytest_citecheck._pytest_glue import session_plugins

            session_plugins(self.config)[0].report.estimate = self.estimate.to_json()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self._is_controller:
            return
        from pytest_citecheck._pytest_glue.session import Redacting

        terminalreporter = Redacting(terminalreporter)  # the estimate names tests and ids
        terminalreporter.write_sep("=", "citecheck estimate")
        for line in self.estimate.lines():
            terminalreporter.write_line(line)
        if self.kept_files:
            terminalreporter.write_line("--citecheck-unused=delete deleted nothing: an estimate run changes no file.")
        if self.estimate.not_judged:
            from pytest_citecheck._text import plural

            terminalreporter.write_line(
                f"The run fails (--citecheck-estimate): {plural(self.estimate.not_judged, 'check')} "
                "estimated, not judged.",
                red=True,
                bold=True,
            )


def register(config: pytest.Config) -> None:
    """Register ``EstimateRun`` for an estimate run (called by ``plugin.pytest_configure``)."""
    config.pluginmanager.register(EstimateRun(config), "citecheck-estimate")
