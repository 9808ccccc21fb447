"""Calibrating ``auto_accept`` on human decisions: the statistics, and what each threshold would do.

For each candidate threshold from 0.50 to 0.99: the decided citations whose verdict would have
stood on its own, how many of those a human overturned, and the overturn rate with the upper end of
its 95% Wilson score interval; the lowest threshold whose upper bound is at or below the maximum
error is recommended. Pure code over ``Judged`` items; ``calibration_input`` reads them from files,
``calibrate`` is the command, ``calibration_page`` the HTML page.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from statistics import NormalDist
from typing import Any

from pytest_citecheck._errors import CitecheckError
from pytest_citecheck._options import OPTIONS_BY_NAME
from pytest_citecheck._text import plural

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
BY_CHOICES = ("test-module", "marker")
SESSION_SCOPE = "(ini, flag or default)"
UNRECORDED_SCOPE = "(scope not recorded)"
UNKNOWN_MODEL = "(model not recorded)"


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


@dataclass(frozen=True)
class Judged:
    """One citation Jev judged: a human decision from a reviews file, or a report row.

    ``overturned`` is None for a report row (no human looked at it, or the reviews file counts it).
    ``scope`` is where its ``auto_accept`` was set (see ``_pytest_glue.markers.MarkerCache``);
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
    return Calibration(
        group=group,
        decisions=len(decided),
        current=setting,
        current_from=setting_from,
        max_error=max_error,
        rows=tuple(threshold_row(threshold, decided, counted) for threshold in THRESHOLDS),
        coverage_from="reports" if population else "decisions",
        # Today's workload: each citation at the threshold it was gated at, unless --current says otherwise.
        mixed_settings=current is None and len(_recorded_settings(counted)) > 1,
        review_now=sum(1 for item in counted if not item.stands_at(_gated_at(item, setting, current))),
    )


def threshold_row(threshold: float, decided: Sequence[Judged], counted: Sequence[Judged]) -> ThresholdRow:
    """What ``threshold`` would have done to the decided citations, and the review work over ``counted``."""
    stood = [item for item in decided if item.stands_at(threshold)]
    return ThresholdRow(
        threshold=threshold,
        stood=len(stood),
        overturned=sum(1 for item in stood if item.overturned),
        to_review=sum(1 for item in counted if not item.stands_at(threshold)),
        population=len(counted),
    )


def _recorded_settings(items: Sequence[Judged]) -> set[float]:
    return {item.auto_accept for item in items if item.auto_accept is not None}


def _gated_at(item: Judged, setting: float, current: float | None) -> float:
    """The threshold ``item`` is gated at today: ``--current`` when given, else its own recorded one."""
    return setting if current is not None or item.auto_accept is None else item.auto_accept


def calibrate_groups(
    by: str, decided: Sequence[Judged], population: Sequence[Judged], *, max_error: float, current: float | None
) -> list[Calibration]:
    """One calibration per test module or marker scope (``by``), most decisions first, each with its paste line."""
    key = group_key(by)
    groups = []
    for name in sorted({key(item) for item in [*decided, *population]}):
        mine = [item for item in decided if key(item) == name]
        theirs = [item for item in population if key(item) == name]
        group = calibrate(mine, theirs, max_error=max_error, current=current, group=name)
        closer = [
            item.scope
            for item in [*mine, *theirs]
            if by == "test-module" and item.scope and "::" in item.scope and item.scope != UNRECORDED_SCOPE
        ]
        groups.append(replace(group, paste=paste_line(by, name, group.recommended, closer)))
    return sorted(groups, key=lambda group: (-group.decisions, group.group or ""))


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
