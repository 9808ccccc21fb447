"""The cost of being installed: ``pytest --collect-only`` over generated tests that check no citation.

Plugin enabled versus not, loaded the way an installed plugin is: pytest's plugin autoload finds
its ``pytest11`` entry point. Every other installed pytest plugin is blocked in both runs
(``-p no:NAME``, so it is never imported: hypothesis alone takes over a second), so the comparison
is against bare pytest; the run without ours blocks it too (``-p no:citecheck``), which is what a
user who did not install it runs, but for the plugin's metadata that pytest still reads (its entry
points and file list): that is measured on its own and counted against the plugin. Why not
``-p pytest_citecheck.plugin``: see "How each figure is measured" in ``bench/run.py``.

In the full run, where valgrind is installed, the figure is the ratio of the two runs' instruction
counts (callgrind, one run each, ``PYTHONHASHSEED=0``): the same on a loaded machine as on an idle
one, where a few percent of CPU time is within the noise of a shared machine. Otherwise
(``--quick``, or no valgrind), runs interleaved in pairs, and the median of the pairs' CPU time
ratios (each pair ran under the same load, so a machine whose load drifts during the run moves both
of a pair alike). The CPU times are reported either way. A separate run of the same tests reports
which heavy modules were imported when no citation was checked, and what the plugin sets up per
test (``--setup-show``).
"""

from __future__ import annotations

import functools
import re
import shutil
import statistics
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from bench.common import Measured, Row, clean_env, run_measured, secs

HEAVY = ("typesafe_sdk", "vcr", "yaml", "httpx2", "tenacity", "rapidfuzz", "pypdf")

CONFTEST = f"""
import sys

def pytest_sessionfinish(session):
    heavy = sorted(name for name in {HEAVY!r} if name in sys.modules)
    print("\\nHEAVY-MODULES:", ",".join(heavy) or "none")
    print("CITECHECK-LOADED:", "pytest_citecheck.plugin" in sys.modules)
    print("CITECHECK-IMPORTED:", "pytest_citecheck" in sys.modules)
"""


def write_suite(root: Path, tests: int) -> None:
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "conftest.py").write_text(CONFTEST)
    per_file = 100
    for file_number in range(0, tests, per_file):
        body = [
            f"def test_{n}():\n    assert {n} + 1 > {n}\n"
            for n in range(file_number, min(tests, file_number + per_file))
        ]
        (root / f"test_plain_{file_number // per_file}.py").write_text("\n".join(body))


ENTRY_POINT = "citecheck"  # our pytest11 entry point's name (pyproject.toml)
ENABLED: tuple[str, ...] = ()  # installed: autoload finds it
DISABLED = ("-p", f"no:{ENTRY_POINT}")
# Slower than bare pytest, as a fraction: the goal, and --quick's guard, generous for a loaded 2-core CI
# machine (interleaved CPU times of two short runs move by several percent from one run to the next).
GOAL, GUARD = 0.03, 0.20
# What pytest still reads of the plugin when it is blocked: its distribution's entry points and file
# list (``_mark_plugins_for_rewrite``). Finding it is not: pytest walks every distribution either way.
FIND_DISTRIBUTION = "import importlib.metadata as m; d = m.distribution('pytest-citecheck')"
METADATA_READ = FIND_DISTRIBUTION + "; d.entry_points; list(d.files or [])"


@functools.cache
def _other_plugins() -> tuple[str, ...]:
    """``-p no:NAME`` for every installed pytest plugin but ours: both runs are bare pytest but for it."""
    names = sorted({entry.name for entry in metadata.entry_points(group="pytest11")} - {ENTRY_POINT})
    return tuple(arg for name in names for arg in ("-p", f"no:{name}"))


def _env(**extra: str) -> dict[str, str]:
    env = clean_env(**extra)
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)  # autoload is how an installed plugin loads
    return env


def _pytest_command(*args: str) -> list[str]:
    """Bare pytest but for ours: every other installed plugin blocked, no cache written."""
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *_other_plugins(), *args]


def _pytest(root: Path, *args: str) -> Measured:
    return run_measured(_pytest_command(*args), root, _env())


def _callgrind(root: Path, command: list[str]) -> int | None:
    """Instructions ``command`` executes (callgrind, ``PYTHONHASHSEED=0``), or None without valgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    with tempfile.TemporaryDirectory() as out:
        measured = [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}/callgrind.out", *command]
        done = run_measured(measured, root, _env(PYTHONHASHSEED="0"))
    found = re.search(r"Collected : (\d+)", done.stderr)
    return int(found.group(1)) if found and done.returncode == 0 else None


def _instructions(root: Path, *args: str) -> int | None:
    """Instructions executed by ``pytest --collect-only``, or None without valgrind."""
    return _callgrind(root, _pytest_command("--collect-only", *args))


def _metadata_read(root: Path) -> int | None:
    """Instructions pytest spends on the plugin's metadata even when it is blocked (``METADATA_READ``)."""
    for code in (METADATA_READ, FIND_DISTRIBUTION):  # warm up: bytecode for what they import
        run_measured([sys.executable, "-c", code], root, _env())
    reading = _callgrind(root, [sys.executable, "-c", METADATA_READ])
    bare = _callgrind(root, [sys.executable, "-c", FIND_DISTRIBUTION])
    return None if reading is None or bare is None else max(0, reading - bare)


