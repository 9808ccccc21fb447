"""Step 1 for each citation, before anything is sent: validate it and locate its quote.

Each citation is either ``Unfound`` (a fabricated quote: no model is asked) or a ``Located``,
which says what step 2 must judge: the section holding the quote (or the one a claim-only
citation names, or a whole document), its document in a ``Corpus``, the quote's offsets, and the
window around it when one is set. Where the search looks first is ``finders``' business. A citation
that needs several sections is an ``Assembly`` instead: its sections, labelled, in one text.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, NamedTuple

from pytest_citecheck._citations.model import Citation
from pytest_citecheck._errors import CitationInputError
from pytest_citecheck._locate.across import Across, find_across, find_spanning
from pytest_citecheck._locate.finders import CorpusFinder, Documents, Finder, Found, SourceFinder, finder_for
from pytest_citecheck._locate.locator import Match, QuoteLocator
from pytest_citecheck._locate.normalize import quote_length, too_short
from pytest_citecheck._locate.passages import Passage, window_around
from pytest_citecheck._locate.placing import TooManyPlaces
from pytest_citecheck._locate.rules import MIN_PIECE_WORDS, meaning_changes, short_pieces
from pytest_citecheck._options import Settings
from pytest_citecheck._sources.corpus import Corpus
from pytest_citecheck._sources.source import Source
from pytest_citecheck._status import Status

if TYPE_CHECKING:
    from pytest_citecheck._results import CitationResult


class Located(NamedTuple):
    """What step 1 hands step 2: how the quote was found, the section to judge, the quote's offsets."""

    status: Status
    # None only for a claim-only citation of a whole document (``document-only``).
    section: str | None
    span: tuple[int, int] | None
    similarity: float | None = None
    # With the ``window`` option: the part of the section that is judged, as offsets into it.
    window: tuple[int, int] | None = None
    # The document of a ``Corpus`` that holds ``section`` (None for a single source).
    document: str | None = None

    def judged_text(self, documents: Documents) -> str:
        """What Jev reads: the whole section (or document), or the window around the quote when one is set."""
        source = source_of(documents, self.document)
        if self.section is None:
            return source.text
        section_text = source.sections[self.section]
        return section_text if self.window is None else section_text[self.window[0] : self.window[1]]


def source_of(documents: Documents, document: str | None) -> Source:
    """The ``Source`` a result's section belongs to: the single source, or the named document of a corpus."""
    if isinstance(documents, Corpus):
        assert document is not None, "a result from a corpus always names its document"
        return documents[document]
    return documents


def as_source(source: Any, format: str, hooks: Any = None) -> Documents:
    """A ``Source`` or ``Corpus`` as given, or a ``Source`` from a document's text; unknown formats go to the split hook."""
    if isinstance(source, (Source, Corpus)):
        return source
    if isinstance(source, str):
        return Source.from_text(source, format=format, hooks=hooks)
    raise CitationInputError(
        f"expected a Source, a Corpus or the document's text, got {type(source).__name__}", field="source"
    )


def locate_all(
    citations: list[Citation], documents: Documents, settings: Settings
) -> list[Located | Assembly | Unfound]:
    """Step 1 for every citation, in order; raises ``CitationInputError`` for the first bad one.

    Each citation is ``Located`` (one section to judge), an ``Assembly`` (several) or ``Unfound``
    (its quote is in no section: fabricated, and nothing is sent). Whether the text to judge fits
    one request is step 2's question (``_judge.sizes.check_sizes``).
    """
    finder = finder_for(documents)
    for citation in citations:
        validate_document(citation, documents, finder)
        validate_section(citation, documents, finder)
        validate_quote(citation, settings)
        validate_assembly(citation, documents, settings)
    located: list[Located | Assembly | Unfound] = []
    for citation in citations:
        try:
            located.append(
                locate_assembly(citation, documents, settings)
                if citation.is_assembly
                else locate(citation, documents, finder, settings)
            )
        except TooManyPlaces as error:  # the message names the cause and the remedy; the error, the citation
            raise CitationInputError(str(error), citation=citation.id, field="quote") from None
    return located


