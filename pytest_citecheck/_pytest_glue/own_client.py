"""A conftest's own client fixture that typesafe-sdk would not build for want of a key: said as such.

typesafe-sdk builds no client without an API key, even one that only replays and so sends nothing.
The plugin's own clients pass a placeholder (``fixtures.REPLAY_ONLY_KEY``); a ``citecheck_client``
(or ``citecheck_async_client``) a user writes in ``conftest.py`` builds ``TypeSafeClient(...)`` as the
SDK's docs show, passes with the key on the machine it was written on, and fails in CI, which has
none, with the SDK's "No API key was provided" raised from deep in pytest's fixture machinery. Here
that refusal becomes a ``ClientUnavailableError`` naming the fixture, where it is defined, and the
one-line change that makes it replay. Any other error of the fixture is the user's own: left as it is.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_citecheck._check.wiring import refused_for_want_of_a_key
from pytest_citecheck._errors import ClientUnavailableError
from pytest_citecheck._pytest_glue.threads import fixture_value

REMEDY = (
    'pass api_key=os.environ.get("TYPESAFE_API_KEY") or "replay-only" where that fixture builds its client: '
    "a replay never sends it, and a record run still needs TYPESAFE_API_KEY set; or remove the fixture to use "
    "pytest-citecheck's own client"
)


def unavailable(request: pytest.FixtureRequest, name: str, error: BaseException) -> ClientUnavailableError:
    """The error a check fails with when the fixture ``name`` could not build its client (``error``)."""
    return ClientUnavailableError(
        f"the {name} fixture ({_defined_at(request, name)}) could not build its client: no TYPESAFE_API_KEY is "
        "set, and typesafe-sdk builds no client without a key, even to replay (which sends nothing) "
        f"({type(error).__name__}: {error})",
        REMEDY,
    )


def built_with_a_key(request: pytest.FixtureRequest, name: str, build: Callable[[], Any] | None = None) -> Any:
    """``build()`` (by default: the fixture ``name``, as this test gets it); typesafe-sdk's refusal to
    build a client for want of a key said as such (``ClientUnavailableError``)."""
    __tracebackhide__ = True
    try:
        return fixture_value(request, name) if build is None else build()
    except Exception as error:
        if not refused_for_want_of_a_key(error):
            raise
        # From None: the message says all of it; pytest's fixture frames and the SDK's would only bury it.
        raise unavailable(request, name, error) from None


def async_client_for(request: pytest.FixtureRequest) -> Any:
    """The ``citecheck_async_client`` fixture as this test sees it: a client, or a callable that builds one
    per ``acheck`` (called then, as the plugin's own is), its refusal for want of a key said when it builds."""
    late = _async_fixture_not_asked_for(request, "citecheck_async_client")
    if late is not None:
        raise late
    provided = built_with_a_key(request, "citecheck_async_client")
    if hasattr(provided, "system_one") or not callable(provided):
        return provided
    return lambda: built_with_a_key(request, "citecheck_async_client", provided)


def _async_fixture_not_asked_for(request: pytest.FixtureRequest, name: str) -> ClientUnavailableError | None:
    """An async fixture ``name`` of the user's that this test does not ask for: pytest-asyncio and anyio set
    one up before the test runs, on its loop; asked for by name from inside the running loop (where an
    ``acheck`` asks for it), it fails with "Runner.run() cannot be called from a running event loop" and a
    coroutine never awaited. Said before it is asked for, with the two ways that work."""
    if name in getattr(request.node, "fixturenames", ()):
        return None  # set up by pytest before the test ran, on the test's loop
    definition = _fixture_definition(request, name)
    if getattr(definition, "cached_result", None) is not None:
        return None  # of a wider scope, set up already for an earlier test that asked for it: pytest gives that
    function = _as_written(definition)
    if function is None or not (inspect.iscoroutinefunction(function) or inspect.isasyncgenfunction(function)):
        return None
    test = getattr(request.node, "originalname", None) or "test_..."
    return ClientUnavailableError(
        f"the {name} fixture ({_defined_at(request, name)}) is an async fixture, which is set up before the test "
        "runs, on its event loop, and only for a test that asks for it: this test does not, and the check cannot "
        "set it up from inside the running loop",
        f"ask for it in the test's arguments (async def {test}(citecheck, {name})), or make it a plain fixture "
        "that returns a callable building the client (return lambda: AsyncTypeSafeClient(api_key=..., "
        "compression=False))",
    )


def _fixture_definition(request: pytest.FixtureRequest, name: str) -> Any:
    """pytest's definition of the fixture ``name`` this test gets, or None."""
    try:
        return list(request.node.session._fixturemanager.getfixturedefs(name, request.node) or [])[-1]
    except (AttributeError, IndexError, TypeError):  # a fixture of an unusual kind
        return None


def _as_written(definition: Any) -> Any:
    """A fixture definition's function as its author wrote it: pytest-asyncio 1.0 wraps an async fixture's at
    collection (``functools.wraps``: a plain function whose ``__wrapped__`` is the async one), later ones at set-up."""
    function = getattr(definition, "func", None)
    try:
        return inspect.unwrap(function) if function is not None else None
    except ValueError:  # a cycle of __wrapped__: the function as it is
        return function


def _defined_at(request: pytest.FixtureRequest, name: str) -> str:
    """``conftest.py:12``: where the fixture this test gets is defined (relative to the rootdir), if it can be told."""
    code = getattr(_as_written(_fixture_definition(request, name)), "__code__", None)
    if code is None:
        return "defined in a conftest.py"
    path = Path(code.co_filename)
    root = request.config.rootpath
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    return f"{shown.as_posix()}:{code.co_firstlineno}"
