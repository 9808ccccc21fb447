"""One citation's request to Jev (``Question``): what it sends, and how it reads the answer.

Without extra questions the request is the cookbook's exactly (the recordings depend on it); the
opt-in screen (``relation``) and extra questions (``questions``) ride along in the same request.
An answer the rehearsal server marked (``_rehearsal``) is refused here, whichever way it came (sent,
replayed by either reader, or a copy of another citation's), unless option ``rehearsal`` is on.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pytest_citecheck._errors import JudgeError
from pytest_citecheck._judge.judgement import Judgement
from pytest_citecheck._judge.questions import OUT_OF_CONTEXT, applicable, read_extra_answers, sdk_questions
from pytest_citecheck._judge.relation import questions_for, read_answer, state_for
from pytest_citecheck._rehearsal import REHEARSAL_CAUSE, REHEARSAL_REMEDY, response_is_marked

if TYPE_CHECKING:
    from typesafe_sdk import SystemOneResponse

    from pytest_citecheck._citations.model import Citation
    from pytest_citecheck._options import Settings


@dataclass(frozen=True)
class Question:
    """One citation's request to Jev: what it reads, which model, and what to say when it fails."""

    citation_id: str
    claim: str
    section_text: str
    model: str | None
    record_hint: str
    screen: bool = False
    # The extra questions asked of this citation (``_judge.questions``), and its quote, which the
    # state carries when ``out_of_context`` is asked (Jev must know which passage the claim uses).
    extra: tuple[str, ...] = ()
    quote: str | None = None
    # Option ``request_deadline``: seconds the whole request may take (None: no limit, as when replaying).
    deadline: float | None = None
    # Option ``rehearsal``: an answer the rehearsal server marked is accepted (and counted), not refused.
    rehearsal: bool = False
    # What a refused marked answer's error tells to do: pytest's flag, or a script's ``Checker(rehearsal=True)``.
    rehearsal_remedy: str = REHEARSAL_REMEDY

    def request(self) -> dict[str, Any]:
        """The keyword arguments of ``system_one``, for the sync and the async client alike.

        Without extra questions this is the cookbook's request exactly (the recordings depend on it).
        """
        state = state_for(self.claim, self.section_text)
        questions = questions_for(screen=self.screen)
        if self.extra:
            if OUT_OF_CONTEXT.name in self.extra and self.quote is not None:
                state["quote"] = self.quote
            questions.update(sdk_questions(self.extra))
        return {"state": state, "questions": questions, "model": self.model}

    def read(self, response: SystemOneResponse) -> Judgement:
        """Jev's response to this request, read strictly: the relation (and screen), then any extra questions.

        Raised inside the cassette's block (``_recording.checking.asking``), so a refused answer is never saved.
        """
        from_rehearsal = response_is_marked(response)
        if from_rehearsal and not self.rehearsal:
            raise JudgeError(self.citation_id, REHEARSAL_CAUSE, self.rehearsal_remedy)
        judgement = read_answer(self.citation_id, response, screen=self.screen)
        if from_rehearsal:
            object.__setattr__(judgement, "rehearsal", True)  # frozen: set once, before anyone sees it
        if not self.extra:
            return judgement
        return replace(judgement, questions=read_extra_answers(self.citation_id, response, self.extra))


def question_for(
    citation: Citation,
    judged_text: str,
    settings: Settings,
    record_hint: str,
    *,
    live: bool = True,
    rehearsal_remedy: str = REHEARSAL_REMEDY,
) -> Question:
    """The request for one located citation: the section text step 1 chose, under this test's settings.

    ``live``: it may reach the network, so ``request_deadline`` applies (a replay-only run needs none).
    ``rehearsal_remedy``: what a refused rehearsal answer's error says to do (a script's differs from a run's).
    """
    deadline = settings.request_deadline if live else None
    question = Question(
        citation.id,
        citation.claim,
        judged_text,
        settings.model,
        record_hint,
        settings.screen,
        deadline=deadline,
        rehearsal=settings.rehearsal,
        rehearsal_remedy=rehearsal_remedy,
    )
    return with_extra_questions(question, citation, settings) if settings.questions else question


def with_extra_questions(question: Question, citation: Citation, settings: Settings) -> Question:
    """``question`` with the extra questions (option ``questions``) that apply to this citation.

    ``out_of_context`` is asked of a citation with a quote (or several: one paragraph each in the
    state's ``quote``), ``best_section`` of a claim-only citation naming one section.
    """
    quotes = (citation.quote,) if citation.quote is not None else citation.quotes
    extra = applicable(
        settings.questions,
        quoted=bool(quotes),
        claim_only_section=citation.quote is None and not citation.is_assembly and citation.section is not None,
    )
    if not extra:
        return question
    return replace(question, extra=extra, quote="\n\n".join(quotes) if quotes else None)
