"""reStructuredText's ``replace`` and ``unicode`` substitutions: the text each name shows, for ``rst`` to read
references by.

``.. |tzdata| replace:: ``tzdata``` defines ``|tzdata|`` (and ``|tzdata|_``) to show ``tzdata``;
``.. |copy| unicode:: 0xA9 .. copyright sign`` defines ``|copy|`` to show ``©``, its codes read as docutils'
``unicode_code`` reads them (``0xA9``, ``xA9``, ``\\xA9``, ``U+A9``, ``uA9``, ``\\uA9``, ``&#xA9;``, decimal
``169``; any other word is itself), joined with nothing between them, up to a `` .. `` comment; its ``:trim:``
(``:ltrim:``, ``:rtrim:``) option takes out the white space before (after) a reference. ``date`` (the day the
document is built), ``image`` and names the document does not define (Sphinx's ``|version|`` comes from
``conf.py``) are left as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

# The key under which ``substitutions`` holds a name in lower case (docutils looks a name up as written,
# then in lower case): no name holds this character.
_LOWER = "\x00"
# The key under which it holds which sides of a reference a ``unicode`` substitution trims ("l", "r", "lr").
_TRIM = "\x01"
# A substitution definition whose directive is ``replace`` or ``unicode``: ``.. |name| replace:: text``, its
# text going on in the lines indented under it. Other substitution directives (``image``, ``date``) are not read.
_DEFINITION = re.compile(
    r"^([ \t]*)\.\.[ \t]+\|(?![ \t])([^|\n]{1,200}?)(?<![ \t])\|[ \t]+(replace|unicode)::(.*)$", re.MULTILINE
)
# docutils' ``unicode_code``: a code in hexadecimal, else a decimal number, else the word itself.
_HEX_CODE = re.compile(r"(?:0x|x|\\x|U\+?|\\u)([0-9a-f]{1,8})$|&#x([0-9a-f]{1,8});$", re.IGNORECASE)
# The comment that ends a ``unicode`` directive's codes (docutils' ``comment_pattern``).
_COMMENT = re.compile(r"(?: |\n|^)\.\. ")
# A directive option under the definition (``:trim:``): the definition's text ends there.
_OPTION = re.compile(r"[ \t]*:([\w-]+):")
_TRIMS = {"trim": "lr", "ltrim": "l", "rtrim": "r"}


def substitutions(text: str, shown: Callable[..., str]) -> dict[str, str]:
    """The ``replace`` and ``unicode`` substitutions a reStructuredText document defines: name (whitespace
    folded, and in lower case under ``_LOWER``) -> the text it shows. A ``replace`` text has its inline markup
    taken out and the substitutions it refers to read (one level deep) by ``shown`` (``rst.rst_shown``); a
    ``unicode`` one is its characters (``trimmed`` says which white space around a reference it takes out). The
    last definition of a name stands, as in docutils."""
    written: dict[str, str] = {}
    literal: dict[str, str] = {}
    if "replace::" not in text and "unicode::" not in text:
        return written
    for found in _DEFINITION.finditer(text):
        lines, options = _body(text, found, options=found.group(3) == "unicode")
        name = " ".join(found.group(2).split())
        for key in (name, _LOWER + name.lower(), _TRIM + name, _TRIM + _LOWER + name.lower()):
            written.pop(key, None)
            literal.pop(key, None)
        if found.group(3) == "replace":
            value = " ".join(" ".join(lines).split())
            if value:
                written[name] = written[_LOWER + name.lower()] = value
            continue
        value = _characters(" ".join(lines))
        if value:
            literal[name] = literal[_LOWER + name.lower()] = value
            trim = "".join(sorted(set("".join(_TRIMS.get(option, "") for option in options))))
            if trim:
                literal[_TRIM + name] = literal[_TRIM + _LOWER + name.lower()] = trim
    plain = {name: shown(value) for name, value in written.items()}
    plain.update(literal)
    return {**{name: shown(value, plain) for name, value in written.items()}, **literal}


def _body(text: str, found: re.Match[str], options: bool) -> tuple[list[str], list[str]]:
    """A definition's text (its first line's and the lines indented under it, up to its options when its
    directive has any: ``options``) and the names of its options."""
    indent = len(found.group(1))
    lines = [found.group(4)]
    named: list[str] = []
    position = found.end() + 1
    while position < len(text):
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        line = text[position:end]
        if not line.strip() or len(line) - len(line.lstrip()) <= indent:
            break
        option = _OPTION.match(line) if options else None
        if option is not None or named:
            named.append(option.group(1).lower() if option is not None else "")
        else:
            lines.append(line)
        position = end + 1
    return lines, named


def _characters(codes: str) -> str:
    """What a ``unicode`` directive's codes show, as docutils reads them (a code that is no character, too
    large, is no definition: docutils reports an error and shows none)."""
    shown: list[str] = []
    for code in _COMMENT.split(codes)[0].split():
        found = _HEX_CODE.match(code)
        try:
            if code.isdigit():
                shown.append(chr(int(code)))
            elif found is not None:
                shown.append(chr(int(found.group(1) or found.group(2), 16)))
            else:
                shown.append(code)
        except (ValueError, OverflowError):
            return ""
    return "".join(shown)


def defines_any(text: str) -> bool:
    """Whether a reStructuredText document defines a ``replace`` or ``unicode`` substitution anywhere (what
    ``substitutions`` would find in it, without reading what each shows)."""
    return ("replace::" in text or "unicode::" in text) and _DEFINITION.search(text) is not None


def substituted(defined: Mapping[str, str], name: str) -> str | None:
    """What a reference to ``name`` (as written between its bars) shows, from ``substitutions``; None if nothing."""
    name = " ".join(name.split())
    found = defined.get(name)
    return defined.get(_LOWER + name.lower()) if found is None else found


def trimmed(defined: Mapping[str, str], name: str) -> str:
    """Which white space a reference to ``name`` takes out: ``l`` before it, ``r`` after it (``:trim:`` both)."""
    name = " ".join(name.split())
    if name in defined:
        return defined.get(_TRIM + name, "")
    return defined.get(_TRIM + _LOWER + name.lower(), "")
