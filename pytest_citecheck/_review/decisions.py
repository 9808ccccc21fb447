"""The reviews file: human decisions about citations, remembered between runs.

A reviewer confirms Jev's verdict on a citation or overrides it (``verified``, ``unsupported``,
``contradicted``). The decision is stored under a digest of everything the verdict depended on —
the claim, the section text, the question asked and the model that answered — so it applies exactly
as long as none of those changes. A decision recorded for the same test and citation id (or recorded
as deciding it too: ``also_decides``, ``_review.covered``) whose digest no longer matches is
*stale*: the claim, the section or the model moved on, and the citation needs a human again.

The file is JSON with sorted keys, meant to be committed next to the tests; it is written atomically
(``_files.atomic_write_text``) and never rewritten by a test run, only by ``citecheck review``.
"""

from __future__ import annotations

import contextlib
import json
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pytest_citecheck._errors import CitecheckError
from pytest_citecheck._files import UnreadableFileError, atomic_write_text, interprocess_lock, read_regular_file

# The digest a decision is stored under is the gate's (a human's decision stands there); re-exported here.
from pytest_citecheck._gate.human import question_fingerprint as question_fingerprint
from pytest_citecheck._gate.human import review_key as review_key
from pytest_citecheck._report.row import ReportRow, as_row
from pytest_citecheck._report.schema import is_number, is_plain
from pytest_citecheck._review.covered import ALSO, Pair, also_problem, as_applied, covering, pairs_of, without_pairs
from pytest_citecheck._text import quoted_id

# Format 2 added ``also_decides`` (``_review.covered``); files of format 1 hold none and read as before.
REVIEWS_FORMAT = 2
READ_FORMATS = (1, 2)
DEFAULT_REVIEWS_FILE = "citecheck-reviews.json"
# What a human may set a citation to. "fabricated" is not among them: a quote that is not in the
# source is a fact found in code, not an opinion a reviewer can overturn.
DECIDABLE_VERDICTS = ("verified", "unsupported", "contradicted")
# The largest reviews file read: far above any real one (a file of a million decisions is ~500 MB).
READ_LIMIT = 1 << 30


class ReviewsFileError(CitecheckError, ValueError):
    """A reviews file that cannot be read or used, or a decision that cannot be recorded."""


class DecisionConflictError(ReviewsFileError):
    """Another reviewer recorded a decision for the same citation since this one read the file."""


class _DuplicateName(ValueError):
    """A name given twice in one JSON object (``json`` would keep the last one without a word)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _no_duplicate_names(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # A merge resolved by keeping both sides (or a `merge=union` driver) leaves the same decision,
    # or the same field, twice: one of them would be dropped silently, so it is an error.
    found: dict[str, Any] = {}
    for name, value in pairs:
        if name in found:
            raise _DuplicateName(name)
        found[name] = value
    return found


# The first line git leaves of a conflicted hunk: a reviews file with one is a merge half-done.
_CONFLICT_MARKER = re.compile(r"^<{7}(?: .*)?$", re.MULTILINE)


def _names_at(text: str, name: str) -> list[int]:
    """Where ``"name":`` is written in the file's text."""
    pattern = re.compile(re.escape(json.dumps(name, ensure_ascii=False)) + r"\s*:")
    return [match.start() for match in pattern.finditer(text)]


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def _line_of(text: str, name: str) -> int | None:
    """The line where ``"name":`` is first written (a decision's key: written once), or None."""
    found = _names_at(text, name)
    return _line(text, found[0]) if found else None


def _line_of_repeat(text: str, name: str) -> int | None:
    """The line of the second ``"name":`` of one object: the first one that follows another with no
    brace between them (decisions are flat objects; a field such as "by" is in every decision), else
    the second one written."""
    found = _names_at(text, name)
    for before, at in zip(found, found[1:], strict=False):
        if not re.search(r"[{}]", text[before:at]):
            return _line(text, at)
    # A name whose values are objects: a decision's key, written nowhere else.
    return _line(text, found[1]) if len(found) > 1 else None


