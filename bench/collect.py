"""The cost of being installed: ``pytest --collect-only`` over generated tests that check no citation.

Plugin enabled versus not. In the full run, where valgrind is installed, the figure is the ratio
of the two runs' instruction counts (callgrind, one run each, ``PYTHONHASHSEED=0``): the same on a
loaded machine as on an idle one, where a few percent of CPU time is within the noise of a shared
machine. Otherwise (``--quick``, or no valgrind), runs interleaved in pairs, and the median of the
pairs' CPU time ratios (each pair ran under the same load, so a machine whose load drifts during
the run moves both of a pair alike). The CPU times are reported either way. Other installed plugins
(hypothesis alone takes over a second to import) are kept out of both runs with
``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``, so the comparison is against bare pytest; the enabled run
loads ours with ``-p pytest_citecheck.plugin``, the other does not load it, like ``-p no:citecheck``.
A separate run of the same tests reports which heavy modules were imported when no citation was
checked, and what the plugin sets up per test (``--setup-show``).
"""

from __future__ import annotations

import re
import shutil
import statistics
import sys
import tempfile
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


ENABLED = ("-p", "pytest_citecheck.plugin")
GOAL, GUARD = 0.03, 0.10  # slower than bare pytest, as a fraction


def _pytest(root: Path, *args: str) -> Measured:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    return run_measured(command, root, clean_env(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"))


def _instructions(root: Path, *args: str) -> int | None:
    """Instructions executed by ``pytest --collect-only`` (callgrind), or None without valgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    with tempfile.TemporaryDirectory() as out:
        command = [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}/callgrind.out"]
        command += [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only", *args]
        done = run_measured(command, root, clean_env(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONHASHSEED="0"))
    found = re.search(r"Collected : (\d+)", done.stderr)
    return int(found.group(1)) if found and done.returncode == 0 else None


def run(tests: int, runs: int, count_instructions: bool = False, log: Any = print) -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_suite(root, tests)
        _pytest(root, "--collect-only", *ENABLED)  # warm up: bytecode and the OS file cache
        _pytest(root, "--collect-only")
        enabled, disabled = [], []
        for _ in range(runs):
            enabled.append(_pytest(root, "--collect-only", *ENABLED))
            disabled.append(_pytest(root, "--collect-only"))
        full = _pytest(root, *ENABLED)
        shown = _pytest(root, "--setup-show", "test_plain_0.py", *ENABLED)
        counted = (None, None)
        if count_instructions:
            counted = (_instructions(root, *ENABLED), _instructions(root))
    with_plugin = statistics.median(m.cpu for m in enabled)
    without = statistics.median(m.cpu for m in disabled)
    walls = (statistics.median(m.wall for m in enabled), statistics.median(m.wall for m in disabled))
    cpu_slower = statistics.median(on.cpu / off.cpu for on, off in zip(enabled, disabled)) - 1
    if counted[0] and counted[1]:
        slower = counted[0] / counted[1] - 1
        figure = f"{slower:+.1%} in instructions ({counted[0] / 1e6:,.0f} M vs {counted[1] / 1e6:,.0f} M)"
    else:
        slower, figure = cpu_slower, f"{cpu_slower:+.1%} (median of {runs} pairs)"
    heavy = next(
        (line.split(":", 1)[1].strip() for line in full.stdout.splitlines() if line.startswith("HEAVY-MODULES:")), "?"
    )
    loaded = "CITECHECK-LOADED: True" in full.stdout
    per_test_fixtures = [line for line in shown.stdout.splitlines() if "citecheck" in line and "SETUP" in line]
    log(
        f"collect: {figure}; enabled {secs(with_plugin)} CPU, disabled {secs(without)} ({cpu_slower:+.1%}); wall {secs(walls[0])} vs "
        f"{secs(walls[1])}; heavy modules after running: {heavy}; fixtures shown per test: {len(per_test_fixtures)}"
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
            "Installed: heavy modules imported when no citation is checked",
            heavy,
            f"plugin loaded: {'yes' if loaded else 'NO'}; set up per test: "
            + (", ".join(sorted({line.split()[-1] for line in per_test_fixtures})) or "nothing"),
            "",
            "none of " + ", ".join(HEAVY),
            heavy == "none" and loaded,
            guard_ok=heavy == "none" and loaded,
            guard="none",
            miss=f"imported {heavy}" if heavy != "none" else ("" if loaded else "the plugin was not loaded"),
        ),
    ]
