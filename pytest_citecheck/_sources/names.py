"""Which document of a corpus a name means: its id exactly, after a documented normalisation.

A citation's ``document`` is matched to a corpus id exactly, after only these changes to both:

- POSIX separators: ``\\`` becomes ``/``;
- a leading ``./`` goes (``./policies/refund.md`` is ``policies/refund.md``);
- in a URL, the scheme and the host are lowercased (``HTTPS://Example.COM/a`` is ``https://example.com/a``;
  the path keeps its case), and OpenAI's ``utm_`` tracking parameters are dropped.

Nothing looser: ``/old/archive/refund.md``, ``file:///srv/mirror/refund.md`` and
``https://elsewhere.example/mirror/policies/refund.md`` are not ``policies/refund.md``, or a
misattributed citation would never be caught. A name that means a document under another id is
declared with ``Corpus(..., aliases={name: document_id})``.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

from pytest_citecheck._errors import SourceError
from pytest_citecheck._sources.chunks import _without_tracking


def document_key(name: str) -> str:
    """``name`` after the normalisation above: what two names of one document have in common."""
    if "://" in name:
        parts = urlsplit(_without_tracking(name))
        return urlunsplit(parts._replace(scheme=parts.scheme.lower(), netloc=parts.netloc.lower()))
    path = name.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


class DocumentNames:
    """A corpus's ids and aliases, by ``document_key``: ``resolve(name)`` is the id a name means, or None."""

    def __init__(self, ids: list[str], aliases: Mapping[str, str] | None) -> None:
        self._by_key: dict[str, str | None] = {}
        for document_id in ids:
            key = document_key(document_id)
            # Two ids with one key (``a\\b`` and ``a/b``): a name with that key means neither.
            self._by_key[key] = None if key in self._by_key else document_id
        self.aliases = checked_aliases(aliases, ids)
        self._aliases = {document_key(name): document_id for name, document_id in self.aliases.items()}

    def resolve(self, name: str) -> str | None:
        key = document_key(name)
        return self._aliases.get(key) or self._by_key.get(key)


def checked_aliases(aliases: Mapping[str, str] | None, ids: list[str]) -> dict[str, str]:
    """``aliases`` as a dict of name -> document id; a ``SourceError`` naming the first bad entry."""
    if aliases is None:
        return {}
    if not isinstance(aliases, Mapping):
        raise SourceError(
            f"aliases must be a mapping of name to document id, not {type(aliases).__name__}", field="aliases"
        )
    known = set(ids)
    for name, document_id in aliases.items():
        if not isinstance(name, str) or not name.strip():
            raise SourceError(f"alias {name!r} must be a non-empty string", field="aliases")
        if document_id not in known:
            sample = ", ".join(ids[:8]) + (", …" if len(ids) > 8 else "")
            raise SourceError(
                f"alias {name!r} names document {document_id!r}, which the corpus does not have (it has {sample})",
                field="aliases",
            )
    return dict(aliases)
