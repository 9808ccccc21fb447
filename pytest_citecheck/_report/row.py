"""One checked citation as every report reads it: a typed, frozen row.

A row is built from a ``CitationResult`` in the test's process: ``CitationResult.to_json`` writes its
JSON object, which crosses to the xdist controller (``_pytest_glue.shipping``) and into the JSON
report (``ReportRow.to_json`` gives it back unchanged, unknown fields included). Two ways in, by who
wrote the object:

- ``ReportRow.built``: an object this plugin's own code just built (``from_result``, the test's rows
  in the plugin, a worker's batches). Its fields come from typed values, so it is not checked
  against the whole schema again (that was some 0.09 M instructions a row, on the xdist controller
  too): ``schema.check_built`` checks the required fields and those that carry what was read from
  a file (a human's decision, a replaced recording's answer).
- ``ReportRow.from_json``: anything else (a report file, a shard, rows handed in as JSON): every
  field is checked against ``SCHEMA`` (``schema.validate``); a field of the wrong type is a
  ``RowError`` naming it, never a traceback in a report.

The terminal summary, the JSON and HTML reports, the GitHub summary, ``citecheck merge``,
``citecheck review`` and ``citecheck calibrate`` read these attributes and predicates, not the
JSON by string key.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pytest_citecheck._report.schema import SCHEMA as SCHEMA
from pytest_citecheck._report.schema import VERDICT_ORDER as VERDICT_ORDER
from pytest_citecheck._report.schema import RowError as RowError
from pytest_citecheck._report.schema import check_built, validate
from pytest_citecheck._text import cut_middle, format_confidence, plural

if TYPE_CHECKING:
    from pytest_citecheck._results import CitationResult

# What a row asked no extra question holds (one object for every such row).
_NO_QUESTIONS: Mapping[str, Mapping[str, Any]] = MappingProxyType({})
DEFAULT_AUTO_ACCEPT = 0.8


# slots: a run holds one row per checked citation until its report is written (no __dict__ each).
@dataclass(frozen=True, slots=True)
class ReportRow:
    """One checked citation of a report (fields as in the JSON report; see ``CitationResult.to_json``)."""

    id: str
    verdict: str
    auto: bool
    test: str | None = None
    status: str | None = None
    section: str | None = None
    confidence: float | None = None
    # The confidence computed from Jev's probabilities, when the gate used it (below ``confidence``).
    computed_confidence: float | None = None
    model: str | None = None
    claim: str = ""
    quote: str | None = None
    span: tuple[int, int] | None = None
    auto_accept: float = DEFAULT_AUTO_ACCEPT
    document: str | None = None
    cited_section: str | None = None
    cited_document: str | None = None
    input_tokens: int | None = None
    replayed: bool = False
    shared: bool = False  # answered with a copy of an answer the run already received: not sent
    rehearsal: bool = False  # the rehearsal server's answer (option ``rehearsal``), not Jev's
    flagged: bool = False
    questions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    section_text: str | None = None
    review_key: str | None = None
    model_verdict: str | None = None
    decision: Mapping[str, Any] | None = None
    stale_decision: Mapping[str, Any] | None = None
    similarity: float | None = None
    closest: Mapping[str, Any] | None = None
    previous: Mapping[str, Any] | None = None
    sections: tuple[str, ...] | None = None
    quotes: tuple[str, ...] | None = None
    spans: tuple[tuple[int, int], ...] | None = None
    reviews_file: str | None = None
    auto_accept_scope: str | None = None
    # "fail" when this check failed its test (``CitationsNotSupported``; absent otherwise).
    outcome: str | None = None
    # An ``altered`` quote: the words its elisions removed that turn the meaning.
    removed: tuple[str, ...] | None = None
    # Verdict ``errored``: why the check raised (``type``: the exception's class, ``message``).
    error: Mapping[str, Any] | None = None
    has_scope: bool = False  # the row says where its auto_accept was set (absent before that was recorded)
    # The JSON object the row was read from or built as, what the JSON report writes back: its keys
    # (one tuple shared by every row of the same shape) and its values, in order. Two tuples hold far
    # less than a dict of some 40 keys per row, and a run holds a row per checked citation.
    layout: tuple[str, ...] = field(default=(), repr=False, compare=False)
    values: tuple[Any, ...] = field(default=(), repr=False, compare=False)

    # --- building ---------------------------------------------------------------------------

    @classmethod
    def from_json(cls, data: Any) -> ReportRow:
        """A row from a report's JSON object; ``RowError`` names a field ``SCHEMA`` does not allow."""
        validate(data)
        return cls._of(data)

    @classmethod
    def built(cls, data: Any) -> ReportRow:
        """A row from the JSON object this plugin's own code built (``CitationResult.to_json``, here or in
        an xdist worker of this run): only ``schema.check_built``'s cheap check, not ``validate``."""
        check_built(data)
        return cls._of(data)

    @classmethod
    def _of(cls, data: dict[str, Any]) -> ReportRow:
        """The row of a checked JSON object, by its layout's plan (``_Plan``): a pass over its values."""
        plan = _plan_of(tuple(data))
        values = tuple(data.values())
        args = list(plan.base)
        for position, index, convert in plan.steps:
            value = values[index]
            if value is not None:
                args[position] = value if convert is None else convert(value)
        args[-1] = values
        return cls(*args)

    @classmethod
    def from_result(
        cls, result: CitationResult, test: str | None, *, reviews_file: str | None = None, scope: str | None = None
    ) -> ReportRow:
        """The row of a checked citation, with the reviews file its test uses and where its auto_accept was set."""
        return cls.built({**result.to_json(test=test), "reviews_file": reviews_file, "auto_accept_scope": scope})

    def to_json(self) -> dict[str, Any]:
        """The JSON report's object for this row (as read, or as ``CitationResult.to_json`` wrote it)."""
        return dict(zip(self.layout, self.values))

    @property
    def data(self) -> dict[str, Any]:
        """The row's JSON object (a new dict each time: ``get`` and ``has`` read one field)."""
        return self.to_json()

    def has(self, name: str) -> bool:
        """The row's JSON object has field ``name`` (null or not)."""
        return name in self.layout

    def get(self, name: str, default: Any = None) -> Any:
        """Field ``name`` of the row's JSON object, as written (``default`` when absent)."""
        try:
            return self.values[self.layout.index(name)]
        except ValueError:
            return default

    # --- predicates -------------------------------------------------------------------------

    @property
    def needs_review(self) -> bool:
        """Below auto_accept (or flagged) and no human has decided it."""
        return not self.auto and not self.decision

    @property
    def decided(self) -> bool:
        return bool(self.decision)

    @property
    def stale(self) -> bool:
        """A human decision that no longer applies (the claim, section or model changed)."""
        return bool(self.stale_decision) and not self.decision

    @property
    def judged(self) -> bool:
        """Jev was asked (a fabricated quote has no confidence: no model was asked)."""
        return self.confidence is not None

    @property
    def requested(self) -> bool:
        """The row carries the cost of a Jev request (its input tokens)."""
        return self.input_tokens is not None or self.has("input_tokens")

    @property
    def misattributed(self) -> bool:
        return self.status == "found-elsewhere"

    @property
    def approximate(self) -> bool:
        return self.status == "found-approx"

    @property
    def errored(self) -> bool:
        """The check raised: no verdict (``error`` says why)."""
        return self.verdict == "errored"

    @property
    def cause(self) -> str:
        """An errored citation's cause in one line: ``CassetteMissError: citation 'x': ...``."""
        error = self.error or {}
        return f"{error.get('type') or 'error'}: {error.get('message') or 'no message'}"

    @property
    def flip(self) -> bool:
        return (self.previous or {}).get("drift") == "flip"

    @property
    def said(self) -> str:
        """What Jev said (the verdict before any human decision)."""
        return self.model_verdict or self.verdict

    @property
    def flagged_questions(self) -> tuple[str, ...]:
        return tuple(name for name, answer in self.questions.items() if answer.get("flagged"))

    # --- formatting -------------------------------------------------------------------------

    @property
    def failed(self) -> bool:
        """This check failed its test."""
        return self.outcome == "fail"

    @property
    def action(self) -> str:
        """What the citation got: for a misattributed one, FAIL or warn; else what stands behind its
        verdict: the model alone, a human, or nobody yet; ``error`` for a check that raised."""
        if self.misattributed:
            return "FAIL" if self.failed else "warn"
        if self.errored:
            return "error"
        if self.decision:
            return "human"
        return "auto" if self.auto else "review"

    @property
    def confidence_cell(self) -> str:
        """The confidence, with the computed one beside it when the gate used that: ``0.81 (computed 0.79)``."""
        return format_confidence(self.confidence, self.computed_confidence)

    @property
    def gate_confidence(self) -> float | None:
        """What the gate compared with auto_accept: the lower of the reported and the computed confidence."""
        if self.confidence is None or self.computed_confidence is None:
            return self.confidence
        return min(self.confidence, self.computed_confidence)

    @property
    def qualified_id(self) -> str:
        """``TEST_NODE_ID::CITATION_ID``: the citation's id wherever ids repeat across tests."""
        return f"{self.test}::{self.id}"

    def label(self, shared: set[str]) -> str:
        """The citation id, as ``test::id`` when its id is one of ``shared`` (``Report.shared_ids``)."""
        return self.qualified_id if self.test and self.id in shared else self.id


