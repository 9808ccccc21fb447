"""The source document a citation points into, split into addressable sections.

A ``Source`` owns the sections (id -> text, in document order) and where each one sits in the
document's cleaned text, so a citation that carries character offsets (an Anthropic
``char_location``) can be mapped to its section. Reading files and picking a format by extension
happen here; the splitting itself is ``formats``'.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Literal, TypeAlias

from pytest_citecheck._errors import SourceError, SourceWarning, warn_at_caller
from pytest_citecheck._files import kind_of
from pytest_citecheck._limits import STATE_AND_QUESTION_TOKEN_LIMIT, SURELY_FITS_CHARACTERS, estimate_tokens, fits
from pytest_citecheck._sources.offsets import OffsetMap, composed, cut
from pytest_citecheck._text import NOT_TEXT, is_text, surrogate_at

# The formats ``Source.from_text`` splits itself (``_sources.formats.FORMATS``; a test keeps the two
# in step). A signature's ``format`` is ``BuiltinFormat | str``: editors offer the built-in names,
# and any other name is legal because it goes to the ``pytest_citecheck_split_sections`` hook, so
# a misspelt format is reported when the document is split, not by the type checker.
BuiltinFormat = Literal["auto", "rfc", "markdown", "numbered", "html", "rst", "docbook", "man", "info"]
Format: TypeAlias = BuiltinFormat | str

_NUMERIC_ID = re.compile(r"^\d+(?:\.\d+)*$")
# GNU Info's own markup, which Info readers never show: an index node's "\0\b[index\0\b]" and an
# image's "\0\b[image src=... alt=...\0\b]" (Texinfo manual, "Info Format Tag"). The only NUL bytes
# of a text Info file; any other NUL still means the file is binary.
_INFO_TAG = re.compile(r"\x00\x08\[[^\x00\n]*\x00\x08\]")

# The last documents split by a built-in format, and what splitting them warned: a suite's modules
# that build a Source of one document each (``SOURCE = Source.from_file(...)`` at the top of every
# test file, in every xdist worker) split it once per process. A Source is immutable; the warnings
# are given again for each call. A format of the user's own (the split hook) is split every time.
_BUILT: dict[tuple[str, str, str | None], tuple[Source, tuple[str, ...]]] = {}
_BUILT_KEEP = 8


def _keep(key: tuple[str, str, str | None], built: tuple[Source, tuple[str, ...]]) -> None:
    if len(_BUILT) >= _BUILT_KEEP:
        del _BUILT[next(iter(_BUILT))]
    _BUILT[key] = built


def _numeric_key(section_id: str) -> tuple[int, ...]:
    return tuple(int(part) for part in section_id.split("."))


def _checked(given: object) -> dict[str, str]:
    if not isinstance(given, Mapping):
        raise SourceError(
            f"sections must be a mapping of section id to text, not {type(given).__name__}", field="sections"
        )
    if not given:
        raise SourceError("the source has no sections", field="sections")
    sections: dict[str, str] = {}
    for key, value in given.items():
        if not isinstance(key, str) or not key.strip():
            raise SourceError(f"section id {key!r} must be a non-empty string", field="sections")
        if not isinstance(value, str):
            raise SourceError(f"section {key!r} must be text, not {type(value).__name__}", field="sections")
        for text in (key, value):
            if not is_text(text):  # judged, it fails to encode; named in a report, it crashes the writer
                raise SourceError(
                    f"section {key!r}: its {'id' if text is key else 'text'} holds a lone surrogate "
                    f"({surrogate_at(text)}): {NOT_TEXT}",
                    field="sections",
                )
        sections[key] = value
    return sections


# What ``Source(sections=...)`` puts between sections when it joins them into its text.
_SEPARATOR = "\n\n"


def _joined_spans(sections: Mapping[str, str]) -> dict[str, tuple[int, int]]:
    """Where each non-empty section sits in the text joined from them: known without searching it."""
    spans: dict[str, tuple[int, int]] = {}
    position = 0
    for key, value in sections.items():
        if value:
            spans[key] = (position, position + len(value))
        position += len(value) + len(_SEPARATOR)
    return spans


def _spans(text: str, sections: Mapping[str, str]) -> dict[str, tuple[int, int]]:
    """Where each section sits in ``text``, for sections that are verbatim slices of it, in order."""
    spans: dict[str, tuple[int, int]] = {}
    position = 0
    for key, value in sections.items():
        at = text.find(value, position)
        if at >= 0 and value:
            spans[key] = (at, at + len(value))
            position = at + len(value)
    return spans


@dataclass(frozen=True)
class Placed:
    """Where offsets into the text as given fall: a section, and ``[start, end)`` in that section's text."""

    section: str
    start: int
    end: int


