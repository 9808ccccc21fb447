"""``citecheck calibrate``: choose ``auto_accept`` from the human decisions already recorded.

Every decision in a reviews file keeps Jev's verdict and confidence beside what the human did with
it (``confirm`` or ``override``). For each candidate threshold from 0.50 to 0.99 this module counts
the decided citations whose verdict would have stood on its own at that threshold, how many of those
a human overturned, and the overturn rate with the upper end of its 95% Wilson score interval. It
recommends the lowest threshold whose upper bound is at or below ``--max-error``, and says how much
review work that saves against today's setting.

It is honest about what the data can carry: under ``MIN_DECISIONS`` it refuses, under
``FIRM_DECISIONS`` the result is provisional (jev-eval's minimum-N rule), and it calibrates one
model at a time (decisions under another model than the suite's are left out and counted). JSON
reports (``--report``) add the citations no human looked at, so the review workload is counted over
every judged citation, not only the decided ones.

It only reads, except for ``--html PATH`` (written atomically). Input it cannot use is named with
the file and the field, and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from pytest_citecheck._review.calibration import (
    BY_CHOICES,
    DEFAULT_MAX_ERROR,
    FIRM_DECISIONS,
    MIN_DECISIONS,
    THRESHOLDS,
    UNRECORDED_SCOPE,
    Z_95,
    CalibrateInputError,
    Calibration,
    Judged,
    Result,
    ThresholdRow,
    calibrate,
    calibrate_groups,
    keep_model,
    wilson_interval,
    wilson_upper,
)
from pytest_citecheck._review.calibration import (
    CONFIDENCE_LEVEL as CONFIDENCE_LEVEL,
)
from pytest_citecheck._review.calibration_input import (
    find_reviews_files,
    load_decisions,
    load_report_rows,
    resolve_model,
)
from pytest_citecheck._review.decisions import DEFAULT_REVIEWS_FILE
from pytest_citecheck._text import plural, render_table, visible, visible_lines

__all__ = [
    "CONFIDENCE_LEVEL",
    "FIRM_DECISIONS",
    "MIN_DECISIONS",
    "THRESHOLDS",
    "Z_95",
    "Calibration",
    "Result",
    "ThresholdRow",
    "main",
    "run",
    "wilson_interval",
    "wilson_upper",
]
EXIT_OK, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2


def run(
    reviews_files: Sequence[Path],
    reports: Sequence[Path] = (),
    *,
    model: str | None = None,
    any_model: bool = False,
    max_error: float = DEFAULT_MAX_ERROR,
    current: float | None = None,
    by: str | None = None,
    cwd: Path | None = None,
) -> Result:
    """Read the files and calibrate; raises ``CalibrateInputError`` for input it cannot use."""
    cwd = cwd or Path.cwd()
    decisions = load_decisions(reviews_files)
    population = load_report_rows(reports)
    pin, pin_from = resolve_model(model, reports, cwd, decisions)
    if pin is None and not any_model:
        _refuse_mixed_models(decisions, pin_from)
    decided, left_out, pooled = keep_model(decisions, pin, any_model)
    population, _, _ = keep_model(population, pin, any_model)
    return Result(
        overall=calibrate(decided, population, max_error=max_error, current=current),
        model=None if any_model else pin,
        model_from="--any-model: every model pooled" if any_model else pin_from,
        any_model=any_model,
        left_out=left_out,
        pooled=pooled,
        reviews_files=list(reviews_files),
        reports=list(reports),
        max_error=max_error,
        by=by,
        groups=calibrate_groups(by, decided, population, max_error=max_error, current=current) if by else [],
    )


def _refuse_mixed_models(decisions: Sequence[Judged], pin_from: str) -> None:
    counts = Counter(item.model_name for item in decisions)
    if len(counts) > 1:
        listed = ", ".join(f"{name}: {count}" for name, count in sorted(counts.items()))
        raise CalibrateInputError(
            f"the decisions were recorded under several models ({listed}) and nothing says which one the suite "
            f"pins ({pin_from}). A threshold tuned on one model does not carry over to another: pass --model NAME "
            "to calibrate that model's decisions, or --any-model to pool them anyway"
        )


# --- output --------------------------------------------------------------------------------


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def table_lines(calibration: Calibration) -> list[str]:
    """One line per threshold; ``*`` marks today's setting, ``>`` the recommendation."""
    header = ["", "auto_accept", "stand", "overturned", "rate", "upper 95%", "to review"]
    lines = [header]
    for row in calibration.rows:
        mark = (">" if row.threshold == calibration.recommended else "") + (
            "*" if row.threshold == calibration.current else ""
        )
        lines.append(
            [
                mark,
                f"{row.threshold:.2f}",
                str(row.stood),
                str(row.overturned),
                _percent(row.rate),
                _percent(row.upper_bound),
                str(row.to_review),
            ]
        )
    return render_table(lines, right=range(2, len(header)))


