"""What the plugin's fixtures build: a test's checker, and the SDK clients it asks Jev with.

pytest glue, kept apart from ``plugin`` (which declares the fixtures): it loads with the first
fixture a test asks for, so a suite that checks no citation never loads it.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import operator
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from pytest_citecheck._errors import OptionError
from pytest_citecheck._gc_paused import gc_paused
from pytest_citecheck._pytest_glue import session_plugins
from pytest_citecheck._pytest_glue.markers import MarkerCache, marker_origin
from pytest_citecheck._pytest_glue.own_client import async_client_for, built_with_a_key
from pytest_citecheck._pytest_glue.stash import PENDING_ROWS, SESSION_CLIENT, SESSION_PARTS, SETTINGS, SHARED_ANSWERS
from pytest_citecheck._pytest_glue.threads import BUILDING, REPORTING, one_checker
from pytest_citecheck._text import format_confidence, shell_quote, xml_safe

if TYPE_CHECKING:
    from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient

    from pytest_citecheck._check.checker import Checker
    from pytest_citecheck._options import Settings
    from pytest_citecheck._pytest_glue.bookkeeping import CassetteBookkeeping
    from pytest_citecheck._pytest_glue.session import CitecheckRun
    from pytest_citecheck._recording.cassette import TestCassette
    from pytest_citecheck._results import CitationResult
    from pytest_citecheck._review.decisions import Reviews

# What the SDK gets as a key when none is set: enough to build a client for replay. In record mode
# "none" a request that is not in the cassette is refused before it could be sent with it.
REPLAY_ONLY_KEY = "citecheck-replay-only"


def _api_key() -> str:
    return os.environ.get("TYPESAFE_API_KEY", "").strip() or REPLAY_ONLY_KEY


_Client = TypeVar("_Client")


def _keyed(build: Callable[[str], _Client]) -> _Client:
    """A client built with the key of the environment, or the placeholder, remembered as such: a 401 to it
    then says no key was set (``_judge.failures``), not that a key was rejected."""
    from pytest_citecheck._options.parsing import check_default_model

    check_default_model(os.environ)  # a test may set it (monkeypatch.setenv): checked at each (re)build
    key = _api_key()
    client = build(key)
    if key == REPLAY_ONLY_KEY:
        from pytest_citecheck._judge.no_key import built_without_a_key

        built_without_a_key(client)
    return client


@functools.cache
def redact_logs() -> None:
    """Before the plugin builds a client or a checker: the SDK's debug log (and vcrpy's and the HTTP
    stack's) must never print a key, whatever its header (``_recording.redaction``). Done then, once,
    rather than when pytest starts, and the module imported then too: a suite that checks no citation
    pays for neither. (The filter and the secrets it learns live in that module: one per process.)"""
    from pytest_citecheck._recording.redaction import install_log_redaction

    install_log_redaction()


def replay_only_transport(config: pytest.Config) -> dict[str, Any]:
    """In record mode none the default clients get a transport that sends nothing (``replay.offline_transport``)."""
    settings = config.stash[SETTINGS]
    if settings.record_mode != "none" and not settings.estimate:  # an estimate run sends nothing either
        return {}
    from pytest_citecheck._judge.endpoint import for_replay
    from pytest_citecheck._recording.replay import offline_transport

    # Nothing is sent: a malformed TYPESAFE_BASE_URL must not stop a replay (a placeholder stands in).
    return {"transport": offline_transport(), **for_replay()}


def async_client_factory(config: pytest.Config) -> Callable[[], AsyncTypeSafeClient]:
    """The ``citecheck_async_client`` fixture's value: builds an async client like the session's client."""
    redact_logs()

    def build() -> AsyncTypeSafeClient:
        with gc_paused():  # the SDK's first import (``current``)
            from typesafe_sdk import AsyncTypeSafeClient
        from pytest_citecheck._judge.retry import patient_retry_policy

        return _keyed(
            lambda key: AsyncTypeSafeClient(
                api_key=key, compression=False, retry=patient_retry_policy(), **replay_only_transport(config)
            )
        )

    return build


# What the SDK reads from the environment when a client is built: a client built before one of
# them changed would keep asking the old server, with the old key.
CLIENT_ENVIRONMENT = ("TYPESAFE_API_KEY", "TYPESAFE_BASE_URL", "TYPESAFE_DEFAULT_MODEL")


def _environment_digest() -> str:
    """What the client was built from, as a digest: the key is not kept around in plain text for longer than it must be."""
    values = "\0".join(os.environ.get(name, "").strip() for name in CLIENT_ENVIRONMENT)
    return hashlib.sha256(values.encode()).hexdigest()


def _environment_objects() -> tuple[object, ...] | None:
    """The objects ``os.environ`` holds for ``CLIENT_ENVIRONMENT`` (its ``_data``), or None when it keeps
    none (it was replaced by a plain mapping).

    ``os.environ`` keeps a variable's value as one object until the variable is set again (or
    deleted), so the same objects mean the same values, with no value read, joined or hashed. They are
    ``os.environ``'s own objects, not copies of the key.
    """
    environ = os.environ
    data, encode = getattr(environ, "_data", None), getattr(environ, "encodekey", None)
    if not isinstance(data, dict) or encode is None:
        return None
    try:
        keys = _encoded_names(encode)
    except Exception:  # an encodekey of another kind: the digest decides alone
        return None
    return (data.get(keys[0]), data.get(keys[1]), data.get(keys[2]))


@functools.lru_cache(maxsize=4)
def _encoded_names(encode: Callable[[str], Any]) -> tuple[Any, ...]:
    """``CLIENT_ENVIRONMENT`` as ``os.environ`` keys them (bytes on POSIX, upper-case text on Windows)."""
    return tuple(encode(name) for name in CLIENT_ENVIRONMENT)


class SessionClient:
    """The session's one SDK client, rebuilt only when the environment it was built from changes.

    Building a client costs tens of milliseconds (its TLS context), which a replayed citation must
    not pay per test; the client is thread-safe and holds no per-test state. A fixture that points
    ``TYPESAFE_BASE_URL`` (or the key) elsewhere gets a client for the new values.
    """

    def __init__(self, transport: dict[str, Any]) -> None:
        self._transport = transport  # ``replay_only_transport``: none but in record mode none
        self._built_for: str | None = None
        # ``_environment_objects()`` when the digest was last worked out: while ``os.environ`` holds the
        # very same objects, nothing the client read has changed (checked per test, for a fraction of
        # the digest's cost). Held, not their ``id``s: a freed value's id may be reused by a new one.
        # A changed key's old object is let go at the next check (or when the client is closed).
        self._seen: tuple[object, ...] | None = None
        self._client: TypeSafeClient | None = None

    def current(self) -> TypeSafeClient:
        redact_logs()
        seen, objects = self._seen, _environment_objects()
        if (
            self._client is not None
            and seen is not None
            and objects is not None
            and all(map(operator.is_, objects, seen))
        ):
            return self._client
        self._seen = None  # let go of the old values' objects first: a rebuild that raises keeps none
        built_for = _environment_digest()
        if self._client is None or built_for != self._built_for:
            with gc_paused():  # the SDK's first import: its pydantic models are most of a check's loading
                from typesafe_sdk import TypeSafeClient
            from pytest_citecheck._judge.retry import patient_retry_policy

            self.close()
            self._client = _keyed(
                lambda key: TypeSafeClient(
                    api_key=key, compression=False, retry=patient_retry_policy(), **self._transport
                )
            )
            self._built_for = built_for
        self._seen = objects
        return self._client

    def close(self) -> None:
        self._seen = None
        if self._client is not None:
            self._client.close()
            self._client = None


def _shared_answers(config: pytest.Config) -> Any:
    """The session's answers to identical requests (``_judge.sharing``): each request is sent once per run;
    an xdist worker shares them with the run's other workers (``_judge.run_answers``, by xdist's run id)."""
    shared = config.stash.get(SHARED_ANSWERS, None)
    if shared is None:
        from pytest_citecheck._judge.run_answers import RunAnswers
        from pytest_citecheck._judge.sharing import SharedAnswers

        run_id = getattr(config, "workerinput", {}).get("testrunuid")
        run = RunAnswers.for_run(run_id) if isinstance(run_id, str) and run_id else None
        shared = config.stash[SHARED_ANSWERS] = SharedAnswers(run=run)
    return shared


class _SessionParts:
    """What every test's checker shares, worked out once per session: the ``citecheck`` markers the
    tests inherit from their modules and classes (``markers.MarkerCache``), each test directory's
    reviews file, the review command the messages name, the model-pinning causes the run has warned of
    (``_recording.checking.ModelPins``: each said once per run)."""

    def __init__(self, config: pytest.Config) -> None:
        from pytest_citecheck._check.checker import checker_for
        from pytest_citecheck._gate.messages import review_command
        from pytest_citecheck._recording.cassette import TestCassette

        settings = config.stash[SETTINGS]
        # Imported once here, not by every test's checker (an import statement costs a lookup chain).
        self.checker_for, self.test_cassette = checker_for, TestCassette
        self.markers = MarkerCache()
        self.pins_said: set[tuple[str, str]] = set()
        self._reviews = settings.reviews
        self._reviews_paths: dict[Path, Path] = {}
        from pytest_citecheck._pytest_glue.paths import review_report_path

        # A run whose cache is not where `citecheck review` looks (-c ci/pytest.ini) names it with --report.
        self.review_command = review_command(
            settings.json or review_report_path(config), cached=getattr(config, "cache", None) is not None
        )

    def reviews_path(self, item: pytest.Item) -> Path:
        """The reviews file of the test's directory (``citecheck_reviews``, relative to it)."""
        found = self._reviews_paths.get(item.path)
        if found is None:
            found = self._reviews_paths[item.path] = Path(item.path).parent / self._reviews
        return found


