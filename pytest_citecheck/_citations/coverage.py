"""No silent pass: how much of an answer its citations cover.

``assert_citations_supported`` given no citation at all, or an answer whose text cites nothing, used
to pass with nothing checked. ``min_citations`` (default 1; 0 opts out) is the fewest citations a
check must be given; ``require_cited_sentences`` also fails an answer whose own text has sentences
without a citation, and lists them: each shape's adapter says which (an Anthropic ``Message``'s
uncited text blocks, an OpenAI answer's sentences no annotation closes, a Cohere answer's sentences
no citation span touches, a Gemini candidate's no grounding segment covers, a LlamaIndex or Haystack
answer's sentences without a marker). Dicts, objects and ``citations_from_markers`` results carry no
answer text, so only ``min_citations`` applies to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pytest_citecheck._citations.model import Citation
from pytest_citecheck._errors import CitationInputError
from pytest_citecheck._options import Settings
from pytest_citecheck._text import plural

_SHOWN = 10  # uncited sentences listed in a failure; the rest are counted


@dataclass(frozen=True)
class Adapted:
    """The citations of what a check was given, and the sentences of the answer's own text that cite nothing.

    ``invalid`` maps the id of a citation that could not be read to its error: its entry in ``citations``
    stands in for it (its claim when one could be read), so the others are still checked.
    """

    citations: list[Citation]
    uncited: list[str] = field(default_factory=list)
    invalid: dict[str, CitationInputError] = field(default_factory=dict)


def coverage_failure(citations: Sequence[Citation], uncited: Sequence[str], settings: Settings) -> str | None:
    """Why the answer fails for what it does not cite (``min_citations``, ``require_cited_sentences``), or None."""
    count, min_citations = len(citations), settings.min_citations
    if count < min_citations:
        if count == 0:
            return (
                "the answer cites nothing: the check was given no citation (an answer without citations, or "
                "an empty list), so nothing was checked. Pass the answer's citations; if an answer without "
                "citations is right for this test, set min_citations=0"
            )
        return (
            f"the answer has {count} citation{'s' if count != 1 else ''}, fewer than min_citations={min_citations}: "
            "pass all of its citations, or lower min_citations"
        )
    if settings.require_cited_sentences and uncited:
        return _uncited_message(uncited)
    return None


def _uncited_message(uncited: Sequence[str]) -> str:
    shown = "\n".join(f"  - {sentence!r}" for sentence in uncited[:_SHOWN])
    more = f"\n  … and {len(uncited) - _SHOWN} more" if len(uncited) > _SHOWN else ""
    return (
        f"{plural(len(uncited), 'sentence')} of the answer {'cites' if len(uncited) == 1 else 'cite'} nothing "
        f"(require_cited_sentences):\n{shown}{more}\n"
        "Have the app cite them, or leave require_cited_sentences off for this test"
    )
