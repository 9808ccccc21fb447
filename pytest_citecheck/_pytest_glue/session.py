"""The session's own pytest plugins: the run's report, and the bookkeeping of recordings.

``CitecheckRun`` gathers the rows of every checked citation (they ride on test reports, so they
reach the xdist controller) and writes the terminal summary, the JSON and HTML reports and the
cached last report. ``CassetteBookkeeping`` finds recorded interactions a test did not play and
cassettes no collected test owns. Both are registered when the run first needs them
(``trigger.session_plugins``): a suite that checks no citation and has no cassettes never loads this
module. Like ``plugin``, it only connects pytest-free code (``report``, ``recordings``,
``cassettes``) to pytest.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_citecheck._options import Settings
from pytest_citecheck._pytest_glue.stash import (
    CHECKER,
    COLLECTED,
    PENDING_ROWS,
    RAN_TO_END,
    SETTINGS,
    collected_modules,
)

if TYPE_CHECKING:
    from pytest_citecheck._report.github import Outcomes
    from pytest_citecheck._report.run_report import Report
    from pytest_citecheck._review.decisions import Reviews


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


def cassette_path(item: pytest.Item, settings: Settings) -> Path:
    """``<test dir>/<cassette_dir>/<module>/<test>.yaml`` (``.citecheck.yaml`` beside pytest-recording's own).

    A test marked ``@pytest.mark.citecheck(cassette="name")`` uses ``<module>/<name>.yaml``, shared with
    every test of the module that names it (the name is made file-system-safe like a test's).
    """
    from pytest_citecheck._recording.paths import cassette_name

    name = cassette_name(
        shared_cassette(item) or node_path_name(item),
        beside_pytest_recording=item.get_closest_marker("vcr") is not None,
    )
    return Path(item.path).parent / settings.cassette_dir / Path(item.path).stem / name


class CitecheckRun:
    """The session's report: rows arrive on test reports (from this process or xdist workers)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self._report: Report | None = None
        self._reviews: dict[Path, Reviews] = {}
        # Why the run fails although every test passed (a flip, unused recordings): the summary's last words.
        self.failed_because: list[str] = []
        # Under GitHub Actions: which tests failed on which citations, and where the tests are
        # (for the step summary and the annotations; see ``_report.github``).
        self._github = bool(os.environ.get("GITHUB_STEP_SUMMARY")) or os.environ.get("GITHUB_ACTIONS") == "true"
        self._outcomes: Outcomes | None = None
        self._summary_error: str | None = None
        self._write_failures: list[str] = []  # reports that could not be written, one line each
        self._failed_reports: set[str] = set()

    @property
    def report(self) -> Report:
        """The run's rows, created with the first one (the report module loads only when needed)."""
        if self._report is None:
            from pytest_citecheck._report.run_report import Report

            self._report = Report()
        return self._report

    def reviews_for(self, path: Path) -> Reviews:
        """The reviews file at ``path``, read once per session (a damaged file fails the checking test)."""
        from pytest_citecheck._review.decisions import Reviews

        path = path.resolve()
        if path not in self._reviews:
            self._reviews[path] = Reviews.load(path)
        return self._reviews[path]

    def display_path(self, path: Path) -> str:
        """``path`` relative to where pytest was run (where ``citecheck review`` is run), if inside it."""
        try:
            return str(path.resolve().relative_to(Path(self.config.invocation_params.dir).resolve()))
        except ValueError:
            return str(path.resolve())

    @property
    def _is_controller(self) -> bool:
        return not hasattr(self.config, "workerinput")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        report = yield
        rows = item.stash.get(PENDING_ROWS, None)
        if rows:
            # Rows ride on the report so they reach the xdist controller; each is sent exactly once.
            report.citecheck_rows = list(rows)
            rows.clear()
        if self._github and call.excinfo is not None and report.failed and CHECKER in item.stash:
            from pytest_citecheck._check.checker import CitationsNotSupported

            if isinstance(call.excinfo.value, CitationsNotSupported):
                # Which citations failed the test: they ride on the report to the controller, like the rows.
                report.citecheck_failing = call.excinfo.value.failing_ids
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        rows = getattr(report, "citecheck_rows", None)
        if rows:
            self.report.extend(rows)
        if self._github:
            self._note_outcome(report, bool(rows))

    def _note_outcome(self, report: pytest.TestReport, has_rows: bool) -> None:
        failing = getattr(report, "citecheck_failing", None)
        error = getattr(report, "citecheck_error", None)
        if not (has_rows or failing or error):
            return
        from pytest_citecheck._report.github import Outcomes, workspace_path

        if self._outcomes is None:
            self._outcomes = Outcomes()
        if failing:
            self._outcomes.failing[report.nodeid] = list(failing)
        if error:
            self._outcomes.errors[report.nodeid] = str(error)
        if report.nodeid not in self._outcomes.locations:
            path, line = report.location[0], report.location[1]
            here = Path(self.config.invocation_params.dir)
            shown = workspace_path(self.config.rootpath / path, os.environ, here)
            self._outcomes.locations[report.nodeid] = (shown, None if line is None else line + 1)

    def pytest_keyboard_interrupt(self, excinfo: Any) -> None:
        # Ctrl-C: open cassettes are still saved at teardown, but a half-done rewrite must not
        # replace a whole recording (_recording.cassette.interrupt_open).
        from pytest_citecheck._recording.cassette import interrupt_open

        interrupt_open()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for failure in self._write_failures:
            terminalreporter.write_line(failure, red=True)
        self._summary(terminalreporter)
        if self._github and self._is_controller:
            self._github_annotations(terminalreporter)

    def _summary(self, terminalreporter: Any) -> None:
        if self._report is None:
            return  # no citation checked and no recording left over: nothing to say
        settings = self.config.stash[SETTINGS]
        verbose = self.config.get_verbosity() > 0
        lines = self.report.summary_lines(verbose=verbose) + self.report.recording_lines(
            unused_policy=settings.unused, fail_on_flip=settings.fail_on_flip, verbose=verbose
        )
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
                    terminalreporter.write_line(f"{label}: {path}")

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
            return
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
                self.report.write(cache.mkdir("citecheck") / "last-report.json")
            except OSError as error:  # pytest's cache is best effort; `citecheck review --report` still works
                self._write_failures.append(
                    f"pytest-citecheck: the last report was not cached ({error.strerror or type(error).__name__}); "
                    "give `citecheck review` a --citecheck-json report with --report"
                )

    def _write_or_say_why(self, label: str, shown: str, write: Callable[[], None], session: pytest.Session) -> None:
        """Write a report; if it cannot be written, one line at the end of the run and a failing exit code."""
        try:
            write()
        except OSError as error:
            self._failed_reports.add(label)
            self._write_failures.append(
                f"pytest-citecheck: the {label} was not written: cannot write {shown} "
                f"({error.strerror or type(error).__name__})"
            )
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.USAGE_ERROR  # the tests passed, but what was asked for is missing


class CassetteBookkeeping:
    """Unused recordings and orphan cassettes: found where the tests run, gathered where the report is written.

    A worker (or the only process) notes every collected test's cassette file name, and after each
    test that passed, the recorded interactions it did not play (they ride on the teardown report).
    Orphans are looked for only in the cassette directories of modules collected in full, so ``-k``,
    ``-m`` or a subset of files raises no false alarm; a worker sends its orphans to the controller.
    """

    def __init__(self, config: pytest.Config, run: CitecheckRun) -> None:
        self.config = config
        self.run = run
        # Every collected test, deselected ones included (``-k``, ``-m``): their cassettes are not
        # orphans. Noted by ``trigger.SessionTrigger`` as whole lists, since before this was registered.
        self.items: list[pytest.Item] = config.stash[COLLECTED]
        self.orphans: set[str] = set()
        # What is worked out from the collected tests, and how many there were then.
        self._owners: dict[str, dict[str, bool]] | None = None
        self._modules_by_id: dict[int, Path] | None = None
        self._worked_out_for = -1

    def _collected(self) -> None:
        """Forget what was worked out from fewer collected tests than there are now."""
        if self._worked_out_for != len(self.items):
            self._owners = self._modules_by_id = None
            self._worked_out_for = len(self.items)

    def sharing(self, item: pytest.Item, path: Path) -> list[str]:
        """The other collected tests whose cassette is ``path`` too, by accident (worked out once, when first asked).

        Tests that name the same cassette on purpose (``@pytest.mark.citecheck(cassette=...)``) share it
        safely (their answers are merged); only a test that does not ask for sharing collides.
        """
        self._collected()
        if self._owners is None:
            settings = self.config.stash[SETTINGS]
            owners: dict[str, dict[str, bool]] = {}
            for collected in self.items:
                # normpath, not resolve(): no file-system call per collected test.
                key = os.path.normpath(cassette_path(collected, settings))
                owners.setdefault(key, {})[collected.nodeid] = shared_cassette(collected) is not None
            self._owners = owners
        others = [
            (nodeid, shared)
            for nodeid, shared in self._owners.get(os.path.normpath(path), {}).items()
            if nodeid != item.nodeid
        ]
        if shared_cassette(item) is not None:
            return [nodeid for nodeid, shared in others if not shared]
        return [nodeid for nodeid, _ in others]

    def _modules(self) -> dict[int, Path]:
        """The collected modules' paths, by identity (``stash.collected_modules``), worked out once."""
        self._collected()
        if self._modules_by_id is None:
            self._modules_by_id = collected_modules(self.items)
        return self._modules_by_id

    def _expected(self) -> dict[str, set[str]]:
        """Cassette directory -> the cassette file names of its collected tests (existing directories only)."""
        settings = self.config.stash[SETTINGS]
        folders = {key: module.parent / settings.cassette_dir / module.stem for key, module in self._modules().items()}
        folders = {key: folder for key, folder in folders.items() if folder.is_dir()}
        if not folders:
            return {}
        expected: dict[str, set[str]] = {str(folder): set() for folder in folders.values()}
        for item in self.items:
            folder = folders.get(id(item.path))
            if folder is not None:
                expected[str(folder)].add(cassette_path(item, settings).name)
        return expected

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        report = yield
        if call.when == "call":
            item.stash[RAN_TO_END] = report.passed
        elif call.when == "teardown" and item.stash.get(RAN_TO_END, False):
            # After the checker's finalizer saved the cassette: what this test never played.
            unused = self._unused_of(item)
            if unused:
                report.citecheck_unused = unused
        if call.when == "teardown" and CHECKER in item.stash:
            # The test is over: let its checker (client, cassette, results) go. Items live for the
            # whole session, so a checker kept in the stash would make memory grow with every test.
            del item.stash[CHECKER]
        return report

    def _unused_of(self, item: pytest.Item) -> list[dict[str, Any]]:
        from pytest_citecheck._recording.cassette_file import is_citecheck_cassette, read_interactions
        from pytest_citecheck._recording.lifecycle.unused import unused_entry

        if shared_cassette(item) is not None:
            # A shared cassette holds other tests' answers too: what this test did not play is theirs.
            return []
        checker = item.stash.get(CHECKER, None)
        cassette = checker.cassette if checker is not None else None
        if cassette is not None and cassette.is_open:
            path, bodies = cassette.path, cassette.unplayed()
        else:
            # The test asked Jev nothing: every interaction of its cassette is unused.
            path = cassette_path(item, self.config.stash[SETTINGS])
            if not path.is_file() or not is_citecheck_cassette(path):
                return []
            try:
                bodies = [interaction["request"]["body"] for interaction in read_interactions(path)]
            except Exception:  # a damaged cassette is reported by the test that reads it, not here
                return []
        if not bodies:
            return []
        shown = self.run.display_path(path)
        return [unused_entry(item.nodeid, shown, body) for body in bodies]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        unused = getattr(report, "citecheck_unused", None)
        if unused:
            self.run.report.unused.extend(unused)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        self.orphans.update(getattr(node, "workeroutput", {}).get("citecheck_orphans") or ())

    def _find_orphans(self) -> list[str]:
        if self.config.getoption("lf", False):
            return []  # --lf collects only some tests of a module: every other cassette would look orphaned
        orphans = self._orphaned_modules()
        expected = self._expected()
        if not expected:
            return orphans  # no cassette directory of a collected module: nothing more to load or scan
        settings = self.config.stash[SETTINGS]
        partial = set()
        for arg in self.config.args:
            if "::" in arg:  # some tests of a module named on the command line
                module = Path(self.config.invocation_params.dir, arg.split("::")[0]).resolve()
                partial.add(str(module.parent / settings.cassette_dir / module.stem))
        complete = {folder: names for folder, names in expected.items() if str(Path(folder).resolve()) not in partial}
        from pytest_citecheck._recording.lifecycle.unused import find_orphans

        return orphans + [self.run.display_path(Path(orphan)) for orphan in find_orphans(complete)]

    def _orphaned_modules(self) -> list[str]:
        """Cassettes of test modules that no longer exist, beside the modules that were collected."""
        settings = self.config.stash[SETTINGS]
        if Path(settings.cassette_dir).is_absolute() or ".." in Path(settings.cassette_dir).parts:
            return []  # one directory shared by tests of several directories: a module may live elsewhere
        test_dirs: dict[str, set[str]] = {}
        for module in self._modules().values():
            test_dirs.setdefault(str(module.parent), set()).add(module.stem)
        if not any((Path(directory) / settings.cassette_dir).is_dir() for directory in test_dirs):
            return []
        from pytest_citecheck._recording.lifecycle.unused import orphaned_module_cassettes

        found = orphaned_module_cassettes(test_dirs, settings.cassette_dir)
        return [self.run.display_path(Path(orphan)) for orphan in found]

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # Runs before CitecheckRun writes the JSON report (trylast), so the report carries these.
        orphans = self._find_orphans()
        if hasattr(self.config, "workerinput"):
            self.config.workeroutput["citecheck_orphans"] = orphans  # type: ignore[attr-defined]  # set by xdist
            return
        if self.run._report is None and not (self.orphans or orphans):
            return  # nothing was checked, recorded or left over
        from pytest_citecheck._text import plural

        report, settings = self.run.report, self.config.stash[SETTINGS]
        report.orphans = sorted(self.orphans.union(orphans))
        if settings.unused == "delete" and (report.unused or report.orphans):
            from pytest_citecheck._recording.lifecycle.unused import delete_unused

            here = Path(self.config.invocation_params.dir)
            delete_unused(
                [{**entry, "cassette": str(here / entry["cassette"])} for entry in report.unused],
                [str(here / orphan) for orphan in report.orphans],
            )
        elif settings.unused == "fail" and (report.unused or report.orphans):
            found = [plural(len(report.unused), "unused recording")] if report.unused else []
            found += [plural(len(report.orphans), "orphan cassette")] if report.orphans else []
            self._fail_run(session, "unused", "fail", " and ".join(found))
        flipped = [row for row in report.rows if (row.get("previous") or {}).get("drift") == "flip"]
        if settings.fail_on_flip and flipped:
            listed = ", ".join(
                f"{row.get('test')} {row.get('id')!r} {row['previous'].get('verdict')} -> {row.get('verdict')}"
                for row in flipped[:5]
            ) + (", …" if len(flipped) > 5 else "")
            self._fail_run(
                session, "fail_on_flip", None, f"{plural(len(flipped), 're-recorded verdict')} flipped: {listed}"
            )

    def _fail_run(self, session: pytest.Session, option: str, value: str | None, what: str) -> None:
        """Fail a run whose tests passed, and say why in the summary (pytest's last line counts only tests)."""
        from pytest_citecheck._options import OPTIONS_BY_NAME

        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        knob = OPTIONS_BY_NAME[option]
        if self.config.getoption("citecheck_" + option) is not None:
            origin = knob.flag + (f"={value}" if value else "")
        else:
            origin = f"ini {knob.ini}" + (f" = {value}" if value else "")
        self.run.failed_because.append(f"The run fails ({origin}): {what}")
