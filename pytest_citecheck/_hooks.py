"""What the running pytest session hands the pytest-free modules: its hook callers, and the running test.

``Source.from_text(text, format="mine")`` in a test or a conftest has no pytest config at hand,
yet must reach a ``pytest_citecheck_split_sections`` hook implemented in a conftest. The plugin
installs the session's caller here when it is configured.

``assert_citations_supported`` (``_check.api``) finds the running test's checker through the getter
the plugin binds here when a session starts (``bind_checker``); ``sessions`` counts the sessions
with the plugin configured in this process (pytester runs one session inside another).

This module stays import-free, and holds both, so that doing so costs a suite that checks no
citation nothing: pytest loads it with the plugin in every run (one module: each module of ours
that a run loads costs it about 0.8 M instructions through pytest's assertion rewriting).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_citecheck._check.checker import Checker

SplitHook = Callable[..., "Mapping[str, str] | None"]
split_sections: SplitHook | None = None


def set_split_hook(hook: SplitHook | None) -> SplitHook | None:
    """Install the caller of ``pytest_citecheck_split_sections``; returns the previous one."""
    global split_sections
    previous, split_sections = split_sections, hook
    return previous


# The running test's checker (None between tests), from the getter the plugin bound for the session.
checker_getter: Callable[[], Checker | None] | None = None
sessions = 0


def bind_checker(getter: Callable[[], Checker | None] | None) -> None:
    """Called by the plugin when a session starts: how to get the running test's checker (None between tests)."""
    global checker_getter
    checker_getter = getter


def enter_session() -> Callable[[], Checker | None] | None:
    """Called when the plugin configures a session: no test is bound until one runs.

    Returns the binding of an enclosing session (an in-process pytester run), for ``leave_session``.
    """
    global checker_getter, sessions
    previous, checker_getter = checker_getter, None
    sessions += 1
    return previous


def leave_session(previous: Callable[[], Checker | None] | None) -> None:
    global checker_getter, sessions
    checker_getter = previous
    sessions -= 1