@dataclass(frozen=True, eq=False)
class Source:
    """A document split into sections: ``sections`` maps a section id (``"4.1.3"``) to its text.

    Build one with ``Source.from_text(text, format=...)``, ``Source.from_file(path)``, or directly
    with ``Source(sections={...})`` when the caller already has the sections.

    Three texts, and the maps between them:
    - ``original``: the text as given: the file's characters as read, the text passed to
      ``from_text``, or, for ``Source(sections=...)``, the ``text`` passed beside the sections (pass
      the document your app sent, so that Claude's ``char_location`` offsets into it are placed),
      else the sections joined with a blank line (``"\\n\\n"``) between each two;
    - ``text``: what the sections are slices of: ``original`` cleaned by the format (RFC page
      footers, boxes, HTML markup removed), or ``original`` itself;
    - ``sections``: each section's text. ``spans`` maps a section id to ``[start, end)`` in ``text``.

    ``blocks`` (``Source.from_blocks``): for a custom-content document, the section each content block
    is, by block index, so that Claude's ``content_block_location`` names its section.

    ``original_is_joined`` says ``original`` is the sections joined, not a text that was given.

    ``place(start, end)`` turns offsets into ``original`` into a section and offsets in its text;
    ``original_offset(section, offset)`` goes back. ``oversized`` names the sections too large for
    one Jev request judged whole (the default, no ``window``).
    """

    sections: Mapping[str, str]
    text: str = ""
    name: str | None = None
    format: str | None = None
    original: str | None = None
    offsets: OffsetMap | None = field(default=None, repr=False)
    # A custom-content document's section id by block index (``from_blocks``; None for a block that is
    # not text); None when the source was not built from content blocks.
    blocks: tuple[str | None, ...] | None = field(default=None, repr=False)
    order: tuple[str, ...] = field(init=False, repr=False)
    spans: Mapping[str, tuple[int, int]] = field(init=False, repr=False)
    oversized: tuple[str, ...] = field(init=False, repr=False)
    # ``original`` is the sections joined, not a text anyone gave (``Source(sections=...)`` alone,
    # ``from_blocks``, ``Corpus.from_documents``): offsets into the document the app sent may not fit it.
    original_is_joined: bool = field(init=False, repr=False)

    def __post_init__(self) -> None:
        sections = _checked(self.sections)
        object.__setattr__(self, "sections", sections)
        joined = not self.text
        object.__setattr__(self, "original_is_joined", joined and self.original is None)
        if joined:
            object.__setattr__(self, "text", _SEPARATOR.join(sections.values()))
        if self.original is None:
            object.__setattr__(self, "original", self.text)
        if self.offsets is None:
            object.__setattr__(self, "offsets", OffsetMap.identity(len(self.text)))
        # Quotes are looked up "first containing section in numeric order" (the cookbook's rule);
        # ids that are not dotted numbers keep document order.
        if all(_NUMERIC_ID.match(key) for key in sections):
            order = tuple(sorted(sections, key=_numeric_key))
        else:
            order = tuple(sections)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "spans", _joined_spans(sections) if joined else _spans(self.text, sections))
        oversized = tuple(
            key for key, value in sections.items() if len(value) > SURELY_FITS_CHARACTERS and not fits("", value)
        )
        object.__setattr__(self, "oversized", oversized)

    @classmethod
    def from_text(cls, text: str, format: Format = "auto", *, name: str | None = None, hooks: Any = None) -> Source:
        """Split ``text`` into sections according to ``format`` (see ``pytest_citecheck._sources.formats``).

        Built-in formats: ``auto`` (the default: split the text in every layout and keep the one that
        explains it best), ``rfc``, ``markdown``, ``rst``, ``docbook``, ``man``, ``numbered`` and
        ``html`` (see docs/sources.md). Any other name is offered to the
        ``pytest_citecheck_split_sections`` hook (``hooks``, or the running pytest session's).

        Warns (``SourceWarning``) once, here: when ``auto``'s best layout still explains the text
        badly, and when sections are too large for one Jev request.
        """
        from pytest_citecheck._sources.formats import FORMATS, explained, split_detected

        bom = _checked_text(text, name)
        if not isinstance(format, str):
            raise SourceError(
                f"format must be a format name such as 'rfc' or 'markdown', not {format!r}", field="format"
            )
        key = (text, format, name)
        built = _BUILT.get(key) if format in FORMATS else None
        if built is None:
            warnings: list[str | None] = []
            body, outer = _without_marks(text, bom, crlf=format in FORMATS)
            if format == "auto":
                detected = split_detected(body, name)
                chosen, parts = detected.format, detected.split
                warnings.append(detected.warning(name))
            else:
                chosen, parts = format, _split_named(body, format, hooks, name)
                warnings.append(explained(format, parts, name))
            if outer is not None:
                parts = parts._replace(offsets=composed(parts.offsets or OffsetMap.identity(len(parts.clean)), outer))
            source = cls(
                sections=parts.sections,
                text=parts.clean,
                name=name,
                format=chosen,
                original=text,
                offsets=parts.offsets,
            )
            warnings.append(source.oversized_warning())
            built = (source, tuple(filter(None, warnings)))
            if format in FORMATS:
                _keep(key, built)
        for message in built[1]:
            warn_at_caller(SourceWarning(message))  # at the line that loaded the document, however it was called
        return built[0]

    @classmethod
    def from_blocks(cls, content: Any, *, ids: Sequence[str] | None = None, name: str | None = None) -> Source:
        """The custom-content document the app sent Claude, one section per content block.

        ``content`` is the document's ``content`` list (text blocks ``{"type": "text", "text": ...}``,
        or strings), or the ``source`` holding it, or the whole document block. Section ids are
        ``ids`` (one per block: name them as your app does, e.g. the RFC section each block holds) or
        ``"block 0"``, ``"block 1"``, .... Claude's ``content_block_location`` of one block then cites
        that block's section: a quote found in another block is ``found-elsewhere``, naming both.
        A block that is not text (an image) makes no section.
        """
        from pytest_citecheck._sources.blocks import block_sections

        if ids is not None and (
            isinstance(ids, (str, bytes)) or not all(isinstance(i, str) and i.strip() for i in ids)
        ):
            raise SourceError("ids must be a list of non-empty strings, one section id per block", field="ids")
        sections, blocks = block_sections(content, ids)
        return cls(sections=sections, name=name, format="blocks", blocks=blocks)

    @classmethod
    def from_file(
        cls, path: str | PathLike[str], format: Format | None = None, *, encoding: str = "utf-8", hooks: Any = None
    ) -> Source:
        """Read a document and split it like ``from_text``.

        With no ``format``, the extension decides: ``.md``/``.markdown`` markdown, ``.rst`` and Sphinx's ``.rst.txt``
        rst, ``.html``/``.htm`` html, ``.pdf`` its extracted text (through pypdf, the ``pdf`` extra) detected like
        ``auto``, anything else ``auto``.
        """
        from pytest_citecheck._sources.formats import format_of_name, no_sections, read_pdf

        path = Path(path)
        if path.is_dir():
            raise SourceError(
                f"{path} is a directory, not a file: pass the path of the document itself", field="source"
            )
        if not path.is_file():
            raise SourceError(f"{path}: {_not_a_file(path)}", field="source")
        if path.suffix.lower() == ".pdf":
            text = read_pdf(path)
            return cls.from_text(text, format=format or "auto", name=path.name, hooks=hooks)
        try:
            text = path.read_text(encoding=encoding)
        except LookupError:
            raise SourceError(
                f"{path}: unknown encoding {encoding!r}; pass a Python codec name ('utf-8', 'latin-1', 'utf-16')",
                field="encoding",
            ) from None
        except UnicodeDecodeError as error:
            if path.read_bytes()[:2] == b"\x1f\x8b":  # gzip's magic number: a man page as installed, say
                raise SourceError(
                    f"{path} is gzip-compressed: decompress it first (gzip.open(path, 'rt').read(), or zcat) "
                    "and pass the text to Source.from_text",
                    field="source",
                ) from None
            raise SourceError(_undecodable(path, encoding, error), field="source") from None
        chosen = format or format_of_name(path.name)
        try:
            return cls.from_text(text, format=chosen, name=path.name, hooks=hooks)
        except SourceError as error:
            if format is not None or error.found is None or error.layout is None:
                raise
            # The file's name chose the layout: the error says so, since the user named none.
            raise no_sections(error.found, error.layout, path.name, by_name=True) from None

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

    def place(self, start: int, end: int | None = None) -> Placed | None:
        """The section that offsets ``[start, end)`` into ``original`` point at, and where in its text.

        This is how a ``char_location`` (Claude's offsets into the document the app sent) is read: a
        sentence that occurs in two sections is in the one the offsets point at. None when ``start``
        is in no section (the preamble's margin, a page footer the cleaning removed, or out of range).
        """
        assert self.offsets is not None
        clean = self.offsets.to_clean(start)
        section = self.section_at(clean) if clean is not None else None
        if section is None or clean is None:
            return None
        section_start, section_end = self.spans[section]
        last = self.offsets.to_clean(max(start, (end if end is not None else start + 1) - 1))
        last = min(section_end - 1, last if last is not None and last >= clean else clean)
        return Placed(section, clean - section_start, last + 1 - section_start)

    def original_offset(self, section: str, offset: int) -> int:
        """The offset into ``original`` of ``offset`` in section ``section``'s text."""
        assert self.offsets is not None
        if section not in self.spans:
            raise KeyError(f"section {section!r} is not a slice of the source's text, so it has no offsets")
        start, end = self.spans[section]
        return self.offsets.to_given(min(start + offset, end))

    def oversized_warning(self) -> str | None:
        """The load-time warning naming the sections too large for one Jev request (None when none are)."""
        if not self.oversized:
            return None
        named = ", ".join(
            f"{key!r} ({len(self.sections[key]):,} characters, about {estimate_tokens(self.sections[key]):,} tokens)"
            for key in self.oversized[:5]
        )
        more = f" and {len(self.oversized) - 5} more" if len(self.oversized) > 5 else ""
        document = f"{self.name}: " if self.name else ""
        return (
            f"{document}{len(self.oversized)} section{'s' if len(self.oversized) != 1 else ''} too large for one Jev "
            f"request judged whole ({STATE_AND_QUESTION_TOKEN_LIMIT:,} tokens for state plus question): {named}{more}; "
            "a citation of one fails unless the check sets window=N (judge the text around the quote), or split "
            "the document finer (format=, the pytest_citecheck_split_sections hook, or Source(sections=...))"
        )

    def __len__(self) -> int:
        return len(self.sections)

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return f"<Source{label}: {len(self.text):,} characters, {len(self.sections)} sections>"


