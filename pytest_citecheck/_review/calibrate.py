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
import configparser
import json
import math
import os
import sys
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from statistics import NormalDist
from typing import Any, TextIO

from pytest_citecheck._errors import CitecheckError
from pytest_citecheck._options import OPTIONS_BY_NAME
from pytest_citecheck._report.run_report import Report, ReportError
from pytest_citecheck._review.decisions import DECIDABLE_VERDICTS, DEFAULT_REVIEWS_FILE, Reviews, ReviewsFileError
from pytest_citecheck._text import plural, render_table

# Candidate thresholds 0.50, 0.51, ..., 0.99 (n / 100 is the double nearest the decimal, as a typed 0.7 is).
THRESHOLDS: tuple[float, ...] = tuple(n / 100 for n in range(50, 100))
# jev-eval's minimum-N rule: below 50 decisions no recommendation, below 200 a provisional one.
MIN_DECISIONS = 50
FIRM_DECISIONS = 200
DEFAULT_MAX_ERROR = 0.05
CONFIDENCE_LEVEL = 0.95
# The two-sided 95% normal quantile, 1.959963984540054 (not the rounded 1.96).
Z_95 = NormalDist().inv_cdf(1 - (1 - CONFIDENCE_LEVEL) / 2)
DEFAULT_AUTO_ACCEPT: float = OPTIONS_BY_NAME["auto_accept"].default
# Where the plugin keeps the last run's report (as in ``citecheck review``); read only for the model pin.
LAST_REPORT = Path(".pytest_cache", "d", "citecheck", "last-report.json")
# Directories the default search for reviews files does not enter.
SKIPPED_DIRECTORIES = {"node_modules", "__pycache__", "site-packages"}
BY_CHOICES = ("test-module", "marker")
SESSION_SCOPE = "(ini, flag or default)"
UNRECORDED_SCOPE = "(scope not recorded)"
UNKNOWN_MODEL = "(model not recorded)"
EXIT_OK, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2


class CalibrateInputError(CitecheckError, ValueError):
    """Input calibration cannot use (a file, a field, a mix of models); nothing has been written."""


# --- the statistics -------------------------------------------------------------------------


