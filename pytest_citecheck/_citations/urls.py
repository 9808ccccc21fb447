"""A web citation's URL matched to the id of a document in a ``Corpus`` keyed by URL.

``Corpus.resolve`` matches a name exactly after the documented normalisation (``_sources.names``:
URL scheme and host case, OpenAI's ``utm_`` tracking); a URL also matches with or without a
trailing slash (``https://example.com/policy/`` is ``https://example.com/policy``). Nothing looser:
the path and the query are kept as they are, so two different pages never match.
"""

from __future__ import annotations

from pytest_citecheck._sources.chunks import document_named
from pytest_citecheck._sources.corpus import Corpus
from pytest_citecheck._sources.names import document_key


def url_document(corpus: Corpus, name: str) -> str | None:
    """The corpus id a document name or URL means, or None."""
    found = corpus.resolve(name)
    if found is not None or "://" not in name:
        return found
    other = name[:-1] if name.endswith("/") else name + "/"
    return corpus.resolve(other)


def names_the_source(name: str, source_name: str) -> bool:
    """Whether a citation's document ``name`` means a single ``Source``'s own document, named ``source_name``:
    the same name after the corpus's normalisation (a URL also with or without a trailing slash), or a path
    or URL ending in ``/<source_name>``, or (file paths, no URL) the one file name. Not a URL merely ending in
    the same segment: ``…/weather/us/ca/san-francisco`` is another page than ``…/hourly/us/ca/san-francisco``."""
    key, own = document_key(name.strip()), document_key(source_name.strip())
    if not own:
        return False
    if key == own or ("://" in key and key.rstrip("/") == own.rstrip("/")):
        return True
    if "://" in key or "://" in own:  # a web page is the page its URL names
        return "://" not in own and key.endswith("/" + own.lstrip("/"))
    return document_named([own], key) is not None  # file names and paths, as a chunk's metadata names them