def _session_parts(config: pytest.Config) -> _SessionParts:
    parts = config.stash.get(SESSION_PARTS, None)
    if parts is None:
        parts = config.stash[SESSION_PARTS] = _SessionParts(config)
    return parts


def _record_properties(item: pytest.Item, result: CitationResult, recorded: set[str]) -> None:
    """Verdict, confidence and section as JUnit properties; a citation checked twice is listed once.

    ``recorded``: the ids this test already listed. Only a repeated id rewrites the list, so a test
    checking thousands of citations does not rescan it for each one.
    """
    # pytest escapes a property's value for XML, not its name: an id with a control character
    # (an escape sequence) made the whole JUnit file unreadable to CI.
    name = f"citecheck.{xml_safe(result.id)}"
    values = {
        f"{name}.verdict": result.verdict.value,
        f"{name}.confidence": format_confidence(result.confidence),
        f"{name}.section": result.section or "",
    }
    if result.document is not None:
        values[f"{name}.document"] = result.document
    if result.error is not None:  # verdict errored: why (known secrets already cut out)
        values[f"{name}.error"] = xml_safe(f"{result.error[0]}: {result.error[1]}")
    if result.id in recorded:
        item.user_properties[:] = [(name, value) for name, value in item.user_properties if name not in values]
    recorded.add(result.id)
    item.user_properties.extend(values.items())


