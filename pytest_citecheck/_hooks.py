"""The running pytest session's hook callers, for the pytest-free modules that need them.

``Source.from_text(text, format="mine")`` in a test or a conftest has no pytest config at hand,
yet must reach a ``pytest_citecheck_split_sections`` hook implemented in a conftest. The plugin
installs the session's caller here when it is configured; this module stays import-free so that
doing so costs a suite that checks no citation nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

SplitHook = Callable[..., "Mapping[str, str] | None"]
split_sections: SplitHook | None = None


def set_split_hook(hook: SplitHook | None) -> SplitHook | None:
    """Install the caller of ``pytest_citecheck_split_sections``; returns the previous one."""
    global split_sections
    previous, split_sections = split_sections, hook
    return previous