def wilson_interval(events: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for ``events`` out of ``trials`` (95% by default).

    With no trials nothing is known: (0, 1). Unlike the normal approximation it stays inside [0, 1]
    and does not collapse to a width of zero when no event was seen, which is the usual case here.
    """
    if not 0 <= events <= trials:
        raise ValueError(f"expected 0 <= events <= trials, got {events} of {trials}")
    if trials == 0:
        return 0.0, 1.0
    rate = events / trials
    z2 = z * z
    centre = rate + z2 / (2 * trials)
    margin = z * math.sqrt(rate * (1 - rate) / trials + z2 / (4 * trials * trials))
    denominator = 1 + z2 / trials
    return max(0.0, (centre - margin) / denominator), min(1.0, (centre + margin) / denominator)


def wilson_upper(events: int, trials: int) -> float:
    return wilson_interval(events, trials)[1]


# --- what is read ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Judged:
    """One citation Jev judged: a human decision from a reviews file, or a report row.

    ``overturned`` is None for a report row (no human looked at it, or the reviews file counts it).
    ``scope`` is where its ``auto_accept`` was set (see ``_pytest_glue.fixtures._auto_accept_scope``);
    ``UNRECORDED_SCOPE`` when the file predates that field.
    """

    test: str
    citation: str
    model: str | None
    model_verdict: str
    confidence: float
    overturned: bool | None
    auto_accept: float | None = None
    scope: str | None = UNRECORDED_SCOPE
    flagged: bool = False

    def stands_at(self, threshold: float) -> bool:
        """Whether the verdict would stand on its own at ``threshold``, as the gate decides it."""
        # A "supports" the screen flagged never stands on its own (``Judgement.stands_at``).
        return self.confidence >= threshold and not (self.flagged and self.model_verdict == "verified")

    @property
    def module(self) -> str:
        return self.test.split("::", 1)[0]

    @property
    def model_name(self) -> str:
        return self.model or UNKNOWN_MODEL


def _fraction(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value) if 0.0 <= value <= 1.0 else None


def _entry_error(path: Path, entry: Mapping[str, Any], key: str, field_name: str, expected: str) -> CalibrateInputError:
    where = f"decision {key[:12]} (citation {entry.get('citation')!r} of {entry.get('test')!r})"
    return CalibrateInputError(
        f"{path}: {where}: field {field_name!r} is {entry.get(field_name)!r}, expected {expected}; "
        "the file may be damaged (restore it from version control) or hand-edited"
    )


def decision_from_entry(path: Path, key: str, entry: Mapping[str, Any]) -> Judged:
    """One reviews-file entry as calibration reads it; a field it cannot use is an error naming it."""
    confidence = _fraction(entry.get("confidence"))
    if confidence is None:
        raise _entry_error(path, entry, key, "confidence", "a number from 0 to 1")
    if entry.get("action") not in ("confirm", "override"):
        raise _entry_error(path, entry, key, "action", "'confirm' or 'override'")
    if entry.get("model_verdict") not in DECIDABLE_VERDICTS:
        raise _entry_error(path, entry, key, "model_verdict", f"one of {', '.join(DECIDABLE_VERDICTS)}")
    for name in ("test", "citation"):
        if not isinstance(entry.get(name), str) or not entry[name]:
            raise _entry_error(path, entry, key, name, "a non-empty string")
    auto_accept = entry.get("auto_accept")
    if auto_accept is not None and _fraction(auto_accept) is None:
        raise _entry_error(path, entry, key, "auto_accept", "a number from 0 to 1 or null")
    model = entry.get("model")
    if model is not None and not isinstance(model, str):
        raise _entry_error(path, entry, key, "model", "a model name or null")
    scope = entry.get("auto_accept_scope", UNRECORDED_SCOPE)
    if scope is not None and not isinstance(scope, str):
        raise _entry_error(path, entry, key, "auto_accept_scope", "a node id or null")
    return Judged(
        test=entry["test"],
        citation=entry["citation"],
        model=model,
        model_verdict=entry["model_verdict"],
        confidence=confidence,
        overturned=entry["action"] == "override",
        auto_accept=_fraction(auto_accept),
        scope=scope,
        flagged=entry.get("flagged") is True,
    )


def find_reviews_files(root: Path) -> list[Path]:
    """Every ``citecheck-reviews.json`` under ``root``, outside hidden directories and virtualenvs."""
    found = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(
            name
            for name in subdirectories
            if not name.startswith(".")
            and name not in SKIPPED_DIRECTORIES
            and not Path(directory, name, "pyvenv.cfg").exists()
        )
        if DEFAULT_REVIEWS_FILE in files:
            found.append(Path(directory, DEFAULT_REVIEWS_FILE))
    return sorted(found)


def load_decisions(paths: Sequence[Path]) -> list[Judged]:
    decisions = []
    for path in paths:
        if path.is_dir():
            raise CalibrateInputError(f"{path} is a directory; --reviews takes reviews files (citecheck-reviews.json)")
        if not path.is_file():
            raise CalibrateInputError(f"no reviews file at {path}: record decisions with `citecheck review` first")
        try:
            reviews = Reviews.load(path)
        except ReviewsFileError as error:
            raise CalibrateInputError(str(error)) from None
        decisions += [decision_from_entry(path, key, entry) for key, entry in sorted(reviews.decisions.items())]
    return decisions


def load_report_rows(paths: Sequence[Path]) -> list[Judged]:
    """The judged citations of JSON reports, one per test and citation id (a later report wins)."""
    rows: dict[tuple[str, str], Judged] = {}
    for path in paths:
        try:
            report = Report.load(path)
        except ReportError as error:
            raise CalibrateInputError(str(error)) from None
        for index, row in enumerate(report.rows):
            if not isinstance(row, dict):
                raise CalibrateInputError(f"{path}: result {index} is not an object")
            if row.get("confidence") is None:
                continue  # a fabricated quote: no model was asked, so no threshold applies to it
            confidence = _fraction(row.get("confidence"))
            if confidence is None:
                raise CalibrateInputError(
                    f"{path}: result {index} (citation {row.get('id')!r}): field 'confidence' is "
                    f"{row.get('confidence')!r}, expected a number from 0 to 1"
                )
            scope = row.get("auto_accept_scope", UNRECORDED_SCOPE)
            if scope is not None and not isinstance(scope, str):
                raise CalibrateInputError(
                    f"{path}: result {index} (citation {row.get('id')!r}): field 'auto_accept_scope' is {scope!r}, "
                    "expected a node id or null"
                )
            test, citation = str(row.get("test")), str(row.get("id"))
            rows[(test, citation)] = Judged(
                test=test,
                citation=citation,
                model=row.get("model") if isinstance(row.get("model"), str) else None,
                model_verdict=str(row.get("model_verdict") or row.get("verdict")),
                confidence=confidence,
                overturned=None,
                auto_accept=_fraction(row.get("auto_accept")),
                scope=scope,
                flagged=row.get("flagged") is True,
            )
    return list(rows.values())


def _report_models(path: Path) -> set[str]:
    try:
        rows = Report.load(path).rows
    except ReportError as error:
        raise CalibrateInputError(str(error)) from None
    return {row["model"] for row in rows if isinstance(row, dict) and isinstance(row.get("model"), str)}


# --- which model --------------------------------------------------------------------------


def ini_model(start: Path) -> tuple[str | None, Path | None]:
    """``citecheck_model`` from the pytest configuration file pytest would read from ``start``.

    pytest's order: in ``start`` and then each parent, the first of ``pytest.ini``, ``.pytest.ini``,
    ``pyproject.toml`` with ``[tool.pytest.ini_options]``, ``tox.ini`` with ``[pytest]`` and
    ``setup.cfg`` with ``[tool:pytest]``.
    """
    for directory in (start, *start.parents):
        for name, section in (
            ("pytest.ini", "pytest"),
            (".pytest.ini", "pytest"),
            ("pyproject.toml", None),
            ("tox.ini", "pytest"),
            ("setup.cfg", "tool:pytest"),
        ):
            path = directory / name
            if not path.is_file():
                continue
            try:
                if section is None:
                    options = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("pytest", {})
                    options = options.get("ini_options") if isinstance(options, dict) else None
                    if not isinstance(options, dict):
                        continue
                    value = options.get("citecheck_model")
                else:
                    parser = configparser.ConfigParser(interpolation=None, strict=False)
                    parser.read_string(path.read_text(encoding="utf-8"))
                    if not parser.has_section(section):
                        if name in ("pytest.ini", ".pytest.ini"):
                            return None, path  # pytest uses it even without a [pytest] section
                        continue
                    value = parser.get(section, "citecheck_model", fallback=None)
            except (OSError, UnicodeDecodeError, ValueError, configparser.Error) as error:
                raise CalibrateInputError(f"cannot read {path} for citecheck_model: {error}") from None
            if value in (None, ""):
                return None, path
            if not isinstance(value, str) or not value.strip() or any(ch.isspace() for ch in value.strip()):
                raise CalibrateInputError(f"{path}: citecheck_model is {value!r}, expected a model name")
            return value.strip(), path
    return None, None


def resolve_model(
    explicit: str | None, report_paths: Sequence[Path], cwd: Path, decisions: Sequence[Judged]
) -> tuple[str | None, str]:
    """The model the suite pins, and where that was found; (None, reason) when nothing says.

    In order: ``--model``; ``citecheck_model`` in the pytest configuration file; the one model the
    ``--report`` files were answered by; the one model of the last run's report (pytest's cache);
    the one model every decision was recorded under.
    """
    if explicit:
        return explicit, "given with --model"
    model, ini_path = ini_model(cwd)
    if model:
        return model, f"citecheck_model in {ini_path}"
    for paths, where in ((report_paths, "the --report files"), ([LAST_REPORT], "the last run's report")):
        present = [path for path in paths if path.is_file()]
        models = set().union(*(_report_models(path) for path in present)) if present else set()
        if len(models) == 1:
            return models.pop(), f"the model of {where}: {', '.join(str(path) for path in present)}"
    recorded = {decision.model_name for decision in decisions}
    if len(recorded) == 1:
        return recorded.pop(), "the only model the decisions name"
    return None, "no --model, no citecheck_model in the pytest configuration, no report naming one model"


# --- the calibration -----------------------------------------------------------------------


@dataclass(frozen=True)
class ThresholdRow:
    """What a candidate threshold would have done to the decided citations and to the workload."""

    threshold: float
    stood: int  # decided citations that would have stood on their own
    overturned: int  # of those, how many a human overturned
    to_review: int  # citations (of the population) that would need a human
    population: int

    @property
    def rate(self) -> float | None:
        return self.overturned / self.stood if self.stood else None

    @property
    def upper_bound(self) -> float:
        return wilson_upper(self.overturned, self.stood)

    @property
    def coverage(self) -> float | None:
        """The share of the population whose verdict stands on its own (the x of a risk–coverage plot)."""
        return 1 - self.to_review / self.population if self.population else None

    def to_json(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "stood": self.stood,
            "overturned": self.overturned,
            "rate": self.rate,
            "upper_bound": self.upper_bound,
            "to_review": self.to_review,
            "coverage": self.coverage,
        }


@dataclass(frozen=True)
class Calibration:
    """The calibration of one group of decisions (all of them, one test module, or one marker scope)."""

    group: str | None
    decisions: int
    current: float
    current_from: str
    max_error: float
    rows: tuple[ThresholdRow, ...]
    coverage_from: str  # "decisions" or "reports"
    review_now: int  # citations that need a human at today's setting
    mixed_settings: bool = False  # the citations were gated at different thresholds today
    paste: str | None = None

    @property
    def needed(self) -> int:
        """How many more decisions before a recommendation is made."""
        return max(0, MIN_DECISIONS - self.decisions)

    @property
    def refused(self) -> bool:
        return self.needed > 0

    @property
    def provisional(self) -> bool:
        return self.decisions < FIRM_DECISIONS

    @property
    def recommended_row(self) -> ThresholdRow | None:
        if self.refused:
            return None
        return next((row for row in self.rows if row.upper_bound <= self.max_error), None)

    @property
    def recommended(self) -> float | None:
        row = self.recommended_row
        return None if row is None else row.threshold

    @property
    def fewer_to_review(self) -> float | None:
        """The share of today's review work the recommendation saves (negative: it adds work)."""
        row = self.recommended_row
        if row is None or not self.review_now:
            return None
        return (self.review_now - row.to_review) / self.review_now

    def summary(self) -> str:
        """The one line that says what to do, e.g. ``auto_accept 0.8 → 0.7: 31% fewer ...``."""
        if self.refused:
            return (
                f"too few decisions to calibrate: {plural(self.decisions, 'decision')}, {MIN_DECISIONS} needed; "
                f"record {self.needed} more with `citecheck review`"
            )
        row = self.recommended_row
        if row is None:
            return (
                f"no threshold from {THRESHOLDS[0]:.2f} to {THRESHOLDS[-1]:.2f} keeps the upper bound on errors at or "
                f"below {self.max_error:.1%}: keep auto_accept {self.current:g}, and record more decisions "
                "(the bound narrows as they add up)"
            )
        bound = f"upper bound on errors {row.upper_bound:.1%}"
        if row.threshold == self.current:
            return f"auto_accept {self.current:g} stays: {bound}"
        change = f"auto_accept {self.current:g} → {row.threshold:g}"
        saved = self.fewer_to_review
        if saved is None:
            return f"{change}: no citation needs review at today's setting, {bound}"
        if saved >= 0:
            return f"{change}: {saved:.0%} fewer citations to review, {bound}"
        return f"{change}: {-saved:.0%} more citations to review, {bound}"

    def to_json(self) -> dict[str, Any]:
        row = self.recommended_row
        data: dict[str, Any] = {
            "recommended": self.recommended,
            "decisions": self.decisions,
            "provisional": self.provisional,
            "refused": self.refused,
            "needed": self.needed,
            "current": self.current,
            "current_from": self.current_from,
            "upper_bound": None if row is None else row.upper_bound,
            "fewer_to_review": self.fewer_to_review,
            "summary": self.summary(),
            "coverage_from": self.coverage_from,
            "rows": [row.to_json() for row in self.rows],
        }
        if self.group is not None:
            data = {"group": self.group, "paste": self.paste, **data}
        return data