def _undecodable(path: Path, encoding: str, error: UnicodeDecodeError) -> str:
    """Where the bytes stop being ``encoding``, and the way out: the encoding the file is in."""
    data = error.object
    line = bytes(data).count(b"\n", 0, error.start) + 1
    if bytes(data[:2]) in (b"\xff\xfe", b"\xfe\xff"):
        remedy = "it starts with a UTF-16 byte order mark: pass encoding='utf-16'"
    else:
        remedy = "if it is text in another encoding, pass it: encoding='latin-1' (or 'cp1252', ...)"
    return f"{path} is not {encoding} text: {error.reason} at byte {error.start} (line {line}); {remedy}"


def _not_a_file(path: Path) -> str:
    """Why ``path``, which is neither a directory nor a regular file, cannot be read as a document."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "a symbolic link to a file that does not exist" if path.is_symlink() else "no such file"
    except OSError as error:  # a loop of symbolic links, a directory we may not enter
        return f"cannot be read ({error.strerror or error})"
    # A FIFO would block the read until a writer came; a device such as /dev/zero never ends.
    return f"it is {kind_of(mode)}, not a regular file"


def _split_named(text: str, format: str, hooks: Any, name: str | None) -> Any:
    """``split`` as the user named ``format``; its error names the document, as ``auto``'s does.

    The splitters see only text, so the file (``from_file`` passes its name) is added to their message here.
    """
    from pytest_citecheck._sources.formats import no_sections, split

    try:
        return split(text, format, hooks)
    except SourceError as error:
        if name is not None and error.found is not None and error.layout is not None:
            raise no_sections(error.found, error.layout, name) from None
        if name is None or error.message.startswith(f"{name}: "):
            raise
        raise SourceError(f"{name}: {error.message}", citation=error.citation, field=error.field) from None


def _checked_text(text: object, name: str | None) -> int:
    """The length of ``text``'s byte order mark (0 or 1), once it is known to be a document's text.

    A byte order mark (Windows editors write one) is not text: with it, the first line's heading
    ("\ufeff# Title", a man page's header line, front matter's "---") was not a heading.
    """
    if not isinstance(text, str):
        raise SourceError(f"the document must be text (str), not {type(text).__name__}", field="source")
    bom = 1 if text.startswith("\ufeff") else 0
    document = f"{name}: " if name else ""
    if not text[bom:].strip():
        raise SourceError(f"{document}the document is empty", field="source")
    if "\x00" in text and "\x00" in _INFO_TAG.sub("", text):
        raise SourceError(f"{document}the document contains NUL bytes: it looks binary, not text", field="source")
    if not is_text(text):
        raise SourceError(
            f"{document}the document holds a lone surrogate ({surrogate_at(text)}): {NOT_TEXT}", field="source"
        )
    return bom


def _without_marks(text: str, bom: int, *, crlf: bool) -> tuple[str, OffsetMap | None]:
    """``text`` without its byte order mark, GNU Info's tags (``_INFO_TAG``) and (for a built-in layout)
    the CR of each CRLF line end, and the map back to ``text`` (None when nothing was cut). Every
    layout then reads LF line ends: a setext or reStructuredText underline, a man page's header line,
    an RFC's page footer."""
    spans = [(0, bom)] if bom else []
    if "\x00" in text:
        spans.extend(found.span() for found in _INFO_TAG.finditer(text))
    if crlf and "\r\n" in text:
        spans.extend((found.start(), found.start() + 1) for found in re.finditer("\r\n", text))
    if not spans:
        return text, None
    return cut(text, sorted(spans))
