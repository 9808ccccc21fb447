"""Step 1 over one source or over the documents of a ``Corpus``: which document and section hold a quote.

A single ``Source`` is searched as it always was (``QuoteLocator``): the cited section first, then
the cookbook's first section in numeric order. A ``Corpus`` is searched as one text: every section
of every document goes into one ``QuoteLocator`` (documents in the corpus's order, each one's
sections in its own order), so its normalised form is built once per ``Corpus`` object and its word
index finds a quote in a thousand documents without reading them all. The order of the search
(issue 12):

1. with a cited document: the cited section, then the rest of that document, then every other one;
2. with a cited section and no document: that section in every document that has it, then all;
3. with neither: every document, in order.

A quote found in the cited section is attributed to it even when other sections hold it too. A quote
found nowhere gets the closest passage anywhere and the closest in its cited document, from a locator
of that document made from the joined one's normalised texts (not normalised a second time).
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Mapping
from typing import NamedTuple

from pytest_citecheck._locate.display import Markup, markup_of
from pytest_citecheck._locate.locator import Match, QuoteLocator
from pytest_citecheck._sources.corpus import Corpus
from pytest_citecheck._sources.source import Source

Documents = Source | Corpus


class Found(NamedTuple):
    """Where step 1 found a quote: the document (None for a single source) and the match in its section."""

    document: str | None
    match: Match


class SourceFinder:
    """Step 1 over one ``Source``."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.locator = QuoteLocator(source)

    def source_of(self, document: str | None) -> Source:
        return self.source

    def find(
        self,
        quote: str,
        *,
        document: str | None,
        section: str | None,
        location: tuple[int, int] | None,
        casefold: bool,
    ) -> Found | None:
        prefer = section
        if prefer is None and location is not None:
            prefer = _cited_section(self.source, location)
        match = self.locator.find(quote, casefold=casefold, prefer_section=prefer)
        return None if match is None else Found(None, match)

    def closest(self, quote: str, *, document: str | None, casefold: bool) -> Found | None:
        match = self.locator.closest(quote, casefold=casefold)
        return None if match is None else Found(None, match)


@dataclasses.dataclass(frozen=True)
class JoinedSections:
    """Every section of a corpus's documents, searched in this order: what a ``QuoteLocator`` reads of a
    ``Source`` (``word_index.Sections``), without the joined text of the whole corpus, which nothing reads."""

    sections: Mapping[str, str]
    order: tuple[str, ...]
    # The markup of each section of a Markdown or reStructuredText document (``display``): its displayed
    # words are looked in too, as in a ``Source`` of that document.
    markup: Mapping[str, Markup] = dataclasses.field(default_factory=dict)


class CorpusFinder:
    """Step 1 over every document of a ``Corpus``, as one joined source."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        sections: dict[str, str] = {}
        # A section of the joined source is "<document position>:<section id>"; these map both ways.
        self._keys: dict[str, dict[str, str]] = {}
        self._place: dict[str, tuple[str, str]] = {}
        # Where each document's sections start in the joined source's order.
        self._first: dict[str, int] = {}
        markup: dict[str, Markup] = {}
        for position, (document_id, source) in enumerate(corpus.documents.items()):
            keys = self._keys[document_id] = {}
            self._first[document_id] = len(sections)
            marked = markup_of(source)
            for section_id in source.order:
                key = f"{position}:{section_id}"
                keys[section_id] = key
                sections[key] = source.sections[section_id]
                self._place[key] = (document_id, section_id)
                if marked is not None:
                    markup[key] = marked
        self.locator = QuoteLocator(JoinedSections(sections, tuple(sections), markup))
        # Per-document locators, built only to find the closest passage in a cited document, each made
        # from the joined source's normalised texts of that document's sections (which follow one another).
        self._document_locators: dict[str, QuoteLocator] = {}

    def source_of(self, document: str | None) -> Source:
        assert document is not None, "a result from a corpus always names its document"
        return self.corpus[document]

    def find(
        self,
        quote: str,
        *,
        document: str | None,
        section: str | None,
        location: tuple[int, int] | None,
        casefold: bool,
    ) -> Found | None:
        locator = self.locator
        if document is not None:
            keys = self._keys[document]
            first = section
            if first is None and location is not None:
                first = _cited_section(self.corpus[document], location)
            cited = keys.get(first) if first is not None else None
            in_document = list(keys.values()) if cited is None else [cited, *(k for k in keys.values() if k != cited)]
            # Not in the cited document: whatever the whole search finds is in another one.
            match = locator.find_in_sections(quote, in_document, casefold=casefold) or locator.find(
                quote, casefold=casefold
            )
        elif section is not None:
            cited_everywhere = [keys[section] for keys in self._keys.values() if section in keys]
            match = locator.find_in_sections(quote, cited_everywhere, casefold=casefold) or locator.find(
                quote, casefold=casefold
            )
        else:
            match = locator.find(quote, casefold=casefold)
        return self._found(match)

    def closest(self, quote: str, *, document: str | None, casefold: bool) -> Found | None:
        """The passage most like ``quote``: in the cited document, unless one elsewhere is more alike.

        The joined source's closest passage comes from the few sections sharing the most words with
        the quote, anywhere in the corpus; a quote that names its document is compared with that
        document as well (through a locator of its own, built on the first such quote), since "did the
        model misquote the document it cites?" is the question a reader asks first.
        """
        anywhere = self.locator.closest_place(quote, casefold=casefold)
        if document is not None:
            locator = self._document_locators.get(document)
            if locator is None:
                locator = self._document_locators[document] = QuoteLocator(
                    self.corpus[document], part_of=(self.locator, self._first[document])
                )
            near = locator.closest_place(quote, casefold=casefold)
            # Only the passage kept is mapped back to the original text.
            if near is not None and (anywhere is None or anywhere.similarity <= near.similarity):
                return Found(document, locator.match_at(near))
        return None if anywhere is None else self._found(self.locator.match_at(anywhere))

    def documents_with_section(self, section: str) -> list[str]:
        return [document for document, keys in self._keys.items() if section in keys]

    def _found(self, match: Match | None) -> Found | None:
        if match is None:
            return None
        document, section = self._place[match.section]
        return Found(document, dataclasses.replace(match, section=section))


Finder = SourceFinder | CorpusFinder
_FINDERS: weakref.WeakKeyDictionary[Source | Corpus, Finder] = weakref.WeakKeyDictionary()


def finder_for(documents: Documents) -> Finder:
    """One finder per ``Source`` or ``Corpus`` object: its normalised form is built once, not once per test."""
    finder = _FINDERS.get(documents)
    if finder is None:
        finder = _FINDERS[documents] = (
            CorpusFinder(documents) if isinstance(documents, Corpus) else SourceFinder(documents)
        )
    return finder


def _cited_section(source: Source, location: tuple[int, int]) -> str | None:
    """The section a ``char_location`` (offsets into the document as the app sent it) points at."""
    placed = source.place(*location)
    return placed.section if placed is not None else None
