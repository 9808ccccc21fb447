"""The outcome of checking one citation, and the cookbook's mapping from Jev's answer to a verdict."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any


class Status(str, Enum):
    """Step 1: what the string match found."""

    FOUND = "found"
    MISSING = "missing"
    SECTION_ONLY = "section-only"

    def __str__(self) -> str:
        return self.value


class Verdict(str, Enum):
    """The four verdicts of the cookbook."""

    VERIFIED = "verified"
    UNSUPPORTED = "unsupported"
    CONTRADICTED = "contradicted"
    FABRICATED = "fabricated"

    def __str__(self) -> str:
        return self.value


# Jev's label for how the section relates to the claim -> the verdict it means.
RELATION_TO_VERDICT = {
    "supports": Verdict.VERIFIED,
    "contradicts": Verdict.CONTRADICTED,
    "says_nothing": Verdict.UNSUPPORTED,
}


@dataclass(frozen=True)
class Judgement:
    """Jev's answer to the relation question for one citation."""

    choice: str
    confidence: float
    probabilities: dict[str, float]
    model: str | None
    input_tokens: int = 0
    output_tokens: int = 0
    replayed: bool = False


@dataclass
class CitationResult:
    """Everything known about one checked citation.

    ``auto`` is True when the verdict stands on its own (a fabricated quote, or a confidence at or
    above ``auto_accept``); False means a human should confirm it.
    """

    id: str
    claim: str
    quote: str | None
    status: Status
    section: str | None
    verdict: Verdict
    confidence: float | None
    auto: bool
    model: str | None = None
    span: tuple[int, int] | None = None
    judgement: Judgement | None = field(default=None, repr=False)
    auto_accept: float = 0.8

    @property
    def needs_review(self) -> bool:
        return not self.auto

    def to_json(self, test: str | None = None) -> dict[str, Any]:
        """The JSON report's row for this result (the version 1 fields first, in their order)."""
        row: dict[str, Any] = {
            "test": test,
            "id": self.id,
            "status": self.status.value,
            "section": self.section,
            "verdict": self.verdict.value,
            "confidence": self.confidence,
            "auto": self.auto,
            "model": self.model,
            "claim": self.claim,
            "quote": self.quote,
            "span": list(self.span) if self.span is not None else None,
            "auto_accept": self.auto_accept,
        }
        if self.judgement is not None:
            judgement = asdict(self.judgement)
            row.update(
                choice=judgement["choice"],
                probabilities=judgement["probabilities"],
                input_tokens=judgement["input_tokens"],
                output_tokens=judgement["output_tokens"],
                replayed=judgement["replayed"],
            )
        return row
