"""The functions a test calls directly, and how they find the test they are called from.

The plugin binds each running test's ``citecheck`` checker here; outside a pytest run (a script,
a notebook) a standalone checker asks Jev live with the SDK's environment settings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Unpack

from pytest_citecheck._check.checker import Checker
from pytest_citecheck._options import CheckOptions, Settings
from pytest_citecheck._results import CitationResult

if TYPE_CHECKING:
    from pytest_citecheck._citations.model import CitationInput
    from pytest_citecheck._sources.corpus import Corpus
    from pytest_citecheck._sources.source import Format, Source

_current: Callable[[], Checker] | None = None


def bind(getter: Callable[[], Checker] | None) -> None:
    """Called by the plugin around each test: how to get that test's checker."""
    global _current
    _current = getter


def current_checker() -> Checker:
    if _current is not None:
        return _current()
    return _standalone_checker()


def _standalone_checker() -> Checker:
    def live_client() -> Any:
        from typesafe_sdk import TypeSafeClient

        return TypeSafeClient(compression=False)

    return Checker(settings=Settings(), client_factory=live_client)


def assert_citations_supported(
    citations: Iterable[CitationInput],
    source: Source | Corpus | str,
    *,
    format: Format = "auto",
    **options: Unpack[CheckOptions],
) -> list[CitationResult]:
    """Fail the current test when a citation is fabricated, or contradicted (or unsupported) on its own.

    ``citations``: dicts with ``id``, ``claim``, ``quote`` (None for a claim-only citation) and
    ``section``, objects with those attributes (``CitationLike``), or Anthropic text blocks.
    ``source``: a ``Source``, a ``Corpus``, or the document's text (split with ``format``: a
    built-in format, or one your ``pytest_citecheck_split_sections`` hook handles). ``options``:
    per-call settings (``CheckOptions``: ``auto_accept``, ``model``, ``review``, ``fail_on``, ...),
    which win over the marker, the command line and the ini file.
    Verdicts below ``auto_accept`` are reported for human review (a warning by default).
    Returns the results when the test may go on.
    """
    __tracebackhide__ = True
    return current_checker().assert_supported(citations, source, format=format, **options)


def check_citations(
    citations: Iterable[CitationInput],
    source: Source | Corpus | str,
    *,
    format: Format = "auto",
    **options: Unpack[CheckOptions],
) -> list[CitationResult]:
    """Check citations and return one ``CitationResult`` each, in order, without failing the test."""
    __tracebackhide__ = True
    return current_checker().check(citations, source, format=format, **options)
