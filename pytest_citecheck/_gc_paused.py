"""Loading a large part of the plugin with Python's cyclic garbage collector paused: ``gc_paused``.

A run's first check loads about 130 of our modules, and the SDK with its pydantic models: tens of
thousands of objects that live as long as the run, and no garbage to speak of. Every few hundred of
them the collector starts, and its oldest generation walks every object the process holds (pytest's,
the tests'): a run replaying one test's citation spent 27-40 ms in collections, 9-13 ms with the loading
paused (``gc.callbacks``; ``bench``: replay against the dict floor). Paused, the objects are made the
same; what the loading leaves as garbage goes at the next collection after it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """The collector off inside, and back as it was found: a user who turned it off keeps it off.

    Two threads loading at once: the first out turns it back on while the other still loads, which
    costs that one a collection, nothing more.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
