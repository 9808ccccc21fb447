"""The bookkeeping of what a run leaves over: unused recordings, orphan cassettes and dead decisions, as pytest hooks.

``CassetteBookkeeping`` is registered with ``session.CitecheckRun`` when the run first needs them
(``trigger.session_plugins``). What is unused or orphaned, and deleting it, is ``_recording``'s
(``lifecycle.unused``); this connects it to pytest's life cycle: which tests were collected, which
ran to the end, what each left unplayed, and failing a run whose tests passed. Decisions in reviews
files for citations that no longer exist are found by ``_report.dead_decisions`` from the same facts
(collected tests, tests that ran to the end) and reported, never removed.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_citecheck._pytest_glue.paths import cassette_location, cassette_path, owner_id, shared_cassette
from pytest_citecheck._pytest_glue.stash import CHECKER, COLLECTED, RAN_TO_END, SETTINGS, collected_modules

if TYPE_CHECKING:
    from pytest_citecheck._pytest_glue.session import CitecheckRun
    from pytest_citecheck._report.run_report import Report


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
        # orphans. Noted by ``SessionTrigger`` (``_pytest_glue``) as whole lists, since before this was registered.
        self.items: list[pytest.Item] = config.stash[COLLECTED]
        self.orphans: set[str] = set()
        self.crashed_workers = 0  # xdist workers that went down with an error
        self.dead_found: list[dict[str, Any]] = []  # dead decisions as xdist workers found them
        # What is worked out from the collected tests, and how many there were then.
        self._owners: dict[str, dict[str, bool]] | None = None
        # Each collected test's cassette folder, file name and normalised path, by the item's identity (items
        # live for the whole session): worked out with ``_owners``, not again when the test builds its
        # checker, nor when orphans are looked for.
        self._paths: dict[int, tuple[Path, str, str, bool]] = {}
        self._modules_by_id: dict[int, Path] | None = None
        self._worked_out_for = -1

    def _collected(self) -> None:
        """Forget what was worked out from fewer collected tests than there are now."""
        if self._worked_out_for != len(self.items):
            self._owners = self._modules_by_id = None
            self._paths = {}
            self._worked_out_for = len(self.items)

    def cassette_of(self, item: pytest.Item, *, shared: bool) -> tuple[Path, list[str]]:
        """The test's cassette path (``paths.cassette_path``), and the other collected tests whose cassette
        it is too, by accident (worked out once for every collected test, when first asked).

        Tests that name the same cassette on purpose (``@pytest.mark.citecheck(cassette=...)``, ``shared``)
        share it safely (their answers are merged); only a test that does not ask for sharing collides.
        """
        self._collected()
        if self._owners is None:
            owners: dict[str, dict[str, bool]] = {}
            for collected in self.items:
                _, _, key, named = self._path_of(collected, keep=True)
                owners.setdefault(key, {})[owner_id(collected)] = named
            self._owners = owners
        folder, name, key, _ = self._path_of(item)
        path = folder / name
        owners_of_key = self._owners.get(key)
        identity = owner_id(item)
        if not owners_of_key or (len(owners_of_key) == 1 and identity in owners_of_key):
            return path, []  # the cassette is this test's alone (most tests): no list to filter
        others = [(nodeid, named) for nodeid, named in owners_of_key.items() if nodeid != identity]
        if shared:
            return path, [nodeid for nodeid, named in others if not named]
        return path, [nodeid for nodeid, _ in others]

    def _path_of(self, item: pytest.Item, *, keep: bool = False) -> tuple[Path, str, str, bool]:
        """The test's cassette folder and file name, the path's normalised form, and whether it names a
        shared cassette (``paths.cassette_location``). ``keep``: a collected test's, kept (a plugin's own
        item, not among them, is worked out each time)."""
        found = self._paths.get(id(item))
        if found is None:
            folder, name, key, named = cassette_location(item, self.config.stash[SETTINGS])
            found = (folder, name, key, named is not None)
            if keep:
                self._paths[id(item)] = found
        return found

    def _modules(self) -> dict[int, Path]:
        """The collected modules' paths, by identity (``stash.collected_modules``), worked out once."""
        self._collected()
        if self._modules_by_id is None:
            self._modules_by_id = collected_modules(self.items)
        return self._modules_by_id

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        report = yield
        if call.when == "call":
            # A try of pytest-rerunfailures after a failed one (execution_count 2 or more) passed where
            # an earlier try played other recordings: what this try left unplayed is not unused.
            item.stash[RAN_TO_END] = report.passed and getattr(item, "execution_count", 1) < 2
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
        checker = item.stash.get(CHECKER, None)
        cassette = checker.cassette if checker is not None else None
        if cassette.shared if cassette is not None else shared_cassette(item) is not None:
            # A shared cassette holds other tests' answers too: what this test did not play is theirs.
            return []
        if cassette is not None and cassette.is_open:
            path, bodies = cassette.path, cassette.unplayed()
        else:
            # The test asked Jev nothing: every interaction of its cassette is unused.
            from pytest_citecheck._recording.cassette_file import is_citecheck_cassette, read_interactions

            path = cassette_path(item, self.config.stash[SETTINGS])
            if not path.is_file() or not is_citecheck_cassette(path):
                return []
            try:
                bodies = [interaction["request"]["body"] for interaction in read_interactions(path)]
            except Exception:  # a damaged cassette is reported by the test that reads it, not here
                return []
        if not bodies:
            return []
        from pytest_citecheck._recording.lifecycle.unused import unused_entry

        shown = self.run.display_path(path)
        return [unused_entry(item.nodeid, shown, body) for body in bodies]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        unused = getattr(report, "citecheck_unused", None)
        if unused:
            self.run.report.unused.extend(unused)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        if error is not None:
            self.crashed_workers += 1
        self.orphans.update(getattr(node, "workeroutput", {}).get("citecheck_orphans") or ())
        self.dead_found.extend(getattr(node, "workeroutput", {}).get("citecheck_dead") or ())

    def _find_orphans(self) -> list[str]:
        if not self.items:
            return []  # no collected module (an xdist controller collects none: its workers send theirs)
        from pytest_citecheck._recording.lifecycle.orphans import orphan_cassettes
        from pytest_citecheck._recording.lifecycle.unused import repeated_tests

        if self.config.getoption("lf", False):
            return []  # --lf collects only some tests of a module: every other cassette would look orphaned
        if repeated_tests(self.items):
            return []  # pytest-repeat renamed the tests: every cassette of theirs would look orphaned
        settings, here = self.config.stash[SETTINGS], self.config.invocation_params.dir
        # Modules some of whose tests were named on the command line: their other tests' cassettes stay.
        partial = [Path(here, arg.split("::")[0]) for arg in self.config.args if "::" in arg]
        names: dict[Path, set[str]] = {}

        def names_in(module: Path) -> set[str]:  # worked out only for modules with a cassette folder
            if not names:
                self._collected()
                for item in self.items:
                    # item.path as it is (a module's tests share one Path): no Path built per test.
                    names.setdefault(item.path, set()).add(self._path_of(item, keep=True)[1])
            return names.get(module, set())

        found = orphan_cassettes(
            self._modules().values(),
            names_in,
            rootdir=self.config.rootpath,
            cassette_dir=settings.cassette_dir,
            partial=partial,
        )
        return [self.run.display_path(Path(orphan)) for orphan in found]

    def _dead_decisions(self) -> list[dict[str, Any]]:
        """The decisions in the collected modules' reviews files that look dead from here
        (``dead_decisions.candidates``); none after ``--lf`` or pytest-repeat, which narrow or rename tests."""
        if not self.items or self.config.getoption("lf", False):
            return []  # an xdist controller collects nothing (and loads nothing of recordings)
        from pytest_citecheck._recording.lifecycle.unused import repeated_tests

        if repeated_tests(self.items):
            return []
        modules: dict[Path, str] = {}  # each collected module's path, and its part of a node id
        for item in self.items:
            if item.path not in modules:
                modules[item.path] = item.nodeid.split("::", 1)[0]
        reviews = self.config.stash[SETTINGS].reviews
        files = [path for path in {module.parent / reviews for module in modules} if path.is_file()]
        if not files:
            return []  # no decision to look at: nothing more is worked out
        facts = self._facts(modules)
        return [entry for path in files for entry in self._dead_in(path, facts)]

    def _facts(self, modules: dict[Path, str]) -> dict[str, set[str]]:
        """What ``dead_decisions.candidates`` is told: the tests collected, the modules collected in full
        (not named with ``::`` on the command line), the tests that ran to the end."""
        here = self.config.invocation_params.dir
        partial = {Path(here, arg.split("::")[0]).resolve() for arg in self.config.args if "::" in arg}
        return {
            "collected": {item.nodeid for item in self.items},
            "whole_modules": {part for path, part in modules.items() if path.resolve() not in partial},
            "finished": {item.nodeid for item in self.items if item.stash.get(RAN_TO_END, False)},
        }

    def _dead_in(self, path: Path, facts: dict[str, set[str]]) -> list[dict[str, Any]]:
        """The decisions of the reviews file at ``path`` that look dead from here."""
        from pytest_citecheck._report.dead_decisions import candidates, entry_of
        from pytest_citecheck._review.decisions import ReviewsFileError

        try:
            reviews = self.run.reviews_for(path)
        except ReviewsFileError:
            return []  # a damaged reviews file fails the tests that use it
        if not reviews.decisions:
            return []
        root, beside = self.config.rootpath, path.parent

        def exists(module: str) -> bool:  # beside its reviews file too: node ids change with --rootdir
            return (root / module).exists() or (beside / Path(module).name).exists()

        shown = self.run.display_path(path)
        found = candidates(reviews.decisions, **facts, module_exists=exists)
        return [entry_of(shown, key, why, reviews.decisions[key]) for key, why in found]

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # Runs before CitecheckRun writes the JSON report (trylast), so the report carries these.
        orphans = self._find_orphans()
        dead = self.dead_found + self._dead_decisions()
        if hasattr(self.config, "workerinput"):
            self.config.workeroutput["citecheck_orphans"] = orphans  # type: ignore[attr-defined]  # set by xdist
            self.config.workeroutput["citecheck_dead"] = dead  # type: ignore[attr-defined]
            return
        if self.run._report is None and not (self.orphans or orphans or dead):
            return  # nothing was checked, recorded or left over
        report = self.run.report
        report.orphans = sorted(self.orphans.union(orphans))
        if dead:
            from pytest_citecheck._report.dead_decisions import settle

            rows = report.rows
            report.dead_decisions = settle(
                dead, {(str(row.test), row.id) for row in rows}, {str(row.review_key) for row in rows}
            )
        self._settle_unused(session, report)
        self._fail_on_flips(session, report)

    def _settle_unused(self, session: pytest.Session, report: Report) -> None:
        """``citecheck_unused``: delete the unused recordings and orphan cassettes, or fail the run on them."""
        from pytest_citecheck._text import plural

        unused = self.config.stash[SETTINGS].unused
        if not (report.unused or report.orphans):
            return
        if unused == "delete":
            self._delete_unused(session, report)
        else:  # the summary's hint names when a delete run would delete
            from pytest_citecheck._recording.lifecycle.unused import deletion_refusal

            report.unused_blocked = deletion_refusal(**self._deletion_run(session))
        if unused == "fail":
            found = [plural(len(report.unused), "unused recording")] if report.unused else []
            found += [plural(len(report.orphans), "orphan cassette")] if report.orphans else []
            self._fail_run(session, "unused", "fail", " and ".join(found))

    def _delete_unused(self, session: pytest.Session, report: Report) -> None:
        """``--citecheck-unused=delete``, only after a complete, clean run; a file it cannot change is a warning."""
        from pytest_citecheck._recording.lifecycle.unused import delete_after_run

        refusal, problems = delete_after_run(
            report.unused, report.orphans, Path(self.config.invocation_params.dir), **self._deletion_run(session)
        )
        self.run.unused_kept_because = report.unused_blocked = refusal
        self.run.warnings.extend(f"pytest-citecheck: --citecheck-unused=delete {problem}" for problem in problems)

    def _deletion_run(self, session: pytest.Session) -> dict[str, Any]:
        """What ``deletion_refusal`` weighs about this run."""
        from pytest_citecheck._recording.lifecycle.unused import repeated_tests

        return {
            "exit_status": int(session.exitstatus),
            "crashed_workers": self.crashed_workers,
            "repeated": repeated_tests(self.items),
            "reruns": int(self.config.getoption("reruns", 0) or 0),
        }

    def _fail_on_flips(self, session: pytest.Session, report: Report) -> None:
        """``citecheck_fail_on_flip``: fail the run when a re-recorded verdict flipped."""
        from pytest_citecheck._text import plural, quoted_id

        flipped = [row for row in report.rows if row.flip]
        if not (self.config.stash[SETTINGS].fail_on_flip and flipped):
            return
        listed = ", ".join(
            f"{row.test} {quoted_id(row.id)} {(row.previous or {}).get('verdict')} -> {row.verdict}"
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