def now_utc() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True)
class Lookup:
    """What the reviews file says about one citation: a decision that applies, a stale one, or neither."""

    decision: dict[str, Any] | None = None
    stale: dict[str, Any] | None = None


_NOTHING = Lookup()


class Reviews:
    """The decisions in one reviews file, keyed by ``review_key``."""

    def __init__(self, path: Path, decisions: Mapping[str, dict[str, Any]] | None = None) -> None:
        self.path = path
        self.decisions: dict[str, dict[str, Any]] = dict(decisions or {})
        # Decisions recorded since the file was read, written over the file's current content by ``save``.
        self._changes: dict[str, dict[str, Any] | None] = {}
        # What each changed key held when this object read it: ``save`` refuses to write over a
        # decision someone else recorded since (two reviewers answering the same citation at once).
        self._read_as: dict[str, dict[str, Any] | None] = {}
        # The keys of each test's decision for each citation, for ``lookup``'s stale decisions: built
        # when first needed, dropped when the decisions change (``_by_citation_for``).
        self._by_citation: dict[tuple[Any, Any], list[str]] = {}
        self._indexed: tuple[int, int] | None = None

    # --- files ------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> Reviews:
        """The decisions in ``path``; an absent file holds none. A damaged file is an error, never ignored."""
        path = Path(path)
        text = ""
        try:
            text = read_regular_file(path, READ_LIMIT).decode("utf-8")
            data = json.loads(text, object_pairs_hook=_no_duplicate_names)
        except FileNotFoundError:
            return cls(path)
        except UnreadableFileError as error:
            raise ReviewsFileError(f"cannot read the reviews file {path}: {error}") from None
        except (OSError, UnicodeDecodeError) as error:
            raise ReviewsFileError(f"cannot read the reviews file {path}: {error}") from None
        except _DuplicateName as error:
            line = _line_of_repeat(text, error.name)
            where = f"line {line}: " if line else ""
            raise ReviewsFileError(
                f"{path}: {where}{error.name[:40]!r} appears twice in one object (a merge that kept both "
                "sides?); keep one of them"
            ) from None
        except (ValueError, RecursionError) as error:
            cause = "nested too deeply" if isinstance(error, RecursionError) else str(error)
            conflict = _CONFLICT_MARKER.search(text)
            if conflict:
                line = _line(text, conflict.start())
                raise ReviewsFileError(
                    f"the reviews file {path} has a merge conflict left in it (line {line}: "
                    f"{conflict.group().strip()!r:.20}); resolve it, keeping each citation's decision once"
                ) from None
            raise ReviewsFileError(
                f"the reviews file {path} is not valid JSON ({cause}); restore it from version control"
            ) from None
        if not isinstance(data, dict) or not isinstance(data.get("decisions"), dict):
            raise ReviewsFileError(f"{path} is not a pytest-citecheck reviews file (no 'decisions' object)")
        found = data.get("format")
        if found not in READ_FORMATS:
            raise ReviewsFileError(
                f"{path} is reviews format {found!r:.40}; this pytest-citecheck reads formats 1 and 2 (upgrade it)"
            )
        for key, entry in data["decisions"].items():
            problem = _entry_problem(entry)
            if problem:
                line = _line_of(text, key)
                where = f"line {line}: " if line else ""
                raise ReviewsFileError(f"{path}: {where}decision {key[:12]!r}{_naming(entry)} {problem}")
        return cls(path, data["decisions"])

    def to_text(self) -> str:
        data = {"format": REVIEWS_FORMAT, "decisions": self.decisions}
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    def save(self) -> None:
        """Write the decisions recorded since the file was read, on top of what the file holds now.

        Under the file's inter-process lock the file is read again and this object's changes are
        applied to it, so parallel ``citecheck review`` runs each keep their decisions.
        """
        try:
            with interprocess_lock(self.path):
                current = Reviews.load(self.path)
                self._check_unchanged(current)
                for key, entry in self._changes.items():
                    current._put(key, entry)
                atomic_write_text(self.path, current.to_text(), follow_links=True)
        except OSError as error:
            raise ReviewsFileError(f"cannot write the reviews file {self.path}: {error.strerror or error}") from None
        self.decisions, self._changes, self._read_as = current.decisions, {}, {}

    def _check_unchanged(self, current: Reviews) -> None:
        """Refuse to write over a decision another reviewer recorded since this file was read, and
        over a file made read-only (renaming over it would replace it all the same)."""
        for key in self._changes:
            before, now = self._read_as.get(key), current.decisions.get(key)
            if now is not None and now != before:
                raise DecisionConflictError(
                    f"citation {now.get('citation')!r} was decided meanwhile in {self.path} "
                    f"({now.get('verdict')} by {now.get('by')} on {now.get('at')}); that decision was kept"
                )
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_IMODE(self.path.stat().st_mode) & 0o222:
                raise ReviewsFileError(
                    f"the reviews file {self.path} is read-only; make it writable to record decisions"
                )

    def _put(self, key: str, entry: dict[str, Any] | None) -> None:
        """Set (or with None, remove) the decision under ``key``; one decision per test and citation.

        An older decision that covered one of the new decision's citations no longer does; it keeps
        the others it covers (they have not changed), and goes when none is left. A decision already
        under ``key`` covered citations too: the new one keeps covering them (same key, same digest).
        """
        self._indexed = None
        if entry is None:
            self.decisions.pop(key, None)
            return
        before = self.decisions.get(key)
        entry = covering(entry, pairs_of(entry) + (pairs_of(before) if before is not None else []))
        taken = set(pairs_of(entry))
        for other, decision in list(self.decisions.items()):
            if other != key and not taken.isdisjoint(pairs_of(decision)):
                left = without_pairs(decision, taken)
                if left is None:
                    del self.decisions[other]
                else:
                    self.decisions[other] = left
        self.decisions[key] = entry

    # --- reading ----------------------------------------------------------------------------

    def lookup(self, key: str, test: str | None, citation: str) -> Lookup:
        """The decision stored under ``key``; else a decision for the same test and citation id (stale)."""
        if not self.decisions:
            return _NOTHING  # a file with no decisions (or none yet): asked once per judged citation
        decision = self.decisions.get(key)
        if decision is not None:
            return Lookup(decision=as_applied(decision, key))
        stale = [as_applied(self.decisions[other], other) for other in self._by_citation_for(test, citation)]
        if stale:
            stale.sort(key=lambda entry: str(entry.get("at", "")))
            return Lookup(stale=stale[-1])
        return _NOTHING

    def _by_citation_for(self, test: str | None, citation: str) -> list[str]:
        """The keys of the decisions for this test and citation id, from an index of every decision
        (one pass over the file, not one per citation looked up)."""
        state = (id(self.decisions), len(self.decisions))
        if self._indexed != state:
            self._by_citation = {}
            for key, entry in self.decisions.items():
                for pair in pairs_of(entry):  # every citation the decision covers, not only its first
                    self._by_citation.setdefault(pair, []).append(key)
            self._indexed = state
        return [key for key in self._by_citation.get((test, citation), ()) if key in self.decisions]

    # --- writing ----------------------------------------------------------------------------

    def record(
        self,
        row: ReportRow | Mapping[str, Any],
        verdict: str | None,
        *,
        by: str,
        note: str | None = None,
        at: str | None = None,
        also: Iterable[Pair] = (),
    ) -> dict[str, Any]:
        """Record a decision for a report row: ``verdict`` None confirms the model's verdict.

        ``also``: the (test, citation) of the report's other citations it decides (the same key and
        reviews file), recorded with it. A decision recorded for the same test and citation under an
        older key is replaced, so the file keeps one decision per citation.
        """
        row = as_row(row)
        key = row.review_key
        if not key:
            raise ReviewsFileError(
                f"citation {quoted_id(row.id)} has no review key: only a judged citation can be reviewed"
            )
        chosen = row.said if verdict is None else verdict
        if chosen not in DECIDABLE_VERDICTS:
            raise ReviewsFileError(
                f"citation {quoted_id(row.id)}: cannot set the verdict to {chosen!r}; choose one of {', '.join(DECIDABLE_VERDICTS)}"
            )
        entry = covering(_entry(row, chosen, by=by, note=note, at=at), [(row.test, row.id), *also])
        self._read_as.setdefault(key, self.decisions.get(key))
        self._put(key, entry)
        self._changes[key] = entry
        return entry

    def keys(self) -> Iterable[str]:
        return self.decisions.keys()


