"""Run the benchmark: ``python -m bench [--quick]`` or ``python bench/run.py [--quick]`` from the repo root.

The full run prints one table and writes ``docs/performance.md`` (the machine, the versions, the
commit, the goals with their guard margins, the table). ``--quick`` is CI's regression guard:
smaller inputs, the same goals, and exit status 1 when a goal is missed by more than its guard
margin, naming the goal and by how much; nothing is written.
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
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` and the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import at_scale, collect, corpus_step1, limits, live, replay, report_html, step1
from bench.common import Row, megabytes

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


def _load() -> str:
    try:
        return ", ".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def _versions() -> str:
    names = ("pytest-citecheck", "typesafe-sdk", "vcrpy", "httpx2", "pytest", "PyYAML", "rapidfuzz")
    found = []
    for name in names:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            pass
    return ", ".join(found)


def _commit() -> str:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "pytest_citecheck", "bench"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "unknown"
    return f"{commit or 'unknown'}{' + uncommitted changes in pytest_citecheck/ or bench/' if dirty else ''}"


def table(rows: list[Row]) -> str:
    lines = [
        "| measure | ours | reference | ratio | goal | guard (`--quick`) | status |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        status = row.status + (f" ({row.note})" if row.note else "")
        cells = [row.measure, row.ours, row.reference, row.ratio, row.goal, row.guard or "–", status]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"


def regressions(rows: list[Row]) -> list[str]:
    """One line per goal missed by more than its guard margin: which goal, and by how much."""
    return [
        f"REGRESSION: {row.measure}: {row.ratio or row.ours}; goal {row.goal}"
        + (f", missed by {row.miss}" if row.miss else "")
        + f"; outside its guard margin ({row.guard})"
        for row in rows
        if row.guard_ok is False
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="CI mode: small inputs, exit 1 when a goal is missed beyond its guard"
    )
    parser.add_argument("--output", type=Path, default=OUTPUT, help="where the full run writes its report")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    started = time.perf_counter()
    load_before = _load()
    print("goals are ratios against floors measured in this run; absolute times are information only")
    rows: list[Row] = []
    if args.quick:
        step_rows, facts = step1.run(step1.QUICK)
        rows += step_rows
        rows += replay.run(per_test=(5, 100, 500), runs=3)
        rows += live.run(count=32, latency=0.05, concurrency=8, runs=3)
        rows += limits.run(citations=400)
        rows += report_html.run(citations=20_000)
        rows += at_scale.run(at_scale.QUICK)
        rows += collect.run(tests=2_000, runs=9, count_instructions=True)
    else:
        step_rows, facts = step1.run(step1.FULL)
        rows += step_rows
        rows += corpus_step1.run(corpus_step1.FULL)  # not in --quick: it builds 20 MB twice
        rows += replay.run(per_test=(5, 200, 2_000), runs=5)
        rows += live.run(count=64, latency=0.1, concurrency=8, runs=3)
        rows += limits.run(citations=2_000)
        rows += report_html.run(citations=20_000)
        rows += at_scale.run(at_scale.FULL)
        rows += collect.run(tests=2_000, runs=5, count_instructions=True)
    elapsed = time.perf_counter() - started
    print()
    print(table(rows), end="")
    print(f"\n({elapsed:.0f} s; load average {load_before} before, {_load()} after)")
    missed = [row for row in rows if row.met is False]
    for row in missed:
        print(
            f"goal missed: {row.measure}: {row.ratio or row.ours}; goal {row.goal}"
            + (f", missed by {row.miss}" if row.miss else "")
        )
    if args.quick:
        broken = regressions(rows)
        for line in broken:
            print(line, file=sys.stderr)
        return 1 if broken else 0
    write_report(args.output, rows, facts, elapsed, load_before)
    print(f"wrote {args.output}")
    return 0


def write_report(path: Path, rows: list[Row], facts: dict[str, Any], elapsed: float, load: str) -> None:
    corpus, large = facts["corpus"], facts["large"]
    unmet = [row for row in rows if row.met is False]
    text = f"""# Performance

Written by `python -m bench` at commit {_commit()}, on {datetime.date.today().isoformat()}, in
{elapsed:.0f} s. Every figure is a ratio of two things measured in the same run (the medians of
several runs each) against a floor measured in the same run, because the machines this runs on are
noisy; absolute times say little across machines, and are given as information only. Where a subprocess is compared with another, the figures are CPU time (user + system, of
that process: `os.wait4`): a shared machine's neighbours inflate wall time at random and CPU time
much less. Wall time is shown next to it.

