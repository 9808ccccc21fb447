"""Step 1 for each citation, before anything is sent: validate it, locate its quote, check its size.

The result for a citation is either final (a fabricated quote: no model is asked) or a ``Located``,
which says what step 2 must judge: the section holding the quote (or the one a claim-only
citation names), the quote's offsets, and the window around it when one is set.
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

from pytest_citecheck._citations.model import Citation
from pytest_citecheck._errors import CitationInputError
from pytest_citecheck._judge.limits import (
    STATE_AND_QUESTION_TOKEN_LIMIT,
    estimate_tokens,
    fits,
    max_section_characters,
    request_tokens,
    window_around,
)
from pytest_citecheck._locate import QuoteLocator, quote_length
from pytest_citecheck._options import Settings
from pytest_citecheck._results import CitationResult, Passage, Status, Verdict
from pytest_citecheck._sources.source import Source


class Located(NamedTuple):
    """What step 1 hands step 2: how the quote was found, the section to judge, the quote's offsets."""

    status: Status
    section: str
    span: tuple[int, int] | None
    similarity: float | None = None
    # With the ``window`` option: the part of the section that is judged, as offsets into it.
    window: tuple[int, int] | None = None

    def judged_text(self, source: Source) -> str:
        """What Jev reads: the whole section, or the window around the quote when one is set."""
        section_text = source.sections[self.section]
        return section_text if self.window is None else section_text[self.window[0] : self.window[1]]


# Below this many characters of section beside the claim, no window or split would leave Jev enough to judge.
SMALLEST_USEFUL_SECTION = 500

_LOCATORS: weakref.WeakKeyDictionary[Source, QuoteLocator] = weakref.WeakKeyDictionary()


def locator_for(source: Source) -> QuoteLocator:
    """One locator per source object, so its sections are normalised once per session, not per test."""
    locator = _LOCATORS.get(source)
    if locator is None:
        locator = _LOCATORS[source] = QuoteLocator(source)
    return locator


def as_source(source: Any, format: str, hooks: Any = None) -> Source:
    """A ``Source`` from a ``Source`` or a document's text; unknown formats go to the split hook."""
    if isinstance(source, Source):
        return source
    if isinstance(source, str):
        return Source.from_text(source, format=format, hooks=hooks)
    raise CitationInputError(f"expected a Source or the document's text, got {type(source).__name__}", field="source")


def locate_all(citations: list[Citation], source: Source, settings: Settings) -> list[CitationResult | Located]:
    """Step 1 for every citation, in order; raises ``CitationInputError`` for the first bad one."""
    for citation in citations:
        validate_section(citation, source)
        validate_quote(citation, settings)
    locator = locator_for(source)
    located = [locate(citation, source, locator, settings) for citation in citations]
    for citation, item in zip(citations, located):
        if isinstance(item, Located):
            check_size(citation, source, item)
    return located


def validate_section(citation: Citation, source: Source) -> None:
    if citation.section is not None and citation.section not in source.sections:
        known = list(source.sections)
        sample = ", ".join(known[:8]) + (", …" if len(known) > 8 else "")
        raise CitationInputError(
            f"names section {citation.section!r}, which the source does not have (it has {sample})",
            citation=citation.id,
            field="section",
        )


def validate_quote(citation: Citation, settings: Settings) -> None:
    if citation.quote is None:
        return
    length = quote_length(citation.quote, casefold=settings.casefold)
    if length < settings.min_quote_length:
        raise CitationInputError(
            f"is {length} characters after normalisation, too short to identify a passage (min_quote_length is "
            f"{settings.min_quote_length}): quote more of the passage, or lower min_quote_length",
            citation=citation.id,
            field="quote",
        )


def check_size(citation: Citation, source: Source, located: Located) -> None:
    """Fail before sending when the text to judge is too large for one Jev request."""
    text = located.judged_text(source)
    if fits(citation.claim, text):
        return
    tokens = request_tokens(citation.claim, text)
    room = max_section_characters(citation.claim)
    if room < max(len(citation.quote or ""), SMALLEST_USEFUL_SECTION):
        # No window and no smaller section can help: the claim itself leaves no room to judge anything.
        raise CitationInputError(
            f"the claim is {len(citation.claim):,} characters (about {estimate_tokens(citation.claim):,} tokens), too "
            f"large for one Jev request: state plus question may hold {STATE_AND_QUESTION_TOKEN_LIMIT:,} tokens, and "
            f"this claim leaves room for {room:,} characters of section; shorten the claim to the sentence or two "
            "the quote supports (did the app pass its whole answer as the claim?)",
            citation=citation.id,
            field="claim",
        )
    if located.window is not None:
        remedy = "use a smaller window"
    elif citation.quote is not None:
        remedy = f"set window=N (at most about {max_section_characters(citation.claim):,} characters) to judge the text around the quote"
    else:
        remedy = "split the document into smaller sections, or quote the passage so a window around it can be judged"
    raise CitationInputError(
        f"section {located.section!r} is too large for one Jev request: about {tokens:,} tokens with the claim and "
        f"question, over the {STATE_AND_QUESTION_TOKEN_LIMIT:,} allowed for state plus question; {remedy}",
        citation=citation.id,
        field="section",
    )


def locate(citation: Citation, source: Source, locator: QuoteLocator, settings: Settings) -> CitationResult | Located:
    """Step 1: the final result of a quote that is not in the source, or what step 2 must judge."""
    if citation.quote is None:
        assert citation.section is not None
        return Located(Status.SECTION_ONLY, citation.section, None)
    prefer = source.section_at(citation.location[0]) if citation.location is not None else None
    match = locator.find(citation.quote, casefold=settings.casefold, prefer_section=prefer)
    status = Status.FOUND
    if match is None:
        # Only quotes that are not found pay for the alignment: the closest passage is both the
        # fuzzy candidate and, below the tolerance, the diagnostic for a fabricated quote.
        closest = locator.closest(citation.quote, casefold=settings.casefold)
        if closest is None or settings.fuzzy is None or closest.similarity < settings.fuzzy:
            return fabricated(citation, source, closest, settings)
        match, status = closest, Status.FOUND_APPROX
    window = None
    if settings.window is not None:
        window = window_around(source.sections[match.section], match.start, match.end, settings.window)
    return Located(status, match.section, (match.start, match.end), match.similarity, window)


def fabricated(citation: Citation, source: Source, closest: Any, settings: Settings) -> CitationResult:
    """The final result for a quote that is not in the source, with the closest passage as a hint."""
    passage = None
    if closest is not None:
        text = source.sections[closest.section][closest.start : closest.end]
        passage = Passage(closest.section, closest.start, closest.end, text, closest.similarity)
    return CitationResult(
        id=citation.id,
        claim=citation.claim,
        quote=citation.quote,
        status=Status.MISSING,
        section=None,
        verdict=Verdict.FABRICATED,
        confidence=None,
        auto=True,
        auto_accept=settings.auto_accept,
        closest=passage,
    )
