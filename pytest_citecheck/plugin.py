"""pytest glue for pytest-citecheck: options, the marker, the fixtures, and configuring a session.

Everything that decides anything lives in pytest-free modules (``_check``, ``_gate``,
``_recording``, ``_report``); this module only connects them to pytest's life cycle. pytest loads
it in every run, so it declares and does little: the rest of the glue is in ``_pytest_glue`` (what
the fixtures build in ``fixtures``, the run-level plugins, the report and the bookkeeping of
recordings, in ``session``), and loads only when a run needs it.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_citecheck import _hooks
from pytest_citecheck._options import OPTIONS, PER_TEST_OPTIONS, Settings
from pytest_citecheck._pytest_glue import SessionTrigger, session_plugins
from pytest_citecheck._pytest_glue.stash import SESSION_CLIENT, SETTINGS

# Everything else (the checker, cassettes, reports, reviews) is imported where it is used: pytest
# loads this module for every run, and a suite that checks no citation should not pay for them.
if TYPE_CHECKING:
    from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient

    from pytest_citecheck._check.checker import Checker
    from pytest_citecheck._pytest_glue.fixtures import SessionClient

PREVIOUS_SPLIT_HOOK: pytest.StashKey[_hooks.SplitHook | None] = pytest.StashKey()
PREVIOUS_BINDING: pytest.StashKey[Any] = pytest.StashKey()
MARKER_HELP = (
    "citecheck(*, "
    + ", ".join(f"{name}=None" for name in PER_TEST_OPTIONS)
    + ", cassette=None): pytest-citecheck settings for this test"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("citecheck", "citation checking (pytest-citecheck)")
    for option in OPTIONS:
        # A switch's flag takes no value; None (not given) lets its ini key decide.
        kind: dict[str, Any] = (
            {"action": "store_const", "const": True} if option.is_switch else {"metavar": option.metavar}
        )
        group.addoption(
            option.flag,
            dest="citecheck_" + option.name,
            default=None,
            help=f"{option.help} Default: {option.default_text}. Ini: {option.ini}.",
            **kind,
        )
        parser.addini(option.ini, help=f"{option.help} (flag: {option.flag})", type=option.ini_type, default=None)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def _resolve_settings(config: pytest.Config) -> Settings:
    _refuse_keys_not_ours(config)
    if "TYPESAFE_DEFAULT_MODEL" in os.environ:  # the SDK's, sent as the model's name when ours is unset
        from pytest_citecheck._options.parsing import check_default_model

        check_default_model(os.environ)
    command_line = {option.name: config.getoption("citecheck_" + option.name) for option in OPTIONS}
    ini = {}
    for option in OPTIONS:
        try:
            ini[option.name] = config.getini(option.ini)
        except (ValueError, TypeError, pytest.UsageError) as error:
            from pytest_citecheck._options.parsing import ini_type_error

            raise ini_type_error(option, error) from None
    converted = [
        option.ini for option in OPTIONS if option.ini_type in ("int", "float") and ini[option.name] is not None
    ]
    if converted:
        ini.update(_as_written(config, converted))
    return Settings.resolve(command_line, ini)


def _as_written(config: pytest.Config, keys: list[str]) -> dict[str, str]:
    """The text of the int- and float-typed ini ``keys`` as written, by option name: pytest converted them
    with Python's int() and float(), which read ``١٢`` and ``1_000``, where our parser refuses them."""
    from pytest_citecheck._options.ini_file import written_values

    path = config.inipath
    text = path.read_text(encoding="utf-8", errors="replace") if path is not None and path.is_file() else ""
    overrides = config.getoption("override_ini", None) or []
    written = written_values(path.name if path is not None else None, text, overrides, keys)
    return {key.removeprefix("citecheck_"): value for key, value in written.items()}


def _refuse_keys_not_ours(config: pytest.Config) -> None:
    """A ``citecheck_*`` key in pytest's configuration that is none of ours (a misspelt ``citecheck_reveiw``)
    is an OptionError: pytest only warns about it, and the setting meant would keep its default."""
    path = config.inipath
    text = path.read_text(encoding="utf-8", errors="replace") if path is not None and path.is_file() else ""
    overrides = config.getoption("override_ini", None) or []
    if "citecheck" in text.lower() or any("citecheck" in override.lower() for override in overrides):
        from pytest_citecheck._options.ini_file import check_keys

        check_keys(path.name if path is not None else None, text, overrides, {option.ini for option in OPTIONS})


