"""What a citation is once adapted: ``Citation``, and reading a field from a dict or an object alike."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MISSING = object()


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
