"""GNU Info files (what ``makeinfo`` writes, as in /usr/share/info): one section per node.

A node begins at a separator line (``\\x1f``, optionally followed by a form feed) and its header
line, ``File: ed.info,  Node: Overview,  Next: Invoking ed,  Prev: Top,  Up: Top`` (Texinfo manual,
"Info Format Specification"). The section's id is the node's name: unique in a manual, present on
every node (numbered chapters, the Top node and indices alike), and what an Info reader looks a node
up by (``info ed Overview``). Its text runs from the line after the header to the next separator, so
the header (navigation that no reader quotes) and the separator are in no section. The file's own
tables (``Tag Table:``, ``Indirect:``, ``Local Variables:``) are in no section either; the text
before the first separator (``This is ed.info, produced by makeinfo ...``, the copying notice) is the
preamble. Index tags (``\\0\\b[index\\0\\b]``) are cut before any split (``Source``), as a reader hides them.
"""

from __future__ import annotations

import re

from pytest_citecheck._errors import NoSectionsError
from pytest_citecheck._sources.formats.headings import PREAMBLE, UniqueIds

# The separator line that starts every node and table.
SEPARATOR = re.compile(r"\x1f\f?\n")
# A node's header line: "File: NAME,  Node: NODE,  Next: ..."; makeinfo quotes a node name holding
# a comma or colon between DEL characters ("Node: \x7fa, b\x7f"). The line is matched from its start only.
_HEADER = re.compile(r"File:[^\n]*?[,\t][ \t]*Node:[ \t]*(?:\x7f(?P<quoted>[^\x7f\n]+)\x7f|(?P<name>[^,\t\n]+))")
# What the auto layout looks for (``formats.MARKS``): a node's separator and header.
MARK = re.compile(r"\x1f\f?\nFile:")
# The main file of a manual split into several (find.info): its "Indirect:" table names the parts
# ("find.info-1: 1201"), which hold the nodes; the main file holds only tables.
_INDIRECT = re.compile(r"\x1f\f?\nIndirect:\n((?:[^\x1f\n]+\n)*)")


def split_info(text: str) -> tuple[str, dict[str, str]]:
    """A GNU Info file: a section per node (see the module docstring)."""
    boundaries = [found for found in SEPARATOR.finditer(text)]
    sections: dict[str, str] = {}
    preamble = text[: boundaries[0].start()].strip() if boundaries else ""
    if preamble:
        sections[PREAMBLE] = preamble
    unique = UniqueIds()
    nodes = 0
    for index, separator in enumerate(boundaries):
        end = boundaries[index + 1].start() if index + 1 < len(boundaries) else len(text)
        header = _HEADER.match(text, separator.end(), end)
        if header is None:
            continue  # a table of the file (Tag Table, Indirect, Local Variables), not a node
        nodes += 1
        # A header naming no node (only a broken file has one) still keeps its text, by position.
        name = " ".join((header.group("quoted") or header.group("name")).strip("\x7f").split()) or f"node {nodes}"
        line_end = text.find("\n", header.end(), end)
        body = text[line_end + 1 : end].strip() if line_end >= 0 else ""
        if body:  # a node with no text has nothing to quote
            sections[unique(name)] = body
    if len(sections) == (1 if PREAMBLE in sections else 0):
        raise NoSectionsError(_no_nodes(text, nodes), field="source")
    return text, sections


def split_manual(text: str) -> str | None:
    """What to say of the main file of a split Info manual (only tables; the nodes are in the parts
    its ``Indirect:`` table names), else None."""
    table = _INDIRECT.search(text)
    if table is None:
        return None
    parts = [line.rsplit(":", 1)[0].strip() for line in table.group(1).split("\n") if ":" in line]
    named = ", ".join(parts[:5]) + (", ..." if len(parts) > 5 else "")
    return (
        f"it is the main file of a GNU Info manual split into several files, which holds only their tables: "
        f"the nodes are in {named or 'the files its Indirect: table names'}; read those"
    )


def _no_nodes(text: str, nodes: int) -> str:
    if nodes:
        return f"the Info file's {nodes} node(s) hold no text"
    return split_manual(text) or (
        "no GNU Info nodes (a line of \\x1f, then a header line 'File: NAME,  Node: NODE, ...') were found"
    )
