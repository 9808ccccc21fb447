"""pytest glue for pytest-citecheck: options, the marker, fixtures, and the run's report.

Everything that decides anything lives in pytest-free modules (``checker``, ``policy``,
``cassettes``, ``report``); this module only connects them to pytest's life cycle.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from . import api
from .cassettes import TestCassette, cassette_name
from .checker import Checker
from .errors import CitecheckError, OptionError
from .options import OPTIONS, PER_TEST_OPTIONS, Settings
from .redaction import install_log_redaction
from .report import Report

SETTINGS = pytest.StashKey[Settings]()
PENDING_ROWS = pytest.StashKey[list[dict[str, Any]]]()
CHECKER = pytest.StashKey[Checker]()
# What the SDK gets as a key when none is set: enough to build a client for replay. In record mode
# "none" a request that is not in the cassette is refused before it could be sent with it.
REPLAY_ONLY_KEY = "citecheck-replay-only"
MARKER_HELP = (
    "citecheck(*, " + ", ".join(f"{name}=None" for name in PER_TEST_OPTIONS) + "): pytest-citecheck settings for this test"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("citecheck", "citation checking (pytest-citecheck)")
    for option in OPTIONS:
        group.addoption(
            option.flag,
            dest="citecheck_" + option.name,
            default=None,
            metavar=option.metavar,
            help=f"{option.help} Default: {option.default_text}. Ini: {option.ini}.",
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
    install_log_redaction()
    if SETTINGS not in config.stash:  # configured without pytest_cmdline_main (e.g. pytester's parseconfig)
        try:
            config.stash[SETTINGS] = _resolve_settings(config)
        except OptionError as error:
            raise pytest.UsageError(f"pytest-citecheck: {error}") from None
    config.pluginmanager.register(CitecheckRun(config), "citecheck-run")


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
        self.report = Report()

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

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        lines = self.report.summary_lines(verbose=self.config.get_verbosity() > 0)
        if not lines:
            return
        terminalreporter.write_sep("=", "citecheck")
        for line in lines:
            terminalreporter.write_line(line)
        path = self.config.stash[SETTINGS].json
        if path and not hasattr(self.config, "workerinput"):
            terminalreporter.write_line(f"JSON report: {path}")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        path = self.config.stash[SETTINGS].json
        if path and not hasattr(self.config, "workerinput"):
            self.report.write(Path(self.config.invocation_params.dir, path))


# --- fixtures -------------------------------------------------------------------------------


@pytest.fixture
def citecheck_client(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The ``typesafe_sdk.TypeSafeClient`` that asks Jev for this test.

    Built with ``compression=False`` so recorded bodies are plain JSON on every machine. Reads
    ``TYPESAFE_API_KEY`` and ``TYPESAFE_BASE_URL`` like the SDK; with no key set it uses a
    placeholder, which is all replay needs. Override this fixture in ``conftest.py`` to configure
    the client yourself (keep ``compression=False``).
    """
    from typesafe_sdk import TypeSafeClient

    key = os.environ.get("TYPESAFE_API_KEY", "").strip() or REPLAY_ONLY_KEY
    client = TypeSafeClient(api_key=key, compression=False)
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


def _test_path_name(item: pytest.Item) -> str:
    # "TestClass::test_name[param]" -> "TestClass.test_name[param]": class-based and parametrised
    # tests get distinct cassette names.
    return ".".join(item.nodeid.split("::")[1:]) or item.name


def _make_checker(request: pytest.FixtureRequest) -> Checker:
    item = request.node
    existing = item.stash.get(CHECKER, None)
    if existing is not None:
        return existing
    settings = request.config.stash[SETTINGS]
    path = Path(item.path).parent / settings.cassette_dir / Path(item.path).stem / cassette_name(_test_path_name(item))
    mode = "rewrite" if path.exists() else "once"
    hint = f"TYPESAFE_API_KEY=... pytest '{item.nodeid}' --citecheck-record-mode={mode}"
    rows = item.stash.setdefault(PENDING_ROWS, [])
    checker = Checker(
        settings=settings,
        client_factory=lambda: request.getfixturevalue("citecheck_client"),
        cassette=TestCassette(path, settings.record_mode),
        test_id=item.nodeid,
        record_hint=hint,
        on_result=lambda result: rows.append(result.to_json(test=item.nodeid)),
        review_actions={"xfail": pytest.xfail, "skip": pytest.skip},
        marker_options=_marker_options(item),
        hooks=request.config.hook,
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
    api.bind(lambda: request.getfixturevalue("citecheck"))
    yield
    api.bind(None)
