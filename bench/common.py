"""What every part of the benchmark shares: timing by median, measured subprocesses, a row of the table.

Subprocesses are measured with ``os.wait4``, which gives that one child's CPU time (user + system).
CPU time is what the goals are judged on where a subprocess is compared with another: the
machines this runs on are shared, and a neighbour's load inflates wall time at random but barely
moves CPU time. Wall time is reported next to it. Peak memory is reported by the child itself
(``PEAK_RSS``, printed when it ends): on Linux a child's ``ru_maxrss`` starts at its parent's size.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# Python's compiled bytecode, kept for the whole bench run outside the repository: a user's
# machine caches it, so a run that recompiled every module (PYTHONDONTWRITEBYTECODE, set on some
# CI and sandbox machines) would charge import time that nobody pays.
_BYTECODE = tempfile.mkdtemp(prefix="citecheck-bench-pyc-")
atexit.register(shutil.rmtree, _BYTECODE, ignore_errors=True)


# Code for a child process to print its own peak resident memory when it ends (VmHWM on Linux).
PEAK_RSS = """
def _print_peak_rss():
    size = None
    try:
        with open("/proc/self/status") as status:
            size = next((int(line.split()[1]) for line in status if line.startswith("VmHWM:")), None)
    except OSError:
        pass
    if size is None:
        import resource, sys
        size = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // (1024 if sys.platform == "darwin" else 1)
    print("\\nPEAK-RSS-KB:", size, flush=True)
"""
_PEAK = re.compile(r"^PEAK-RSS-KB: (\d+)$", re.MULTILINE)


@dataclass
class Measured:
    """One subprocess: its wall and CPU seconds, its peak resident memory, what it printed."""

    wall: float
    cpu: float
    max_rss: int  # bytes
    returncode: int
    stdout: str
    stderr: str


def run_measured(command: list[str], cwd: Path, env: dict[str, str]) -> Measured:
    """Run ``command`` to completion and measure that one process (``os.wait4``, not the children's totals)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
        reported = _PEAK.findall(stdout)
        # ru_maxrss (kilobytes on Linux, bytes on macOS) only when the child reported nothing.
        peak = int(reported[-1]) * 1024 if reported else usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
        return Measured(wall, usage.ru_utime + usage.ru_stime, peak, process.returncode, stdout, stderr)


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
    # For --quick: the bound this row must stay within (None: not guarded), written next to the goal.
    guard_ok: bool | None = None
    guard: str = ""
    # How far outside the goal (or the guard) a miss is, in the goal's own terms: "+0.4 ms per citation".
    miss: str = ""

    @property
    def status(self) -> str:
        if self.met is None:
            return "info"
        return "met" if self.met else "NOT MET"


def at_most_row(measure: str, ours: str, reference: str, ratio: float, goal: float, guard: float) -> Row:
    """A row whose goal is a ratio of at most ``goal`` (``guard`` for --quick), shown as ``1.23x``."""
    return Row(
        measure,
        ours,
        reference,
        f"{ratio:.2f}x",
        f"≤ {goal}x",
        ratio <= goal,
        guard_ok=ratio <= guard,
        guard=f"≤ {guard}x",
        miss=f"{ratio - goal:+.2f}x" if ratio > goal else "",
    )


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for a pytest subprocess: no TypeSafe settings from the developer's shell, bytecode cached."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TYPESAFE_") and k not in {"PYTEST_ADDOPTS", "PYTHONDONTWRITEBYTECODE"}
    }
    env["PYTHONPYCACHEPREFIX"] = _BYTECODE
    env.update(extra)
    return env


def spread(values: list[float], unit: str, *, scale: float = 1.0, digits: int = 2) -> str:
    """How far a figure moved from run to run: ``each of 7 runs alone: 1.04x to 1.37x``.

    Printed next to a figure whose goal it is near, so that a reader can tell a goal missed from a
    run that a neighbour on the machine slowed down."""
    low, high = min(values) * scale, max(values) * scale
    return f"each of {len(values)} runs alone: {low:.{digits}f}{unit} to {high:.{digits}f}{unit}"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.2f} ms"


def secs(seconds: float) -> str:
    return f"{seconds:,.3f} s"


def megabytes(size: float) -> str:
    return f"{size / 1e6:,.1f} MB"
