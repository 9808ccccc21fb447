"""A web citation's URL matched to the id of a document in a ``Corpus`` keyed by URL.

``Corpus.resolve`` matches a name exactly after the documented normalisation (``_sources.names``:
URL scheme and host case, OpenAI's ``utm_`` tracking); a URL also matches with or without a
trailing slash (``https://example.com/policy/`` is ``https://example.com/policy``). Nothing looser:
the path and the query are kept as they are, so two different pages never match.
"""

from __future__ import annotations

from pytest_citecheck._sources.corpus import Corpus


def url_document(corpus: Corpus, name: str) -> str | None:
    """The corpus id a document name or URL means, or None."""
    found = corpus.resolve(name)
    if found is not None or "://" not in name:
        return found
    other = name[:-1] if name.endswith("/") else name + "/"
    return corpus.resolve(other)
