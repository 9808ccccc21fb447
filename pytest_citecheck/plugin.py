"""pytest glue for pytest-citecheck: options, the marker, fixtures, and the run's report.

Everything that decides anything lives in pytest-free modules (``checker``, ``policy``,
``cassettes``, ``report``); this module only connects them to pytest's life cycle.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from . import hookcallers
from .errors import CitecheckError, OptionError
from .options import OPTIONS, PER_TEST_OPTIONS, Settings

# Everything else (the checker, cassettes, reports, reviews) is imported where it is used: pytest
# loads this module for every run, and a suite that checks no citation should not pay for them.
if TYPE_CHECKING:
    from .checker import Checker
    from .report import Report
    from .results import CitationResult
    from .reviews import Reviews

SETTINGS = pytest.StashKey[Settings]()
PENDING_ROWS = pytest.StashKey[list[dict[str, Any]]]()
CHECKER = pytest.StashKey["Checker"]()
RAN_TO_END = pytest.StashKey[bool]()
PREVIOUS_SPLIT_HOOK = pytest.StashKey["hookcallers.SplitHook | None"]()
# What the SDK gets as a key when none is set: enough to build a client for replay. In record mode
# "none" a request that is not in the cassette is refused before it could be sent with it.
REPLAY_ONLY_KEY = "citecheck-replay-only"
MARKER_HELP = (
    "citecheck(*, " + ", ".join(f"{name}=None" for name in PER_TEST_OPTIONS) + "): pytest-citecheck settings for this test"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("citecheck", "citation checking (pytest-citecheck)")
    for option in OPTIONS:
        # A switch's flag takes no value; None (not given) lets its ini key decide.
        kind: dict[str, Any] = {"action": "store_const", "const": True} if option.is_switch else {"metavar": option.metavar}
        group.addoption(
            option.flag,
            dest="citecheck_" + option.name,
            default=None,
            help=f"{option.help} Default: {option.default_text}. Ini: {option.ini}.",
            **kind,
        )
        parser.addini(option.ini, help=f"{option.help} (flag: {option.flag})", default=None)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def _resolve_settings(config: pytest.Config) -> Settings:
    command_line = {option.name: config.getoption("citecheck_" + option.name) for option in OPTIONS}
    ini = {option.name: config.getini(option.ini) for option in OPTIONS}
    return Settings.resolve(command_line, ini)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    # Validated here, before the session starts, so a bad flag or ini value is a usage error
    # (exit code 4, one line) instead of an internal error.
    try:
        config.stash[SETTINGS] = _resolve_settings(config)
    except OptionError as error:
        raise pytest.UsageError(f"pytest-citecheck: {error}") from None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)
    # Before any client exists: the SDK's debug log must never print a key, whatever its header.
    from .redaction import install_log_redaction

    install_log_redaction()
    if SETTINGS not in config.stash:  # configured without pytest_cmdline_main (e.g. pytester's parseconfig)
        try:
            config.stash[SETTINGS] = _resolve_settings(config)
        except OptionError as error:
            raise pytest.UsageError(f"pytest-citecheck: {error}") from None
    run = CitecheckRun(config)
    config.pluginmanager.register(run, "citecheck-run")
    config.pluginmanager.register(CassetteBookkeeping(config, run), "citecheck-cassettes")
    # Source.from_text(..., format=<not built in>) in a test or conftest reaches this session's hook.
    config.stash[PREVIOUS_SPLIT_HOOK] = hookcallers.set_split_hook(config.hook.pytest_citecheck_split_sections)


def pytest_unconfigure(config: pytest.Config) -> None:
    if PREVIOUS_SPLIT_HOOK in config.stash:
        hookcallers.set_split_hook(config.stash[PREVIOUS_SPLIT_HOOK])


def pytest_report_header(config: pytest.Config) -> str | None:
    settings = config.stash.get(SETTINGS, None)
    if settings is None:
        return None
    model = settings.model or "SDK default"
    return f"citecheck: record mode {settings.record_mode}, auto_accept {settings.auto_accept:g}, model {model}"


class CitecheckRun:
    """The session's report: rows arrive on test reports (from this process or xdist workers)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self._report: Report | None = None
        self._reviews: dict[Path, Reviews] = {}

    @property
    def report(self) -> Report:
        """The run's rows, created with the first one (the report module loads only when needed)."""
        if self._report is None:
            from .report import Report

            self._report = Report()
        return self._report

    def reviews_for(self, path: Path) -> Reviews:
        """The reviews file at ``path``, read once per session (a damaged file fails the checking test)."""
        from .reviews import Reviews

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
        if call.excinfo is not None and isinstance(call.excinfo.value, CitecheckError) and report.failed:
            # Our errors say what happened and what to do; a traceback into the plugin adds nothing.
            error = call.excinfo.value
            report.longrepr = f"{type(error).__name__}: {error}"
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        rows = getattr(report, "citecheck_rows", None)
        if rows:
            self.report.extend(rows)

    def pytest_keyboard_interrupt(self, excinfo: Any) -> None:
        # Ctrl-C: open cassettes are still saved at teardown, but a half-done rewrite must not
        # replace a whole recording (cassettes.interrupt_open).
        from .cassettes import interrupt_open

        interrupt_open()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
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
        settings = self.config.stash[SETTINGS]
        if self._is_controller:
            for label, path in (("JSON report", settings.json), ("HTML report", settings.html)):
                if path:
                    terminalreporter.write_line(f"{label}: {path}")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        settings = self.config.stash[SETTINGS]
        if not self._is_controller:
            return
        if self._report is None and not (settings.json or settings.html):
            return
        here = Path(self.config.invocation_params.dir)
        if settings.json:
            self.report.write(here / settings.json)
        if settings.html:
            from .html_report import write_html

            write_html(self.report, here / settings.html)
        cache = getattr(self.config, "cache", None)  # absent under -p no:cacheprovider
        if self._report is not None and self._report.rows and cache is not None:
            # `citecheck review` reads the last run's report from here when no --citecheck-json was given.
            self.report.write(cache.mkdir("citecheck") / "last-report.json")


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
        self.collected: dict[Path, list[pytest.Item]] = {}
        self.orphans: set[str] = set()

    def pytest_itemcollected(self, item: pytest.Item) -> None:
        # Only noted here; cassette names are worked out at the end, and only for modules that
        # have a cassette directory, so collecting a suite that records nothing costs nothing.
        self.collected.setdefault(Path(item.path), []).append(item)

    def _expected(self) -> dict[str, set[str]]:
        """Cassette directory -> the cassette file names of its collected tests (existing directories only)."""
        settings = self.config.stash[SETTINGS]
        expected: dict[str, set[str]] = {}
        for module, items in self.collected.items():
            folder = module.parent / settings.cassette_dir / module.stem
            if folder.is_dir():
                expected[str(folder)] = {_cassette_path(item, settings).name for item in items}
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
        from .cassettes import is_citecheck_cassette, read_interactions
        from .recordings import unused_entry

        checker = item.stash.get(CHECKER, None)
        cassette = checker.cassette if checker is not None else None
        if cassette is not None and cassette.is_open:
            path, bodies = cassette.path, cassette.unplayed()
        else:
            # The test asked Jev nothing: every interaction of its cassette is unused.
            path = _cassette_path(item, self.config.stash[SETTINGS])
            if not path.is_file() or not is_citecheck_cassette(path):
                return []
            try:
                bodies = [interaction["request"]["body"] for interaction in read_interactions(path)]
            except Exception:  # a damaged cassette is reported by the test that reads it, not here
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
        expected = self._expected()
        if not expected:
            return []  # no cassette directory at all: nothing to load or scan
        settings = self.config.stash[SETTINGS]
        partial = set()
        for arg in self.config.args:
            if "::" in arg:  # some tests of a module named on the command line
                module = Path(self.config.invocation_params.dir, arg.split("::")[0]).resolve()
                partial.add(str(module.parent / settings.cassette_dir / module.stem))
        complete = {folder: names for folder, names in expected.items() if str(Path(folder).resolve()) not in partial}
        from .recordings import find_orphans

        return [self.run.display_path(Path(orphan)) for orphan in find_orphans(complete)]

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # Runs before CitecheckRun writes the JSON report (trylast), so the report carries these.
        orphans = self._find_orphans()
        if hasattr(self.config, "workerinput"):
            self.config.workeroutput["citecheck_orphans"] = orphans
            return
        if self.run._report is None and not (self.orphans or orphans):
            return  # nothing was checked, recorded or left over
        report, settings = self.run.report, self.config.stash[SETTINGS]
        report.orphans = sorted(self.orphans.union(orphans))
        if settings.unused == "delete" and (report.unused or report.orphans):
            from .recordings import delete_unused

            here = Path(self.config.invocation_params.dir)
            delete_unused(
                [{**entry, "cassette": str(here / entry["cassette"])} for entry in report.unused],
                [str(here / orphan) for orphan in report.orphans],
            )
        elif settings.unused == "fail" and (report.unused or report.orphans) and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        flipped = any((row.get("previous") or {}).get("drift") == "flip" for row in report.rows)
        if settings.fail_on_flip and flipped and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


