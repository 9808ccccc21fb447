"""The functions a test calls directly, and how they find the test they are called from.

The plugin binds a getter of the running test's ``citecheck`` checker in ``_hooks``. Inside a pytest run with no test
bound (the plugin disabled, or a call at import time or from a session-scoped fixture) the helpers
raise ``CheckerUnavailableError``: a check there would have no cassette, no record mode and no
report, and would spend the key. Outside pytest (a script, a notebook) a standalone checker asks
Jev live with the SDK's environment settings.

Kept light: the first call in a test imports it, and it imports the checker only to make one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Unpack

from pytest_citecheck import _hooks
from pytest_citecheck._errors import CheckerUnavailableError

if TYPE_CHECKING:
    from pytest_citecheck._check.checker import Checker
    from pytest_citecheck._options import CheckOptions
    from pytest_citecheck._results import CitationResult

if TYPE_CHECKING:
    from pytest_citecheck._citations.model import CitationInput
    from pytest_citecheck._sources.corpus import Corpus
    from pytest_citecheck._sources.source import Format, Source


def _inside_pytest() -> bool:
    # pytest (>= 8.2) sets PYTEST_VERSION while it runs; a script started by a test inherits the
    # variable but does not import pytest, so it is still a script.
    return "PYTEST_VERSION" in os.environ and "_pytest.config" in sys.modules


def current_checker(caller: str = "assert_citations_supported()") -> Checker:
    __tracebackhide__ = True
    checker = _hooks.checker_getter() if _hooks.checker_getter is not None else None
    if checker is not None:
        return checker
    if _hooks.sessions:
        raise CheckerUnavailableError(
            f"{caller} was called outside a running test (at import or collection time, or from a fixture "
            "wider than function scope): only a test has a cassette and a report row to record the check in, "
            "so nothing was sent to Jev. Call it inside the test function (or a function-scoped fixture), "
            "or use the citecheck fixture"
        )
    if _inside_pytest():
        raise CheckerUnavailableError(
            "pytest-citecheck's plugin is not active in this pytest run (disabled with -p no:citecheck, or "
            "plugin autoloading is off: PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 or --disable-plugin-autoload), so "
            f"{caller} has no cassette, record mode or report, and nothing was sent to Jev: "
            "enable it with -p citecheck (or -p pytest_citecheck.plugin)"
        )
    return _standalone_checker()


def _standalone_checker() -> Checker:
    from pytest_citecheck._check.checker import Checker

    return Checker()


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

    Inside a pytest run it needs the plugin and a running test (else ``CheckerUnavailableError``);
    outside pytest it asks Jev live, with no cassette.
    """
    __tracebackhide__ = True
    checker = current_checker("assert_citations_supported()")
    return checker.assert_supported(citations, source, format=format, **options)


def check_citations(
    citations: Iterable[CitationInput],
    source: Source | Corpus | str,
    *,
    format: Format = "auto",
    **options: Unpack[CheckOptions],
) -> list[CitationResult]:
    """Check citations and return one ``CitationResult`` each, in order, without failing the test."""
    __tracebackhide__ = True
    return current_checker("check_citations()").check(citations, source, format=format, **options)