def _entry(row: ReportRow, chosen: str, *, by: str, note: str | None, at: str | None) -> dict[str, Any]:
    """The reviews file's entry for a decision on ``row``."""
    entry: dict[str, Any] = {
        "test": row.test,
        "citation": row.id,
        "claim": row.claim,
        "section": row.section,
        "model": row.model,
        "model_verdict": row.said,
        "confidence": row.confidence,
        "verdict": chosen,
        "action": "confirm" if chosen == row.said else "override",
        "by": by,
        "at": at or now_utc(),
    }
    if note:
        entry["note"] = note
    # What `citecheck calibrate` needs beyond Jev's verdict and confidence: the threshold the
    # citation was gated at and where it was set (absent in files written before calibration).
    entry["auto_accept"] = row.get("auto_accept")
    if row.has_scope:  # absent from older reports: unknown, which is not "the ini file"
        entry["auto_accept_scope"] = row.auto_accept_scope
    if row.flagged:  # a screened "supports" that never stands on its own, whatever the confidence
        entry["flagged"] = True
    return entry


# Fields of a decision and what each must be (absent is allowed for all but the verdict).
_ENTRY_TEXT = (
    "test",
    "citation",
    "claim",
    "section",
    "model",
    "model_verdict",
    "action",
    "by",
    "at",
    "note",
    "auto_accept_scope",
)


