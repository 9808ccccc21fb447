"""The extra questions of the cookbook's FAQ (option ``questions``): asked beside the relation, in the same request.

"What you can add cheaply is more questions about that same pair, since TypeSafe reports no speed
cost for additional questions. Asking whether the quote is used out of context, or whether the
section is the best one available, rides along in the same call." Each question here is a yes/no
(Noul) question about the pair Jev already reads, opt-in by name:

- ``out_of_context``, for citations with a quote: does the section qualify the quoted passage (a
  condition, an exception, a limit of scope: "MUST ... unless ...") in a way the claim leaves out?
  Jev is told which passage the claim rests on: the request's state gains a ``quote`` key.
- ``best_section``, for claim-only citations that name one section: is this section the one in the
  document that deals with the claim, rather than one that touches its subject in passing?

Each answer becomes a ``QuestionAnswer``: Jev's probability of "yes" and the *concern*, the
probability of the answer that flags the citation ("yes" for ``out_of_context``, "no" for
``best_section``). The gate reads the concern (``_gate.decide``, ``docs/usage.md``). An answer that
is asked for and missing or malformed fails the check closed, like the relation's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_citecheck._errors import JudgeError
from pytest_citecheck._judge.judgement import QuestionAnswer
from pytest_citecheck._judge.relation import UNTRUSTED_ANSWER, is_fraction
from pytest_citecheck._options import QUESTION_NAMES

if TYPE_CHECKING:
    from typesafe_sdk import NoulCriteria, SystemOneResponse


@dataclass(frozen=True)
class ExtraQuestion:
    """One opt-in question: its words to Jev, which citations it is asked of, and what a flag means."""

    name: str
    instructions: str
    criteria: NoulCriteria
    # The answer that raises the concern: True when "yes" flags the citation, False when "no" does.
    flags_on_yes: bool
    # "quoted": citations with a quote (or several); "claim-only": claim-only citations of one section.
    asked_of: str
    # What a flag means, for the failure message and the reports.
    concern: str

    def sdk_question(self) -> Any:
        from typesafe_sdk import Noul

        return Noul(instructions=self.instructions, criteria=self.criteria)

    def concern_of(self, yes: float) -> float:
        """The probability of the answer that flags the citation."""
        return yes if self.flags_on_yes else round(1.0 - yes, 10)


OUT_OF_CONTEXT = ExtraQuestion(
    name="out_of_context",
    instructions=(
        "Does the section qualify the quoted passage (with a condition, an exception, a limit of scope or a caveat "
        "stated around it, such as 'MUST ... unless ...') in a way that the claim leaves out, so that the claim uses "
        "the quote out of context?"
    ),
    criteria={
        "true": "The section limits or conditions the quoted passage, and the claim states it without that limit",
        "false": "The claim keeps the conditions and exceptions the section attaches to the quoted passage, or there are none",
    },
    flags_on_yes=True,
    asked_of="quoted",
    concern="the section qualifies the quoted passage in a way the claim leaves out (quote used out of context)",
)

BEST_SECTION = ExtraQuestion(
    name="best_section",
    instructions=(
        "Is this section the part of the document that deals with what the claim asserts, rather than a section that "
        "only touches the claim's subject in passing while dealing with something else?"
    ),
    criteria={
        "true": "The section is about what the claim asserts: it is the place in the document to cite for this claim",
        "false": "The section is mainly about something else and touches the claim's subject only in passing",
    },
    flags_on_yes=False,
    asked_of="claim-only",
    concern="the section only touches the claim's subject in passing; another section is likely the one to cite",
)

EXTRA_QUESTIONS: dict[str, ExtraQuestion] = {question.name: question for question in (OUT_OF_CONTEXT, BEST_SECTION)}
# The options table names them (option ``questions``) without loading this module.
assert tuple(EXTRA_QUESTIONS) == QUESTION_NAMES, "_options.QUESTION_NAMES must list the extra questions"


def applicable(names: tuple[str, ...], *, quoted: bool, claim_only_section: bool) -> tuple[str, ...]:
    """The questions of ``names`` that apply to one citation, in the order the option lists them.

    ``out_of_context`` needs a quote; ``best_section`` a claim-only citation of one section. A
    question that does not apply is not asked (the request stays what it would be without it).
    """
    chosen = []
    for name in names:
        asked_of = EXTRA_QUESTIONS[name].asked_of
        if (asked_of == "quoted" and quoted) or (asked_of == "claim-only" and claim_only_section):
            chosen.append(name)
    return tuple(chosen)


def sdk_questions(names: tuple[str, ...]) -> dict[str, Any]:
    """The SDK objects of the extra questions ``names``, keyed by their names."""
    return {name: EXTRA_QUESTIONS[name].sdk_question() for name in names}


def read_extra_answers(
    citation_id: str, response: SystemOneResponse, names: tuple[str, ...]
) -> dict[str, QuestionAnswer]:
    """Jev's answers to the extra questions asked; missing or malformed fails closed with a ``JudgeError``."""
    remedy = UNTRUSTED_ANSWER
    answers = {}
    for name in names:
        answer = response.answers.get(name)
        if answer is None:
            raise JudgeError(
                citation_id, f"Jev's response has no {name!r} answer (asked with questions={name!r})", remedy
            )
        yes = getattr(answer, "noul", None)
        if not is_fraction(yes):
            raise JudgeError(citation_id, f"Jev's {name!r} answer {yes!r} is not a probability from 0 to 1", remedy)
        answers[name] = QuestionAnswer(yes=float(yes), concern=EXTRA_QUESTIONS[name].concern_of(float(yes)))
    return answers