def _store_settings(config: pytest.Config) -> None:
    """The session's settings, in the stash; a bad flag or ini value is a usage error (exit code 4, one line)."""
    try:
        config.stash[SETTINGS] = _resolve_settings(config)
    except ValueError as error:  # an OptionError: the exception classes load only when one is raised
        from pytest_citecheck._errors import OptionError

        if not isinstance(error, OptionError):
            raise
        raise pytest.UsageError(f"pytest-citecheck: {error}") from None


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    # Validated here, before the session starts, so a bad flag or ini value is a usage error
    # instead of an internal error.
    _store_settings(config)
    _check_report_paths(config)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)
    if SETTINGS not in config.stash:  # configured without pytest_cmdline_main (e.g. pytester's parseconfig)
        _store_settings(config)
    # The session's report and recording bookkeeping load when the run needs them (``_pytest_glue``).
    config.pluginmanager.register(SessionTrigger(config), "citecheck-trigger")
    if config.stash[SETTINGS].estimate:  # --citecheck-estimate: a dry run (``_pytest_glue.estimating``)
        from pytest_citecheck._pytest_glue.estimating import register

        register(config)
    # Source.from_text(..., format=<not built in>) in a test or conftest reaches this session's hook.
    config.stash[PREVIOUS_SPLIT_HOOK] = _hooks.set_split_hook(config.hook.pytest_citecheck_split_sections)
    # Until a test runs, assert_citations_supported has no checker: it raises instead of going live.
    config.stash[PREVIOUS_BINDING] = _hooks.enter_session()


def _check_report_paths(config: pytest.Config) -> None:
    """A report path that is a directory (``--citecheck-json=.``), names another report of the run
    or a file the user wrote (``_report.targets``) is a usage error before any test runs."""
    settings = config.stash[SETTINGS]
    if not (settings.json or settings.html):
        return  # nothing to check, and a run without reports loads no module of _report/
    from pytest_citecheck._report.targets import ReportPathError, check_report_paths

    try:
        check_report_paths(settings.json, settings.html, getattr(config.option, "xmlpath", None))
    except ReportPathError as error:
        raise pytest.UsageError(f"pytest-citecheck: {error}") from None


def pytest_unconfigure(config: pytest.Config) -> None:
    if PREVIOUS_SPLIT_HOOK in config.stash:
        _hooks.set_split_hook(config.stash[PREVIOUS_SPLIT_HOOK])
    if PREVIOUS_BINDING in config.stash:
        _hooks.leave_session(config.stash[PREVIOUS_BINDING])


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """pytest does not walk a test directory's cassette directory when it holds nothing but cassettes.

    Only the directory named exactly as ``citecheck_cassette_dir`` is looked into, and only skipped
    when every file in it is YAML (``paths.holds_only_cassettes``): a test module kept there is collected.
    """
    settings = config.stash.get(SETTINGS, None)
    if settings is None or collection_path.name != settings.cassette_dir:
        return None
    from pytest_citecheck._pytest_glue.paths import holds_only_cassettes

    return True if holds_only_cassettes(collection_path) else None


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    settings = config.stash.get(SETTINGS, None)
    if settings is None:
        return None
    from pytest_citecheck._secrets import short_key_notice

    model = settings.model or "SDK default"
    lines = [f"citecheck: record mode {settings.record_mode}, auto_accept {settings.auto_accept:g}, model {model}"]
    notice = short_key_notice()
    return lines + ([notice] if notice else [])


# --- fixtures -------------------------------------------------------------------------------


@pytest.fixture
def citecheck_async_client(pytestconfig: pytest.Config) -> Callable[[], AsyncTypeSafeClient]:
    """Builds the ``typesafe_sdk.AsyncTypeSafeClient`` that ``await citecheck.acheck(...)`` asks Jev with.

    A callable, not a client: an async client's connections belong to the event loop they were
    opened on, so each ``acheck`` builds its client, and closes it before it returns, on its own
    loop (pytest-asyncio and anyio, asyncio or trio, alike). Configured like ``citecheck_client``
    (``compression=False``, the key or a replay placeholder, the patient rate-limit retry policy).
    Override it in ``conftest.py`` with another callable, or with an async fixture that yields a
    client you close yourself, which each test that checks must then ask for in its arguments (it is
    set up before the test runs, on its loop); keep ``compression=False``, and give it a key when none
    is set, as ``citecheck_client`` says. In record mode ``none`` it has no network
    transport at all: every answer comes from a cassette.
    """

    _load_check_machinery()
    from pytest_citecheck._pytest_glue.fixtures import async_client_factory

    return async_client_factory(pytestconfig)