# --- fixtures -------------------------------------------------------------------------------


@pytest.fixture
def citecheck_async_client() -> Any:
    """Builds the ``typesafe_sdk.AsyncTypeSafeClient`` that ``await citecheck.acheck(...)`` asks Jev with.

    A callable, not a client: an async client's connections belong to the event loop they were
    opened on, so each ``acheck`` builds its client, and closes it before it returns, on its own
    loop (pytest-asyncio and anyio, asyncio or trio, alike). Configured like ``citecheck_client``
    (``compression=False``, the key or a replay placeholder, the patient rate-limit retry policy).
    Override it in ``conftest.py`` with another callable, or with an async fixture that yields a
    client you close yourself (keep ``compression=False``).
    """

    def build() -> Any:
        from typesafe_sdk import AsyncTypeSafeClient

        from .retry import patient_retry_policy

        key = os.environ.get("TYPESAFE_API_KEY", "").strip() or REPLAY_ONLY_KEY
        return AsyncTypeSafeClient(api_key=key, compression=False, retry=patient_retry_policy())

    return build


# Session scope: building an SDK client costs tens of milliseconds (its TLS context), which a
# replayed citation must not pay per test; the client is thread-safe and holds no per-test state.
@pytest.fixture(scope="session")
def citecheck_client() -> Iterator[Any]:
    """The ``typesafe_sdk.TypeSafeClient`` that asks Jev, shared by the session's tests.

    Built once per session, with ``compression=False`` so recorded bodies are plain JSON on every machine. Reads
    ``TYPESAFE_API_KEY`` and ``TYPESAFE_BASE_URL`` like the SDK; with no key set it uses a
    placeholder, which is all replay needs. A 429 is retried for longer than the SDK's default
    (``pytest_citecheck.retry``), so a rate limit slows a run down instead of failing it. Override
    this fixture in ``conftest.py`` to configure the client yourself (keep ``compression=False``).
    """
    from typesafe_sdk import TypeSafeClient

    from .retry import patient_retry_policy

    key = os.environ.get("TYPESAFE_API_KEY", "").strip() or REPLAY_ONLY_KEY
    client = TypeSafeClient(api_key=key, compression=False, retry=patient_retry_policy())
    yield client
    client.close()