def text_lines(result: Result) -> list[str]:
    overall = result.overall
    files = ", ".join(str(path) for path in result.reviews_files)
    if result.any_model:
        models = ", ".join(f"{name}: {count}" for name, count in sorted(result.pooled.items()))
        under = f"pooled across models ({models})"
    else:
        under = f"under {result.model} ({result.model_from})"
    lines = [f"citecheck calibrate: {plural(overall.decisions, 'decision')} {under}", f"  reviews files: {files}"]
    if result.left_out:
        listed = ", ".join(f"{name}: {count}" for name, count in sorted(result.left_out.items()))
        lines.append(
            f"  left out: {plural(sum(result.left_out.values()), 'decision')} under other models ({listed}); "
            "--any-model pools them"
        )
    if overall.refused:
        lines.append("")
        lines.append(
            f"Refused: {plural(overall.decisions, 'decision')} is too few to calibrate on; at least {MIN_DECISIONS} are "
            f"needed. Record {overall.needed} more with `citecheck review` (`citecheck review --all` also lists "
            "the citations that stood on their own)."
        )
        return lines
    if overall.coverage_from == "reports":
        workload = f"counted over the {plural(overall.rows[0].population, 'judged citation')} of the reports"
    else:
        workload = "counted over the decided citations (pass --report to count every judged citation)"
    lines.append(f"  today's auto_accept: {overall.current:g} ({overall.current_from})")
    lines.append(f"  review workload {workload}")
    lines.append(
        f"  max error {result.max_error:.1%}: the lowest threshold whose {CONFIDENCE_LEVEL:.0%} Wilson upper bound on "
        "the overturn rate is at or below it is recommended"
    )
    lines.append("")
    lines += table_lines(overall)
    lines.append("  (* today's setting, > recommended)")
    lines.append("")
    lines.append(overall.summary())
    if overall.provisional:
        lines.append(
            f"Provisional: {plural(overall.decisions, 'decision')}; {FIRM_DECISIONS - overall.decisions} more make it firm "
            f"({FIRM_DECISIONS})."
        )
    if result.by:
        lines += group_lines(result)
    return lines


def group_lines(result: Result) -> list[str]:
    title = "test module" if result.by == "test-module" else "marker scope (where auto_accept is set)"
    lines = ["", f"By {title}: {plural(len(result.groups), 'group')}"]
    for group in result.groups:
        state = " (provisional)" if group.provisional and not group.refused else ""
        lines.append(f"  {group.group}: {plural(group.decisions, 'decision')}{state}")
        lines.append(f"    {group.summary()}")
        if group.paste:
            lines.append(f"    paste: {group.paste}")
        elif group.group == UNRECORDED_SCOPE:
            lines.append(
                "    these decisions were recorded before the reviews file kept where auto_accept is set: "
                "group them with --by test-module"
            )
    return lines


# --- the command ---------------------------------------------------------------------------


