"""pytest glue for pytest-citecheck: options, the marker, the fixtures, and configuring a session.

Everything that decides anything lives in pytest-free modules (``checker``, ``policy``,
``cassettes``, ``report``); this module only connects them to pytest's life cycle. The run-level
plugins (the report, the bookkeeping of recordings) are in ``session``.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import re
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_citecheck import _hooks
from pytest_citecheck._check import binding
from pytest_citecheck._errors import CitecheckError, OptionError
from pytest_citecheck._options import OPTIONS, PER_TEST_OPTIONS, Option, Settings
from pytest_citecheck._stash import CHECKER, PENDING_ROWS, SETTINGS, SessionTrigger, session_plugins

# Everything else (the checker, cassettes, reports, reviews) is imported where it is used: pytest
# loads this module for every run, and a suite that checks no citation should not pay for them.
if TYPE_CHECKING:
    from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient

    from pytest_citecheck._check.checker import Checker
    from pytest_citecheck._results import CitationResult
    from pytest_citecheck._review.decisions import Reviews

PREVIOUS_SPLIT_HOOK = pytest.StashKey["_hooks.SplitHook | None"]()
PREVIOUS_BINDING = pytest.StashKey[Any]()
# What the SDK gets as a key when none is set: enough to build a client for replay. In record mode
# "none" a request that is not in the cassette is refused before it could be sent with it.
REPLAY_ONLY_KEY = "citecheck-replay-only"
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


_INI_TYPE_WORDS = {"bool": "true or false", "int": "a whole number", "float": "a number"}
# pytest's conversion errors end with the value it could not convert: "... float: 'nope'".
_TRAILING_REPR = re.compile(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s*$""")


def _ini_type_error(option: Option, error: Exception) -> OptionError:
    """pytest could not read an ini value as the key's type: our parser's words for it, naming the key."""
    origin = f"ini {option.ini}"
    found = _TRAILING_REPR.search(str(error))
    if found is not None:
        try:
            option.parse(ast.literal_eval(found[1]))
        except ValueError as parse_error:
            return OptionError(origin, str(parse_error))
        except SyntaxError:
            pass
    return OptionError(origin, f"expected {_INI_TYPE_WORDS.get(option.ini_type, 'a value')} ({error})")


def _resolve_settings(config: pytest.Config) -> Settings:
    command_line = {option.name: config.getoption("citecheck_" + option.name) for option in OPTIONS}
    ini = {}
    for option in OPTIONS:
        try:
            ini[option.name] = config.getini(option.ini)
        except (ValueError, TypeError, pytest.UsageError) as error:
            raise _ini_type_error(option, error) from None
    return Settings.resolve(command_line, ini)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    # Validated here, before the session starts, so a bad flag or ini value is a usage error
    # (exit code 4, one line) instead of an internal error.
    try:
        config.stash[SETTINGS] = _resolve_settings(config)
    except OptionError as error:
        raise pytest.UsageError(f"pytest-citecheck: {error}") from None
    _check_report_paths(config.stash[SETTINGS])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)
    if SETTINGS not in config.stash:  # configured without pytest_cmdline_main (e.g. pytester's parseconfig)
        try:
            config.stash[SETTINGS] = _resolve_settings(config)
        except OptionError as error:
            raise pytest.UsageError(f"pytest-citecheck: {error}") from None
    # The session's report and recording bookkeeping load when the run needs them (``_stash``).
    config.pluginmanager.register(SessionTrigger(config), "citecheck-trigger")
    # Source.from_text(..., format=<not built in>) in a test or conftest reaches this session's hook.
    config.stash[PREVIOUS_SPLIT_HOOK] = _hooks.set_split_hook(config.hook.pytest_citecheck_split_sections)
    # Until a test runs, assert_citations_supported has no checker: it raises instead of going live.
    config.stash[PREVIOUS_BINDING] = binding.enter_session()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if call.excinfo is not None and isinstance(call.excinfo.value, CitecheckError) and report.failed:
        # Our errors say what happened and what to do; a traceback into the plugin adds nothing.
        error = call.excinfo.value
        report.longrepr = f"{type(error).__name__}: {error}"
        report.citecheck_error = report.longrepr  # type: ignore[attr-defined]  # for the GitHub annotations (``_session``)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    result = yield
    # Saved as the test's call ends, not at teardown: a recording that cannot be written fails the
    # test itself, instead of a PASSED test followed by an ERROR at teardown.
    checker = item.stash.get(CHECKER, None)
    if checker is not None:
        checker.save()
    return result


