"""Ground floor: how counts, confidences and plain-text tables are written, in one place.

Every report (the terminal summary, the gate's failure message, ``citecheck review`` and
``citecheck calibrate``, the drift lines) formats through these, so a confidence reads the same
everywhere and a missing one shows the same placeholder.
"""

from __future__ import annotations

import re
import secrets
import shlex
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence

# What a confidence cell shows when no model was asked (a fabricated or misattributed quote).
NO_CONFIDENCE = "-"


def plural(count: int, noun: str) -> str:
    """``1 citation``, ``2 citations``: the count and the noun, with an ``s`` unless it is one."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def format_confidence(value: float | None, computed: float | None = None) -> str:
    """A confidence to two decimals, or :data:`NO_CONFIDENCE` when there is none.

    ``computed``: the confidence computed from Jev's probabilities, when the gate used it (it is below
    the reported one): shown beside it, ``0.81 (computed 0.79)``, unless the two read the same.
    """
    if value is None:
        return NO_CONFIDENCE
    shown = f"{float(value):.2f}"
    other = None if computed is None else f"{float(computed):.2f}"
    return shown if other is None or other == shown else f"{shown} (computed {other})"


# The most characters a table cell shows: cells hold user text (citation ids, test ids, section
# names, module paths), and a column is as wide as its widest cell, so one 100 KB id padded every
# row of the terminal summary to 100 KB. The JSON and HTML reports keep the text whole.
CELL_WIDTH = 80


def render_table(rows: Sequence[Sequence[str]], *, right: Collection[int] = (), indent: str = "  ") -> list[str]:
    """Fixed-width lines: columns two spaces apart, each line indented and stripped on the right.

    ``rows`` includes the header. Columns whose index is in ``right`` are right-aligned (numbers);
    the others are left-aligned. Every cell is shown ``visible`` (cells hold ids and claims) and cut
    to ``CELL_WIDTH`` characters in the middle, "…" marking the cut (``_cell``).
    """
    if not rows:
        return []
    from pytest_citecheck._secrets import cut_secrets, known_secrets

    # Known secrets cut out of every cell before it is cut to width and padded: a cut key kept a prefix that
    # no later redaction of the whole line could find, and a key cut out after padding unaligned its row.
    secrets = known_secrets()
    rows = [[_cell(cut_secrets(str(cell), secrets)) for cell in cells] for cells in rows]
    widths = [max(display_width(cells[i]) for cells in rows) for i in range(len(rows[0]))]
    lines = []
    for cells in rows:
        padded = [
            padded_to(cell, width, right=index in right) for index, (cell, width) in enumerate(zip(cells, widths))
        ]
        lines.append((indent + "  ".join(padded)).rstrip())
    return lines


def display_width(text: str) -> int:
    """How many terminal columns ``text`` takes: a wide character (Chinese, Japanese or Korean script,
    East Asian Wide or Fullwidth) two, a combining mark none, any other one. What ``str.ljust`` counts as
    one character each, so a claim in Chinese pushed the columns after it out of line."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(character) else 2 if is_wide(character) else 1 for character in text)


def is_wide(character: str) -> bool:
    """East Asian Wide or Fullwidth (Chinese, Japanese or Korean script): two columns on a terminal."""
    return unicodedata.east_asian_width(character) in "WF"


def padded_to(text: str, width: int, *, right: bool = False) -> str:
    """``text`` padded with spaces to ``width`` columns (``display_width``): on the left when ``right``."""
    padding = " " * max(0, width - display_width(text))
    return padding + text if right else text + padding


# --- untrusted text (claims, quotes, ids, section titles, server bodies, file names) ------------

# Every C0/C1 control but tab (escape sequences start with one), the Unicode line and paragraph
# separators (a terminal or a log viewer may break the line there: one field stays one line), and the
# bidirectional overrides.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r"}
# A workflow command: the runner ignores leading white space before "::".
_COMMAND_START = re.compile(r"^(\s*):(?=:)", re.M)


def _cell(text: object) -> str:
    """A table cell: ``visible``, a tab too (it would push the rest of its row out of the columns), and
    at most ``CELL_WIDTH`` characters (escapes count, as the terminal shows them). A longer one keeps
    its start and its end around "…": a test id's file and its parameters, an id's distinct suffix."""
    return cut_middle(visible(text).replace("\t", "\\t"))


def cut_middle(text: str, width: int = CELL_WIDTH) -> str:
    """``text`` if it has at most ``width`` characters, else its start and end around "…" (``width`` in all),
    every known secret cut out first (``_secrets.redact_known``): a key cut in two is found by nothing after."""
    if len(text) <= width:
        return text
    from pytest_citecheck._secrets import redact_known

    text = redact_known(text)
    if len(text) <= width:
        return text
    head = (width - 1) // 2
    return text[:head] + "…" + text[-(width - 1 - head) :]