def current_setting(
    population: Sequence[Judged], decided: Sequence[Judged], explicit: float | None
) -> tuple[float, str]:
    """Today's ``auto_accept``: ``--current``, else the most common one the reports, then the decisions, recorded."""
    if explicit is not None:
        return explicit, "--current"
    for judged, where in ((population, "the reports"), (decided, "the decisions")):
        counts = Counter(item.auto_accept for item in judged if item.auto_accept is not None)
        if counts:
            value, _ = max(counts.items(), key=lambda pair: (pair[1], pair[0]))
            others = sorted(set(counts) - {value})
            if not others:
                return value, f"recorded in {where}"
            also = ", ".join(f"{other:g}" for other in others)
            return value, (
                f"the most common in {where}, which also record {also}; today's workload counts each citation at its own"
            )
    return DEFAULT_AUTO_ACCEPT, "the default (none recorded; pass --current if the suite sets another)"


def calibrate(
    decided: Sequence[Judged],
    population: Sequence[Judged] | None = None,
    *,
    max_error: float = DEFAULT_MAX_ERROR,
    current: float | None = None,
    group: str | None = None,
) -> Calibration:
    """One threshold row per candidate, over ``decided`` (human decisions).

    The workload (``to_review``) is counted over ``population`` — every judged citation of the
    reports — when given, else over the decided citations.
    """
    counted = list(population) if population else list(decided)
    setting, setting_from = current_setting(population or [], decided, current)
    rows = tuple(
        ThresholdRow(
            threshold=threshold,
            stood=sum(1 for item in decided if item.stands_at(threshold)),
            overturned=sum(1 for item in decided if item.overturned and item.stands_at(threshold)),
            to_review=sum(1 for item in counted if not item.stands_at(threshold)),
            population=len(counted),
        )
        for threshold in THRESHOLDS
    )
    return Calibration(
        group=group,
        decisions=len(decided),
        current=setting,
        current_from=setting_from,
        max_error=max_error,
        rows=rows,
        coverage_from="reports" if population else "decisions",
        # Today's workload: each citation at the threshold it was gated at, unless --current says otherwise.
        mixed_settings=current is None
        and len({item.auto_accept for item in counted if item.auto_accept is not None}) > 1,
        review_now=sum(
            1
            for item in counted
            if not item.stands_at(setting if current is not None or item.auto_accept is None else item.auto_accept)
        ),
    )


