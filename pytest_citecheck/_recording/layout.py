"""The layout ``CassetteSerializer`` writes, read back without a YAML parser.

Replay reads every cassette a run uses, and even PyYAML's C parser, its events taken in Python
(``yaml_reader``), cost more per test than everything else replay adds. A cassette this plugin wrote
is always the same text around a few values: each interaction is one template (method, TypeSafe
URI, the JSON request body as a literal block, ``content-type``, status 2xx ``OK``, the JSON answer
as a literal block, the digest). ``read_layout`` matches that template, interaction by interaction,
with one regular expression, and builds exactly what ``yaml.safe_load`` builds from it.

It reads only what it is sure of, and says None for anything else: any other key, style, value or
order; an empty line, a tab, a carriage return or any character YAML treats specially (a non-printable
one, a byte-order mark, the Unicode line separators: ``_plain_text``); a literal block whose first
line is indented more. The caller then reads the file with the safe YAML reader (``yaml_reader.safe_load``), which
refuses what YAML refuses. Nothing here nests, aliases or resolves a tag, and the expression matches
line by line without backtracking (possessive repeats), so a hostile file costs one pass over its text. The
digests, format and every other check are ``cassette_file``'s, made alike on either path.
"""

from __future__ import annotations

import re
from typing import Any

HEAD = "citecheck_format: 2\nversion: 1\ninteractions:\n"


def _block(indent: int) -> str:
    """A literal block's lines at ``indent`` spaces; the first starts with a character that is not a space."""
    spaces = " " * indent
    return f"((?:{spaces}(?! )[^\n]++\n)(?:{spaces}[^\n]*+\n)*+)"


_CONTENT_TYPE = "(application/json(?:; charset=utf-8)?)"
_INTERACTION = re.compile(
    "- request:\n"
    "    method: (POST|GET)\n"
    "    uri: (https://api\\.typesafe\\.ai/v1/(?:systemone|models))\n"
    "    body: \\|\n" + _block(6) + "    headers:\n"
    "      content-type:\n"
    "      - " + _CONTENT_TYPE + "\n"
    "  response:\n"
    "    status:\n"
    "      code: (2[0-9][0-9])\n"
    "      message: (OK)\n"
    "    headers:\n"
    "      content-type:\n"
    "      - " + _CONTENT_TYPE + "\n"
    "    body:\n"
    "      string: \\|\n" + _block(8) + "  digest: (sha256:[0-9a-f]{64})\n"
)
# The control characters of ASCII but the line feed: each looked for with one memchr, far quicker
# than a character class (and a class of the Unicode YAML allows costs ~60 ms to compile).
_ASCII_CONTROLS = tuple(chr(code) for code in (*range(10), *range(11, 32), 127))


def _plain_text(text: str) -> bool:
    """Only line feeds and characters YAML reads as plain text, so "not a line feed" is all a line holds.

    Not a tab, CR, NEL, line or paragraph separator, byte-order mark, C0/C1 control or surrogate: a
    file holding one is left to the YAML reader. Beyond ASCII, ``str.isprintable`` is stricter than
    YAML (it refuses every separator and format character too): such a file takes the YAML reader.
    """
    if text.isascii():
        return not any(control in text for control in _ASCII_CONTROLS)
    return text.replace("\n", "").isprintable()


def _dedent(block: str, indent: int) -> str:
    """A literal block's value (clip chomping: one final line feed): each line without its indentation."""
    return block[indent:].replace("\n" + " " * indent, "\n")


def read_layout(text: str) -> dict[str, Any] | None:
    """What ``yaml.safe_load(text)`` gives, when ``text`` is in the layout this plugin writes; else None."""
    if not text.startswith(HEAD) or len(text) == len(HEAD):
        return None
    if not _plain_text(text):
        return None
    interactions, match = [], _INTERACTION.match
    position, end = len(HEAD), len(text)
    while position < end:
        found = match(text, position)
        if found is None:
            return None
        method, uri, body, sent_type, code, message, answer_type, answer, digest = found.groups()
        interactions.append(
            {
                "request": {
                    "method": method,
                    "uri": uri,
                    "body": _dedent(body, 6),
                    "headers": {"content-type": [sent_type]},
                },
                "response": {
                    "status": {"code": int(code), "message": message},
                    "headers": {"content-type": [answer_type]},
                    "body": {"string": _dedent(answer, 8)},
                },
                "digest": digest,
            }
        )
        position = found.end()
    return {"citecheck_format": 2, "version": 1, "interactions": interactions}
