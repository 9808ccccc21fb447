"""What every part of the benchmark shares: timing by median, and a row of the results table."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


def median_seconds(action: Callable[[], object], runs: int) -> float:
    """The median wall time of ``runs`` calls of ``action``."""
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        timings.append(time.perf_counter() - started)
    return statistics.median(timings)


@dataclass
class Row:
    """One line of the table: what was measured, the figures, the goal and whether it was met."""

    measure: str
    ours: str
    reference: str
    ratio: str
    goal: str
    met: bool | None  # None: reported, no goal
    note: str = ""
    # For --quick: the generous bound this row must stay within (None: not guarded).
    guard_ok: bool | None = None
    guard: str = ""

    @property
    def status(self) -> str:
        if self.met is None:
            return "info"
        return "met" if self.met else "NOT MET"


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for a pytest subprocess: no TypeSafe settings from the developer's shell."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TYPESAFE_") and k != "PYTEST_ADDOPTS"}
    env.update(extra)
    return env


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def secs(seconds: float) -> str:
    return f"{seconds:,.3f} s"