def _check_report_paths(settings: Settings) -> None:
    """A report path that is a directory (``--citecheck-json=.``) is a usage error before any test runs."""
    for option, value in (("--citecheck-json", settings.json), ("--citecheck-html", settings.html)):
        if value and Path(value).is_dir():
            raise pytest.UsageError(
                f"pytest-citecheck: {option}={value}: {str(value)!r} is a directory; give a file path, "
                f"e.g. {option}={Path(value) / ('citecheck.json' if option.endswith('json') else 'citecheck.html')}"
            )


def pytest_unconfigure(config: pytest.Config) -> None:
    if PREVIOUS_SPLIT_HOOK in config.stash:
        _hooks.set_split_hook(config.stash[PREVIOUS_SPLIT_HOOK])
    if PREVIOUS_BINDING in config.stash:
        binding.leave_session(config.stash[PREVIOUS_BINDING])


def pytest_report_header(config: pytest.Config) -> str | None:
    settings = config.stash.get(SETTINGS, None)
    if settings is None:
        return None
    model = settings.model or "SDK default"
    return f"citecheck: record mode {settings.record_mode}, auto_accept {settings.auto_accept:g}, model {model}"


# --- fixtures -------------------------------------------------------------------------------


@functools.cache
def _redact_logs() -> None:
    """Before the plugin builds a client or a checker: the SDK's debug log (and vcrpy's and the HTTP
    stack's) must never print a key, whatever its header (``_recording.redaction``). Done then, once,
    rather than when pytest starts, and the module imported then too: a suite that checks no citation
    pays for neither. (The filter and the secrets it learns live in that module: one per process.)"""
    from pytest_citecheck._recording.redaction import install_log_redaction

    install_log_redaction()


def _replay_only_transport(config: pytest.Config) -> dict[str, Any]:
    """In record mode none the default clients get a transport that sends nothing (``replay.offline_transport``)."""
    if config.stash[SETTINGS].record_mode != "none":
        return {}
    from pytest_citecheck._recording.replay import offline_transport

    return {"transport": offline_transport()}


@pytest.fixture
def citecheck_async_client(pytestconfig: pytest.Config) -> Callable[[], AsyncTypeSafeClient]:
    """Builds the ``typesafe_sdk.AsyncTypeSafeClient`` that ``await citecheck.acheck(...)`` asks Jev with.

    A callable, not a client: an async client's connections belong to the event loop they were
    opened on, so each ``acheck`` builds its client, and closes it before it returns, on its own
    loop (pytest-asyncio and anyio, asyncio or trio, alike). Configured like ``citecheck_client``
    (``compression=False``, the key or a replay placeholder, the patient rate-limit retry policy).
    Override it in ``conftest.py`` with another callable, or with an async fixture that yields a
    client you close yourself (keep ``compression=False``). In record mode ``none`` it has no network
    transport at all: every answer comes from a cassette.
    """

    _redact_logs()

    def build() -> AsyncTypeSafeClient:
        from typesafe_sdk import AsyncTypeSafeClient

        from pytest_citecheck._judge.retry import patient_retry_policy

        key = os.environ.get("TYPESAFE_API_KEY", "").strip() or REPLAY_ONLY_KEY
        return AsyncTypeSafeClient(
            api_key=key, compression=False, retry=patient_retry_policy(), **_replay_only_transport(pytestconfig)
        )

    return build


# What the SDK reads from the environment when a client is built: a client built before one of
# them changed would keep asking the old server, with the old key.
CLIENT_ENVIRONMENT = ("TYPESAFE_API_KEY", "TYPESAFE_BASE_URL", "TYPESAFE_DEFAULT_MODEL")