# How a row's fields come from its JSON object's values: the object's key for each field that is
# converted as it is read (the rest are copied; a null reads as the field's default).
_CONVERTED: dict[str, Callable[[Any], Any]] = {
    "span": lambda value: (int(value[0]), int(value[1])),
    "questions": lambda value: value or _NO_QUESTIONS,
    "replayed": lambda value: value is True,
    "shared": lambda value: value is True,
    "rehearsal": lambda value: value is True,
    "flagged": lambda value: value is True,
    "auto_accept": float,
    "sections": tuple,
    "quotes": tuple,
    "removed": tuple,
    "spans": lambda value: tuple((int(start), int(end)) for start, end in value),
}


@dataclass(frozen=True, slots=True)
class _Plan:
    """For one layout (a JSON object's keys, in order): every field's default, with ``has_scope`` and
    ``layout`` set, and (position of the field, index of the value, conversion) for each key that fills one."""

    base: tuple[Any, ...]
    steps: tuple[tuple[int, int, Callable[[Any], Any] | None], ...]


_FIELDS = tuple(item.name for item in fields(ReportRow))
_DEFAULTS = {item.name: item.default for item in fields(ReportRow)} | {"questions": _NO_QUESTIONS}
assert _FIELDS[-1] == "values"  # ``_of`` sets the values last