def cut_end(text: object, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis at the end, every known secret cut
    out first (``_secrets.redact_known``): a key cut in two is found by nothing after."""
    from pytest_citecheck._secrets import redact_known

    flat = " ".join(str(text).split())
    if len(flat) <= width:
        return flat
    flat = " ".join(redact_known(flat).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


# An id (a citation's, or another name a user gave) longer than CELL_WIDTH, as a line of a message
# or of the terminal shows it: one 100 KB id made a 100 KB line. The reports keep it whole.
WHOLE_IN_REPORT = "the JSON report holds it whole"


def short_id(text: object) -> str:
    """An id for a line the terminal shows: as it is up to ``CELL_WIDTH`` characters; a longer one cut in
    the middle ("…") and followed by its length and where it is whole (the JSON report)."""
    text = str(text)
    if len(text) <= CELL_WIDTH:
        return text
    return f"{cut_middle(text)} ({len(text):,} characters, cut: {WHOLE_IN_REPORT})"


def quoted_id(text: object, whole: str = WHOLE_IN_REPORT) -> str:
    """``repr`` of an id for a message (``citation 'x'``); a long one cut as ``short_id`` does, its length
    and ``whole`` (where the whole id is) said after the quotes."""
    text = str(text)
    if len(text) <= CELL_WIDTH:
        return repr(text)
    return f"{cut_middle(text)!r} ({len(text):,} characters, cut: {whole})"


def cut_ids_note(ids: Iterable[object]) -> list[str]:
    """The line a message or summary ends with when one of its ``ids`` was cut (``cut_middle``), else none."""
    if not any(len(str(text)) > CELL_WIDTH for text in ids):
        return []
    return [f"  (ids longer than {CELL_WIDTH} characters are cut in the middle at …; the JSON report holds them whole)"]


def _escaped(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object) -> str:
    """``text`` made harmless on a terminal, shown as it is: every escape sequence and control
    character (line breaks included: one field stays one line) written visibly, ``\\x1b]52;...``,
    ``\\n``; bidirectional overrides likewise; and no line of it can start a GitHub workflow command.
    """
    return no_command(_CONTROL.sub(lambda match: _escaped(match[0]), str(text)))


# Half of a UTF-16 pair, alone: what ``json.loads`` makes of a ``\ud83d`` escape whose pair was cut
# off (a model's answer truncated inside an emoji), or ``errors="surrogateescape"`` of bytes that are
# not UTF-8. No report, JUnit file, request body or xdist channel can encode it.
SURROGATE = re.compile("[\ud800-\udfff]")
NOT_TEXT = (
    "half of a character, not text, which no report can hold. It comes from a JSON \\u escape whose pair "
    "was cut off, or bytes decoded with errors='surrogateescape': fix the text, or decode it with errors='replace'"
)


def is_text(value: str) -> bool:
    """``value`` holds no lone surrogate (``SURROGATE``)."""
    return value.isascii() or SURROGATE.search(value) is None


def surrogate_at(value: str) -> str:
    """Where ``value``'s first lone surrogate is, for a message: ``U+DC80 at character 12``."""
    found = SURROGATE.search(value)
    assert found is not None
    return f"U+{ord(found[0]):04X} at character {found.start()}"


# What XML 1.0 cannot hold at all, even escaped, once ``visible`` has shown the controls: surrogates
# and the non-characters U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")


def xml_safe(text: object) -> str:
    """``visible(text)``, with what XML 1.0 cannot hold shown too: fit for an XML attribute that its
    writer does not escape (a JUnit property's name). Known secrets are cut out (``_secrets.redact_known``):
    pytest writes the JUnit file, not ``_files.atomic_write_text``, which cuts them from the files we write."""
    from pytest_citecheck._secrets import redact_known

    return _NOT_XML.sub(lambda match: _escaped(match[0]), visible(redact_known(str(text))))


def printable(text: object) -> str:
    """``visible(text)``, with lone surrogates shown too (``\\udce9``): what Python makes of a file
    name's bytes that are not UTF-8, which a UTF-8 stdout cannot encode. For a line that names a file."""
    return SURROGATE.sub(lambda match: _escaped(match[0]), visible(text))


def visible_lines(text: object) -> str:
    """Like ``visible``, keeping line breaks (a server's error body, a section's text)."""
    return "\n".join(visible(line) for line in str(text).split("\n"))


def no_command(text: str) -> str:
    """``text`` with no line that starts a GitHub workflow command: a leading ``::`` is shown as ``\\x3a:``."""
    return _COMMAND_START.sub(lambda match: match[1] + "\\x3a", text)


def shell_quote(word: object) -> str:
    """``word`` as one shell word, safe to paste: always in single quotes, each ``'`` closed, escaped
    and reopened (what ``shlex.quote`` does to a word that needs quoting)."""
    quoted = shlex.quote(str(word))
    return quoted if quoted.startswith("'") else f"'{quoted}'"


def stop_commands(lines: Sequence[str], environ: Mapping[str, str]) -> list[str]:
    """Under GitHub Actions, ``lines`` between ``::stop-commands::<random token>`` and ``::<token>::``:
    the runner executes no workflow command in between, whatever the lines hold."""
    if environ.get("GITHUB_ACTIONS") != "true" or not lines:
        return list(lines)
    token = secrets.token_hex(16)
    return [f"::stop-commands::{token}", *lines, f"::{token}::"]


# The command that reviews a run's verdicts (the gate's messages and the report's summary say it).
DEFAULT_REVIEW_COMMAND = "citecheck review"
NO_REPORT_KEPT = (
    "this run keeps no report for `citecheck review` (pytest's cache is off: -p no:cacheprovider); "
    "rerun with --citecheck-json=PATH, then run `citecheck review --report PATH`"
)


def review_command(json_path: str | None, *, cached: bool) -> str | None:
    """The command that finds this run's report: ``citecheck review --report PATH`` when the run writes
    one, ``citecheck review`` when pytest's cache keeps it, None when the run keeps none."""
    if json_path:
        return f"{DEFAULT_REVIEW_COMMAND} --report {shlex.quote(str(json_path))}"
    return DEFAULT_REVIEW_COMMAND if cached else None
