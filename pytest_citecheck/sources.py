"""The source document a citation points into, split into addressable sections."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

from .errors import SourceError

_NUMERIC_ID = re.compile(r"^\d+(?:\.\d+)*$")


def _numeric_key(section_id: str) -> tuple[int, ...]:
    return tuple(int(part) for part in section_id.split("."))


@dataclass(frozen=True, eq=False)
class Source:
    """A document split into sections: ``sections`` maps a section id (``"4.1.3"``) to its text.

    Build one with ``Source.from_text(text, format="rfc")``, ``Source.from_file(path)``, or directly
    with ``Source(sections={...})`` when the caller already has the sections.
    """

    sections: Mapping[str, str]
    text: str = ""
    name: str | None = None
    format: str | None = None
    order: tuple[str, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.sections, Mapping):
            raise SourceError(f"sections must be a mapping of section id to text, not {type(self.sections).__name__}", field="sections")
        if not self.sections:
            raise SourceError("the source has no sections", field="sections")
        sections: dict[str, str] = {}
        for key, value in self.sections.items():
            if not isinstance(key, str) or not key.strip():
                raise SourceError(f"section id {key!r} must be a non-empty string", field="sections")
            if not isinstance(value, str):
                raise SourceError(f"section {key!r} must be text, not {type(value).__name__}", field="sections")
            sections[key] = value
        object.__setattr__(self, "sections", sections)
        if not self.text:
            object.__setattr__(self, "text", "\n\n".join(sections.values()))
        # Quotes are looked up "first containing section in numeric order" (the cookbook's rule);
        # ids that are not dotted numbers keep document order.
        if all(_NUMERIC_ID.match(key) for key in sections):
            order = tuple(sorted(sections, key=_numeric_key))
        else:
            order = tuple(sections)
        object.__setattr__(self, "order", order)

    @classmethod
    def from_text(cls, text: str, format: str = "rfc", *, name: str | None = None) -> Source:
        """Split ``text`` into sections according to ``format`` (see ``pytest_citecheck.formats``)."""
        from .formats import FORMATS

        if not isinstance(text, str):
            raise SourceError(f"the document must be text (str), not {type(text).__name__}", field="source")
        if not text.strip():
            raise SourceError("the document is empty", field="source")
        if "\x00" in text:
            raise SourceError("the document contains NUL bytes: it looks binary, not text", field="source")
        try:
            splitter = FORMATS[format]
        except KeyError:
            raise SourceError(f"unknown format {format!r}; known formats: {', '.join(sorted(FORMATS))}", field="format") from None
        clean, sections = splitter(text)
        return cls(sections=sections, text=clean, name=name, format=format)

    @classmethod
    def from_file(cls, path: str | PathLike[str], format: str = "rfc", *, encoding: str = "utf-8") -> Source:
        """Read a text file and split it like ``from_text``."""
        path = Path(path)
        try:
            text = path.read_text(encoding=encoding)
        except UnicodeDecodeError as error:
            raise SourceError(f"{path} is not {encoding} text ({error.reason})", field="source") from None
        return cls.from_text(text, format=format, name=path.name)

    def __len__(self) -> int:
        return len(self.sections)

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return f"<Source{label}: {len(self.text):,} characters, {len(self.sections)} sections>"
