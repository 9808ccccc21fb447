"""Which test is running, found when a helper asks (``assert_citations_supported``), not bound per test.

The plugin binds one getter for the whole session (``plugin.pytest_sessionstart``): nothing runs
for a test that never calls a helper, so a suite that checks no citation pays nothing per test. When
a helper is called, the running test is the item on top of pytest's setup stack (pushed before its
fixtures are set up, taken off before they are torn down), and its checker is the ``citecheck``
fixture as that test sees it (a conftest may override the clients it uses).

A fixture wider than the test (session, package, module, class) sees no test while it is set up:
what it checked would be recorded in whichever test happened to set it up first. That is read from
the call stack when a helper is called: the nearest ``pytest_fixture_setup`` hook call names the
fixture being set up (pluggy passes a hook's arguments by name, so ``fixturedef`` is its name in
every implementation).
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import TYPE_CHECKING

import pytest

# Loaded with this module: the first helper called in a test loads both, and needs both.
from pytest_citecheck._pytest_glue.fixtures import make_checker, plain_fixture
from pytest_citecheck._pytest_glue.threads import fixture_value

if TYPE_CHECKING:
    from pytest_citecheck._check.checker import Checker


def _in_wider_fixture_setup() -> bool:
    """True while a fixture wider than function scope is being set up, in this thread.

    The walk stops at the test's own call (``pytest_pyfunc_call``): a fixture set up above it is not
    what runs the code below it, and a helper called from a test's body need not walk the rest of
    pytest's stack (some thirty frames) to learn that.
    """
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_name
        if name == "pytest_fixture_setup":
            fixturedef = frame.f_locals.get("fixturedef")
            if fixturedef is not None:
                return getattr(fixturedef, "scope", "function") != "function"
        elif name == "pytest_pyfunc_call":
            return False
        frame = frame.f_back
    return False


def running_item(session: pytest.Session) -> pytest.Item | None:
    """The test being set up or run in ``session``, or None (collection, teardown, between tests)."""
    stack = getattr(getattr(session, "_setupstate", None), "stack", None)
    if not stack:
        return None
    node = next(reversed(stack))
    return node if isinstance(node, pytest.Item) else None


def running_checker(session: pytest.Session) -> Checker | None:
    """The running test's checker (the ``citecheck`` fixture, built on first use), or None when no test
    is running or a wider fixture is being set up (the helper then says it was called outside a test)."""
    item = running_item(session)
    request = getattr(item, "_request", None)
    if item is None or request is None or _in_wider_fixture_setup():
        return None
    if plain_fixture(item, "citecheck"):  # the plugin's own fixture: what it would return, built directly
        return make_checker(request)
    checker: Checker = fixture_value(request, "citecheck")  # one of the test's threads at a time
    return checker
