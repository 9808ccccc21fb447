"""What calibration reads: decisions from reviews files, judged citations from JSON reports, the pinned model.

Every field it uses is checked: input it cannot use is a ``CalibrateInputError`` naming the file and
the field, and nothing is written.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_citecheck._report.run_report import Report, ReportError
from pytest_citecheck._review.calibration import UNRECORDED_SCOPE, CalibrateInputError, Judged
from pytest_citecheck._review.decisions import DECIDABLE_VERDICTS, DEFAULT_REVIEWS_FILE, Reviews, ReviewsFileError
from pytest_citecheck._review.pytest_config import PytestConfigError, last_report, pytest_configuration

# Directories the default search for reviews files does not enter.
SKIPPED_DIRECTORIES = {"node_modules", "__pycache__", "site-packages"}


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
        for row in _report(path).rows:
            if row.confidence is None:
                continue  # a fabricated quote: no model was asked, so no threshold applies to it
            rows[(str(row.test), row.id)] = Judged(
                test=str(row.test),
                citation=row.id,
                model=row.model,
                model_verdict=row.said,
                confidence=float(row.confidence),
                overturned=None,
                auto_accept=row.get("auto_accept"),
                scope=row.auto_accept_scope if row.has_scope else UNRECORDED_SCOPE,
                flagged=row.flagged,
            )
    return list(rows.values())


def _report(path: Path) -> Report:
    try:
        return Report.load(path)
    except ReportError as error:
        raise CalibrateInputError(str(error)) from None


def _report_models(path: Path) -> set[str]:
    return {row.model for row in _report(path).rows if row.model is not None}


# --- which model --------------------------------------------------------------------------


def ini_model(start: Path) -> tuple[str | None, Path | None]:
    """``citecheck_model`` from the pytest configuration file pytest would read from ``start``
    (``pytest_config.pytest_configuration``), and that file."""
    try:
        found = pytest_configuration(start)
    except PytestConfigError as error:
        raise CalibrateInputError(f"cannot read {error.path} for citecheck_model: {error.error}") from None
    if found is None:
        return None, None
    path, options = found
    value = options.get("citecheck_model")
    if value in (None, ""):
        return None, path
    if not isinstance(value, str) or not value.strip() or any(ch.isspace() for ch in value.strip()):
        raise CalibrateInputError(f"{path}: citecheck_model is {value!r}, expected a model name")
    return value.strip(), path


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
    for paths, where in ((report_paths, "the --report files"), ([cwd / last_report(cwd)], "the last run's report")):
        present = [path for path in paths if path.is_file()]
        models = set().union(*(_report_models(path) for path in present)) if present else set()
        if len(models) == 1:
            return models.pop(), f"the model of {where}: {', '.join(str(path) for path in present)}"
    recorded = {decision.model_name for decision in decisions}
    if len(recorded) == 1:
        return recorded.pop(), "the only model the decisions name"
    return None, "no --model, no citecheck_model in the pytest configuration, no report naming one model"