def _sample(names: list[str]) -> str:
    return ", ".join(names[:8]) + (", …" if len(names) > 8 else "")


def validate_document(citation: Citation, documents: Documents, finder: Finder) -> None:
    if citation.document is None:
        return
    if not isinstance(documents, Corpus):
        raise CitationInputError(
            f"names document {citation.document!r}, but the source is one document: pass a Corpus of documents "
            "by id, or leave document out",
            citation=citation.id,
            field="document",
        )
    if citation.document not in documents:
        raise CitationInputError(
            f"names document {citation.document!r}, which the corpus does not have (it has {_sample(list(documents))}); "
            "document names match ids exactly, after POSIX separators, a leading './' and URL scheme and host case: "
            "if it is another name of one of them, say so with Corpus(..., aliases={name: document_id})",
            citation=citation.id,
            field="document",
        )


def validate_section(citation: Citation, documents: Documents, finder: Finder) -> None:
    if citation.section is None:
        return
    if citation.document is not None:
        source = source_of(documents, citation.document)
        if citation.section not in source.sections:
            raise CitationInputError(
                f"names section {citation.section!r}, which document {citation.document!r} does not have "
                f"(it has {_sample(list(source.sections))})",
                citation=citation.id,
                field="section",
            )
        return
    if isinstance(finder, CorpusFinder):
        holders = finder.documents_with_section(citation.section)
        if not holders:
            raise CitationInputError(
                f"names section {citation.section!r}, which no document of the corpus has: name the document too",
                citation=citation.id,
                field="section",
            )
        if citation.quote is None and len(holders) > 1:
            # A claim-only citation is judged against its section: which document's must be said.
            raise CitationInputError(
                f"section {citation.section!r} is in {len(holders)} documents ({_sample(holders)}): name the document",
                citation=citation.id,
                field="document",
            )
        return
    source = source_of(documents, None)
    if citation.section not in source.sections:
        raise CitationInputError(
            f"names section {citation.section!r}, which the source does not have (it has {_sample(list(source.sections))})",
            citation=citation.id,
            field="section",
        )


def validate_quote(citation: Citation, settings: Settings) -> None:
    if citation.quote is None:
        return
    length = quote_length(citation.quote, casefold=settings.casefold)
    if length < settings.min_quote_length:
        raise CitationInputError(
            too_short(citation.quote, length, settings.min_quote_length, casefold=settings.casefold),
            citation=citation.id,
            field="quote",
        )
    short = short_pieces(citation.quote, casefold=settings.casefold)
    if short:
        raise CitationInputError(
            f"elides text, and its pieces {', '.join(map(repr, short))} are under {MIN_PIECE_WORDS} words: too short "
            "to show that the passage says what the quote does; quote the passage whole, or keep at least "
            f"{MIN_PIECE_WORDS} words on each side of every '...'",
            citation=citation.id,
            field="quote",
        )


def locate(citation: Citation, documents: Documents, finder: Finder, settings: Settings) -> Unfound | Located:
    """Step 1: a quote that is not in the source (``Unfound``), or what step 2 must judge."""
    if citation.quote is None:
        if citation.section is None:
            return Located(Status.DOCUMENT_ONLY, None, None, document=citation.document)
        document = citation.document
        if document is None and isinstance(finder, CorpusFinder):
            [document] = finder.documents_with_section(citation.section)  # validated: exactly one
        return Located(Status.SECTION_ONLY, citation.section, None, document=document)
    found = finder.find(
        citation.quote,
        document=citation.document,
        section=citation.section,
        location=citation.location,
        casefold=settings.casefold,
    )
    status = Status.FOUND
    if found is not None and found.match.turning_words:
        return unfound(citation, finder, found)  # altered: the elision removed a word that turns the meaning
    if found is None:
        # Only quotes that are not found pay for the alignment: the closest passage is both the
        # fuzzy candidate and, below the tolerance, the diagnostic for a fabricated quote.
        closest = finder.closest(citation.quote, document=citation.document, casefold=settings.casefold)
        if closest is None or settings.fuzzy is None or closest.match.similarity < settings.fuzzy:
            return spanning(citation, finder, settings, closest) or unfound(citation, finder, closest)
        near = finder.source_of(closest.document).sections[closest.match.section]
        if meaning_changes(citation.quote, near[closest.match.start : closest.match.end], settings.casefold):
            return unfound(citation, finder, closest)  # a near match, but not of what the passage says
        found, status = closest, Status.FOUND_APPROX
    document, match = found
    if is_elsewhere(citation, document, match.section):
        # Misattributed: Jev judges where the quote is; the gate decides what the wrong place costs.
        status = Status.FOUND_ELSEWHERE
    window = None
    if settings.window is not None:
        section_text = finder.source_of(document).sections[match.section]
        window = window_around(section_text, match.start, match.end, settings.window)
    return Located(status, match.section, (match.start, match.end), match.similarity, window, document)