def _cassette_of(
    item: pytest.Item, marker_options: dict[str, Any], run: CitecheckRun, bookkeeping: CassetteBookkeeping
) -> tuple[Path, bool]:
    """The test's cassette file, and whether it is shared on purpose (``citecheck(cassette=...)``).

    Takes ``cassette`` out of ``marker_options`` (it is not a setting). Raises ``OptionError`` for a
    cassette name that is not one, and ``CassetteCollisionError`` when another test would use the
    same file by accident: both tests fail here, before either records over the other's answers.
    """
    shared = marker_options.pop("cassette", None)
    if shared is not None and (not isinstance(shared, str) or not shared.strip()):
        raise OptionError(
            marker_origin(item, "cassette"), f"cassette: expected a cassette name (a string), got {shared!r}"
        )
    path, shared_with = bookkeeping.cassette_of(item, shared=shared is not None)
    if shared_with:
        from pytest_citecheck._errors import CassetteCollisionError

        raise CassetteCollisionError(
            run.display_path(path),
            f"would be shared by {' and '.join(sorted([item.nodeid, *shared_with]))}, and one's recording would be lost",
            "rename one test or module, or set citecheck_cassette_dir so that modules of the same name do not share a directory",
        )
    return path, shared is not None


class _Reporting:
    """What the checker calls with each result (a report row, JUnit properties), and this test's reviews
    (read when first needed: the session reads each reviews file once, ``CitecheckRun.reviews_for``)."""

    __slots__ = ("_item", "_run", "_rows", "_path", "_scope", "_listed", "_shown", "_reviews")

    def __init__(self, item: pytest.Item, run: CitecheckRun, reviews_path: Path, scope: str | None) -> None:
        self._item, self._run, self._path, self._scope = item, run, reviews_path, scope
        self._rows = item.stash.setdefault(PENDING_ROWS, [])
        self._listed: set[str] = set()
        self._shown: str | None = None
        self._reviews: Reviews | None = None
        if item.user_properties:
            _forget_earlier_tries(item)

    def on_result(self, result: CitationResult) -> None:
        row = result.to_json(test=self._item.nodeid)  # a new dict: completed in place, not copied
        with REPORTING:  # the test's threads report at once (its JUnit properties are rewritten for a repeat)
            if self._shown is None:
                self._shown = self._run.display_path(self._path)
            row["reviews_file"], row["auto_accept_scope"] = self._shown, self._scope
            self._rows.append(row)
            _record_properties(self._item, result, self._listed)

    def reviews(self) -> Reviews:
        with REPORTING:
            if self._reviews is None:
                self._reviews = self._run.reviews_for(self._path)
            return self._reviews


