"""reStructuredText's ``replace`` substitutions: the text each name shows, for ``rst`` to read references by.

``.. |tzdata| replace:: ``tzdata``` defines ``|tzdata|`` (and ``|tzdata|_``) to show ``tzdata``. Only
``replace`` is read: ``date`` (the day the document is built), ``unicode``, ``image`` and names the
document does not define (Sphinx's ``|version|`` comes from ``conf.py``) are left as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

# The key under which ``substitutions`` holds a name in lower case (docutils looks a name up as written,
# then in lower case): no name holds this character.
_LOWER = "\x00"
# A substitution definition whose directive is ``replace``: ``.. |name| replace:: text``, its text going on
# in the lines indented under it. Other substitution directives (``image``, ``unicode``, ``date``) are not read.
_REPLACE = re.compile(r"^([ \t]*)\.\.[ \t]+\|(?![ \t])([^|\n]{1,200}?)(?<![ \t])\|[ \t]+replace::(.*)$", re.MULTILINE)


def substitutions(text: str, shown: Callable[..., str]) -> dict[str, str]:
    """The ``replace`` substitutions a reStructuredText document defines: name (whitespace folded, and in lower
    case under ``_LOWER``) -> the text it shows, its inline markup taken out and the substitutions it
    refers to read (one level deep) by ``shown`` (``rst.rst_shown``). The last definition of a name stands,
    as in docutils."""
    written: dict[str, str] = {}
    if "replace::" not in text:
        return written
    for found in _REPLACE.finditer(text):
        indent = len(found.group(1))
        words = [found.group(3)]
        position = found.end() + 1
        while position < len(text):
            end = text.find("\n", position)
            end = len(text) if end < 0 else end
            line = text[position:end]
            if not line.strip() or len(line) - len(line.lstrip()) <= indent:
                break
            words.append(line)
            position = end + 1
        value = " ".join(" ".join(words).split())
        if value:
            name = " ".join(found.group(2).split())
            written[name] = value
            written[_LOWER + name.lower()] = value
    plain = {name: shown(value) for name, value in written.items()}
    return {name: shown(value, plain) for name, value in written.items()}


def defines_any(text: str) -> bool:
    """Whether a reStructuredText document defines a ``replace`` substitution anywhere (what ``substitutions``
    would find in it, without reading what each shows)."""
    return "replace::" in text and _REPLACE.search(text) is not None


def substituted(defined: Mapping[str, str], name: str) -> str | None:
    """What a reference to ``name`` (as written between its bars) shows, from ``substitutions``; None if nothing."""
    name = " ".join(name.split())
    found = defined.get(name)
    return defined.get(_LOWER + name.lower()) if found is None else found
