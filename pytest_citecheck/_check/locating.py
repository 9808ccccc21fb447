"""Step 1 for each citation, before anything is sent: validate it, locate its quote, check its size.

The result for a citation is either final (a fabricated quote: no model is asked) or a ``Located``,
which says what step 2 must judge: the section holding the quote (or the one a claim-only
citation names), the quote's offsets, and the window around it when one is set. A citation that
needs several sections is an ``Assembly`` instead: its sections, labelled, in one text.
"""

from __future__ import annotations

import dataclasses
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


def locate_all(
    citations: list[Citation], source: Source, settings: Settings
) -> list[CitationResult | Located | Assembly]:
    """Step 1 for every citation, in order; raises ``CitationInputError`` for the first bad one."""
    for citation in citations:
        validate_section(citation, source)
        validate_quote(citation, settings)
        validate_assembly(citation, source, settings)
    locator = locator_for(source)
    located: list[CitationResult | Located | Assembly] = [
        locate_assembly(citation, source, locator, settings)
        if citation.is_assembly
        else locate(citation, source, locator, settings)
        for citation in citations
    ]
    for citation, item in zip(citations, located):
        if isinstance(item, Located):
            check_size(citation, source, item)
        elif isinstance(item, Assembly):
            check_assembly_size(citation, source, item)
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


# --- claims that need several sections: one request over all of them -----------------------
#
# The cookbook: "a claim that depends on several hops through the document ... either assemble the
# relevant sections into one state or split the check". A citation naming several sections (or
# giving several quotes) is assembled: the sections, in document order, each under a label, become
# the one ``section`` of the state, so the relation question is asked word for word as for one section.


class Assembly(NamedTuple):
    """What step 1 hands step 2 for a citation of several sections: the labelled text Jev reads, and where its quotes are."""

    status: Status
    sections: tuple[str, ...]
    text: str
    # Each quote's ``[start, end)`` in ``text``, in the order the citation gives its quotes.
    spans: tuple[tuple[int, int], ...] = ()
    similarity: float | None = None
    quotes: tuple[str, ...] = ()

    @property
    def section(self) -> str:
        """The sections' label in tables and reports: "4 + 9"."""
        return " + ".join(self.sections)

    @property
    def span(self) -> tuple[int, int] | None:
        return None

    @property
    def window(self) -> tuple[int, int] | None:
        return None

    @property
    def document(self) -> str | None:
        return None

    def judged_text(self, source: Any) -> str:
        return self.text

    def attach(self, result: CitationResult) -> CitationResult:
        """``result`` with the assembly's sections, quotes and the labelled text that was judged."""
        return dataclasses.replace(
            result, section_text=self.text, sections=self.sections, quotes=self.quotes, spans=self.spans
        )


def section_label(section: str) -> str:
    """The line above each section in an assembly."""
    return f"[section {section}]"


def assemble(source: Source, sections: tuple[str, ...]) -> tuple[str, dict[str, int]]:
    """The sections' texts, each under its label, one blank line apart; and where each text starts."""
    parts = []
    starts = {}
    position = 0
    for section in sections:
        head = section_label(section) + "\n"
        starts[section] = position + len(head)
        part = head + source.sections[section]
        parts.append(part)
        position += len(part) + 2
    return "\n\n".join(parts), starts


def validate_assembly(citation: Citation, source: Source, settings: Settings) -> None:
    """Every section an assembly names exists, and every quote is long enough to identify a passage."""
    if not citation.is_assembly:
        return
    for section in citation.sections:
        validate_section(dataclasses.replace(citation, section=section, sections=(), quotes=()), source)
    for quote in citation.quotes:
        validate_quote(dataclasses.replace(citation, quote=quote, sections=(), quotes=()), settings)


def locate_assembly(
    citation: Citation, source: Source, locator: QuoteLocator, settings: Settings
) -> CitationResult | Assembly:
    """Step 1 for a citation of several sections: find each quote, then assemble the sections.

    A quote is looked for in the sections the citation names first, then anywhere; its section
    joins the assembly. The first quote not found makes the citation ``fabricated`` (no model is
    asked), with that quote and its closest passage. ``window`` does not apply: each section is whole.
    """
    matches = []
    status = Status.FOUND if citation.quotes else Status.SECTION_ONLY
    for quote in citation.quotes:
        match = _find_in_sections(locator, quote, citation.sections, settings)
        if match is None:
            closest = locator.closest(quote, casefold=settings.casefold)
            if closest is None or settings.fuzzy is None or closest.similarity < settings.fuzzy:
                result = fabricated(dataclasses.replace(citation, quote=quote), source, closest, settings)
                return dataclasses.replace(result, sections=citation.sections, quotes=citation.quotes)
            match, status = closest, Status.FOUND_APPROX
        matches.append(match)
    wanted = set(citation.sections) | {match.section for match in matches}
    sections = tuple(section for section in source.order if section in wanted)
    text, starts = assemble(source, sections)
    spans = tuple((starts[m.section] + m.start, starts[m.section] + m.end) for m in matches)
    similarity = min((m.similarity for m in matches), default=None)
    return Assembly(status, sections, text, spans, similarity, citation.quotes)


def _find_in_sections(locator: QuoteLocator, quote: str, sections: tuple[str, ...], settings: Settings) -> Any:
    """The quote's match in the first named section that holds it, else wherever the source holds it."""
    for section in sections:
        match = locator.find(quote, casefold=settings.casefold, prefer_section=section)
        if match is not None and match.section == section:
            return match
    return locator.find(quote, casefold=settings.casefold)


def check_assembly_size(citation: Citation, source: Source, assembly: Assembly) -> None:
    """Fail before sending when the assembled sections are too large for one Jev request, naming each one's size."""
    if fits(citation.claim, assembly.text):
        return
    sizes = ", ".join(
        f"{section} ({len(source.sections[section]):,} characters, about "
        f"{estimate_tokens(source.sections[section]):,} tokens)"
        for section in assembly.sections
    )
    raise CitationInputError(
        f"sections {assembly.section} are too large to judge together: about "
        f"{request_tokens(citation.claim, assembly.text):,} tokens with the claim and question, over the "
        f"{STATE_AND_QUESTION_TOKEN_LIMIT:,} allowed for state plus question; the sections: {sizes}. Split the "
        "check: one citation per section, each with the part of the claim that section settles "
        "(see docs/usage.md#claims-that-need-several-sections)",
        citation=citation.id,
        field="section",
    )