class _SessionClient:
    """The session's one SDK client, rebuilt only when the environment it was built from changes.

    Building a client costs tens of milliseconds (its TLS context), which a replayed citation must
    not pay per test; the client is thread-safe and holds no per-test state. A fixture that points
    ``TYPESAFE_BASE_URL`` (or the key) elsewhere gets a client for the new values.
    """

    def __init__(self, transport: dict[str, Any]) -> None:
        self._transport = transport  # ``_replay_only_transport``: none but in record mode none
        self._built_for: str | None = None
        self._client: TypeSafeClient | None = None

    def current(self) -> TypeSafeClient:
        values = "\0".join(os.environ.get(name, "").strip() for name in CLIENT_ENVIRONMENT)
        # Compared as a digest: the key is not kept around in plain text for longer than it must be.
        built_for = hashlib.sha256(values.encode()).hexdigest()
        if self._client is None or built_for != self._built_for:
            from typesafe_sdk import TypeSafeClient

            from pytest_citecheck._judge.retry import patient_retry_policy

            self.close()
            key = os.environ.get("TYPESAFE_API_KEY", "").strip() or REPLAY_ONLY_KEY
            self._client = TypeSafeClient(
                api_key=key, compression=False, retry=patient_retry_policy(), **self._transport
            )
            self._built_for = built_for
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


@pytest.fixture(scope="session")
def _citecheck_session_client(pytestconfig: pytest.Config) -> Iterator[_SessionClient]:
    holder = _SessionClient(_replay_only_transport(pytestconfig))
    yield holder
    holder.close()


@pytest.fixture
def citecheck_client(_citecheck_session_client: _SessionClient) -> TypeSafeClient:
    """The ``typesafe_sdk.TypeSafeClient`` that asks Jev, shared by the session's tests.

    One client serves the whole session, built with ``compression=False`` so recorded bodies are plain
    JSON on every machine. It reads ``TYPESAFE_API_KEY``, ``TYPESAFE_BASE_URL`` and
    ``TYPESAFE_DEFAULT_MODEL`` like the SDK, and is rebuilt for a test in which one of them changed
    (a fixture that starts a server and points the SDK at it); with no key set it uses a
    placeholder, which is all replay needs. A 429 is retried for longer than the SDK's default
    (``pytest_citecheck._judge.retry``), so a rate limit slows a run down instead of failing it.
    Override this fixture in ``conftest.py`` to configure the client yourself (keep ``compression=False``).
    In record mode ``none`` it has no network transport at all: every answer comes from a cassette.
    """
    _redact_logs()
    return _citecheck_session_client.current()


def _marker_options(item: pytest.Item) -> dict[str, Any]:
    options: dict[str, Any] = {}
    # Closest marker wins: apply module, then class, then function.
    for marker in reversed(list(item.iter_markers("citecheck"))):
        if marker.args:
            options["<positional>"] = marker.args
        options.update(marker.kwargs)
    return options


def _auto_accept_scope(item: pytest.Item) -> str | None:
    """Where this test's ``auto_accept`` is set: the closest module, class or function whose own
    ``citecheck`` marker names it (``citecheck calibrate --by marker`` groups decisions by it), or None
    when it comes from the ini file, the command line or the default."""
    for node in reversed(item.listchain()):
        if any(marker.name == "citecheck" and "auto_accept" in marker.kwargs for marker in node.own_markers):
            # A function's marker covers all its parametrized cases: name the function, not one case.
            return node.nodeid.split("[", 1)[0] if isinstance(node, pytest.Function) else node.nodeid
    return None


def _record_properties(item: pytest.Item, result: CitationResult, recorded: set[str]) -> None:
    """Verdict, confidence and section as JUnit properties; a citation checked twice is listed once.

    ``recorded``: the ids this test already listed. Only a repeated id rewrites the list, so a test
    checking thousands of citations does not rescan it for each one.
    """
    values = {
        f"citecheck.{result.id}.verdict": result.verdict.value,
        f"citecheck.{result.id}.confidence": "" if result.confidence is None else f"{result.confidence:.2f}",
        f"citecheck.{result.id}.section": result.section or "",
    }
    if result.document is not None:
        values[f"citecheck.{result.id}.document"] = result.document
    if result.id in recorded:
        item.user_properties[:] = [(name, value) for name, value in item.user_properties if name not in values]
    recorded.add(result.id)
    item.user_properties.extend(values.items())