def _fraction_argument(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {raw!r}") from None
    if not math.isfinite(value) or not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {raw!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citecheck calibrate",
        description="Recommend auto_accept from the human decisions in the reviews files: for each threshold "
        "from 0.50 to 0.99, how many decided citations would have stood on their own and how many of those a "
        "human overturned, with a 95% Wilson upper bound on the overturn rate.",
    )
    for flags, options in _ARGUMENTS:
        parser.add_argument(*flags, **options)
    return parser


# The command's options: (flags, add_argument's keywords).
_ARGUMENTS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    (
        ("--reviews",),
        dict(
            metavar="PATH",
            nargs="+",
            action="extend",
            type=Path,
            help=f"reviews files to read (default: every {DEFAULT_REVIEWS_FILE} under the current directory)",
        ),
    ),
    (
        ("--report",),
        dict(
            metavar="PATH",
            nargs="+",
            action="extend",
            type=Path,
            default=[],
            help="JSON reports (--citecheck-json) whose judged citations count toward the review workload, "
            "including those no human looked at",
        ),
    ),
    (
        ("--max-error",),
        dict(
            metavar="RATE",
            type=_fraction_argument,
            default=DEFAULT_MAX_ERROR,
            help="the highest acceptable upper bound on the overturn rate of verdicts that stand on their own "
            "(default: %(default)s)",
        ),
    ),
    (
        ("--current",),
        dict(
            metavar="0..1",
            type=_fraction_argument,
            help="today's auto_accept, to measure the saving against (default: the one recorded, else 0.8)",
        ),
    ),
    (
        ("--by",),
        dict(
            choices=BY_CHOICES,
            help="also recommend one threshold per test module, or per marker scope (where auto_accept is set)",
        ),
    ),
    (
        ("--model",),
        dict(
            metavar="NAME",
            help="the model to calibrate (default: citecheck_model in the pytest configuration, else the model of "
            "the reports or of the last run, else the decisions' one model)",
        ),
    ),
    (("--any-model",), dict(action="store_true", help="pool decisions recorded under different models (not advised)")),
    (("--json",), dict(action="store_true", help="print the result as JSON (for CI) instead of a table")),
    (("--html",), dict(metavar="PATH", type=Path, help="also write a page with a risk–coverage plot")),
)


def _check_page_path(path: Path) -> None:
    """Before anything is read: ``--html`` names nothing yet, an empty file or a calibration page (or a link to one)."""
    from pytest_citecheck._report.targets import output_problem

    problem = output_problem(path, "calibration")
    if problem is not None:
        raise CalibrateInputError(f"cannot write the page to {path}: {problem}")


def main(argv: Sequence[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    args = _parser().parse_args(list(argv))
    cwd = Path.cwd()
    try:
        if args.html:
            _check_page_path(args.html)
        reviews_files = list(dict.fromkeys(args.reviews)) if args.reviews else find_reviews_files(Path("."))
        if not reviews_files:
            raise CalibrateInputError(
                f"no {DEFAULT_REVIEWS_FILE} under {cwd}: record decisions with `citecheck review`, or pass --reviews PATH"
            )
        result = run(
            reviews_files,
            list(dict.fromkeys(args.report)),
            model=args.model,
            any_model=args.any_model,
            max_error=args.max_error,
            current=args.current,
            by=args.by,
            cwd=cwd,
        )
        if args.html:
            from pytest_citecheck._review.calibration_page import write_page

            try:
                write_page(result, args.html)
            except OSError as error:
                raise CalibrateInputError(f"cannot write the page to {args.html}: {error.strerror or error}") from None
    except (CalibrateInputError, OSError) as error:
        # Paths, models and fields come from files a team shares: shown harmlessly (``visible_lines``).
        print(f"citecheck calibrate: {visible_lines(error)}\nNothing was written.", file=err)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False), file=out)
    else:
        print("\n".join(visible(line) for line in text_lines(result)), file=out)
        if args.html:
            print(f"HTML: {visible(args.html)}", file=out)
    return EXIT_REFUSED if result.overall.refused else EXIT_OK
