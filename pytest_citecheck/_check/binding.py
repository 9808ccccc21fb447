"""Which test is running: the getter of its checker, bound by the plugin for the session.

Its own small module, apart from ``api``: the plugin enters a session here when pytest is
configured, and a suite that checks no citation should not load the functions a test calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_citecheck._check.checker import Checker

current: Callable[[], Checker | None] | None = None
# Sessions with the plugin configured in this process (pytester runs one session inside another).
sessions = 0


def bind(getter: Callable[[], Checker | None] | None) -> None:
    """Called by the plugin when a session starts: how to get the running test's checker (None between tests)."""
    global current
    current = getter


def enter_session() -> Callable[[], Checker | None] | None:
    """Called when the plugin configures a session: no test is bound until one runs.

    Returns the binding of an enclosing session (an in-process pytester run), for ``leave_session``.
    """
    global current, sessions
    previous, current = current, None
    sessions += 1
    return previous


def leave_session(previous: Callable[[], Checker | None] | None) -> None:
    global current, sessions
    current = previous
    sessions -= 1
