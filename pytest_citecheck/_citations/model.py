"""What a citation is once adapted (``Citation``), what a user may pass as one, and reading a field alike from both.

``CitationLike`` is what a check accepts, for type checkers: ``CitationObject``, ``TextBlockLike``,
``CitationDict`` and other dicts; shapes converted by the ``pytest_citecheck_adapt_citation`` hook are not
known statically (an untyped SDK's objects are ``Any``, which type-checks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Required, TypeAlias, TypedDict


class _Missing:
    """What ``field_of`` gives for a field that is not there: shown as ``missing`` in an error's text."""

    def __repr__(self) -> str:
        return "missing"


MISSING: Any = _Missing()


@dataclass(frozen=True)
class Citation:
    """One claim and the evidence the LLM gave for it.

    ``quote`` is None for a claim-only citation, which is judged against the ``section`` it names.
    ``location`` is ``[start, end)`` in the source's text when the citation says where its passage
    is (an Anthropic ``char_location``); the quote is then looked for in that section first.
    ``section=["4", "9"]`` or ``quote=[...]`` (several) makes an assembly: see ``sections``.
    """

    id: str
    claim: str
    quote: str | None
    section: str | None
    location: tuple[int, int] | None = None
    # The id of the document in a ``Corpus`` the citation names, when it names one.
    document: str | None = None
    # A claim that needs several sections, judged in one request against all of them (an
    # assembly): every section named and every quote given, when there is more than one of either;
    # ``section`` and ``quote`` are then None (``_check.locating.locate_assembly``).
    sections: tuple[str, ...] = ()
    quotes: tuple[str, ...] = ()

    @property
    def is_assembly(self) -> bool:
        return bool(self.sections or self.quotes)


def field_of(raw: Any, name: str) -> Any:
    if isinstance(raw, Mapping):
        return raw.get(name, MISSING)
    return getattr(raw, name, MISSING)


class CitationObject(Protocol):
    """An object with a citation's attributes: a dataclass, a pydantic model, your own class.

    ``id`` may be None (the citation is then named by its position, ``#0``); ``quote`` is None for
    a claim-only citation, which must then name its ``section``. ``Citation`` is one.
    """

    @property
    def id(self) -> str | int | None: ...
    @property
    def claim(self) -> str: ...
    @property
    def quote(self) -> str | None: ...
    @property
    def section(self) -> str | int | None: ...


class CitationDict(TypedDict, total=False):
    """A citation as a dict, spelt so a type checker catches a misspelt key (``"qoute"``).

    ``claim`` is required; ``quote`` None (or left out) makes a claim-only citation, which names its
    ``section`` or ``document``. A section id is a str or an int, never a float. ``quote`` and
    ``section`` may each be a list (a claim judged against several at once). At run time any other
    key is an input error with a suggestion.
    """

    id: str | int
    claim: Required[str]
    quote: str | Sequence[str] | None
    section: str | int | Sequence[str | int] | None
    document: str


class TextBlockLike(Protocol):
    """An Anthropic Messages API text block (the SDK's ``TextBlock``): its ``citations`` are checked."""

    @property
    def type(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def citations(self) -> Sequence[Any] | None: ...


# One item of the ``citations`` a check takes: an object with a citation's attributes, an Anthropic
# text block, a ``CitationDict``, or any other dict (an SDK block as a dict, a ``json.loads`` result).
# Annotate a list that mixes them as ``list[CitationLike]``: mypy joins ``[Cite(...), Model(...)]``
# to ``list[object]`` where pyright infers the union.
CitationLike: TypeAlias = CitationObject | TextBlockLike | CitationDict | Mapping[str, Any]
CitationInput: TypeAlias = CitationLike
