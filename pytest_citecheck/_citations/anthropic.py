"""Anthropic Messages API text blocks: one citation per cited passage (``cited_text`` is the quote).

A block comes as a dict or as the ``anthropic`` package's ``TextBlock`` (read by attribute: the
package is never imported here); a whole ``Message`` is split into its blocks by ``containers``.
Each citation's location says where its passage is:

- ``char_location`` (plain-text documents): ``[start_char_index, end_char_index)`` in the
  document's text, kept as the citation's ``location`` so the quote is looked for first in the
  section those offsets fall in;
- ``page_location`` (PDFs): ``[start_page_number, end_page_number)``, 1-based. Against a document
  whose sections are pages (``Corpus.from_documents`` names them ``"page 3"``), a one-page citation cites
  that section and a longer one its pages, as a block range does (a quote found outside them is
  ``found-elsewhere``);
- ``content_block_location`` (custom-content documents): ``[start_block_index, end_block_index)`` in
  the document's ``content`` list. Against ``Source.from_blocks`` (the content the app sent), one
  block cites its section, a range its blocks (a quote found outside them is ``found-elsewhere``); a
  range whose ``cited_text`` is its blocks run together is judged against those blocks, assembled; against
  any other source the indices are only checked for sense and the quote is looked for in the document.

When the check is given a ``Corpus``, ``document_title`` (or ``file_id``) selects the document when
it names one, else ``document_index`` is the position in the corpus (the order the documents were
sent in). Against a single ``Source``, a citation of any document but the first is an error: the
request had several documents, and the check must be given all of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from pytest_citecheck._citations.model import MISSING, Citation, field_of
from pytest_citecheck._citations.pages import page_sections
from pytest_citecheck._citations.plain import adapt_citation
from pytest_citecheck._citations.sentences import uncited_sentences
from pytest_citecheck._citations.urls import names_the_source, url_document
from pytest_citecheck._errors import CitationInputError
from pytest_citecheck._sources.corpus import Corpus
from pytest_citecheck._sources.source import Source


def is_anthropic_text_block(raw: Any) -> bool:
    """An Anthropic Messages API text content block (a dict, or the SDK's ``TextBlock``)."""
    return (
        field_of(raw, "type") == "text" and field_of(raw, "text") is not MISSING and field_of(raw, "claim") is MISSING
    )


def adapt_anthropic_block(
    raw: Any, position: int, source: Source | Corpus | None = None, invalid: dict[str, CitationInputError] | None = None
) -> list[Citation]:
    """One citation per cited passage of a text block: the block's text is the claim, ``cited_text`` the quote.

    ``source`` is what the citations are checked against: it resolves which document each cites. With
    ``invalid``, a citation that cannot be read is recorded there by id (and a stand-in keeps its place)
    instead of raising, so the block's other citations are still checked.
    """
    block_id = f"#{position}"
    claim = field_of(raw, "text")
    if not isinstance(claim, str):
        raise CitationInputError(f"must be a string, got {type(claim).__name__}", citation=block_id, field="text")
    cited = field_of(raw, "citations")
    if cited is None or cited is MISSING:
        return []  # text the model did not cite: nothing to check
    if isinstance(cited, (str, bytes, Mapping)) or not isinstance(cited, Iterable):
        raise CitationInputError(
            f"must be a list of citations, got {type(cited).__name__}", citation=block_id, field="citations"
        )
    adapted = []
    for number, item in enumerate(cited, start=1):
        try:
            adapted.append(_adapt_cited(item, f"#{position}.{number}", claim, position, source))
        except CitationInputError as error:
            if invalid is None:
                raise
            # Stands in for the bad citation; ``invalid`` says why (``_check.invalid`` makes its result).
            invalid[f"#{position}.{number}"] = error
            adapted.append(Citation(id=f"#{position}.{number}", claim=claim, quote=None, section=None))
    return adapted


def uncited_anthropic_text(blocks: Sequence[Any]) -> list[str]:
    """The sentences of an answer's consecutive text blocks that no citing block touches.

    Claude cuts a sentence into blocks where its citations begin and end: "According to the documents, "
    + "the grass is green" (cited) + " and " + "the sky is blue" (cited) + ".". Read block by block, the
    connecting text would be listed as sentences that cite nothing; read together, the sentence is cited.
    """
    text, covered = "", []
    for block in blocks:
        part, cited = field_of(block, "text"), field_of(block, "citations")
        if not isinstance(part, str):
            continue  # an unreadable block is the invalid citation's business, not coverage's
        if text and text[-1] in ".!?" and part[:1].strip():
            text += " "  # a block that closes a sentence ends it, though the next block adds no space
        if cited not in (None, MISSING) and cited:
            covered.append((len(text), len(text) + len(part)))
        text += part
    return uncited_sentences(text, covered)


def _adapt_cited(item: Any, citation_id: str, claim: str, position: int, source: Source | Corpus | None) -> Citation:
    """One cited passage of a text block as a ``Citation``."""
    kind = field_of(item, "type")
    if kind is MISSING:
        # A citation without a type (a dict written by hand, a serialisation that dropped it) is read as the
        # type its location fields belong to: a page range must not be lost, or a quote from another page passes.
        kind = _inferred_kind(item, citation_id)
    elif kind not in _KINDS:
        # Fails closed: the type says which location fields to read, so a citation of an unknown type
        # (a misspelt ``page_location``) would lose its place silently and a quote from the wrong page pass.
        raise CitationInputError(
            f"is {kind!r}, not a type of Anthropic citation this version knows ({', '.join(_KINDS)})",
            citation=citation_id,
            field="type",
        )
    quote = field_of(item, "cited_text")
    if quote is MISSING:
        raise CitationInputError(
            "is missing: an Anthropic citation carries the passage it cites",
            citation=citation_id,
            field="cited_text",
        )
    if not isinstance(quote, str):
        raise CitationInputError(
            f"must be a string, got {type(quote).__name__}", citation=citation_id, field="cited_text"
        )
    document = _cited_document(item, kind, source, citation_id)
    document_source = source[document] if isinstance(source, Corpus) and document is not None else source
    location = _char_location(item, citation_id)
    _within_document(document_source, location, quote, citation_id)
    section = _placed_section(document_source, location)
    if kind in _RANGES:
        cited = _RANGES[kind](item, document_source, citation_id)
        section = cited[0] if len(cited) == 1 else None
        if len(cited) > 1:
            return _range(citation_id, claim, quote, document, document_source, cited)
    elif kind == "search_result_location":
        _index_range(item, "start_block_index", "end_block_index", 0, citation_id)
    if not quote.strip():
        return _without_passage(citation_id, claim, section, document)
    citation = adapt_citation({"id": citation_id, "claim": claim, "quote": quote}, position, location=location)
    return replace(citation, section=section, document=document)


def _block_sections(item: Any, source: Source | Corpus | None, citation_id: str) -> tuple[str, ...]:
    """The sections a ``content_block_location`` cites: for a source built from the blocks the app sent
    (``Source.from_blocks``), the text blocks of ``[start_block_index, end_block_index)``; else none
    (the quote is looked for in the whole document)."""
    start, end = _index_range(item, "start_block_index", "end_block_index", 0, citation_id)
    blocks = source.blocks if isinstance(source, Source) else None
    if blocks is None:
        return ()
    if end > len(blocks):
        raise CitationInputError(
            f"cites blocks {start} to {end - 1}, but the document it cites has {len(blocks)} blocks: check against "
            "Source.from_blocks of the content the request sent",
            citation=citation_id,
            field="end_block_index",
        )
    return tuple(section for section in blocks[start:end] if section is not None)


def _range(
    citation_id: str,
    claim: str,
    quote: str,
    document: str | None,
    source: Source | Corpus | None,
    sections: tuple[str, ...],
) -> Citation:
    """A citation of several blocks (``content_block_location``) or pages (``page_location``): an assembly
    of those sections. Claude's cited_text of a block range is the blocks' texts run together (or empty):
    the claim is judged against the blocks, with no quote to look for across their borders. Any other
    cited_text is a quote looked for in the range first (also across the borders of its sections), then
    in the rest of the document: ``found-elsewhere`` there."""
    if not quote.strip() or _is_concatenation(quote, source, sections):
        return Citation(citation_id, claim, None, None, document=document, sections=sections)
    return Citation(citation_id, claim, None, None, document=document, sections=sections, quotes=(quote,))


def _is_concatenation(quote: str, source: Source | Corpus | None, sections: tuple[str, ...]) -> bool:
    """``quote`` is the cited blocks' texts run together (whitespace aside)."""
    if not isinstance(source, Source):
        return False
    joined = "".join(source.sections[section] for section in sections)
    return "".join(quote.split()) == "".join(joined.split())


def _placed_section(source: Source | Corpus | None, location: tuple[int, int] | None) -> str | None:
    """The section a ``char_location``'s offsets point at in the text the app sent (``Source.place``), so a
    quote found elsewhere is ``found-elsewhere``, naming both places; None where they point at no section."""
    place = getattr(source, "place", None) if isinstance(source, Source) and location is not None else None
    placed = place(*location) if place is not None and location is not None else None
    return getattr(placed, "section", None)


def _within_document(
    source: Source | Corpus | None, location: tuple[int, int] | None, quote: str, citation_id: str
) -> None:
    """A ``char_location`` must lie within the document the app sent. Offsets past the end of a ``Source``
    given that text (``from_file``, ``from_text``, ``text=`` beside the sections) mean the check's source
    is not what the request sent: its places cannot be trusted, and were ignored (the quote found
    anywhere). A source whose ``original`` is only its sections joined is not that text either, and its
    offsets cannot be placed past its end: ``invalid`` too (fail closed), saying to give the text sent.
    Whitespace at the end of ``cited_text`` may run past the end (a document sent with a trailing newline,
    checked without it)."""
    if location is None or not isinstance(source, Source):
        return
    length = len(source.original or "")
    start, end = location
    over = end - length
    if over <= 0 or (start < length and over <= len(quote) and not quote[len(quote) - over :].strip()):
        return
    size = f"{length} characters" + (f", {source.name}" if source.name else "")
    checked = (
        f", its sections joined ({size}), as no text of it was given" if source.original_is_joined else f" ({size})"
    )
    raise CitationInputError(
        f"start_char_index {start} and end_char_index {end} pass the end of the document checked{checked}: "
        "check against the text the request sent (Source.from_file of the file it read, or "
        "Source(sections=..., text=<the text sent>))",
        citation=citation_id,
        field="start_char_index" if start >= length else "end_char_index",
    )


def _without_passage(citation_id: str, claim: str, section: str | None, document: str | None) -> Citation:
    """A citation whose ``cited_text`` is empty (Claude's web search results can have one): the claim is
    judged against the place it cites, as a claim-only citation."""
    if section is None and document is None:
        raise CitationInputError(
            "is empty: the model cited no passage, and the citation names no document of a Corpus to judge the "
            "claim against; check against a Corpus of the documents the request sent (search results by URL)",
            citation=citation_id,
            field="cited_text",
        )
    return Citation(id=citation_id, claim=claim, quote=None, section=section, document=document)


def _char_location(item: Any, citation_id: str) -> tuple[int, int] | None:
    start, end = field_of(item, "start_char_index"), field_of(item, "end_char_index")
    if start is MISSING and end is MISSING:
        return None
    return _index_range(item, "start_char_index", "end_char_index", 0, citation_id, empty=True)


def _index_range(
    item: Any, start_field: str, end_field: str, lowest: int, citation_id: str, *, empty: bool = False
) -> tuple[int, int]:
    """``[start, end)`` from two fields, checked: whole numbers, ``lowest <= start``, and ``start < end``."""
    start, end = field_of(item, start_field), field_of(item, end_field)
    whole = all(isinstance(value, int) and not isinstance(value, bool) for value in (start, end))
    if not whole or not lowest <= start <= end or (start == end and not empty):
        relation = "<=" if empty else "<"
        # The field named is the one that is wrong: the end when it alone is missing or no whole number
        # (an end before the start names the start, as the pair is read from it).
        end_whole = isinstance(end, int) and not isinstance(end, bool)
        start_fine = isinstance(start, int) and not isinstance(start, bool) and lowest <= start
        raise CitationInputError(
            f"{start_field} {start!r} and {end_field} {end!r} must be whole numbers with "
            f"{lowest} <= start {relation} end",
            citation=citation_id,
            field=end_field if start_fine and not end_whole else start_field,
        )
    return start, end


def _page_sections(item: Any, source: Source | Corpus | None, citation_id: str) -> tuple[str, ...]:
    """The pages a ``page_location`` cites, ``[start_page_number, end_page_number)``, that are sections of
    the document (``pages.page_sections``: none for a document whose sections are not its pages)."""
    start, end = _index_range(item, "start_page_number", "end_page_number", 1, citation_id)
    return page_sections(start, end, source, citation_id, "start_page_number")


# The citation locations that name a range of sections: pages of a PDF, blocks of custom content.
_RANGES = {"page_location": _page_sections, "content_block_location": _block_sections}

# The citation types the Anthropic SDK defines (``anthropic.types.TextCitation``, anthropic 2.10): any
# other is an error naming ``type``.
_KINDS = (
    "char_location",
    "page_location",
    "content_block_location",
    "web_search_result_location",
    "search_result_location",
)


# The fields only one type of citation has (``anthropic.types.TextCitation``, anthropic 2.10), by which a
# citation without ``type`` is read. A search result's citation also has block indices: it is told apart
# from a ``content_block_location`` by its ``search_result_index`` / ``source``.
_MARKS = {
    "char_location": ("start_char_index", "end_char_index"),
    "page_location": ("start_page_number", "end_page_number"),
    "content_block_location": ("start_block_index", "end_block_index"),
    "web_search_result_location": ("url", "encrypted_index"),
    "search_result_location": ("search_result_index", "source"),
}


def _inferred_kind(item: Any, citation_id: str) -> Any:
    """The type of a citation without ``type``, from the location fields it has: MISSING when it has none
    (its quote alone is read); an error naming ``type`` when it has the fields of two types."""
    kinds = [kind for kind, names in _MARKS.items() if any(field_of(item, name) is not MISSING for name in names)]
    if "search_result_location" in kinds and "content_block_location" in kinds:
        kinds.remove("content_block_location")
    if len(kinds) > 1:
        fields = ", ".join(name for kind in kinds for name in _MARKS[kind] if field_of(item, name) is not MISSING)
        raise CitationInputError(
            f"is missing, and the citation has the location fields of {' and '.join(kinds)} ({fields}): "
            "give its type, so the place it cites is known",
            citation=citation_id,
            field="type",
        )
    return kinds[0] if kinds else MISSING


def _cited_document(item: Any, kind: Any, source: Source | Corpus | None, citation_id: str) -> str | None:
    """The corpus id of the document a citation cites (None when the check has a single ``Source``)."""
    index = _document_index(item, citation_id)
    fields = _name_fields(item, kind)
    if not isinstance(source, Corpus):
        if isinstance(source, Source):
            _in_single_source(item, kind, fields, index, source, citation_id)
        return None
    names = {name: value for name in fields if isinstance(value := field_of(item, name), str) and value.strip()}
    found = next((hit for name in names.values() if (hit := url_document(source, name)) is not None), None)
    if found is not None:
        return found
    ids = list(source)
    if index is not None and index < len(ids):
        return ids[index]
    raise _unknown_document(ids, index, names, citation_id)


def _in_single_source(
    item: Any, kind: Any, fields: tuple[str, ...], index: int | None, source: Source, citation_id: str
) -> None:
    """Against a single ``Source``, a citation must cite it: a web search or search result names it, a
    document citation is of the request's first document."""
    if kind in _NAMED_BY:
        _names_the_source(item, fields, source, citation_id)
    elif index is not None and index > 0:
        title = field_of(item, "document_title")
        named = f" ({title!r})" if isinstance(title, str) else ""
        raise CitationInputError(
            f"cites document {index}{named} of the request, but the check was given a single Source: "
            "pass a Corpus of the documents the request sent, in the order it sent them",
            citation=citation_id,
            field="document_index",
        )


def _unknown_document(ids: list[str], index: int | None, names: dict[str, str], citation_id: str) -> CitationInputError:
    sample = ", ".join(ids[:8]) + (", …" if len(ids) > 8 else "")
    named = ", ".join([f"document_index {index!r}"] * (index is not None) + [f"{k} {v!r}" for k, v in names.items()])
    return CitationInputError(
        f"{named or 'names no document'}: no document of the corpus ({len(ids)} documents: {sample}) is named so: "
        "build the Corpus with the documents the request sent, in that order, or give each document its corpus id "
        "as its title (web and search results: key the Corpus by their URLs)",
        citation=citation_id,
        field="document_index" if index is not None or not names else next(iter(names)),
    )


# The fields that may name the cited document, in order: a document's title or file, a web search
# result's ``url``, a search result's ``source`` and ``title`` (a citation of no known type: any of them).
_NAMES = ("document_title", "file_id", "url", "source", "title")
# A web search result and a search result are named by their ``url`` / ``source`` alone: a page title (or
# the search result's own ``title``) is a label, which may be some other document's id. A search result's
# ``title`` (``document_title`` through LangChain) names it only when it has no ``source``.
_NAMED_BY = {"web_search_result_location": ("url",), "search_result_location": ("source",)}
_DOCUMENT_FIELDS = ("document_title", "file_id")


def _name_fields(item: Any, kind: Any) -> tuple[str, ...]:
    """The fields that name the document a citation of ``kind`` cites, in order."""
    if kind in _NAMED_BY:
        named = _NAMED_BY[kind]
        if any(isinstance(value := field_of(item, name), str) and value.strip() for name in named):
            return named
        return ("title", "document_title") if kind == "search_result_location" else named
    return _DOCUMENT_FIELDS if kind in _KINDS else _NAMES


def _names_the_source(item: Any, fields: tuple[str, ...], source: Source, citation_id: str) -> None:
    """Against a single ``Source``, a web search or search result citation must name that source (its name,
    or a URL or path ending in it): its quote looked for in another document would pass as a citation of it."""
    name = next((value for field in fields if isinstance(value := field_of(item, field), str) and value.strip()), None)
    if name is not None and source.name and names_the_source(name, source.name):
        return
    checked = f"a single Source named {source.name!r}" if source.name else "a single Source with no name"
    raise CitationInputError(
        f"{'names ' + repr(name) if name is not None else 'is missing'}, but the check was given {checked}: check "
        "against a Corpus keyed by the URLs (search results: the sources) the request's results came from",
        citation=citation_id,
        field=fields[0],
    )


def _document_index(item: Any, citation_id: str) -> int | None:
    """A citation's ``document_index``, checked: a whole number of 0 or more, or None when it has none."""
    index = field_of(item, "document_index")
    if index is MISSING or index is None:
        return None
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        raise CitationInputError(
            f"must be a whole number of 0 or more, got {index!r}", citation=citation_id, field="document_index"
        )
    return index