def _marker_options(item: pytest.Item) -> dict[str, Any]:
    options: dict[str, Any] = {}
    # Closest marker wins: apply module, then class, then function.
    for marker in reversed(list(item.iter_markers("citecheck"))):
        if marker.args:
            options["<positional>"] = marker.args
        options.update(marker.kwargs)
    return options


def _record_properties(item: pytest.Item, result: CitationResult) -> None:
    """Verdict, confidence and section as JUnit properties; a citation checked twice is listed once."""
    values = {
        f"citecheck.{result.id}.verdict": result.verdict.value,
        f"citecheck.{result.id}.confidence": "" if result.confidence is None else f"{result.confidence:.2f}",
        f"citecheck.{result.id}.section": result.section or "",
    }
    item.user_properties[:] = [(name, value) for name, value in item.user_properties if name not in values]
    item.user_properties.extend(values.items())


def _test_path_name(item: pytest.Item) -> str:
    # "TestClass::test_name[param]" -> "TestClass.test_name[param]": class-based and parametrised
    # tests get distinct cassette names.
    return ".".join(item.nodeid.split("::")[1:]) or item.name


def _cassette_path(item: pytest.Item, settings: Settings) -> Path:
    """``<test dir>/<cassette_dir>/<module>/<test>.yaml`` (``.citecheck.yaml`` beside pytest-recording's own)."""
    from .cassettes import cassette_name

    name = cassette_name(_test_path_name(item), beside_pytest_recording=item.get_closest_marker("vcr") is not None)
    return Path(item.path).parent / settings.cassette_dir / Path(item.path).stem / name