- **Machine**: {_cpu()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, Python {platform.python_version()}; load average {load} when the run started
- **Versions**: {_versions()}
- **Reproduce**: `python -m bench` from the repository root (writes this file);
  `python -m bench --quick` is the CI guard: smaller inputs, the same ratios with generous
  bounds (the `guard` column), and exit status 1 when one is missed, naming it and by how much.
  The bounds allow for a loaded 2-CPU CI machine (a difference of two CPU times moves by tens of
  percent from one run to the next there): they catch a regression, not a goal missed by a little,
  which is printed but does not fail CI.
- **Floors**, each measured in the same run as the figure it judges: a true no-op (the same tests
  with the check replaced by a function that does nothing, with no cassettes in reach); the same
  SDK requests answered from a dict keyed by the request body's digest (replay's floor); plain
  vcrpy with the SDK (what a user would write without us); a plain fold and lookup (step 1's
  floor); bare pytest (collection). **Absolute times** (per citation, per test, `closest()` per
  quote) are information only: they are not goals, and nothing scales them.
- **Step 1 corpus**: generated by `bench/corpus.py` from the repository's RFCs and licence texts
  (a word-level Markov chain with a fixed seed: the same text on every machine), {corpus.characters:,}
  characters ({megabytes(corpus.bytes)} UTF-8) in {facts["sections"]:,} sections of about 2,500
  characters, {corpus.non_ascii_sections:,} of them non-ASCII (curly quotes, dashes, `…`, non-breaking
  spaces, ligatures, soft hyphens, sentences in seven scripts), most wrapped like an RFC with
  compounds broken at their hyphen; {megabytes(large.bytes)} for the size and `Corpus` rows.
  Quotes: {facts["quotes"]["found"]:,} found (perturbed), {facts["quotes"]["missing"]:,} fabricated.

{table(rows)}
## How each figure is measured