def _naming(entry: Any) -> str:
    """`` (citation 'x')`` for a decision whose citation id can be read, to find it in the file."""
    citation = entry.get("citation") if isinstance(entry, dict) else None
    return f" (citation {citation!r:.60})" if isinstance(citation, str) else ""


def _entry_problem(entry: Any) -> str | None:
    """What is wrong with one decision of a reviews file, or None."""
    if not isinstance(entry, dict) or entry.get("verdict") not in DECIDABLE_VERDICTS:
        return f"has no valid verdict (expected one of {', '.join(DECIDABLE_VERDICTS)})"
    for name in _ENTRY_TEXT:
        if name in entry and not isinstance(entry[name], str | None):
            return f"field {name!r} is {entry[name]!r:.40}, expected a string or null"
    for name in ("confidence", "auto_accept"):
        value = entry.get(name)
        if value is not None and not is_number(value):
            return f"field {name!r} is {value!r:.40}, expected a number or null"
    if not isinstance(entry.get("flagged", False), bool):
        return f"field 'flagged' is {entry['flagged']!r:.40}, expected true or false"
    problem = also_problem(entry)
    if problem:
        return problem
    # A decision rides on the rows of the citations it applies to, which the report takes as built
    # (``ReportRow.built``), and reads back by the row schema: its other fields are plain values too.
    for name, value in entry.items():
        if name != ALSO and not is_plain(value):
            return f"field {name!r:.40} is {value!r:.40}, expected text, a number, true, false or null"
    return None


def still_decided(dead: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The dead decisions of a report (``_report.dead_decisions``) that their reviews file still holds
    (one removed by hand since is not listed again; an unreadable file keeps its own)."""
    files: dict[str, Reviews | None] = {}
    kept = []
    for entry in dead:
        path = str(entry["reviews_file"])
        if path not in files:
            try:
                files[path] = Reviews.load(path)
            except ReviewsFileError:
                files[path] = None
        reviews = files[path]
        if reviews is None or str(entry["key"]) in reviews.decisions:
            kept.append(entry)
    return kept


def load_once(cache: dict[Path, Reviews | ReviewsFileError], path: Path) -> Reviews:
    """The reviews file at ``path``, read once into ``cache``; a damaged file is read once too, and
    each call raises its one-line error again (every test that uses it fails with it)."""
    if path not in cache:
        try:
            cache[path] = Reviews.load(path)
        except ReviewsFileError as error:
            cache[path] = error
    found = cache[path]
    if isinstance(found, ReviewsFileError):
        raise ReviewsFileError(str(found))
    return found