def run(tests: int, runs: int, count_instructions: bool = False, log: Any = print) -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_suite(root, tests)
        _pytest(root, "--collect-only", *ENABLED)  # warm up: bytecode and the OS file cache
        _pytest(root, "--collect-only", *DISABLED)
        enabled, disabled = [], []
        for _ in range(runs):
            enabled.append(_pytest(root, "--collect-only", *ENABLED))
            disabled.append(_pytest(root, "--collect-only", *DISABLED))
        full = _pytest(root, *ENABLED)
        blocked = _pytest(root, *DISABLED)
        ran, ran_bare = [], []  # the tests run, not only collected: what being loaded costs per test
        for _ in range(max(3, runs // 2)):
            ran.append(_pytest(root, *ENABLED))
            ran_bare.append(_pytest(root, *DISABLED))
        shown = _pytest(root, "--setup-show", "test_plain_0.py", *ENABLED)
        counted: tuple[int | None, int | None] = (None, None)
        metadata_read = None
        if count_instructions:
            counted = (_instructions(root, *ENABLED), _instructions(root, *DISABLED))
            metadata_read = _metadata_read(root)
    with_plugin = statistics.median(m.cpu for m in enabled)
    without = statistics.median(m.cpu for m in disabled)
    walls = (statistics.median(m.wall for m in enabled), statistics.median(m.wall for m in disabled))
    cpu_slower = statistics.median(on.cpu / off.cpu for on, off in zip(enabled, disabled)) - 1
    if counted[0] and counted[1] and metadata_read is not None:
        slower = (counted[0] + metadata_read) / counted[1] - 1
        figure = (
            f"{slower:+.1%} in instructions ({counted[0] / 1e6:,.0f} M + {metadata_read / 1e6:,.1f} M reading its "
            f"metadata vs {counted[1] / 1e6:,.0f} M)"
        )
    else:
        slower, figure = cpu_slower, f"{cpu_slower:+.1%} (median of {runs} pairs)"
    heavy = next(
        (line.split(":", 1)[1].strip() for line in full.stdout.splitlines() if line.startswith("HEAVY-MODULES:")), "?"
    )
    # Blocked, the plugin must not be imported at all, or the run without it is not bare pytest.
    loaded = "CITECHECK-LOADED: True" in full.stdout and "CITECHECK-IMPORTED: False" in blocked.stdout
    per_test_fixtures = [line for line in shown.stdout.splitlines() if "citecheck" in line and "SETUP" in line]
    log(
        f"collect: {figure}; enabled {secs(with_plugin)} CPU, disabled {secs(without)} ({cpu_slower:+.1%}); wall {secs(walls[0])} vs "
        f"{secs(walls[1])}; heavy modules after running: {heavy}; fixtures shown per test: {len(per_test_fixtures)}"
    )
    run_slower = statistics.median(on.cpu / off.cpu for on, off in zip(ran, ran_bare)) - 1
    log(
        f"run: {run_slower:+.1%} (median of {len(ran)} pairs); enabled {secs(statistics.median(m.cpu for m in ran))} CPU"
    )
    return [
        Row(
            f"Installed: pytest --collect-only, {tests:,} tests that check no citation, plugin vs bare pytest",
            f"{secs(with_plugin)} CPU ({secs(walls[0])} wall)",
            f"without the plugin {secs(without)} CPU ({secs(walls[1])} wall); CPU, median of {runs} pairs: "
            f"{cpu_slower:+.1%}",
            figure,
            f"≤ {GOAL:.0%} slower",
            slower <= GOAL,
            guard_ok=slower <= GUARD,
            guard=f"≤ {GUARD:.0%} slower",
            miss=f"{slower - GOAL:+.1%} over" if slower > GOAL else "",
        ),
        Row(
            f"Installed: pytest running {tests:,} tests that check no citation, plugin vs bare pytest",
            f"{secs(statistics.median(m.cpu for m in ran))} CPU ({secs(statistics.median(m.wall for m in ran))} wall)",
            f"without the plugin {secs(statistics.median(m.cpu for m in ran_bare))} CPU "
            f"({secs(statistics.median(m.wall for m in ran_bare))} wall)",
            f"{run_slower:+.1%} (median of {len(ran)} pairs)",
            f"≤ {GOAL:.0%} slower",
            run_slower <= GOAL,
            guard_ok=run_slower <= GUARD,
            guard=f"≤ {GUARD:.0%} slower",
            miss=f"{run_slower - GOAL:+.1%} over" if run_slower > GOAL else "",
        ),
        Row(
            "Installed: heavy modules imported when no citation is checked",
            heavy,
            f"plugin loaded by autoload: {'yes' if loaded else 'NO'}; set up per test: "
            + (", ".join(sorted({line.split()[-1] for line in per_test_fixtures})) or "nothing"),
            "",
            "none of " + ", ".join(HEAVY),
            heavy == "none" and loaded,
            guard_ok=heavy == "none" and loaded,
            guard="none",
            miss=f"imported {heavy}"
            if heavy != "none"
            else ("" if loaded else "the plugin was not loaded, or loaded when blocked"),
        ),
    ]
