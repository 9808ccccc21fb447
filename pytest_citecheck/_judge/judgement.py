"""What step 2 makes of Jev's answer for one citation: a ``Judgement`` (and its extra questions' answers).

Read strictly from the response by ``_judge.relation`` and ``_judge.questions``; the gate decides
what it means (``_gate.stands_at``), and ``_results.CitationResult`` carries it.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields

# Jev's probability at or above which an extra question's answer flags its citation (see ``QuestionAnswer``).
QUESTION_FLAG_AT = 0.5


@dataclass(frozen=True)
class QuestionAnswer:
    """Jev's answer to one extra question (option ``questions``, ``_judge.questions``).

    ``yes`` is Jev's probability of "yes"; ``concern`` the probability of the answer that flags the
    citation ("yes" for ``out_of_context``, "no" for ``best_section``). Flagged: ``concern`` at or
    above 0.5. Confident: flagged, and ``concern`` at or above the citation's ``auto_accept``.
    """

    yes: float
    concern: float

    @property
    def flagged(self) -> bool:
        return self.concern >= QUESTION_FLAG_AT

    def confident_at(self, auto_accept: float) -> bool:
        return self.flagged and self.concern >= auto_accept


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
    # Answered with a copy of an answer this run already received for the identical request
    # (``_judge.sharing``): nothing was sent for this citation, so it cost nothing.
    shared: bool = False
    # With the ``screen`` option: Jev's probability that the claim or section holds instructions
    # addressed to an AI system, and whether that crossed the line (then "supports" does not stand).
    screen: float | None = None
    flagged: bool = False
    # With the ``questions`` option: Jev's answer to each extra question asked of this citation.
    questions: dict[str, QuestionAnswer] = field(default_factory=dict)
    # TypeSafe's formula applied to ``probabilities``, to two decimals as ``confidence`` is: the gate
    # uses the lower of the two (``_gate.stands_at``), so a reported confidence cannot buy a pass.
    computed_confidence: float | None = None
    # The answer carried the rehearsal server's mark (accepted under option ``rehearsal``): not Jev's.
    rehearsal: bool = False

    @property
    def gate_confidence(self) -> float:
        """The confidence the gate compares with ``auto_accept``: the lower of the reported and the computed."""
        if self.computed_confidence is None:
            return self.confidence
        return min(self.confidence, self.computed_confidence)


# Every field of a ``Judgement``, in order, at its default (the four without one, and ``questions``,
# whose default is a new dict for each, as None): what ``read_judgement`` starts from. Read from the
# class itself, so a field added or a default changed there is one here too.
_DEFAULTS = {item.name: None if item.default is MISSING else item.default for item in fields(Judgement)}


def read_judgement(
    *,
    choice: str,
    confidence: float,
    probabilities: dict[str, float],
    model: str | None,
    input_tokens: int,
    output_tokens: int,
    screen: float | None,
    flagged: bool,
    computed_confidence: float | None,
) -> Judgement:
    """``Judgement(...)`` of an answer just read (not replayed, not shared, no extra questions yet),
    made without the frozen class's ``__init__``, which sets each of its twelve fields through
    ``object.__setattr__``: most of what building one cost, once per citation. Equal to it, field for field."""
    judgement = object.__new__(Judgement)
    values = judgement.__dict__
    values.update(_DEFAULTS)
    values.update(
        choice=choice,
        confidence=confidence,
        probabilities=probabilities,
        model=model,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        screen=screen,
        flagged=flagged,
        questions={},
        computed_confidence=computed_confidence,
    )
    return judgement