def group_key(by: str) -> Callable[[Judged], str]:
    if by == "test-module":
        return lambda item: item.module
    return lambda item: SESSION_SCOPE if item.scope is None else item.scope


def paste_line(by: str, group: str, threshold: float | None, closer: Iterable[str] = ()) -> str | None:
    """What to write where, so the group's tests use the recommended threshold.

    ``closer``: for a test module, the classes and functions in it whose own marker sets
    ``auto_accept``; the closest marker wins, so a module-level line does not reach their tests.
    """
    if threshold is None or group == UNRECORDED_SCOPE:
        return None
    if group == SESSION_SCOPE:
        return f"citecheck_auto_accept = {threshold:g}  (in the pytest configuration file)"
    if by == "test-module" or "::" not in group:
        line = f"pytestmark = pytest.mark.citecheck(auto_accept={threshold:g})  (in {group})"
        overriding = sorted(set(closer))
        if overriding:
            line += f"; the marker on {', '.join(overriding)} overrides it there: change that one too"
        return line
    return f"@pytest.mark.citecheck(auto_accept={threshold:g})  (on {group})"


@dataclass
class Result:
    """Everything one run of the command found: the overall calibration and, with ``--by``, each group's."""

    overall: Calibration
    model: str | None
    model_from: str
    any_model: bool
    left_out: Counter[str]
    pooled: Counter[str]
    reviews_files: list[Path]
    reports: list[Path]
    max_error: float
    by: str | None = None
    groups: list[Calibration] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = self.overall.to_json()
        data.update(
            model=self.model,
            model_from=self.model_from,
            any_model=self.any_model,
            left_out=dict(sorted(self.left_out.items())),
            models=dict(sorted(self.pooled.items())),
            max_error=self.max_error,
            confidence_level=CONFIDENCE_LEVEL,
            min_decisions=MIN_DECISIONS,
            firm_decisions=FIRM_DECISIONS,
            reviews_files=[str(path) for path in self.reviews_files],
            reports=[str(path) for path in self.reports],
        )
        if self.by:
            data.update(by=self.by, groups=[group.to_json() for group in self.groups])
        return data