def is_elsewhere(citation: Citation, document: str | None, section: str) -> bool:
    """The quote is not in the section (or document) the citation names."""
    if citation.document is not None and citation.document != document:
        return True
    return citation.section is not None and citation.section != section


class Unfound(NamedTuple):
    """Step 1's final word on a quote the source does not say: fabricated, and no model is asked.

    ``citation`` is the one checked (for an assembly, with ``quote`` the first of its quotes not
    found); ``closest`` the passage of the source most like the quote, as a hint. An assembly's
    ``sections`` and ``quotes`` are the citation's own. ``removed``: for an ``altered`` quote (found
    only by eliding a word that turns the meaning), what its elisions left out, and ``closest`` is
    the passage it was cut from. The gate makes the result (``_gate.fabricated_result``).
    """

    citation: Citation
    closest: Passage | None
    sections: tuple[str, ...] | None = None
    quotes: tuple[str, ...] | None = None
    removed: tuple[str, ...] = ()

    @property
    def status(self) -> Status:
        return Status.ALTERED if self.removed else Status.MISSING

    @property
    def section(self) -> str | None:
        return None


def unfound(citation: Citation, finder: Finder, closest: Found | None) -> Unfound:
    """A quote that is not in the source, with the closest passage as a hint; or an altered one
    (``closest`` is where it was found, its elisions removing a word that turns the meaning)."""
    if closest is None:
        return Unfound(citation, None)
    document, match = closest
    text = finder.source_of(document).sections[match.section][match.start : match.end]
    passage = Passage(match.section, match.start, match.end, text, match.similarity, document)
    return Unfound(citation, passage, removed=match.turning_gaps)