def _plan(keys: tuple[str, ...]) -> _Plan:
    base = {**_DEFAULTS, "has_scope": "auto_accept_scope" in keys, "layout": keys}
    positions = {name: position for position, name in enumerate(_FIELDS)}
    steps = tuple(
        (positions[name], index, _CONVERTED.get(name))
        for index, name in enumerate(keys)
        if name in _PLAIN or name in _CONVERTED
    )
    return _Plan(tuple(base[name] for name in _FIELDS), steps)


# The plans of the layouts rows share (``ReportRow.layout``: a run's rows come in a handful of shapes,
# so one key tuple serves them all). Bounded, so that a report file of rows with made-up keys adds
# rows, not shapes, to what stays in memory.
_PLANS: dict[tuple[str, ...], _Plan] = {}
_MAX_LAYOUTS = 256


def _plan_of(keys: tuple[str, ...]) -> _Plan:
    plan = _PLANS.get(keys)
    if plan is None:
        plan = _plan(keys)
        if len(_PLANS) < _MAX_LAYOUTS:
            _PLANS[keys] = plan
    return plan


def as_row(row: ReportRow | Mapping[str, Any]) -> ReportRow:
    """``row`` as a ``ReportRow`` (a JSON object is checked against ``SCHEMA``).

    The row keeps the object's values, not the object (``ReportRow.layout``, ``ReportRow.values``).
    """
    if isinstance(row, ReportRow):
        return row
    return ReportRow.from_json(row if isinstance(row, dict) else dict(row))