def _make_checker(request: pytest.FixtureRequest) -> Checker:
    from pytest_citecheck._check.checker import Checker
    from pytest_citecheck._recording.cassettes import TestCassette
    from pytest_citecheck._session import cassette_path, shared_cassette

    item = request.node
    existing: Checker | None = item.stash.get(CHECKER, None)
    if existing is not None:
        return existing
    _redact_logs()  # before this test's checker asks anything, through whatever client it is given
    settings = request.config.stash[SETTINGS]
    marker_options = _marker_options(item)
    # Not a setting: which file the test's answers are kept in (see cassette_path).
    shared = marker_options.pop("cassette", None)
    if shared is not None and (not isinstance(shared, str) or not shared.strip()):
        raise OptionError(
            "@pytest.mark.citecheck(...)", f"cassette: expected a cassette name (a string), got {shared!r}"
        )
    path = cassette_path(item, settings)
    run, bookkeeping = session_plugins(request.config)
    shared_with = bookkeeping.sharing(item, path)
    if shared_with:
        from pytest_citecheck._errors import CassetteCollisionError

        # Both tests fail here, before either records: one's recording would silently replace the other's.
        raise CassetteCollisionError(
            bookkeeping.run.display_path(path),
            f"would be shared by {' and '.join(sorted([item.nodeid, *shared_with]))}, and one's recording would be lost",
            "rename one test or module, or set citecheck_cassette_dir so that modules of the same name do not share a directory",
        )
    mode = "rewrite" if path.exists() else "once"
    hint = f"TYPESAFE_API_KEY=... pytest '{item.nodeid}' --citecheck-record-mode={mode}"
    rows = item.stash.setdefault(PENDING_ROWS, [])
    reviews_path = Path(item.path).parent / settings.reviews
    scope = _auto_accept_scope(item)
    listed: set[str] = set()

    # Worked out once per test, when first needed (resolving a path asks the file system).
    @functools.cache
    def reviews_file() -> str:
        return run.display_path(reviews_path)

    @functools.cache
    def reviews_of_this_test() -> Reviews:
        return run.reviews_for(reviews_path)

    def on_result(result: CitationResult) -> None:
        rows.append({**result.to_json(test=item.nodeid), "reviews_file": reviews_file(), "auto_accept_scope": scope})
        _record_properties(item, result, listed)

    checker = Checker(
        settings=settings,
        client_factory=lambda: request.getfixturevalue("citecheck_client"),
        async_client_factory=lambda: request.getfixturevalue("citecheck_async_client"),
        cassette=TestCassette(path, settings.record_mode, shared=shared_cassette(item) is not None),
        test_id=item.nodeid,
        record_hint=hint,
        on_result=on_result,
        review_actions={"xfail": pytest.xfail, "skip": pytest.skip},
        marker_options=marker_options,
        hooks=request.config.hook,
        reviews=reviews_of_this_test,
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


# How ``assert_citations_supported`` finds the running test's checker. It must come from a fixture:
# the checker's client is the ``citecheck_client`` fixture this test sees (a conftest may override it,
# at any scope, with fixtures of its own), and only a fixture's ``request`` resolves one (pytest has
# no public API to resolve a fixture from an item). It is not autouse: pytest would compute it into
# every test's fixture closure at collection (about 20 µs a test). It is added to a test's fixture
# names as the test is set up, before pytest sets up its fixtures: collecting costs nothing (not even
# a pass over the collected tests), and a test that runs pays one hook call. First in the list, as
# an autouse fixture would be: the test's function-scoped fixtures may check citations too.
BINDING_FIXTURE = "_citecheck_current_test"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    names = getattr(item, "fixturenames", None)  # Function and doctest items: the fixtures setup provides
    # The tests of one function (its parametrisations) share one list: changed once.
    if names.__class__ is list and BINDING_FIXTURE not in names:
        names.insert(0, BINDING_FIXTURE)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any]) -> Iterator[Any]:
    """A fixture wider than the test (session, package, module, class) sees no test bound while it is
    set up: what it checked would be recorded in whichever test happened to set it up first."""
    if fixturedef.scope == "function":
        return (yield)
    with binding.unbound():
        return (yield)


@pytest.fixture(name=BINDING_FIXTURE)
def _citecheck_current_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """Lets ``assert_citations_supported`` find the running test's checker (costs nothing unused)."""
    binding.bind(lambda: request.getfixturevalue("citecheck"))
    yield
    binding.bind(None)