def _make_checker(request: pytest.FixtureRequest) -> Checker:
    from .cassettes import TestCassette
    from .checker import Checker

    item = request.node
    existing = item.stash.get(CHECKER, None)
    if existing is not None:
        return existing
    settings = request.config.stash[SETTINGS]
    path = _cassette_path(item, settings)
    mode = "rewrite" if path.exists() else "once"
    hint = f"TYPESAFE_API_KEY=... pytest '{item.nodeid}' --citecheck-record-mode={mode}"
    rows = item.stash.setdefault(PENDING_ROWS, [])
    run: CitecheckRun = request.config.pluginmanager.get_plugin("citecheck-run")
    reviews_path = Path(item.path).parent / settings.reviews

    def on_result(result: CitationResult) -> None:
        rows.append({**result.to_json(test=item.nodeid), "reviews_file": run.display_path(reviews_path)})
        _record_properties(item, result)

    checker = Checker(
        settings=settings,
        client_factory=lambda: request.getfixturevalue("citecheck_client"),
        async_client_factory=lambda: request.getfixturevalue("citecheck_async_client"),
        cassette=TestCassette(path, settings.record_mode),
        test_id=item.nodeid,
        record_hint=hint,
        on_result=on_result,
        review_actions={"xfail": pytest.xfail, "skip": pytest.skip},
        marker_options=_marker_options(item),
        hooks=request.config.hook,
        reviews=lambda: run.reviews_for(reviews_path),
    )
    item.stash[CHECKER] = checker
    request.addfinalizer(checker.close)
    return checker


@pytest.fixture
def citecheck(request: pytest.FixtureRequest) -> Checker:
    """A citation checker bound to this test: its cassette, threshold, model and report rows.

    ``citecheck.check(citations, source)`` returns one ``CitationResult`` per citation without
    failing; ``citecheck.assert_supported(citations, source)`` fails the test like
    ``assert_citations_supported``. Settings: ``@pytest.mark.citecheck(...)``, ``--citecheck-*``
    flags, ``citecheck_*`` ini keys, or keyword arguments of the call.
    """
    return _make_checker(request)


@pytest.fixture(autouse=True)
def _citecheck_current_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """Lets ``assert_citations_supported`` find the running test's checker (costs nothing unused)."""
    from . import api

    api.bind(lambda: request.getfixturevalue("citecheck"))
    yield
    api.bind(None)
