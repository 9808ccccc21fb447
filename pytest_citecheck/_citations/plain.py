"""Citations as dicts (``{"id", "claim", "quote", "section"}``, optionally ``"document"``) or objects with those attributes.

``quote`` and ``section`` may each be a list: a claim that needs several sections (or several
quotes) becomes one citation judged against all of them at once (``Citation.sections``).
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Mapping
from typing import Any

from pytest_citecheck._citations.model import MISSING, Citation, field_of
from pytest_citecheck._errors import CitationInputError
from pytest_citecheck._text import NOT_TEXT, is_text, surrogate_at


def adapt_citation(raw: Any, position: int, *, location: tuple[int, int] | None = None) -> Citation:
    """Validate one user citation (dict or object) and return it as a ``Citation``."""
    if isinstance(raw, Citation):
        return raw
    if isinstance(raw, (str, bytes, int, float)) or raw is None:  # a scalar has no fields to read
        raise CitationInputError(
            f"expected a dict or an object with id, claim, quote and section, got {type(raw).__name__}",
            citation=f"#{position}",
        )
    citation_id = _citation_id(raw, position)
    _check_keys(raw, citation_id)
    claim = _claim(raw, citation_id)
    quote, quotes = _one_or_several(raw, "quote", citation_id, _single_quote)
    section, sections = _one_or_several(raw, "section", citation_id, _single_section)
    document = _document(raw, citation_id)
    if len(quotes or ()) > 1 or len(sections or ()) > 1:
        assembly = assembly_citation(citation_id, claim, quotes or quote, sections or section)
        return dataclasses.replace(assembly, document=document)
    if quote is None and section is None and document is None:
        raise CitationInputError(
            "is missing: a citation without a quote must name the section (or the document) it rests on",
            citation=citation_id,
            field="section",
        )
    return Citation(id=citation_id, claim=claim, quote=quote, section=section, location=location, document=document)


# The keys a citation dict may have (``CitationDict`` in ``model`` spells them for type checkers).
KEYS = ("id", "claim", "quote", "section", "document")
_KEY_SET = frozenset(KEYS)


def plain_dict_citation(raw: Any, position: int) -> Citation | None:
    """``adapt_citation(raw, position)`` of a plain dict whose every field is a valid single value, read
    at once; None for anything else, which ``adapt_citation`` reads (and refuses with its own error).

    Plain means a ``dict`` itself with only ``KEYS`` (``str`` keys), and values of the built-in types
    themselves (a ``str`` or ``int`` subclass, a list of sections or quotes, goes the long way): what
    ``adapt_citation`` would make of it is then plain to see, and this is the same. Most checks are
    given only such dicts; ``adapt_citation`` costs several times as much per citation.
    """
    if type(raw) is not dict or not _only_citation_keys(raw):
        return None
    get = raw.get
    citation_id = _plain_id(get("id"), position)
    claim = _plain_text(get("claim"))
    quote = _plain_text(get("quote"))
    section = _plain_section(get("section"))
    document = _plain_text(get("document"))
    if (
        citation_id is _NOT_PLAIN
        or claim is None
        or claim is _NOT_PLAIN
        or quote is _NOT_PLAIN
        or section is _NOT_PLAIN
        or document is _NOT_PLAIN
    ):
        return None
    if quote is None and section is None and document is None:
        return None  # a citation resting on nothing: ``adapt_citation`` says so
    return Citation(id=citation_id, claim=claim, quote=quote, section=section, document=document)


# What ``plain_dict_citation``'s readers answer for a value that is not plain (None means absent, or None).
_NOT_PLAIN: Any = object()


def _only_citation_keys(raw: dict[Any, Any]) -> bool:
    for key in raw:
        if type(key) is not str or key not in _KEY_SET:
            return False
    return True


def _plain_id(raw_id: Any, position: int) -> Any:
    if raw_id is None:
        return f"#{position}"
    if type(raw_id) is str:
        return raw_id if raw_id.strip() and is_text(raw_id) else _NOT_PLAIN
    return str(raw_id) if type(raw_id) is int else _NOT_PLAIN


def _plain_text(value: Any) -> Any:
    """A claim, quote or document: None, or a ``str`` with more than whitespace in it (kept as it is)."""
    if value is None or (type(value) is str and value.strip() and is_text(value)):
        return value
    return _NOT_PLAIN


def _plain_section(section: Any) -> Any:
    if type(section) is str:
        return (section.strip() if is_text(section) else "") or _NOT_PLAIN
    if type(section) is int:
        return str(section)
    return None if section is None else _NOT_PLAIN


def not_text(citation: Citation, position: int) -> CitationInputError | None:
    """The error of a citation with a lone surrogate in a field, or None: it would pass the check and
    then crash the JSON report, the JUnit XML and the xdist channel that carry it (``UnicodeEncodeError``).
    """
    for field, values in (
        ("id", (citation.id,)),
        ("claim", (citation.claim,)),
        ("quote", (citation.quote, *citation.quotes)),
        ("section", (citation.section, *citation.sections)),
        ("document", (citation.document,)),
    ):
        for value in values:
            if value is not None and not is_text(value):
                return CitationInputError(
                    f"holds a lone surrogate ({surrogate_at(value)}): {NOT_TEXT}",
                    citation=citation.id if is_text(citation.id) else f"#{position}",
                    field=field,
                )
    return None


def _check_keys(raw: Any, citation_id: str) -> None:
    """A dict with a key we do not read is a mistake: a misspelt ``quote`` would make a claim-only citation."""
    if not isinstance(raw, Mapping):
        return
    for key in raw:
        if key in KEYS:
            continue
        close = difflib.get_close_matches(str(key), KEYS, n=1, cutoff=0.6) if isinstance(key, str) else []
        hint = f"did you mean {close[0]!r}?" if close else f"a citation's keys are {', '.join(KEYS)}"
        raise CitationInputError(f"{key!r}: {hint}", citation=citation_id, field=str(key))


def _citation_id(raw: Any, position: int) -> str:
    raw_id = field_of(raw, "id")
    if raw_id is MISSING or raw_id is None:
        return f"#{position}"
    if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool) and str(raw_id).strip():
        return str(raw_id)
    raise CitationInputError(f"must be a non-empty string or int, got {raw_id!r}", citation=f"#{position}", field="id")


def _claim(raw: Any, citation_id: str) -> str:
    claim = field_of(raw, "claim")
    if claim is MISSING:
        raise CitationInputError(
            "is missing: every citation needs the claim it supports", citation=citation_id, field="claim"
        )
    if not isinstance(claim, str):
        raise CitationInputError(f"must be a string, got {type(claim).__name__}", citation=citation_id, field="claim")
    if not claim.strip():
        raise CitationInputError("is empty: there is nothing to judge", citation=citation_id, field="claim")
    return claim


def _one_or_several(
    raw: Any, name: str, citation_id: str, check: Callable[[Any, str], str]
) -> tuple[str | None, tuple[Any, ...] | None]:
    """A ``quote`` or ``section`` field: the single value (checked), and the items when it is a list."""
    value = field_of(raw, name)
    several = listed(None if value is MISSING else value, citation_id, name)
    if several is not None:
        if len(several) == 1 and several[0] is None:
            # Not None itself: ``[None]`` is a list whose one item is missing (``[quote, None]`` is an
            # error too), and read as None it would quietly make a claim-only citation of a quoted one.
            raise CitationInputError(
                f"item 1 must be a {'non-empty string (the quoted text)' if name == 'quote' else 'section id string'}, "
                f"got None (leave the {name} out, or give None, not [None])",
                citation=citation_id,
                field=name,
            )
        value = several[0] if len(several) == 1 else None
    if value is None or value is MISSING:
        return None, several
    return check(value, citation_id), several


def _single_quote(quote: Any, citation_id: str) -> str:
    if not isinstance(quote, str):
        raise CitationInputError(
            f"must be a string, or None for a claim-only citation; got {type(quote).__name__}",
            citation=citation_id,
            field="quote",
        )
    if not quote.strip():
        raise CitationInputError(
            "is empty or whitespace: give the quoted text, or None for a claim-only citation",
            citation=citation_id,
            field="quote",
        )
    return quote


def _section_id(section: Any) -> str | None:
    """A section id as the string it names, or None when it is not one (a float is not: 4.10 reads as 4.1)."""
    if isinstance(section, int) and not isinstance(section, bool):
        section = str(section)
    if not isinstance(section, str) or not section.strip():
        return None
    return section.strip()


_FLOAT_HINT = " (a section id is a str or an int, never a float: 4.10 would read as '4.1'; write it as a string)"


def _single_section(section: Any, citation_id: str) -> str:
    checked = _section_id(section)
    if checked is None:
        raise CitationInputError(
            f"must be a section id string, got {section!r}{_FLOAT_HINT if isinstance(section, float) else ''}",
            citation=citation_id,
            field="section",
        )
    return checked


def _document(raw: Any, citation_id: str) -> str | None:
    document = field_of(raw, "document")
    if document is MISSING or document is None:
        return None
    # Which documents exist is known only with the corpus: ``_check.locating`` checks that.
    if not isinstance(document, str) or not document.strip():
        raise CitationInputError(
            f"must be a document id string, got {document!r}", citation=citation_id, field="document"
        )
    return document


def listed(value: Any, citation_id: str, field: str) -> tuple[Any, ...] | None:
    """The items of a ``quote`` or ``section`` given as a list (several of them), or None for a single value."""
    if not isinstance(value, (list, tuple)):
        return None
    if not value:
        raise CitationInputError(
            f"is an empty list: give one {field} or several, or leave it out", citation=citation_id, field=field
        )
    return tuple(value)


def _items(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    return value if isinstance(value, tuple) else (value,)


def assembly_citation(citation_id: str, claim: str, quotes: Any, sections: Any) -> Citation:
    """A citation that names several sections or gives several quotes: judged against all of them at once."""
    checked_quotes: list[str] = []
    for number, quote in enumerate(_items(quotes), start=1):
        if not isinstance(quote, str) or not quote.strip():
            raise CitationInputError(
                f"item {number} must be a non-empty string (the quoted text), got {quote!r}",
                citation=citation_id,
                field="quote",
            )
        if quote in checked_quotes:
            raise CitationInputError(f"gives the quote {quote!r} twice", citation=citation_id, field="quote")
        checked_quotes.append(quote)
    checked_sections: list[str] = []
    for number, section in enumerate(_items(sections), start=1):
        checked = _section_id(section)
        if checked is None:
            raise CitationInputError(
                f"item {number} must be a section id string, got {section!r}"
                + (_FLOAT_HINT if isinstance(section, float) else ""),
                citation=citation_id,
                field="section",
            )
        if checked in checked_sections:
            raise CitationInputError(f"names section {checked!r} twice", citation=citation_id, field="section")
        checked_sections.append(checked)
    return Citation(
        id=citation_id,
        claim=claim,
        quote=None,
        section=None,
        sections=tuple(checked_sections),
        quotes=tuple(checked_quotes),
    )
