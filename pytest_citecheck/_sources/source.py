"""The source document a citation points into, split into addressable sections.

A ``Source`` owns the sections (id -> text, in document order) and where each one sits in the
document's cleaned text, so a citation that carries character offsets (an Anthropic
``char_location``) can be mapped to its section. Reading files and picking a format by extension
happen here; the splitting itself is ``formats``'.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Literal, TypeAlias

from pytest_citecheck._errors import SourceError

# The formats ``Source.from_text`` splits itself (``_sources.formats.FORMATS``; a test keeps the two
# in step). A signature's ``format`` is ``BuiltinFormat | str``: editors offer the built-in names,
# and any other name is legal because it goes to the ``pytest_citecheck_split_sections`` hook, so
# a misspelt format is reported when the document is split, not by the type checker.
BuiltinFormat = Literal["auto", "rfc", "markdown", "numbered", "html"]
Format: TypeAlias = BuiltinFormat | str

_NUMERIC_ID = re.compile(r"^\d+(?:\.\d+)*$")


def _numeric_key(section_id: str) -> tuple[int, ...]:
    return tuple(int(part) for part in section_id.split("."))


@dataclass(frozen=True, eq=False)
class Source:
    """A document split into sections: ``sections`` maps a section id (``"4.1.3"``) to its text.

    Build one with ``Source.from_text(text, format=...)``, ``Source.from_file(path)``, or directly
    with ``Source(sections={...})`` when the caller already has the sections. ``spans`` maps each
    section id to ``[start, end)`` in ``text`` (for sections that are verbatim slices of it).
    """

    sections: Mapping[str, str]
    text: str = ""
    name: str | None = None
    format: str | None = None
    order: tuple[str, ...] = field(init=False, repr=False)
    spans: Mapping[str, tuple[int, int]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.sections, Mapping):
            raise SourceError(
                f"sections must be a mapping of section id to text, not {type(self.sections).__name__}",
                field="sections",
            )
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
        spans: dict[str, tuple[int, int]] = {}
        position = 0
        for key, value in sections.items():
            at = self.text.find(value, position)
            if at >= 0 and value:
                spans[key] = (at, at + len(value))
                position = at + len(value)
        object.__setattr__(self, "spans", spans)

    @classmethod
    def from_text(cls, text: str, format: Format = "auto", *, name: str | None = None, hooks: Any = None) -> Source:
        """Split ``text`` into sections according to ``format`` (see ``pytest_citecheck._sources.formats``).

        Built-in formats: ``auto`` (the default: detect which of the others the text is), ``rfc``,
        ``markdown``, ``numbered`` and ``html``. Any other
        name is offered to the ``pytest_citecheck_split_sections`` hook (``hooks``, or the running
        pytest session's).
        """
        from pytest_citecheck._sources.formats import split

        if not isinstance(text, str):
            raise SourceError(f"the document must be text (str), not {type(text).__name__}", field="source")
        if not text.strip():
            raise SourceError("the document is empty", field="source")
        if "\x00" in text:
            raise SourceError("the document contains NUL bytes: it looks binary, not text", field="source")
        if not isinstance(format, str):
            raise SourceError(
                f"format must be a format name such as 'rfc' or 'markdown', not {format!r}", field="format"
            )
        sections: Mapping[str, str]
        if format == "auto":
            from pytest_citecheck._sources.formats import split_detected

            format, clean, sections = split_detected(text, name)
        else:
            clean, sections = split(text, format, hooks)
        return cls(sections=sections, text=clean, name=name, format=format)

    @classmethod
    def from_file(
        cls, path: str | PathLike[str], format: Format | None = None, *, encoding: str = "utf-8", hooks: Any = None
    ) -> Source:
        """Read a document and split it like ``from_text``.

        With no ``format``, the extension decides: ``.md``/``.markdown`` markdown, ``.html``/``.htm``
        html, ``.pdf`` its extracted text (through pypdf, the ``pdf`` extra) detected like ``auto``,
        anything else ``auto``.
        """
        from pytest_citecheck._sources.formats import EXTENSIONS, read_pdf

        path = Path(path)
        if path.is_dir():
            raise SourceError(
                f"{path} is a directory, not a file: pass the path of the document itself", field="source"
            )
        if not path.is_file():
            raise SourceError(f"{path}: no such file", field="source")
        if path.suffix.lower() == ".pdf":
            text = read_pdf(path)
            return cls.from_text(text, format=format or "auto", name=path.name, hooks=hooks)
        try:
            text = path.read_text(encoding=encoding)
        except UnicodeDecodeError as error:
            if path.read_bytes()[:2] == b"\x1f\x8b":  # gzip's magic number: a man page as installed, say
                raise SourceError(
                    f"{path} is gzip-compressed: decompress it first (gzip.open(path, 'rt').read(), or zcat) "
                    "and pass the text to Source.from_text",
                    field="source",
                ) from None
            raise SourceError(f"{path} is not {encoding} text ({error.reason})", field="source") from None
        chosen = format or EXTENSIONS.get(path.suffix.lower(), "auto")
        return cls.from_text(text, format=chosen, name=path.name, hooks=hooks)

    def section_at(self, offset: int) -> str | None:
        """The id of the section whose text covers ``offset`` in ``text`` (None between or outside sections)."""
        if not self.spans:
            return None
        keys = list(self.spans)
        starts = [self.spans[key][0] for key in keys]
        index = bisect_right(starts, offset) - 1
        if index < 0:
            return None
        key = keys[index]
        return key if offset < self.spans[key][1] else None

    def __len__(self) -> int:
        return len(self.sections)

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return f"<Source{label}: {len(self.text):,} characters, {len(self.sections)} sections>"
