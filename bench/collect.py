"""The cost of being installed: ``pytest --collect-only`` over generated tests that check no citation.

Plugin enabled versus not, runs interleaved, medians compared. Other installed plugins
(hypothesis alone takes over a second to import) are kept out of both runs with
``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``, so the comparison is against bare pytest; the enabled run
loads ours with ``-p pytest_citecheck.plugin``, the other does not load it, like ``-p no:citecheck``. A separate run of
the same tests reports which heavy modules were imported when no citation was checked.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import Row, clean_env, secs

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


def _pytest(root: Path, *args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    started = time.perf_counter()
    done = subprocess.run(
        command, cwd=root, env=clean_env(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"), capture_output=True, text=True
    )
    return time.perf_counter() - started, done


def run(tests: int, runs: int, log: Any = print) -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_suite(root, tests)
        _pytest(root, "--collect-only", *ENABLED)
        _pytest(root, "--collect-only")
        enabled, disabled = [], []
        for _ in range(runs):
            enabled.append(_pytest(root, "--collect-only", *ENABLED)[0])
            disabled.append(_pytest(root, "--collect-only")[0])
        _, full = _pytest(root, *ENABLED)
    with_plugin, without = statistics.median(enabled), statistics.median(disabled)
    slower = with_plugin / without - 1
    heavy = next(
        (line.split(":", 1)[1].strip() for line in full.stdout.splitlines() if line.startswith("HEAVY-MODULES:")), "?"
    )
    loaded = "CITECHECK-LOADED: True" in full.stdout
    log(
        f"collect: enabled {secs(with_plugin)}, disabled {secs(without)} ({slower:+.1%}); heavy modules after running: {heavy}"
    )
    return [
        Row(
            f"Installed: pytest --collect-only, {tests:,} tests that check no citation",
            secs(with_plugin),
            f"without the plugin {secs(without)}",
            f"{slower:+.1%}",
            "≤ 5 % slower",
            slower <= 0.05,
            guard_ok=slower <= 0.5,
            guard="≤ 50 % slower",
        ),
        Row(
            "Installed: heavy modules imported after running those tests",
            heavy,
            f"plugin loaded: {'yes' if loaded else 'NO'}",
            "",
            "none of " + ", ".join(HEAVY),
            heavy == "none" and loaded,
            guard_ok=heavy == "none",
            guard="none",
        ),
    ]