def _forget_earlier_tries(item: pytest.Item) -> None:
    """Drop the citation properties an earlier try of this test listed (pytest-rerunfailures runs the
    same item again, and its ``user_properties`` keep them): the try that stands lists its own, once,
    as the terminal summary counts a rerun test's citations once (the last check stands)."""
    item.user_properties[:] = [
        prop for prop in item.user_properties if not (isinstance(prop[0], str) and prop[0].startswith("citecheck."))
    ]


def _cassette(item: pytest.Item, path: Path, settings: Settings, shared: bool, parts: _SessionParts) -> TestCassette:
    """The test's cassette; in an estimate run one that counts what it would send (``estimating``)."""
    if settings.estimate:
        from pytest_citecheck._pytest_glue.estimating import estimating_cassette

        return estimating_cassette(item, path, settings.record_mode, shared=shared)
    return parts.test_cassette(path, settings.record_mode, shared=shared)


def plain_fixture(item: pytest.Item, name: str) -> bool:
    """True when the fixture ``name`` this test would get is the plugin's own and not set up for it yet.

    Then what it returns is built directly (``make_checker``, ``client_for``), as pytest would build
    it, without pytest's machinery for a fixture asked for by name (about a quarter of what a replayed
    test cost over one that checks nothing). A fixture the test asks for (or is parametrized with),
    one another fixture already asked for, and any override (a conftest's, a module's, a class's,
    another plugin's) go through pytest as before.
    """
    request = getattr(item, "_request", None)
    if name in getattr(item, "fixturenames", (name,)) or name in getattr(request, "_fixture_defs", (name,)):
        return False
    fixturedefs = item.session._fixturemanager.getfixturedefs(name, item) or ()
    return bool(fixturedefs) and fixturedefs[-1].func.__module__ == "pytest_citecheck.plugin"