@pytest.fixture(scope="session")
def _citecheck_session_client(pytestconfig: pytest.Config) -> Iterator[SessionClient]:
    _load_check_machinery()
    from pytest_citecheck._pytest_glue.fixtures import SessionClient, replay_only_transport

    holder = pytestconfig.stash[SESSION_CLIENT] = SessionClient(replay_only_transport(pytestconfig))
    yield holder
    del pytestconfig.stash[SESSION_CLIENT]
    holder.close()


@pytest.fixture
def citecheck_client(_citecheck_session_client: SessionClient) -> TypeSafeClient:
    """The ``typesafe_sdk.TypeSafeClient`` that asks Jev, shared by the session's tests.

    One client serves the whole session, built with ``compression=False`` so recorded bodies are plain
    JSON on every machine. It reads ``TYPESAFE_API_KEY``, ``TYPESAFE_BASE_URL`` and
    ``TYPESAFE_DEFAULT_MODEL`` like the SDK, and is rebuilt for a test in which one of them changed
    (a fixture that starts a server and points the SDK at it); with no key set it uses a
    placeholder, which is all replay needs. A 429 is retried for longer than the SDK's default
    (``pytest_citecheck._judge.retry``), so a rate limit slows a run down instead of failing it.
    Override this fixture in ``conftest.py`` to configure the client yourself (keep ``compression=False``,
    and pass ``api_key=os.environ.get("TYPESAFE_API_KEY") or "replay-only"``: the SDK builds no client
    without a key, and CI replays with none).
    In record mode ``none`` it has no network transport at all: every answer comes from a cassette.
    """
    return _citecheck_session_client.current()


@pytest.fixture
def citecheck(request: pytest.FixtureRequest) -> Checker:
    """A citation checker bound to this test: its cassette, threshold, model and report rows.

    ``citecheck.check(citations, source)`` returns one ``CitationResult`` per citation without
    failing; ``citecheck.assert_supported(citations, source)`` fails the test like
    ``assert_citations_supported``. Settings: ``@pytest.mark.citecheck(...)``, ``--citecheck-*``
    flags, ``citecheck_*`` ini keys, or keyword arguments of the call.
    """
    _load_check_machinery()
    from pytest_citecheck._pytest_glue.fixtures import make_checker

    return make_checker(request)


# How ``assert_citations_supported`` finds the running test's checker: one getter for the session,
# bound when it starts (``_pytest_glue.running``). Nothing is added to a test and no hook runs per
# test: a test that calls no helper and asks for no fixture of ours pays nothing. The checker comes
# from the ``citecheck`` fixture as the running test sees it: its client is the ``citecheck_client``
# fixture that test sees (a conftest may override it, at any scope, with fixtures of its own).
@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    _hooks.bind_checker(functools.partial(_running_test_checker, session))
    # Only an xdist controller takes in reports it did not make: only it watches them (no hook per test otherwise).
    if session.config.pluginmanager.has_plugin("dsession"):
        from pytest_citecheck._pytest_glue.controller import ControllerTrigger

        session.config.pluginmanager.register(ControllerTrigger(session.config), "citecheck-controller-trigger")


def _running_test_checker(session: pytest.Session) -> Checker | None:
    _load_check_machinery()
    from pytest_citecheck._pytest_glue.running import running_checker

    checker = running_checker(session)
    if checker is None:
        # The helper raises that it was called outside a test: the session's plugins say it in one line.
        session_plugins(session.config)
    return checker


def _load_check_machinery() -> None:
    """Load what a test's check needs, once per run, with the garbage collector paused (``_gc_paused``).

    The first check, or the first fixture of ours a test asks for, loads most of the plugin (the
    fixtures' wiring, step 1, the judge, the cassettes, the reading of plain citations); each of those modules'
    own imports load the rest (an SDK's shapes and the markup scanners load later, where a check first needs
    them: ``_late_imports``). After the first call this is one look-up.
    """
    if all(name in sys.modules for name in _CHECK_MACHINERY):
        return
    from pytest_citecheck._gc_paused import gc_paused
    from pytest_citecheck._late_imports import loaded

    with gc_paused():  # one thread at a time, as a test's threads may each start its first check
        for name in _CHECK_MACHINERY:
            loaded(name)


# The glue that finds the running test's checker, and the checker, which imports step 1, the judge, the cassettes
# and the reading of plain citations. Both are looked for: a test module that imports ``Checker`` loads the
# second without the first.
_CHECK_MACHINERY = ("pytest_citecheck._pytest_glue.running", "pytest_citecheck._check.checker")