- **Step 1**: as the checker runs it (`_locate/citations.py`): a fresh `QuoteLocator`, `find` for
  every quote (offsets included), and for every quote that is not there `closest` and the search
  across the section borders next to it (`find_spanning`): the fabricated quote's diagnostic is
  always computed. Found quotes are spans of a section's original text, cut
  at word boundaries or inside a hyphenated word, then re-wrapped, re-spaced, their quotes curled
  or straightened and their dashes swapped; fabricated ones are spans with one word changed,
  absent from every section by their letters and digits. The floor is a plain fold and lookup: every
  section folded once, `" ".join(text.translate(FOLD_TABLE).split())`, then each quote folded the
  same way and looked up with `in` in the folded sections in order; it finds fewer quotes (the
  row says how many). Answers are
  checked by letters and digits (not by the locator's normalisation): the section a quote was cut
  from or an earlier one holding the same letters, a passage with the quote's letters, and no
  fabricated quote found. The cookbook's `find_quote` (word for word) is timed on an evenly spread
  sample and scaled.
- **`closest()`**: per fabricated quote, after the locator is built, at 5 MB and 20 MB.
- **A long fabricated quote**: `closest()` of one of 12,000 characters vs one of 3,000 (its words shuffled) in a
  section of 200,000: 16x is quadratic growth, 64x cubic.
- **`Corpus`** (full run only, `bench/corpus_step1.py`): the 20 MB text grouped into a
  `pytest_citecheck.Corpus` of 1,000 documents, each citation naming its document (a share of them
  misattributed on purpose, another section or another document), through the plugin's real step 1
  (`locate_all`: validation, search in the cited place then beyond, closest passage, size checks),
  against the same citations over one `Source` of the whole text; both built fresh in the timing.
  CPU time of this process, the two timed in turn seven times (medians), garbage collected before each;
  each run's own ratio is shown beside it (from the lowest to the highest), since a neighbour on a
  shared machine slows one run now and then.
- **Memory**: peak RSS of a process that reads the corpus and runs step 1, against a process that
  reads it and folds it once (`os.wait4`'s `ru_maxrss`).
- **Replay** (`bench/replay.py`): generated suites (RFC 7519's sentences as quotes), recorded once
  against the Jev-compatible loopback server, each run by pytest four ways, runs interleaved, each
  in a directory of its own: ours with `--citecheck-record-mode=none`, no key and no network; the
  true no-op (the check replaced by a function that does nothing, no cassettes in reach); the dict
  floor (the cookbook's `system_one` request per citation through typesafe-sdk, its section looked
  up in a dict, answered by an `httpx2` transport from a dict keyed by the digest of the request
  body, built from our recorded answers: the floor goes through the SDK's retry loop and httpx2's client to that transport, where
  replay answers inside the SDK's send, before its retry loop and before httpx2 builds the request, so that part of the work
  per request is in the floor and not in replay); plain vcrpy, at the fewest citations per test (the same SDK requests in a
  `vcr.use_cassette` per test, vcrpy's YAML and default matching on method, path and body, recorded
  once). Each way's cost is its CPU time minus the no-op's; the goals are replay's cost over the
  dict floor's (at 5 and at 200 citations per test, as issue 27 sets them; all in one test is shown
  as information) and over vcrpy's. The same number of citations is replayed at three numbers per
  test, and once more one to a test (replay, no-op and dict floor): the cost per test is the slope of the
  four costs over the no-op against their numbers of tests, which runs from one test to as many
  tests as citations; the goal is judged on the medians, and the slope fitted from each timed run alone
  (the n-th run of every shape) is shown beside it, lowest to highest. The dict floor's own slope, fitted alike, is shown beside it as information:
  the SDK's request, made in more tests, pays per test too (what pytest runs between two tests
  leaves its code and data cold). Peak memory is RSS for the one-test suite. Cassette loads are counted in a separate run.
- **Memory held per citation** (`bench/replay.py`): the replay suite with the fewest citations per
  test, run once more as ours and once more as the no-op, untimed (tracemalloc slows a run several
  times over), with tracemalloc on from start-up (`PYTHONTRACEMALLOC`). The generated `conftest.py`
  garbage collects and reads the Python memory still allocated after a warm-up (a fifth of the tests,
  and at least 200 citations: past the caches of bounded size, such as the 128 parsed request bodies
  replay keeps) and again after the last test. The figure is what replay's run grew by between the
  two, minus what the no-op's grew by, over the citations in between: the rows, test reports and
  bookkeeping a run keeps per citation to its end. What a run holds once (the modules replay imports,
  and the caches) is left out of the figure and shown beside it, as the difference at the
  end of the two runs.
- **Reports written as a stream**: the same replay suite, run as ours with `--citecheck-json` and
  `--citecheck-html` and without, interleaved, three times each, untimed; the figure is the ratio of
  their median peak RSS (reported by the process itself). At 2,000 citations the reports are about
  6 MB, and a report whose text was held whole would add as much or more. In `--quick` (500
  citations) a text held whole adds less than the goal's 10%, so the guard there is how much the
  peak rose against the size of the reports written: a stream keeps it far below half of it.
- **pytest's cache**: every timed run above is made with `-p no:cacheprovider` (pytest's cache plugin
  off on both sides), which users have on. The replay suite and the no-op, each with the cache on and off,
  interleaved; the figure is what the cache adds to replay minus what it adds to the no-op (pytest's own
  files): the last report, which the plugin keeps in the cache after every run for `citecheck review`
  (a row to a line, written by the json module's C encoder). Information, as a share of replay's cost.
- **Live**: the real `Checker` records into a fresh cassette through the real SDK over loopback HTTP
  to `pytest_citecheck.testing.JevServer` with added latency, running in a process of its own; the
  baseline is `concurrency=1`. The rate-limit run answers the first requests with 429 and
  `Retry-After`; it must pass.
- **Within limits** (`bench/limits.py`): a suite re-recorded (`--citecheck-record-mode=rewrite`) on four
  xdist workers against `JevServer` enforcing a scaled-down limit (3,000 requests a minute, a burst of
  8, 429 beyond), with the plugin configured to it. The ideal is the limit's: 8 requests at once, then
  one every 20 ms; the measure is the server's first arrival to its last (starting the workers is not
  the limiter's). The server must refuse nothing.
- **HTML report** (`bench/report_html.py`): `write_html` of 20,000 citations shaped like the RFC 7519
  example's (its claims, each quoting a hundred characters of one of RFC 7519's sections, five to a
  test, its mix of verdicts); the goal is the file's size per citation (each section text is stored
  once). How long headless Chromium (Debian's `chromium` and `chromium-driver`, Selenium) takes to
  open it and draw page 1 is information: the median of three loads after a first one.
- **At scale** (`bench/at_scale.py`): what a run does for each citation apart from checking it, in
  one process, at 10,000 and at 100,000 citations (`--quick`: 2,000 and 20,000), rows shaped as the
  HTML report's: the citation's lookup in a reviews file that decides a tenth of them (a third of
  those under an older key, so the stale-decision path is taken), the rows taken into the run's
  report, the terminal summary and the JSON report written as a stream. The goal is the CPU time per
  citation at the larger size over the smaller (median of three each): work that compared rows with
  decisions, or rows with rows, would make it about ten times larger. The bound is 1.5x: Python's
  cyclic garbage collector walks every object the run holds in each full pass, and a larger heap
  misses the CPU's caches more (1.08x with the collector off, 1.18x to 1.31x with it on).
- **Installed**: `pytest --collect-only`, and a plain run, of 2,000 trivial tests, the plugin loaded as an installed plugin is (pytest's
  autoload finds its `pytest11` entry point), against the same run with it blocked
  (`-p no:citecheck`, so it is never imported); every other installed pytest plugin is blocked in
  both runs, so the comparison is against bare pytest. What pytest still reads of a blocked plugin
  (its entry points and file list) is measured on its own and added to the plugin's side. Where
  valgrind is installed, the figure is the ratio of instructions executed (callgrind,
  `PYTHONHASHSEED=0`), in the full run and in `--quick`, which a shared machine's load does not move (the CPU
  time of one command moves by 10-30% from run to run there); the CPU time of interleaved
  pairs is shown beside it, and is the figure only without valgrind. Then one full run of the same tests
  for the modules it imported, and `--setup-show` for what it sets up per test. (Earlier versions of this
  benchmark loaded the plugin with `-p pytest_citecheck.plugin` under `PYTEST_DISABLE_PLUGIN_AUTOLOAD`,
  which also charged it for pytest looking that name up among every installed distribution's entry
  points: about 28 M instructions that an installed plugin never costs.)

