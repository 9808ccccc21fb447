"""Modules of ours imported late, where a check first needs them, from any thread: ``loaded``.

A check of plain citation dicts over a plain-text source never needs the modules that read each LLM
SDK's answers (``_citations.shapes``) or the scanners of Markdown and reStructuredText markup
(``_locate.display``), so they are imported the first time a check does. That may be on several
threads at once: a test that checks answers on a ``ThreadPoolExecutor`` runs its checks there. pytest
rewrites the asserts of a plugin's modules as it imports them, and two threads compiling at once can
fail on CPython 3.11 ("AST constructor recursion depth mismatch"; ``_recording.checking.import_for_threads``
avoids it for a request's threads). So the first import of each is made under one lock, one at a time
(the check machinery's too: ``plugin._load_check_machinery``); after it, a name is looked up in a set,
without the lock.
"""

from __future__ import annotations

import importlib
import sys
import threading
from types import ModuleType

# Re-entrant: a module imported under it may import another through ``loaded`` on the same thread.
_IMPORTING = threading.RLock()
_LOADED: set[str] = set()


def loaded(name: str) -> ModuleType:
    """The module ``name`` (``pytest_citecheck._citations.shapes``), imported under the lock the first time."""
    if name in _LOADED:
        module = sys.modules.get(name)
        if module is not None:
            return module
    with _IMPORTING:
        module = importlib.import_module(name)
        _LOADED.add(name)
        return module
