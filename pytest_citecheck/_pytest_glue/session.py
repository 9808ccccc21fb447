"""The session's report as a pytest plugin: ``CitecheckRun``.

It gathers the rows of every checked citation (they ride on test reports, so they reach the xdist
controller) and writes the terminal summary, the JSON and HTML reports and the cached last report.
It is registered, with ``bookkeeping.CassetteBookkeeping``, when the run first needs them
(``trigger.session_plugins``): a suite that checks no citation and has no cassettes never loads this
module. Like ``plugin``, it only connects pytest-free code (``_report``, ``_review``) to pytest.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_citecheck._errors import CitecheckError
from pytest_citecheck._pytest_glue.shipping import OUTPUT_KEY, REPORT_FIELD, BatchError, Shipment, unpack
from pytest_citecheck._pytest_glue.stash import (
    CHECKER,
    PENDING_ROWS,
    SETTINGS,
)
from pytest_citecheck._text import visible

if TYPE_CHECKING:
    from pytest_citecheck._report.github import Outcomes
    from pytest_citecheck._report.run_report import Report
    from pytest_citecheck._review.decisions import Reviews, ReviewsFileError


class Redacting:
    """The terminal reporter, with every known secret cut out of each line the summary writes
    (``_secrets.redact_known``): the summary and GitHub's annotations quote ids and claims, and an app's
    key inside one reached the terminal, where the reports and cassettes already had it cut out."""

    def __init__(self, reporter: Any) -> None:
        self._reporter = reporter

    def write_line(self, line: str, **markup: bool) -> None:
        from pytest_citecheck._secrets import redact_known

        self._reporter.write_line(redact_known(line), **markup)

    def write_sep(self, sep: str, title: str = "", **markup: bool) -> None:
        from pytest_citecheck._secrets import redact_known

        self._reporter.write_sep(sep, redact_known(title), **markup)


def _save(item: pytest.Item, call: pytest.CallInfo[None]) -> None:
    """The test's recording, saved as its call ends (not at teardown): one that cannot be written fails
    the test itself, instead of a PASSED test followed by an ERROR at teardown. Here rather than in a
    ``pytest_runtest_call`` wrapper, which would run for every test: this plugin is registered only
    when the run checks citations or has cassettes, and the checker may be built during the call."""
    checker = item.stash.get(CHECKER, None)
    if checker is None:
        return
    try:
        checker.save()
    except Exception as error:
        call.excinfo = pytest.ExceptionInfo.from_exception(error)


def _row_for_error(item: pytest.Item, report: pytest.TestReport, error: CitecheckError) -> None:
    """A test failed by our error that no row of its carries (raised before its check read a citation:
    an unreadable source, an unknown answer, an option error) gets one ``errored`` row, so that no report
    counts the run clean without it. Not for a cassette file's error (``CassettePathError``: its recording
    not saved, or shared by accident), which is about the file, and whose citations have their rows.

    The row's verdict and error are JUnit properties too, as a citation's are (``citecheck.<id>.error``):
    on the report as well as the item, since pytest copied the item's into the report before this runs.
    """
    from pytest_citecheck._errors import CassettePathError
    from pytest_citecheck._report.row import error_row_of_test
    from pytest_citecheck._text import xml_safe

    if isinstance(error, CassettePathError):
        return
    rows = item.stash.setdefault(PENDING_ROWS, [])
    row = error_row_of_test(item.nodeid, error, rows)
    if row is not None:
        rows.append(row)
        name = f"citecheck.{xml_safe(row['id'])}"
        cause = xml_safe(f"{row['error']['type']}: {row['error']['message']}")
        properties = [(f"{name}.verdict", row["verdict"]), (f"{name}.error", cause)]
        item.user_properties.extend(properties)
        report.user_properties.extend(properties)


class CitecheckRun:
    """The session's report: rows arrive on test reports (from this process or xdist workers)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self._report: Report | None = None
        self._reviews: dict[Path, Reviews | ReviewsFileError] = {}
        # What ``reviews_for`` returned for a path as given (``_reviews`` is by resolved path): read once too.
        self._loaded: dict[Path, Reviews] = {}
        self._resolved: dict[Path, Path] = {}
        self._shown: dict[Path, str] = {}
        self._shipment = Shipment()  # an xdist worker's rows, shipped to the controller in batches
        # Why the run fails although every test passed (a flip, unused recordings): the summary's last words.
        self.failed_because: list[str] = []
        # Under GitHub Actions: which tests failed on which citations, and where the tests are
        # (for the step summary and the annotations; see ``_report.github``).
        self._github = bool(os.environ.get("GITHUB_STEP_SUMMARY")) or os.environ.get("GITHUB_ACTIONS") == "true"
        self._outcomes: Outcomes | None = None
        self._summary_error: str | None = None
        self._write_failures: list[str] = []  # reports that could not be written, one line each
        self._failed_reports: set[str] = set()
        self._rows_left_out = False  # rows that failed their check: the report is incomplete
        # Said in red at the end of the run: files --citecheck-unused=delete could not change, and
        # why it deleted nothing (a run that failed, crashed or repeated tests).
        self.warnings: list[str] = []
        self.unused_kept_because: str | None = None

    @property
    def report(self) -> Report:
        """The run's rows, created with the first one (the report module loads only when needed)."""
        if self._report is None:
            from pytest_citecheck._report.run_report import Report

            self._report = Report()
        return self._report

    def reviews_for(self, path: Path) -> Reviews:
        """The reviews file at ``path``, read once per session (a damaged file fails each checking test)."""
        loaded = self._loaded.get(path)
        if loaded is not None:  # every test of a directory reads the same file: no call more than a lookup
            return loaded
        from pytest_citecheck._review.decisions import load_once

        loaded = load_once(self._reviews, self._resolve(path))  # raises again for a damaged file
        self._loaded[path] = loaded
        return loaded

    def _resolve(self, path: Path) -> Path:
        """``path.resolve()``, asked of the file system once per path in a session: every test of a
        directory names the same reviews file, and resolving is a system call per part of the path."""
        resolved = self._resolved.get(path)
        if resolved is None:
            # Not Path.resolve(): on a loop of links it raises RuntimeError (before 3.13), a traceback
            # in every test; realpath leaves the loop in the path, and reading it names the file.
            resolved = self._resolved[path] = Path(os.path.realpath(path))
        return resolved

    def display_path(self, path: Path) -> str:
        """``path`` relative to where pytest was run (where ``citecheck review`` is run), if inside it;
        worked out once per path in a session (every test of a directory shows the same reviews file)."""
        shown = self._shown.get(path)
        if shown is None:
            resolved = self._resolve(path)
            try:
                shown = str(resolved.relative_to(self._resolve(Path(self.config.invocation_params.dir))))
            except ValueError:
                shown = str(resolved)
            self._shown[path] = shown
        return shown

    @property
    def _is_controller(self) -> bool:
        return not hasattr(self.config, "workerinput")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        if call.when == "call" and call.excinfo is None:
            _save(item, call)
        report = yield
        if call.excinfo is not None and isinstance(call.excinfo.value, CitecheckError) and report.failed:
            # Our errors say what happened and what to do; a traceback into the plugin adds nothing.
            error = call.excinfo.value
            report.longrepr = f"{type(error).__name__}: {error}"
            report.citecheck_error = report.longrepr  # for the GitHub annotations
            _row_for_error(item, report, error)
        rows = item.stash.get(PENDING_ROWS, None)
        failing: list[str] = []
        if call.excinfo is not None and report.failed and CHECKER in item.stash:
            from pytest_citecheck._report.row import failed_ids

            failing = failed_ids(call.excinfo.value, rows or [])  # the citations that failed it, their rows marked
        if rows:
            self._hand_on(report, rows)
        if self._github and failing:
            report.citecheck_failing = failing  # for the annotations, like the rows
        return report

    def _hand_on(self, report: pytest.TestReport, rows: list[dict[str, Any]]) -> None:
        """A test's rows, each handed on exactly once: on its report in this process; from an xdist
        worker, into the batch it ships to the controller (``shipping``)."""
        if self._is_controller:
            report.citecheck_rows = list(rows)  # type: ignore[attr-defined]  # read in pytest_runtest_logreport
        else:
            self._shipment.add(report.nodeid, report.location, rows)
            if self._shipment.full:
                setattr(report, REPORT_FIELD, self._shipment.take())
        rows.clear()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        rows = getattr(report, "citecheck_rows", None)
        if rows:
            # Built by ``_hand_on`` in this process (a report from an xdist worker has a ``node``, and only
            # a worker of another version would send rows this way): not checked against the whole schema.
            self._take_rows(rows, built=not hasattr(report, "node"), whose=report.nodeid)
            # pytest keeps every test's report to the end of the run: the rows live on once, in the Report.
            del report.citecheck_rows
        batch = getattr(report, REPORT_FIELD, None)
        if batch and self._is_controller:
            self._take_batch(batch, getattr(report, "node", None))
        if self._github:
            self._note_outcome(report, bool(rows))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        # What a worker had not shipped when it finished.
        batch = getattr(node, "workeroutput", {}).get(OUTPUT_KEY)
        if batch:
            self._take_batch(batch, node)

    def _take_batch(self, batch: str, node: Any) -> None:
        """A worker's batch of rows, taken as built by this plugin (why: ``shipping``); a malformed one
        is left out of the report and fails the run."""
        worker = f"xdist worker {getattr(getattr(node, 'gateway', None), 'id', '?')}"
        try:
            rows, locations = unpack(batch)
        except BatchError as error:
            self._left_out(f"a batch of rows from {worker}: it {error}")
            return
        if not self._take_rows(rows, built=True, whose=None, worker=worker):
            return
        if self._github:
            for nodeid, (path, line) in locations.items():
                self._note_location(nodeid, path, line)

    def _take_rows(self, rows: list[Any], *, built: bool, whose: str | None, worker: str = "") -> bool:
        """Add ``rows`` to the report (``built``: by this plugin in this run, ``Report.extend_built``); a
        malformed row leaves them all out and fails the run. ``whose``: the node id of the test whose rows
        they are, or None for a batch from ``worker``. Whether they were added."""
        try:
            self.report.extend_built(rows) if built else self.report.extend(rows)
        except Exception as error:  # a RowError (imported only when one is raised): said, not raised
            from pytest_citecheck._report.row import RowError

            if not isinstance(error, RowError):
                raise
            source = f"the rows of {whose}" if whose is not None else f"a batch of {len(rows)} rows from {worker}"
            self._left_out(f"{source}: a row {error}")
            return False
        return True

    def _left_out(self, what: str) -> None:
        self._rows_left_out = True  # fails the run (``pytest_sessionfinish``)
        self._write_failures.append(f"pytest-citecheck: the report leaves out {what}; the run fails")

    def _note_outcome(self, report: pytest.TestReport, has_rows: bool) -> None:
        failing = getattr(report, "citecheck_failing", None)
        error = getattr(report, "citecheck_error", None)
        if not (has_rows or failing or error):
            return
        outcomes = self._note_location(report.nodeid, report.location[0], report.location[1])
        if failing:
            outcomes.failing[report.nodeid] = list(failing)
        if error:
            outcomes.errors[report.nodeid] = str(error)

    def _note_location(self, nodeid: str, path: str, line: int | None) -> Outcomes:
        """Where a test with rows (or a failure) is, for the GitHub annotations and step summary."""
        from pytest_citecheck._report.github import Outcomes, workspace_path

        if self._outcomes is None:
            self._outcomes = Outcomes()
        if nodeid not in self._outcomes.locations:
            here = Path(self.config.invocation_params.dir)
            shown = workspace_path(self.config.rootpath / path, os.environ, here)
            self._outcomes.locations[nodeid] = (shown, None if line is None else line + 1)
        return self._outcomes

    def pytest_keyboard_interrupt(self, excinfo: Any) -> None:
        # Ctrl-C: open cassettes are still saved at teardown, but a half-done rewrite must not
        # replace a whole recording (_recording.cassette.interrupt_open).
        from pytest_citecheck._recording.cassette import interrupt_open

        interrupt_open()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        terminalreporter = Redacting(terminalreporter)
        for failure in self._write_failures + self.warnings:
            terminalreporter.write_line(failure, red=True)
        self._summary(terminalreporter)
        if self._github and self._is_controller:
            self._github_annotations(terminalreporter)

    def _summary(self, terminalreporter: Any) -> None:
        if self._report is None:
            return  # no citation checked and no recording left over: nothing to say
        settings = self.config.stash[SETTINGS]
        verbose, cached = self.config.get_verbosity() > 0, getattr(self.config, "cache", None) is not None
        if self.unused_kept_because:  # --citecheck-unused=delete deleted nothing: list them as warn does
            settings = settings._replace(unused="warn")
        hinted = settings
        if not settings.json and cached:  # the review hint names the cached report if `citecheck review` would miss it
            from pytest_citecheck._pytest_glue.paths import review_report_path

            # For the hint only: the "JSON report:" line below names a report the user asked for, not the cache.
            hinted = settings._replace(json=review_report_path(self.config))
        lines = self.report.section_lines(hinted, verbose=verbose, cached=cached, environ=os.environ)
        if not lines:
            return
        terminalreporter.write_sep("=", "citecheck")
        for line in lines:
            terminalreporter.write_line(line)
        for line in self.failed_because:
            terminalreporter.write_line(line, red=True, bold=True)
        if self._is_controller:
            for label, path in (("JSON report", settings.json), ("HTML report", settings.html)):
                if path and label not in self._failed_reports:
                    # The path as given (a flag, an ini value), shown harmlessly: an escape sequence in it is not run.
                    terminalreporter.write_line(f"{label}: {visible(path)}")

    def _github_annotations(self, terminalreporter: Any) -> None:
        """``::error`` workflow commands for the failing citations: GitHub reads them from stdout."""
        from pytest_citecheck._report.github import error_commands, in_github_actions

        if self._summary_error is not None:
            terminalreporter.write_line(f"citecheck: the GitHub step summary was not written: {self._summary_error}")
        if self._outcomes is None or not in_github_actions(os.environ):
            return
        for line in error_commands(self.report, self._outcomes):
            terminalreporter.write_line(line)

    def _github_step_summary(self) -> None:
        path = os.environ.get("GITHUB_STEP_SUMMARY")
        if not path or self._outcomes is None:
            return  # not on GitHub, or no citation checked
        from pytest_citecheck._report.github import append_step_summary, step_summary

        try:
            append_step_summary(path, step_summary(self.report, self._outcomes))
        except OSError as error:
            self._summary_error = f"{path}: {error.strerror or error}"

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        settings = self.config.stash[SETTINGS]
        if not self._is_controller:
            self._ship_the_rest()
            return
        if self._rows_left_out and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self._github:
            self._github_step_summary()
        if self._report is None and not (settings.json or settings.html):
            return
        here = Path(self.config.invocation_params.dir)
        json_path, html_path = settings.json, settings.html
        if json_path:
            self._write_or_say_why("JSON report", json_path, lambda: self.report.write(here / json_path), session)
        if html_path:
            from pytest_citecheck._report.html import write_html

            self._write_or_say_why("HTML report", html_path, lambda: write_html(self.report, here / html_path), session)
        cache = getattr(self.config, "cache", None)  # absent under -p no:cacheprovider
        if self._report is not None and self._report.rows and cache is not None:
            # `citecheck review` reads the last run's report from here when no --citecheck-json was given.
            try:
                self.report.write(cache.mkdir("citecheck") / "last-report.json", compact=True)
            except OSError as error:  # pytest's cache is best effort; `citecheck review --report` still works
                self._write_failures.append(
                    f"pytest-citecheck: the last report was not cached ({error.strerror or type(error).__name__}); "
                    "give `citecheck review` a --citecheck-json report with --report"
                )

    def _ship_the_rest(self) -> None:
        """An xdist worker's rows not shipped yet, in its ``workeroutput`` for the controller."""
        left = self._shipment.take()
        if left is not None:
            self.config.workeroutput[OUTPUT_KEY] = left  # type: ignore[attr-defined]  # set by xdist

    def _write_or_say_why(self, label: str, shown: str, write: Callable[[], None], session: pytest.Session) -> None:
        """Write a report; if it cannot be written, one line at the end of the run and a failing exit code."""
        from pytest_citecheck._report.targets import output_problem

        path = Path(self.config.invocation_params.dir) / shown
        # Checked before the tests ran (plugin._check_report_paths), and again now: a file may have
        # appeared there since (a cassette recorded at the report's path), and it is not replaced.
        problem = output_problem(path, "json" if label.startswith("JSON") else "html", shown=shown)
        if problem is None:
            try:
                write()
                return
            except OSError as error:
                why = f"cannot write {shown} ({error.strerror or type(error).__name__})"
        else:
            why = f"{shown}: {problem}"  # as the check before the run says it (``--citecheck-json=PATH: …``)
        self._failed_reports.add(label)
        self._write_failures.append(f"pytest-citecheck: the {label} was not written: {why}")
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR  # the tests passed, but what was asked for is missing