## Goals not met
"""
    if not unmet:
        text += "\nNone: every goal above is met.\n"
    else:
        text += "\n" + "".join(
            f"- **{row.measure}**: {row.ratio or row.ours} against {row.goal}"
            + (f" (missed by {row.miss})" if row.miss else "")
            + f". {_gap(row)}\n"
            for row in unmet
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
        "dict floor",
        "What replay adds beyond the SDK's own request and answer: reading the cassette (YAML) and its "
        "index, matching, the checker's step 1, the result, report row and review key, per test and per citation.",
    ),
    (
        "vcrpy",
        "Plain vcrpy scans a cassette's interactions for each request; ours indexes them once per cassette.",
    ),
    (
        "linear",
        "A citation's cost grows with the citations of its test: something is walked once per citation.",
    ),
    (
        "Step 1:",
        "Normalising costs about one fold; the rest is the word index (one set of words per 16 KiB "
        "block), the offsets of each section a quote is found in, and the lookups.",
    ),
    (
        "`closest()`",
        "The quote's halves and thirds are searched in at most 10 blocks, and three places aligned "
        "with rapidfuzz; a long quote makes each alignment dearer (past 1,000 characters, quadratically).",
    ),
    ("Corpus", "Each document's locator is built when a quote first names the document."),
    (
        "per test over the no-op",
        "What a test costs apart from its citations: finding its checker and cassette path, reading and checking "
        "its cassette file, the check's fixed work (adapting the list, setting up step 1, the results), its "
        "report hooks, and the SDK's own request run cold after what pytest does between two tests (the dict "
        "floor's own per-test slope is shown beside the figure). Each is tens of microseconds; none is most of it.",
    ),
    (
        "xdist",
        "xdist's own cost (starting the workers, collecting again in each, their reports: the no-op under -n 2 "
        "against serial, in the row) takes more than half of what splitting replay's work saves on two CPUs, "
        "and each worker imports the SDK again. The best -n 2 could reach here is in the row: 0.7x needs a suite "
        "whose serial run is several times xdist's own cost.",
    ),
    (
        "cookbook's algorithm",
        "The baseline's cost grows with corpus size × quotes, ours with corpus size + quotes.",
    ),
    (
        "ideal",
        "The ideal counts only the server's latency; every request also pays the SDK, vcrpy recording and loopback "
        "HTTP on a 2-CPU machine, and the slowest request of each round sets the pace.",
    ),
    (
        "tests that check no citation",
        "Nearly all of it is paid once per run, none per test but a dict entry at the end of collection (which "
        "modules were collected, to look for cassettes beside them): importing the 10 modules the plugin needs at "
        "start-up (`START_UP` in tests/plugin/test_import_cost.py), pytest registering its 29 options and ini keys, "
        "its hooks, hook specifications and fixtures, and pytest reading the installed plugin's file list (about "
        "9 M instructions after `pip install`, which records each module's bytecode too). "
        "The session's report and recording bookkeeping (`_pytest_glue.session`), the functions a test calls and the log "
        "redaction load only in a run that checks a citation, writes a report or has cassettes. An installed "
        "plugin's modules are imported through pytest's assertion rewriting, whose cache reader (`_read_pyc`: it "
        "hashes the source, then `marshal.load` reads the code object from the file object a piece at a time) costs "
        "about twice Python's own import of them (about 0.8 M instructions for each module, however small, and "
        "as much again per 5 KB of bytecode); `_options` (its named tuples and `Literal`s), `_errors` (twelve "
        "exception classes), `_verdicts` (two enums) and `plugin` are most of what is left.",
    ),
    (
        "heavy modules",
        "A heavy dependency is imported when the plugin loads: keep it inside the function that needs it.",
    ),
    ("429", "The run failed instead of waiting: see `pytest_citecheck/_judge/retry.py`."),
)


if __name__ == "__main__":
    sys.exit(main())
