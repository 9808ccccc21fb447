"""The functions a test calls directly, and how they find the test they are called from.

The plugin binds each running test's ``citecheck`` checker here; outside a pytest run (a script,
a notebook) a standalone checker asks Jev live with the SDK's environment settings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_citecheck._check.checker import Checker
from pytest_citecheck._options import Settings
from pytest_citecheck._results import CitationResult

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
    citations: Any, source: Any, *, format: str = "rfc", **options: Any
) -> list[CitationResult]:
    """Fail the current test when a citation is fabricated, or contradicted (or unsupported) on its own.

    ``citations``: dicts with ``id``, ``claim``, ``quote`` (None for a claim-only citation) and
    ``section`` (and ``document`` with a ``Corpus``), or objects with those attributes. ``source``: a
    ``Source``, a ``Corpus`` of documents by id, or the document's text (split with ``format``). ``options``: per-call settings (``auto_accept``, ``model``, ``review``,
    ``fail_on``), which win over the marker, the command line and the ini file.
    Verdicts below ``auto_accept`` are reported for human review (a warning by default).
    Returns the results when the test may go on.
    """
    __tracebackhide__ = True
    return current_checker().assert_supported(citations, source, format=format, **options)


def check_citations(citations: Any, source: Any, *, format: str = "rfc", **options: Any) -> list[CitationResult]:
    """Check citations and return one ``CitationResult`` each, in order, without failing the test."""
    __tracebackhide__ = True
    return current_checker().check(citations, source, format=format, **options)
