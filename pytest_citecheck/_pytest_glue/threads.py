"""What a test's threads share: its one checker, built once, and pytest's fixtures asked for one at a time.

A test's body may run on several threads at once (pytest-run-parallel's ``--parallel-threads``, or
the test's own ``ThreadPoolExecutor``), each calling a helper (``assert_citations_supported``) that
builds the test's checker on first use. Built twice, the test had two cassettes for one file, the
last saved replacing the other's answers; and pytest's fixture machinery (``getfixturevalue``),
which the checker's clients come from, is not made for two threads at once. So the checker is
built under one lock (``one_checker``: once per test, shared by its threads) and every fixture the
plugin asks pytest for by name is asked for under it (``fixture_value``). Loaded with ``fixtures``:
a test that uses nothing of ours never takes the lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from pytest_citecheck._pytest_glue.stash import CHECKER

if TYPE_CHECKING:
    from pytest_citecheck._check.checker import Checker

# Re-entrant: building a checker may ask pytest for a fixture (a conftest's ``citecheck`` that asks
# for the plugin's), on the same thread.
BUILDING = threading.RLock()
# Around what a result adds to the test's report rows and JUnit properties (``fixtures._Reporting``).
REPORTING = threading.Lock()


def one_checker(item: pytest.Item, build: Callable[[], Checker]) -> Checker:
    """The test's checker: the one already built, else ``build()``'s, built by one thread while the others wait."""
    existing: Checker | None = item.stash.get(CHECKER, None)
    if existing is not None:
        return existing
    with BUILDING:
        existing = item.stash.get(CHECKER, None)
        if existing is None:
            existing = item.stash[CHECKER] = build()
        return existing


def fixture_value(request: pytest.FixtureRequest, name: str) -> Any:
    """``request.getfixturevalue(name)``, one thread at a time: set up once, then pytest's cached value."""
    with BUILDING:
        return request.getfixturevalue(name)
