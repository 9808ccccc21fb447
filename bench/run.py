"""Run the benchmark: ``python -m bench [--quick]`` or ``python bench/run.py [--quick]`` from the repo root.

The full run prints one table and writes ``docs/performance.md`` (the machine, the versions, the
command, the table). ``--quick`` is CI's regression guard: smaller inputs, only generous bounds
(step 1 ≥ 20x the cookbook, live ≥ 3x sequential, ...), exit status 1 when one is broken, and
nothing written.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
import warnings
from importlib import metadata
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` and the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import collect, corpus_step1, live, replay, step1
from bench.common import Row

REPO = Path(__file__).resolve().parent.parent
OUTPUT = REPO / "docs" / "performance.md"


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _versions() -> str:
    names = ("pytest-citecheck", "typesafe-sdk", "vcrpy", "httpx2", "pytest", "PyYAML", "rapidfuzz")
    found = []
    for name in names:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            pass
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "pytest_citecheck"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip()
        found.append(f"commit {commit}{' + uncommitted changes in pytest_citecheck/' if dirty else ''}")
    except OSError:
        pass
    return ", ".join(found)


def table(rows: list[Row]) -> str:
    lines = ["| measure | ours | reference | ratio | goal | status |", "|---|---|---|---|---|---|"]
    for row in rows:
        status = row.status + (f" ({row.note})" if row.note else "")
        cells = [row.measure, row.ours, row.reference, row.ratio, row.goal, status]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="CI mode: small inputs, generous bounds, exit 1 on a regression"
    )
    parser.add_argument("--output", type=Path, default=OUTPUT, help="where the full run writes its report")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    started = time.perf_counter()
    rows: list[Row] = []
    if args.quick:
        step_rows, facts = step1.run(step1.QUICK)
        rows += step_rows
        rows += live.run(count=32, latency=0.05, concurrency=8, runs=3)
        rows += replay.run(tests=10, per_test=5, runs=2)
        rows += collect.run(tests=400, runs=5)
    else:
        step_rows, facts = step1.run(step1.FULL)
        rows += step_rows
        rows += corpus_step1.run(corpus_step1.FULL)  # not in --quick: it builds 20 MB twice
        rows += live.run(count=64, latency=0.1, concurrency=8, runs=3)
        rows += replay.run(tests=100, per_test=5, runs=3)
        rows += collect.run(tests=2_000, runs=7)
    elapsed = time.perf_counter() - started
    print()
    print(table(rows), end="")
    print(f"\n({elapsed:.0f} s)")
    if args.quick:
        broken = [row for row in rows if row.guard_ok is False]
        for row in broken:
            print(f"REGRESSION: {row.measure}: {row.ratio or row.ours} (bound: {row.guard})", file=sys.stderr)
        return 1 if broken else 0
    write_report(args.output, rows, facts, elapsed)
    print(f"wrote {args.output}")
    return 0


def write_report(path: Path, rows: list[Row], facts: dict, elapsed: float) -> None:
    corpus = facts["corpus"]
    unmet = [row for row in rows if row.met is False]
    text = f"""# Performance

Written by `python -m bench` on {datetime.date.today().isoformat()} in {elapsed:.0f} s. Every figure is
a ratio of two things measured in the same run (the medians of several runs each), because the
machines this runs on are noisy; absolute times say little across machines.

- **Machine**: {_cpu()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, Python {platform.python_version()}
- **Versions**: {_versions()}
- **Reproduce**: `python -m bench` from the repository root (writes this file);
  `python -m bench --quick` is the CI guard (smaller inputs, generous bounds, exit 1 on a regression).
- **Step 1 corpus**: {corpus.characters:,} characters in {facts["sections"]:,} sections, read at bench time from
  {len(corpus.documents)} files on this machine (the repository's RFCs, Debian's licence texts,
  `/usr/share/doc`, then Python's standard library), cut on paragraph breaks into sections of about
  2,500 characters with ids `document.section`; quotes: {facts["quotes"]}.

{table(rows)}
## How each figure is measured

- **Step 1**: our `QuoteLocator` is built fresh and looks up every quote, offsets included. The
  baseline is the cookbook's `find_quote` word for word (re-normalise every section for every quote,
  numeric order); it is linear in the number of quotes, so it is timed on an evenly spread sample
  with the same mix of kinds and scaled to all quotes. The floor is the cookbook's `normalize` applied
  once to every section. Peak memory is tracemalloc's peak while building the locator and looking up
  every quote, against the corpus's UTF-8 size.
- **Live**: the real `Checker` records into a fresh cassette through the real SDK over loopback HTTP
  to `pytest_citecheck.testing.JevServer` with added latency, running in a process of its own
  (`python -m pytest_citecheck.testing`, as TypeSafe's API would not share the checker's GIL); the
  baseline is `concurrency=1`. The rate-limit run answers the first requests with 429 and
  `Retry-After`; it must pass.
- **Replay**: a generated suite run by pytest in a subprocess, recorded once, then replayed with no
  key and no network; the floor is the same suite with a `citecheck_client` whose
  `httpx2.MockTransport` answers from memory and no cassette, judging citations one after another as
  a replay does. Cassette loads are counted in a separate, untimed run.
- **Installed**: `pytest --collect-only` with `PYTEST_DISABLE_PLUGIN_AUTOLOAD=1` in both runs (so
  other plugins' import time does not dilute the figure), with `-p pytest_citecheck.plugin` versus
  without it.

## Goals not met
"""
    if not unmet:
        text += "\nNone: every goal above is met.\n"
    else:
        text += "\n" + "".join(
            f"- **{row.measure}**: {row.ratio or row.ours} against {row.goal}. {_gap(row)}\n" for row in unmet
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _gap(row: Row) -> str:
    """Why a goal can be missed, from what the code does (the figures above are the evidence)."""
    for needle, reason in GAPS:
        if needle in row.measure:
            return reason
    return ""


GAPS = (
    (
        "peak memory",
        "The locator keeps, for the whole source, the normalised text in blocks, its sparse map back to "
        "original offsets and a word index: that is what makes each lookup cheap.",
    ),
    (
        "cookbook's algorithm",
        "The baseline's cost grows with corpus size × quotes, ours with corpus size + quotes, so "
        "the ratio grows with the input; at this size building the locator (about one normalisation pass with offsets) "
        "dominates our time.",
    ),
    (
        "the floor",
        "Building the locator's offset map and word index costs more than the bare normalisation the floor does.",
    ),
    (
        "ideal",
        "The ideal counts only the server's latency; every request also pays the SDK, vcrpy recording and loopback "
        "HTTP on a 2-CPU machine, and the slowest request of each round sets the pace.",
    ),
    (
        "Replay:",
        "What replay adds over the floor is loading each test's cassette (YAML, once per test) and vcrpy's "
        "per-request matching; a run on a loaded machine can push it over.",
    ),
    (
        "collect-only",
        "What remains is about 20 µs per collected test for the autouse fixture through which "
        "`assert_citations_supported` finds the running test's checker with public pytest API (pytest computes every "
        "test's fixture closure with it), plus ~20 ms of imports (the options table). The alternative, reaching the "
        "test's request through `item._request`, is private pytest API; 2,000 tests that each take no time are the "
        "worst case, and in a real suite the cost is a fraction of a percent.",
    ),
    (
        "heavy modules",
        "A heavy dependency is imported when the plugin loads: keep it inside the function that needs it.",
    ),
    ("429", "The run failed instead of waiting: see `pytest_citecheck/_judge/retry.py`."),
)


if __name__ == "__main__":
    sys.exit(main())
