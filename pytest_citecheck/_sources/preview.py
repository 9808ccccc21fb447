"""``citecheck sections PATH [--format F] [--json] [--strict]``: see how a document splits before writing a test.

It loads the document as ``Source.from_file`` does and prints the section tree, each section with
its id, title, characters and estimated tokens, and its flags:
- ``over limit``: too large for one Jev request judged whole (the default, no ``window``);
- ``contents``: reads like a table of contents (most of its lines are entries such as "1.2. Title");
  the preamble, where a manual's contents list belongs, is not flagged for it;
- ``empty``: nothing but its heading, and no subsection after it;
- ``out of order``: its number is lower than the numbered section before it.
The warnings ``Source`` gives at load (a badly explained document) are printed too. ``--strict``
exits 1 when a section is flagged or the split warns, for CI; a document that cannot be read or
split exits 2.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from pytest_citecheck._errors import SourceError, SourceWarning
from pytest_citecheck._limits import estimate_tokens, fits
from pytest_citecheck._sources.formats.auto import number_of
from pytest_citecheck._sources.formats.headings import PREAMBLE
from pytest_citecheck._sources.formats.outline import is_numbered_entry
from pytest_citecheck._sources.source import Source
from pytest_citecheck._text import display_width, padded_to, printable, visible_lines

_ADORNMENT = re.compile(r"^\s*([=\-~^*#\"'+:.;`_])\1{2,}\s*$")


@dataclass(frozen=True)
class Row:
    """One section as the preview shows it."""

    id: str
    title: str
    depth: int
    characters: int
    tokens: int
    flags: list[str]


def _depth(section_id: str) -> int:
    if number_of(section_id) is not None:
        return section_id.count(".")
    return section_id.count(" > ")


def _title(section_id: str, text: str) -> str:
    first = text.strip().split("\n", 1)[0] if section_id != PREAMBLE else "(before the first heading)"
    return " ".join(first.split())


def _contents_like(body: list[str]) -> bool:
    entries = sum(1 for line in body if is_numbered_entry(line))
    return entries >= 3 and 2 * entries >= len(body)


def _flags(section_id: str, text: str, previous: tuple[int, ...] | None, parent: bool) -> list[str]:
    flags: list[str] = []
    if not fits("", text):
        flags.append("over limit")
    body = [line for line in text.strip().split("\n")[1:] if line.strip() and not _ADORNMENT.match(line)]
    if section_id != PREAMBLE and _contents_like(body):
        flags.append("contents")
    if section_id != PREAMBLE and not body and not parent:  # a chapter that opens on its first section is not
        flags.append("empty")
    number = number_of(section_id)
    if number is not None and previous is not None and number < previous:
        flags.append("out of order")
    return flags


def rows(source: Source) -> list[Row]:
    """The preview's rows, in document order."""
    out: list[Row] = []
    previous: tuple[int, ...] | None = None
    ids = list(source.sections)
    for index, (section_id, text) in enumerate(source.sections.items()):
        depth = _depth(section_id)
        parent = index + 1 < len(ids) and _depth(ids[index + 1]) > depth
        out.append(
            Row(
                id=section_id,
                title=_title(section_id, text),
                depth=depth,
                characters=len(text),
                tokens=estimate_tokens(text),
                flags=_flags(section_id, text, previous, parent),
            )
        )
        previous = number_of(section_id) or previous
    return out


def _clip(text: str, width: int) -> str:
    """``text`` in at most ``width`` columns (``display_width``), "…" ending it when cut (one pass: a
    heading may be a whole line of a file)."""
    if display_width(text) <= width:
        return text
    used = 0
    for end, character in enumerate(text):
        used += display_width(character)
        if used > width - 1:
            return text[:end] + "…"
    return text


# The SECTION column is as wide as its longest id, up to this; the TITLE column is this wide.
_ID_WIDTH = 40
_TITLE_WIDTH = 48


def _shown_id(row: Row) -> str:
    """The section's id as the tree shows it, indented by depth; a path of titles by its last title.

    Headings are the document's text, shown as the summary shows untrusted text (``printable``): an
    escape sequence in one would otherwise reach the terminal."""
    shown = row.id.rsplit(" > ", 1)[1] if " > " in row.id else row.id
    return "  " * row.depth + printable(shown)


def _shown_title(row: Row) -> str:
    """The title as written (it may start with the number, as in "0. Definitions."); blank when it is
    the id itself (a man page's NAME), which the SECTION column shows already."""
    shown = row.id.rsplit(" > ", 1)[1] if " > " in row.id else row.id
    return "" if row.title == shown else _clip(printable(row.title), _TITLE_WIDTH)


def render(path: str, source: Source, found: list[Row], said: list[str]) -> str:
    """The preview as text: a heading line, one line per section (its id, indented by depth, and its
    title, each in a column of its own), the warnings."""
    flagged = sum(1 for row in found if row.flags)
    lines = [
        f"{printable(path)}: {len(found)} section{'' if len(found) == 1 else 's'} as {source.format!r}, "
        f"{len(source.text):,} characters" + (f"; {flagged} flagged" if flagged else "")
    ]
    ids = [_shown_id(row) for row in found]
    width = min(max([len("SECTION"), *map(display_width, ids)]), _ID_WIDTH)
    lines.append(f"{'SECTION':<{width}}  {'TITLE':<{_TITLE_WIDTH}} {'CHARS':>8} {'TOKENS':>7}  FLAGS")
    for row, shown in zip(found, ids, strict=True):
        cells = f"{padded_to(_clip(shown, width), width)}  {padded_to(_shown_title(row), _TITLE_WIDTH)}"
        lines.append(f"{cells} {row.characters:>8,} {row.tokens:>7,}  {', '.join(row.flags)}".rstrip())
    if any(" > " in row.id for row in found):
        lines.append(
            "(a section known by its title has the path of titles as its id: 'Parent > Child'; --json lists them)"
        )
    if any(display_width(shown) > width for shown in ids):
        lines.append(f"(an id wider than {width} columns is cut with …; --json lists it whole)")
    lines.extend(f"warning: {printable(message)}" for message in said)
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citecheck sections",
        description="Preview how a document splits into sections: the tree, sizes and estimated tokens, and flags.",
    )
    parser.add_argument("path", type=Path, help="the document (as Source.from_file reads it)")
    parser.add_argument(
        "--format", help="a layout name (rfc, markdown, rst, docbook, man, numbered, html); default: auto"
    )
    parser.add_argument("--encoding", default="utf-8", help="the text file's encoding (default: utf-8)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a section is flagged or the split warns")
    return parser


def main(argv: Sequence[str]) -> int:
    args = _parser().parse_args(list(argv))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SourceWarning)
            source = Source.from_file(args.path, args.format, encoding=args.encoding)
    except SourceError as error:
        print(f"citecheck sections: {visible_lines(error)}", file=sys.stderr)
        return 2
    said = [str(warning.message) for warning in caught if issubclass(warning.category, SourceWarning)]
    found = rows(source)
    if args.json:
        document = {"path": str(args.path), "format": source.format, "characters": len(source.text)}
        print(json.dumps({**document, "sections": [asdict(row) for row in found], "warnings": said}, indent=2))
    else:
        print(render(str(args.path), source, found, said))
    return 1 if args.strict and (said or any(row.flags for row in found)) else 0
