"""Inline markers: an answer citing a numbered list of sources with ``[1]``, ``[2][3]`` or ``[1, 2]``.

The most common RAG prompt numbers the retrieved sources and asks the model to cite them by number.
Each sentence of the answer that carries markers is a claim citing those sources, one citation per
source. A marker right after a sentence's full stop (``… 30 days. [1]``) belongs to that sentence;
``[1-3]`` cites 1, 2 and 3. A marker that opens a line cites that line (``- [1] Refunds are granted
…``, ``[2] Gifts are final.`` after a heading), and each cell of a markdown table row is a claim of its
own. The answer's own list of sources is not a claim: a line that opens with a marker followed by
nothing but a name (``[1] refund-policy.md``, ``[2]: https://…``, the source's document id), or any
marker-led line after a ``Sources:`` / ``References:`` heading. A claim is the answer's text as
written, without its markers and the bullet or heading mark that opens its line, trimmed.

A source is what the number stands for:

- a document id (a string): the claim is judged against that whole document (claim-only);
- ``(document, section)`` or a dict with ``document`` and ``section``: against that section;
- a retrieved chunk (a LangChain ``Document``, a LlamaIndex node or ``NodeWithScore``): the chunk's
  text is the quote, so step 1 checks the chunk is really in its document, and the claim is judged
  against the section that holds it. Its document is the chunk's ``source`` / ``file_name`` metadata.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_citecheck._citations.model import MISSING, Citation, field_of
from pytest_citecheck._citations.sentences import claim_of, clean_claim, sentence_spans
from pytest_citecheck._errors import CitationInputError
from pytest_citecheck._sources.chunks import is_chunk, read_chunk

_MARKER = re.compile(r"\[\s*(\d+(?:\s*[-–,;]\s*\d+)*)\s*\]")
# A line that opens with a marker (after a bullet): the rest is a claim, or the name of a listed source.
_MARKER_LINE = re.compile(r"^[ \t]*(?:[-*+•][ \t]*)?\[\s*(\d+)\s*\][ \t:.\-–]*(.*)$")
_SOURCES_HEADING = re.compile(r"(?i)^[ \t#*_]*(?:sources|references|citations|bibliography)[ \t*_]*:?[ \t*_]*$")
_TABLE_ROW = re.compile(r"^[ \t]*\|")
_LARGEST_RANGE = 100


def citations_from_markers(answer_text: str, sources: Sequence[Any] | Mapping[int, Any]) -> list[Citation]:
    """The citations of an answer that cites numbered sources inline.

    ``sources``: a list, where ``sources[0]`` is ``[1]``, or a dict from number to source. A source
    is a document id, ``(document, section)``, or a retrieved chunk (see the module's description).
    A marker with no source is an error naming the sentence; an answer without markers gives no
    citations. Citation ids are ``s<sentence>[<n>]``: ``s3[1]`` is the third sentence citing [1].
    """
    return marker_citations(answer_text, sources)


def marker_citations(
    answer_text: str,
    sources: Sequence[Any] | Mapping[int, Any],
    prefix: str = "",
    invalid: dict[str, CitationInputError] | None = None,
) -> list[Citation]:
    """``citations_from_markers``, with ids ``<prefix>s<sentence>[<n>]``; with ``invalid``, a marker that
    cannot be read (no such source, no claim) is recorded there by id (a stand-in keeps its place)
    instead of raising, so the answer's other markers are still checked."""
    if not isinstance(answer_text, str):
        raise CitationInputError(f"must be the answer's text, got {type(answer_text).__name__}", field="answer_text")
    numbered = _numbered(sources)
    text = _laid_out(answer_text, numbered)
    spans = sentence_spans(text)
    adapted: list[Citation] = []
    for index, numbers in enumerate(_cited_numbers(text, spans)):
        claim = clean_claim(text[spans[index][0] : spans[index][1]])
        for number in numbers:
            citation_id = f"{prefix}s{index + 1}[{number}]"
            try:
                if isinstance(number, str):  # a marker that names no numbers: its own citation, invalid
                    raise _unreadable(number, citation_id)
                adapted.append(_marker_citation(citation_id, claim, numbered, number))
            except CitationInputError as error:
                if invalid is None:
                    raise
                invalid[citation_id] = error
                adapted.append(Citation(id=citation_id, claim=claim, quote=None, section=None))
    return adapted


def _marker_citation(citation_id: str, claim: str, numbered: dict[int, Any], number: int) -> Citation:
    if not claim:
        raise CitationInputError("the marker stands alone: it cites no claim", citation=citation_id)
    if number not in numbered:
        available = ", ".join(str(n) for n in sorted(numbered)) or "none"
        raise CitationInputError(
            f"cites [{number}], but there is no source {number} (sources: {available})",
            citation=citation_id,
            field="sources",
        )
    return _citation(citation_id, claim, numbered[number], number)


def uncited_by_markers(answer_text: str, sources: Sequence[Any] | Mapping[int, Any]) -> list[str]:
    """The sentences of an answer that carry no marker (its own list of sources and its heading aside)."""
    text = _laid_out(answer_text, _numbered(sources))
    spans = sentence_spans(text)
    uncited = []
    for (start, end), numbers in zip(spans, _cited_numbers(text, spans)):
        sentence = claim_of(text[start:end])
        if not numbers and sentence and not _SOURCES_HEADING.match(sentence) and _MARKER.sub("", sentence).strip():
            uncited.append(sentence)
    return uncited


def _cited_numbers(text: str, spans: list[tuple[int, int]]) -> list[list[int | str]]:
    """For each sentence, the source numbers its markers cite, in order, each once; a marker that cannot be
    read as numbers (``[2-1]``) is there as written (its text inside the brackets), to be one invalid citation."""
    cited: list[list[int | str]] = [[] for _ in spans]
    for index, (start, end) in enumerate(spans):
        for marker in _MARKER.finditer(text, start, end):
            owner = index - 1 if index > 0 and _closes_previous(text, start, end, marker.start()) else index
            numbers = _numbers(marker.group(1))
            for number in [marker.group(1)] if numbers is None else numbers:
                if number not in cited[owner]:
                    cited[owner].append(number)
    return cited


def _numbered(sources: Any) -> dict[int, Any]:
    if isinstance(sources, Mapping):
        numbered = {}
        for key, value in sources.items():
            if isinstance(key, str) and key.strip().isdigit():
                key = int(key)
            if not isinstance(key, int) or isinstance(key, bool):
                raise CitationInputError(f"keys must be source numbers, got {key!r}", field="sources")
            numbered[key] = value
        return numbered
    if isinstance(sources, (str, bytes)) or not isinstance(sources, Sequence):
        raise CitationInputError(
            f"must be a list of sources (sources[0] is [1]) or a dict of number to source, got {type(sources).__name__}",
            field="sources",
        )
    return {number: source for number, source in enumerate(sources, start=1)}


def _closes_previous(text: str, start: int, end: int, at: int) -> bool:
    """A marker that opens a sentence on the line of the one before ("... 30 days. [1] Gifts ...") closes that
    one; a marker that opens a line cites its own line, unless the line holds nothing but markers."""
    if text[start:at].strip():
        return False
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():
        return True
    return not _MARKER.sub("", text[start:end]).strip()


def _laid_out(text: str, numbered: dict[int, Any]) -> str:
    """The answer as sentences are read from it, offsets kept: its own list of sources blanked, and the cell
    borders of a markdown table made line breaks, so each cell is a claim of its own."""
    lines = text.split("\n")
    in_sources = False
    for number, line in enumerate(lines):
        if _SOURCES_HEADING.match(line):
            in_sources = True
            continue
        marker_line = _MARKER_LINE.match(line)
        if marker_line and (in_sources or _names_a_source(marker_line[2], numbered.get(int(marker_line[1])))):
            lines[number] = " " * len(line)
        elif _TABLE_ROW.match(line):
            lines[number] = line.replace("|", "\n")
    return "\n".join(lines)


def _names_a_source(rest: str, source: Any) -> bool:
    """What follows a line's opening marker is the name of a source, not a claim: one word (a file name), a
    URL, or the document the number stands for."""
    rest = rest.strip()
    if not rest:
        return False  # a marker alone on its line: it closes the sentence before
    if " " not in rest or "://" in rest:
        return True
    document = source if isinstance(source, str) else _document_and_section(source)[0]
    return isinstance(document, str) and bool(document.strip()) and document.strip() in rest


def _numbers(group: str) -> list[int] | None:
    """The source numbers a marker's text names (``1, 3-5``), or None when it names none for sure: a range
    that runs down (``2-1``), spans more than ``_LARGEST_RANGE`` sources, or has two dashes."""
    numbers: list[int] = []
    for piece in re.split(r"\s*[,;]\s*", group):
        bounds = [int(part) for part in re.split(r"\s*[-–]\s*", piece)]
        if len(bounds) == 2 and 0 <= bounds[1] - bounds[0] <= _LARGEST_RANGE:
            numbers.extend(range(bounds[0], bounds[1] + 1))
        elif len(bounds) == 1:
            numbers.append(bounds[0])
        else:
            return None
    return numbers


def _unreadable(group: str, citation_id: str) -> CitationInputError:
    return CitationInputError(
        f"cannot read the marker [{group}] as source numbers (a range runs from the lower number to the higher, "
        f"over at most {_LARGEST_RANGE} sources): it cites nothing that can be checked; write the numbers it "
        "means",
        citation=citation_id,
        field="answer_text",
    )


def _citation(citation_id: str, claim: str, source: Any, number: int) -> Citation:
    if isinstance(source, str) and source.strip():
        return Citation(id=citation_id, claim=claim, quote=None, section=None, document=source.strip())
    if is_chunk(source):
        try:
            chunk = read_chunk(source, number, remedy=_CHUNK_REMEDY)
        except CitationInputError as error:
            # read_chunk knows the chunk, not the citation that cites it: named here, as in every citation error.
            raise type(error)(error.message, citation=citation_id, field=error.field) from error
        return Citation(id=citation_id, claim=claim, quote=chunk.text, section=None, document=chunk.document)
    document, section = _document_and_section(source)
    if isinstance(section, int) and not isinstance(section, bool):  # never a float: 4.10 would read as 4.1
        section = str(section)
    section_ok = section is None or (isinstance(section, str) and bool(section.strip()))
    if isinstance(document, str) and document.strip() and section_ok:
        return Citation(
            id=citation_id,
            claim=claim,
            quote=None,
            section=section.strip() if section else None,
            document=document.strip(),
        )
    raise CitationInputError(
        f"source {number} is {source!r}: expected a document id, (document, section), or a retrieved chunk "
        "(a LangChain Document or a LlamaIndex node)",
        citation=citation_id,
        field="sources",
    )


# A cited chunk's document cannot be named by document_id= (no check of an answer takes it): its metadata must.
_CHUNK_REMEDY = "give the chunk (node) a 'file_name' or 'source' metadata naming its document in the corpus"


def _document_and_section(source: Any) -> tuple[Any, Any]:
    """A numbered source's document and section, as given (checked by the caller): (None, None) for neither."""
    if isinstance(source, tuple) and len(source) == 2:
        return source[0], source[1]
    if isinstance(source, Mapping) or field_of(source, "document") is not MISSING:
        section = field_of(source, "section")
        return field_of(source, "document"), None if section is MISSING else section
    return None, None