def spanning(citation: Citation, finder: Finder, settings: Settings, closest: Found | None) -> Unfound | None:
    """A quote in no one section that runs across a border next to its closest passage (a retriever's
    chunk): still fabricated, with the sections it runs across as its passage; else None."""
    assert citation.quote is not None
    if closest is None:
        return None
    document, match = closest
    source = finder.source_of(document)
    across = find_spanning(source, citation.quote, match.section, casefold=settings.casefold)
    if across is None:
        return None
    first = source.sections[across.sections[0]]
    text = first[across.start :]
    return Unfound(
        citation, Passage(across.sections[0], across.start, len(first), text, 1.0, document, across.sections)
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
    # The sections the citation names (``found-elsewhere`` when a quote is in none of them).
    cited: tuple[str, ...] = ()
    # The document of a ``Corpus`` whose sections these are (None for a single source).
    document: str | None = None

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

    def judged_text(self, source: Any) -> str:
        return self.text

    def attach(self, result: CitationResult) -> CitationResult:
        """``result`` with the assembly's sections, quotes and the labelled text that was judged; a
        misattributed one names the sections it cited."""
        cited = " + ".join(self.cited) if self.status is Status.FOUND_ELSEWHERE else result.cited_section
        return dataclasses.replace(
            result,
            section_text=self.text,
            sections=self.sections,
            quotes=self.quotes,
            spans=self.spans,
            cited_section=cited,
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


def validate_assembly(citation: Citation, documents: Documents, settings: Settings) -> None:
    """Every section an assembly names exists, and every quote is long enough to identify a passage.

    Assemblies are judged within one ``Source``: against a ``Corpus``, the citation names its
    document (else check it against the Source of its document, ``corpus[document_id]``).
    """
    if not citation.is_assembly:
        return
    if isinstance(documents, Corpus) and citation.document is None:
        raise CitationInputError(
            "names several sections, which is supported against one Source, not a Corpus: name the document, "
            "check it against the Source of its document (corpus[document_id]), or cite one section",
            citation=citation.id,
            field="section",
        )
    if isinstance(documents, Corpus):
        validate_document(citation, documents, finder_for(documents))
        documents = source_of(documents, citation.document)
        citation = dataclasses.replace(citation, document=None)
    finder = finder_for(documents)
    for section in citation.sections:
        validate_section(dataclasses.replace(citation, section=section, sections=(), quotes=()), documents, finder)
    for quote in citation.quotes:
        validate_quote(dataclasses.replace(citation, quote=quote, sections=(), quotes=()), settings)


def locate_assembly(citation: Citation, documents: Documents, settings: Settings) -> Unfound | Assembly:
    """Step 1 for a citation of several sections: find each quote, then assemble the sections.

    A quote is looked for in the sections the citation names first, then anywhere; its section
    joins the assembly. The first quote not found makes the citation ``fabricated`` (no model is
    asked), with that quote and its closest passage. ``window`` does not apply: each section is whole.
    """
    source = source_of(documents, citation.document)  # validate_assembly: a corpus's names its document
    finder = finder_for(source)
    locator = finder.locator if isinstance(finder, SourceFinder) else QuoteLocator(source)
    matches: list[Match | Across] = []
    status = Status.FOUND if citation.quotes else Status.SECTION_ONLY
    for quote in citation.quotes:
        match = _assembly_match(citation, quote, source, locator, finder, settings)
        if isinstance(match, Unfound):
            return match._replace(sections=citation.sections, quotes=citation.quotes)
        if match.approximate:
            status = Status.FOUND_APPROX
        matches.append(match)
    wanted = set(citation.sections) | {section for match in matches for section in _sections_of(match)}
    sections = tuple(section for section in source.order if section in wanted)
    text, starts = assemble(source, sections)
    spans = tuple(_span(match, starts) for match in matches)
    similarity = min((m.similarity for m in matches), default=None)
    if citation.sections and any(not set(_sections_of(m)) <= set(citation.sections) for m in matches):
        status = Status.FOUND_ELSEWHERE  # a quote in none of the sections the citation names: misattributed
    return Assembly(status, sections, text, spans, similarity, citation.quotes, citation.sections, citation.document)


def _sections_of(match: Match | Across) -> tuple[str, ...]:
    return match.sections if isinstance(match, Across) else (match.section,)


def _span(match: Match | Across, starts: dict[str, int]) -> tuple[int, int]:
    """A quote's ``[start, end)`` in the assembled text (from its first section to its last)."""
    sections = _sections_of(match)
    return starts[sections[0]] + match.start, starts[sections[-1]] + match.end


def _assembly_match(
    citation: Citation, quote: str, source: Source, locator: QuoteLocator, finder: Finder, settings: Settings
) -> Match | Across | Unfound:
    """One quote of an assembly: its match (exact, or within ``fuzzy``), or ``Unfound`` (fabricated or altered).

    It is looked for in each section the citation names, then across their borders (``across``: a
    quote of a block range run together), then anywhere in the source."""
    match = _find_in_sections(locator, quote, citation.sections, settings)
    if match is None:
        across = find_across(source, quote, citation.sections, casefold=settings.casefold)
        if across is not None:
            return across
        match = locator.find(quote, casefold=settings.casefold)
    if match is not None and match.turning_words:
        return unfound(dataclasses.replace(citation, quote=quote), finder, Found(None, match))
    if match is not None:
        return match
    closest = locator.closest(quote, casefold=settings.casefold)
    if closest is None or settings.fuzzy is None or closest.similarity < settings.fuzzy:
        found = None if closest is None else Found(None, closest)
        return unfound(dataclasses.replace(citation, quote=quote), finder, found)
    return closest


def _find_in_sections(locator: QuoteLocator, quote: str, sections: tuple[str, ...], settings: Settings) -> Match | None:
    """The quote's match in the first named section that holds it, else None."""
    return locator.find_in_sections(quote, sections, casefold=settings.casefold)
