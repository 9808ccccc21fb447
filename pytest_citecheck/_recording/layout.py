"""The layout ``CassetteSerializer`` writes, read back without a YAML parser.

Replay reads every cassette a run uses, and even PyYAML's C parser, its events taken in Python
(``yaml_reader``), cost more per test than everything else replay adds. A cassette this plugin wrote
is always the same text around a few values: each interaction is one template (method, TypeSafe
URI, the JSON request body as a literal block, ``content-type``, status 2xx ``OK``, the JSON answer
as a literal block, the digest). ``read_layout`` matches that template, interaction by interaction,
with one regular expression, and builds exactly what ``yaml.safe_load`` builds from it. A file of
format 3 ends with ``END``, its last key (``written_in_full``), read as YAML reads it; that a file has it
is ``cassette_file``'s to check, and ``damage.cut_short``'s to explain.

It reads only what it is sure of, and says None for anything else: any other key, style, value or
order; an empty line, a tab, a carriage return or any character YAML treats specially (a non-printable
one, a byte-order mark, the Unicode line separators: ``_plain_text``); a literal block whose first
line is indented more. The caller then reads the file with the safe YAML reader (``yaml_reader.safe_load``), which
refuses what YAML refuses. Nothing here nests, aliases or resolves a tag, and the expression matches
line by line without backtracking (possessive repeats), so a hostile file costs one pass over its text. The
digests, format and every other check are ``cassette_file``'s, made alike on either path.

``write_layout`` writes that template for ``CassetteSerializer`` without PyYAML's emitter (pure Python,
some ten million instructions an interaction: most of what recording a citation costs), the very
text PyYAML writes. It writes only what it is sure of, and says None for anything else (PyYAML
then writes it): a text it gives is one ``read_layout`` reads back as the data it was given, so
``yaml.safe_load`` does too.
"""

from __future__ import annotations

import re
from typing import Any

HEAD = "citecheck_format: 3\nversion: 1\ninteractions:\n"
# Format 2's head (written by pytest-citecheck 0.1): the same interactions, and no end line.
HEAD_2 = "citecheck_format: 2\nversion: 1\ninteractions:\n"
# The last key of every file of format 3, on its last line: a file without it was cut short, even at an
# interaction's end (``damage.cut_short``). A key, not a comment, so that a YAML tool that writes the file
# again keeps it; named to sort last, where a tool that sorts the keys puts it too.
END_KEY = "written_in_full"
END_VALUE = "a copy of this file without this line was cut short"
END = f"{END_KEY}: {END_VALUE}\n"


def ends_whole(text: str) -> bool:
    """The end key is in the file, its value whole, and the file ends with a line end: it was not cut, whatever
    else is wrong with it. The key is looked for anywhere (a merge, or a tool that wrote the YAML again, may
    have moved it), its line end LF or CRLF (a checkout with autocrlf)."""
    return text.endswith("\n") and f"\n{END_KEY}:" in text and END_VALUE in text


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
    """What ``yaml.safe_load(text)`` gives, when ``text`` is in the layout this plugin writes; else None.

    Format 3 or 2 (``HEAD``, ``HEAD_2``); format 3's ``END`` line is read as its last key when it is there
    (whether the file must have it is ``cassette_file.read_checked``'s to say, so one without it is read too).
    """
    if text.startswith(HEAD):
        version = 3
    elif text.startswith(HEAD_2):
        version = 2
    else:
        return None
    ended = version == 3 and text.endswith(END)
    end = len(text) - len(END) if ended else len(text)
    if end == len(HEAD) or not _plain_text(text):
        return None
    interactions, match = [], _INTERACTION.match
    position = len(HEAD)
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
    data = {"citecheck_format": version, "version": 1, "interactions": interactions}
    if ended:
        data[END_KEY] = END_VALUE
    return data


# --- writing --------------------------------------------------------------------------------------

_TOP_KEYS = ("citecheck_format", "version", "interactions", END_KEY)


def write_layout(data: dict[str, Any]) -> str | None:
    """The text ``yaml.dump`` writes for ``data`` (as ``CassetteSerializer`` dumps it) when ``data`` is in
    the layout, or None: PyYAML then writes it.

    ``data`` as ``CassetteSerializer`` dumps it: the format, vcrpy's version and the interactions, each
    with its JSON bodies pretty-printed and its digest. What is given is checked by reading it back.
    """
    if tuple(data) != _TOP_KEYS or type(data["citecheck_format"]) is not int or type(data["version"]) is not int:
        return None
    if (data["citecheck_format"], data["version"]) != (3, 1) or type(data["interactions"]) is not list:
        return None
    if data[END_KEY] != END_VALUE:
        return None
    parts = [HEAD]
    for interaction in data["interactions"]:
        text = _interaction_text(interaction)
        if text is None:
            return None
        parts.append(text)
    parts.append(END)
    text = "".join(parts)
    return text if read_layout(text) == data else None


def _interaction_text(interaction: Any) -> str | None:
    """One interaction in the template, or None when anything in it is not the template's."""
    fields = _exactly(interaction, "request", "response", "digest")
    request = _exactly(fields[0], "method", "uri", "body", "headers") if fields else None
    response = _exactly(fields[1], "status", "headers", "body") if fields else None
    if fields is None or request is None or response is None:
        return None
    status, answer = _exactly(response[0], "code", "message"), _exactly(response[2], "string")
    sent_type, answer_type = _content_type(request[3]), _content_type(response[1])
    if status is None or answer is None or sent_type is None or answer_type is None or type(status[0]) is not int:
        return None
    method, uri, body, message, answer_text, digest = (
        request[0],
        request[1],
        request[2],
        status[1],
        answer[0],
        fields[2],
    )
    if not all(type(value) is str for value in (method, uri, message, digest)):
        return None
    sent_block, answer_block = _literal(body, 6), _literal(answer_text, 8)
    if sent_block is None or answer_block is None:
        return None
    return (
        f"- request:\n    method: {method}\n    uri: {uri}\n    body: |\n{sent_block}"
        f"    headers:\n      content-type:\n      - {sent_type}\n"
        f"  response:\n    status:\n      code: {status[0]}\n      message: {message}\n"
        f"    headers:\n      content-type:\n      - {answer_type}\n"
        f"    body:\n      string: |\n{answer_block}  digest: {digest}\n"
    )


def _exactly(mapping: Any, *keys: str) -> tuple[Any, ...] | None:
    """The values of a dict holding exactly ``keys``, in that order; None for anything else."""
    if type(mapping) is not dict or tuple(mapping) != keys:
        return None
    return tuple(mapping.values())


def _content_type(headers: Any) -> str | None:
    """The one ``Content-Type`` of recorded headers, or None when they hold anything else."""
    values = _exactly(headers, "content-type")
    if values is None or type(values[0]) is not list or len(values[0]) != 1 or type(values[0][0]) is not str:
        return None
    return values[0][0]


def _literal(text: Any, indent: int) -> str | None:
    """``text`` as the lines of a literal block at ``indent`` spaces, as PyYAML writes one; None when
    PyYAML would write it another way (no final line feed, or more than one; an empty line; a line
    that starts the block with a space or ends with one: the serializer's ``represent_str``)."""
    if type(text) is not str or not text.endswith("\n") or text[0] in " \n" or "\n\n" in text:
        return None
    lines = text[:-1].split("\n")
    if any(line != line.rstrip() for line in lines):
        return None
    spaces = " " * indent
    return spaces + ("\n" + spaces).join(lines) + "\n"