def client_for(request: pytest.FixtureRequest) -> TypeSafeClient:
    """The ``citecheck_client`` fixture as this test sees it: the session's client when the fixture is
    the plugin's own (``plain_fixture``) and the session's client is set up, else through pytest.
    Asked once per checker, by one of the test's threads at a time (``threads.BUILDING``)."""
    with BUILDING:
        holder = request.config.stash.get(SESSION_CLIENT, None)
        if holder is not None and plain_fixture(request.node, "citecheck_client"):
            return holder.current()
        client: TypeSafeClient = built_with_a_key(request, "citecheck_client")
        return client


def make_checker(request: pytest.FixtureRequest) -> Checker:
    """The test's checker, built once and shared by the threads its body runs on (``threads.one_checker``)."""
    return one_checker(request.node, functools.partial(_new_checker, request))


def _new_checker(request: pytest.FixtureRequest) -> Checker:
    item = request.node
    redact_logs()  # before this test's checker asks anything, through whatever client it is given
    config = request.config
    settings = config.stash[SETTINGS]
    parts = _session_parts(config)
    marker_options, scope = parts.markers.settings_of(item)
    run, bookkeeping = session_plugins(config)
    path, shared = _cassette_of(item, marker_options, run, bookkeeping)
    mode = "rewrite" if path.exists() else "once"
    reporting = _Reporting(item, run, parts.reviews_path(item), scope)
    nodeid = item.nodeid
    checker = parts.checker_for(
        settings=settings,
        client_factory=lambda: client_for(request),
        async_client_factory=lambda: async_client_for(request),
        cassette=_cassette(item, path, settings, shared, parts),
        test_id=nodeid,
        record_hint=f"TYPESAFE_API_KEY=... pytest {shell_quote(nodeid)} --citecheck-record-mode={mode}",
        review_command=parts.review_command,
        on_result=reporting.on_result,
        review_actions={"xfail": functools.partial(_review_xfail, config), "skip": pytest.skip},
        marker_options=marker_options,
        marker_origin=functools.partial(marker_origin, item),
        hooks=config.hook,
        reviews=reporting.reviews,
        shared_answers=_shared_answers(config),
        pins_said=parts.pins_said,
        test_code=_test_code(item),
    )
    request.addfinalizer(functools.partial(_close, checker))
    return checker


def _test_code(item: pytest.Item) -> Any:
    """The code object of the test function (None for an item that has none, such as a doctest)."""
    function = getattr(item, "obj", None)
    return getattr(inspect.unwrap(function), "__code__", None) if callable(function) else None


def _review_xfail(config: pytest.Config, message: str) -> None:
    """review='xfail': the test xfails. Under ``--runxfail`` ``pytest.xfail()`` returns (pytest 8 and
    later) and the verdict below auto_accept would pass unreviewed: the test fails instead, as one not
    marked xfail would."""
    __tracebackhide__ = True
    if config.option.runxfail:
        raise AssertionError(
            f"{message}\nreview='xfail' under --runxfail: the test fails as if it were not marked xfail"
        )
    pytest.xfail(message)


def _close(checker: Checker) -> None:
    """At the test's end: save its cassette, then fail the test if a check it made never ran (an
    ``acheck`` / ``aassert_supported`` not awaited checked nothing: on its own the test would pass), or
    failed on another thread and never reached the test (a future nobody asked)."""
    checker.close()
    lines = checker.unawaited()
    lost = checker.lost()
    if lines:
        pytest.fail(
            "\n".join(f"{line}: its citations were not checked" for line in lines)
            + "\n-> await it: write await citecheck.aassert_supported(...) (or await citecheck.acheck(...)); "
            "from a sync test, run it with anyio.run(citecheck.aassert_supported, citations, source)",
            pytrace=False,
        )
    if lost:
        pytest.fail("\n".join(lost), pytrace=False)