# The id of the row of a test failed by an error no citation's row carries: its check raised before it
# read any citation (a source that cannot be read, an answer of a shape no adapter knows, an option
# error), or before any citation had its row (a damaged reviews file). Not a citation's id; without
# this row the test would be in no report's counts.
TEST_ERROR_ID = "(test error)"


def error_row_of_test(test: str, error: BaseException, rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The ``errored`` row of ``test`` for ``error``, which failed it, when no row of ``rows`` (the test's)
    carries it: an error naming a citation that has a row is that row's (a request's, an invalid field's), and
    so is one a row already carries as its own (``ClientUnavailableError``, on the citation the check stopped at)."""
    named = getattr(error, "citation", None)
    if isinstance(named, str) and any(row.get("id") == named for row in rows):
        return None
    # The message as the error shows it: known secrets cut out, untrusted text harmless (``CitecheckError``).
    cause = {"type": type(error).__name__, "message": str(error)}
    if any(row.get("error") == cause for row in rows):
        return None  # the citation it stopped the check at carries it (the client could not be built)
    return {
        "test": test,
        "id": TEST_ERROR_ID,
        "status": None,
        "verdict": "errored",
        "confidence": None,
        "auto": True,
        "error": cause,
    }


def failed_ids(error: BaseException, rows: list[dict[str, Any]]) -> list[str]:
    """The ids of the citations that ``error`` says failed the test (``CitationsNotSupported.failing_ids``;
    none for another error), their JSON rows in ``rows`` marked. Read by name: the report's floor sits
    above the checker's, which reads the reviews file, which reads rows."""
    named = getattr(error, "failing_ids", None)
    failing = [str(citation) for citation in named] if isinstance(named, list | tuple) else []
    mark_failed(rows, failing)
    return failing


def mark_failed(rows: list[dict[str, Any]], failing: Collection[str]) -> None:
    """Mark the JSON row of each citation that failed its test (its last check) with ``"outcome": "fail"``."""
    remaining = set(failing)
    for row in reversed(rows):
        if row.get("id") in remaining:
            row["outcome"] = "fail"
            remaining.discard(row["id"])


# Fields copied as they are (the others are converted in ``ReportRow._of``).
_PLAIN = frozenset(
    (
        "id",
        "verdict",
        "auto",
        "test",
        "status",
        "section",
        "confidence",
        "computed_confidence",
        "model",
        "claim",
        "quote",
        "document",
        "cited_section",
        "cited_document",
        "input_tokens",
        "section_text",
        "review_key",
        "model_verdict",
        "decision",
        "stale_decision",
        "similarity",
        "closest",
        "previous",
        "reviews_file",
        "auto_accept_scope",
        "outcome",
        "error",
    )
)


def errored_lines(rows: Collection[ReportRow]) -> list[str]:
    """The summary's line naming the citations whose check raised, each with its cause: none when none did."""
    errored = [row for row in rows if row.errored]
    if not errored:
        return []
    listed = "; ".join(f"{cut_middle(row.id)} ({cut_middle(row.cause.splitlines()[0], 160)})" for row in errored[:5])
    more = f"; and {len(errored) - 5} more (the JSON report has every cause)" if len(errored) > 5 else ""
    return [f"{plural(len(errored), 'citation')} errored (no verdict): {listed}{more}."]


def rehearsal_lines(rows: Collection[ReportRow]) -> list[str]:
    """The summary's line saying how many answers came from the rehearsal server (taken under option
    ``rehearsal``: a run's flag, or a script's ``Checker(rehearsal=True)``): none when every answer was Jev's."""
    count = sum(1 for row in rows if row.rehearsal)
    if not count:
        return []
    return [f"{plural(count, 'answer')} came from the rehearsal server (JevServer, citecheck serve), not Jev."]
