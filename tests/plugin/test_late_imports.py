"""Modules imported late (``_late_imports.loaded``) are imported one at a time, whatever thread asks.

A test that checks answers on several threads reaches the SDK shapes and the markup scanners from each
at once; two threads compiling pytest-rewritten modules at once can fail on CPython 3.11, so the first
import of each is made under one lock.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_citecheck import _late_imports
from pytest_citecheck._late_imports import loaded

# Each probe module notes when its import starts and ends, and takes a while: imported one at a time,
# the two spans do not overlap.
PROBE = """
import time
import late_probe_state as state

started = time.monotonic()
time.sleep(0.3)
state.spans["{name}"] = (started, time.monotonic())
"""

STATE = """
spans = {}
"""


@pytest.fixture
def probes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    (tmp_path / "late_probe_state.py").write_text(STATE)
    for name in ("late_probe_a", "late_probe_b"):
        (tmp_path / f"{name}.py").write_text(PROBE.format(name=name))
    (tmp_path / "late_probe_nested.py").write_text(
        "from pytest_citecheck._late_imports import loaded\n\nINNER = loaded('late_probe_state')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    for name in ("late_probe_state", "late_probe_a", "late_probe_b", "late_probe_nested"):
        sys.modules.pop(name, None)
        _late_imports._LOADED.discard(name)


@pytest.mark.usefixtures("probes")
def test_two_threads_importing_late_import_one_at_a_time() -> None:
    import late_probe_state as state

    start = threading.Barrier(2)
    modules = {}

    def load(name: str) -> None:
        start.wait()
        modules[name] = loaded(name)

    threads = [threading.Thread(target=load, args=(name,)) for name in ("late_probe_a", "late_probe_b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    (first, first_end), (second, second_end) = sorted(state.spans.values())
    assert first_end <= second, state.spans
    # Loaded once: asked again, the same module, from the set, not imported again.
    assert loaded("late_probe_a") is modules["late_probe_a"] is sys.modules["late_probe_a"]


@pytest.mark.usefixtures("probes")
def test_a_module_imported_late_may_import_another_late_on_the_same_thread() -> None:
    # On a thread of its own, joined with a time limit: with a lock that is not re-entrant the import
    # would wait on itself for ever: this test then fails where it stands rather than waits with it.
    found = {}
    thread = threading.Thread(target=lambda: found.update(nested=loaded("late_probe_nested")), daemon=True)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive(), "the nested late import waits on the lock its own thread holds"
    assert found["nested"].INNER is sys.modules["late_probe_state"]
