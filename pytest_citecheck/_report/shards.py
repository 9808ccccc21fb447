"""``citecheck merge``: one report and one summary from the JSON reports of a suite split over CI machines.

Each shard runs ``pytest --citecheck-json=shard-N.json``; the merged report holds every shard's
rows (and unused recordings and orphans), and the summary printed is the one a single run of the
whole suite prints. Every row must name its test (a row without one cannot be attributed). A
citation that more than one report holds (overlapping shards, a report given twice) is counted
once, with a warning; reports that disagree on its verdict are an error. The output path (``-o``)
is checked before any report is read (``targets.output_problem``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_citecheck._report.run_report import Report, ReportError, review_hint
from pytest_citecheck._text import stop_commands, visible


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citecheck merge", description="Merge the JSON reports of CI shards into one."
    )
    parser.add_argument("reports", nargs="+", type=Path, help="the shards' reports (pytest --citecheck-json=...)")
    parser.add_argument("-o", "--output", type=Path, help="write the merged report here")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every citation, like pytest -v")
    return parser


def main(argv: Sequence[str]) -> int:
    args = _parser().parse_args(list(argv))
    try:
        if args.output is not None:
            _check_output(args.output)
        reports = [Report.load(path) for path in args.reports]
        for report, path in zip(reports, args.reports):
            _check_attributed(report, path)
        merged = Report.merge(reports, [str(path) for path in args.reports])
        if args.output is not None:
            _write(merged, args.output)
    except ReportError as error:
        print(f"citecheck merge: {visible(error)}", file=sys.stderr)
        return 2
    if merged.duplicates:
        print(visible(duplicates_warning(merged.duplicates)), file=sys.stderr)
    hint = (
        review_hint(args.output, cached=False)
        if args.output is not None
        else "write the merged report with -o PATH, then run `citecheck review --report PATH`."
    )
    lines = merged.summary_lines(verbose=args.verbose, review_hint=hint) + merged.recording_lines(verbose=args.verbose)
    # Claims and ids from the reports: shown harmlessly, inside a ::stop-commands:: block under GitHub Actions.
    print(
        "\n".join(stop_commands([visible(line) for line in lines], os.environ)) if lines else "no citation was checked"
    )
    if args.output is not None:
        print(f"JSON report: {args.output}")
    return 0


def _check_attributed(report: Report, path: Path) -> None:
    """``ReportError`` for the first row of ``report`` that names no test. pytest always names it: such
    a row was written by hand or by another tool, and a merged report cannot attribute it (it was
    merged as ``test: null`` and counted as a test of its own)."""
    for index, row in enumerate(report.rows):
        if not row.test:
            raise ReportError(
                f"{path}: result {index} (citation {row.id!r}): field 'test' is "
                f"{'missing or null' if row.test is None else 'empty'}: every row of a merged report "
                "names the test that checked it (pytest --citecheck-json writes it)"
            )


def _check_output(output: Path) -> None:
    """Before any report is read: ``-o`` names nothing yet, an empty file or a JSON report (or a link to one)."""
    from pytest_citecheck._report.targets import output_problem

    problem = output_problem(output, "json")
    if problem is not None:
        raise ReportError(f"cannot write {output}: {problem}")


def _write(merged: Report, output: Path) -> None:
    try:
        merged.write(output)
    except OSError as error:
        raise ReportError(f"cannot write {output}: {error.strerror or error}") from None


def duplicates_warning(duplicates: Sequence[str]) -> str:
    count = len(duplicates)
    listed = ", ".join(duplicates[:5]) + (", …" if count > 5 else "")
    return (
        f"citecheck merge: warning: {count} citation{'s' if count != 1 else ''} (test and citation id) "
        f"{'are' if count != 1 else 'is'} in more than one report: counted once ({listed}). "
        "Do the shards overlap, or was a report given twice?"
    )