def keep_model(
    items: Iterable[Judged], model: str | None, any_model: bool
) -> tuple[list[Judged], Counter[str], Counter[str]]:
    """The items under ``model`` (all with ``any_model``), the count per model left out, and per model kept."""
    kept, left_out = [], Counter[str]()
    for item in items:
        if any_model or model is None or item.model_name == model:
            kept.append(item)
        else:
            left_out[item.model_name] += 1
    return kept, left_out, Counter(item.model_name for item in kept)


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
    counts = Counter(item.model_name for item in decisions)
    if pin is None and not any_model and len(counts) > 1:
        listed = ", ".join(f"{name}: {count}" for name, count in sorted(counts.items()))
        raise CalibrateInputError(
            f"the decisions were recorded under several models ({listed}) and nothing says which one the suite "
            f"pins ({pin_from}). A threshold tuned on one model does not carry over to another: pass --model NAME "
            "to calibrate that model's decisions, or --any-model to pool them anyway"
        )
    decided, left_out, pooled = keep_model(decisions, pin, any_model)
    population, _, _ = keep_model(population, pin, any_model)
    overall = calibrate(decided, population, max_error=max_error, current=current)
    result = Result(
        overall=overall,
        model=None if any_model else pin,
        model_from="--any-model: every model pooled" if any_model else pin_from,
        any_model=any_model,
        left_out=left_out,
        pooled=pooled,
        reviews_files=list(reviews_files),
        reports=list(reports),
        max_error=max_error,
        by=by,
    )
    if by:
        key = group_key(by)
        names = sorted({key(item) for item in [*decided, *population]})
        for name in names:
            mine = [item for item in decided if key(item) == name]
            theirs = [item for item in population if key(item) == name]
            group = calibrate(mine, theirs, max_error=max_error, current=current, group=name)
            closer = [
                item.scope
                for item in [*mine, *theirs]
                if by == "test-module" and item.scope and "::" in item.scope and item.scope != UNRECORDED_SCOPE
            ]
            result.groups.append(replace(group, paste=paste_line(by, name, group.recommended, closer)))
        result.groups.sort(key=lambda group: (-group.decisions, group.group or ""))
    return result


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
        "human overturned, with a 95%% Wilson upper bound on the overturn rate.",
    )
    parser.add_argument(
        "--reviews",
        metavar="PATH",
        nargs="+",
        action="extend",
        type=Path,
        help=f"reviews files to read (default: every {DEFAULT_REVIEWS_FILE} under the current directory)",
    )
    parser.add_argument(
        "--report",
        metavar="PATH",
        nargs="+",
        action="extend",
        type=Path,
        default=[],
        help="JSON reports (--citecheck-json) whose judged citations count toward the review workload, "
        "including those no human looked at",
    )
    parser.add_argument(
        "--max-error",
        metavar="RATE",
        type=_fraction_argument,
        default=DEFAULT_MAX_ERROR,
        help="the highest acceptable upper bound on the overturn rate of verdicts that stand on their own "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--current",
        metavar="0..1",
        type=_fraction_argument,
        help="today's auto_accept, to measure the saving against (default: the one recorded, else 0.8)",
    )
    parser.add_argument(
        "--by",
        choices=BY_CHOICES,
        help="also recommend one threshold per test module, or per marker scope (where auto_accept is set)",
    )
    parser.add_argument(
        "--model",
        metavar="NAME",
        help="the model to calibrate (default: citecheck_model in the pytest configuration, else the model of "
        "the reports or of the last run, else the decisions' one model)",
    )
    parser.add_argument(
        "--any-model", action="store_true", help="pool decisions recorded under different models (not advised)"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON (for CI) instead of a table")
    parser.add_argument("--html", metavar="PATH", type=Path, help="also write a page with a risk–coverage plot")
    return parser


def main(argv: Sequence[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    args = _parser().parse_args(list(argv))
    cwd = Path.cwd()
    try:
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
        print(f"citecheck calibrate: {error}\nNothing was written.", file=err)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False), file=out)
    else:
        print("\n".join(text_lines(result)), file=out)
        if args.html:
            print(f"HTML: {args.html}", file=out)
    return EXIT_REFUSED if result.overall.refused else EXIT_OK
