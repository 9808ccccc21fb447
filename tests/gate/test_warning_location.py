"""Review and misattribution warnings point at the user's test line, not at the plugin's code.

Whichever way a test checks (the ``assert_citations_supported`` function, the ``citecheck`` fixture,
sync or async), the warning's file and line are the call's; and the documented recipe keeps review
warnings as warnings under ``filterwarnings = error``.
"""

from __future__ import annotations

import pytest

from pytest_citecheck.testing import JevServer

TESTS = """
import pytest
from pytest_citecheck import CitationMisattributedWarning, CitationReviewWarning, assert_citations_supported
from cookbook import SOURCE, pick

def where(recwarn, category):
    [warning] = [w for w in recwarn.list if issubclass(w.category, category)]
    return warning.filename, warning.lineno

def line_of(mark):
    lines = open(__file__).read().splitlines()
    return next(n for n, text in enumerate(lines, 1) if text.endswith("# " + mark))

def misattributed():
    return [{**pick("clock_skew")[0], "section": "4.1.3"}]

def test_function(recwarn):
    assert_citations_supported(pick("aud_reject", "pii_encryption"), SOURCE)  # function
    assert where(recwarn, CitationReviewWarning) == (__file__, line_of("function"))

def test_fixture(recwarn, citecheck):
    citecheck.assert_supported(pick("aud_reject", "pii_encryption"), SOURCE)  # fixture
    assert where(recwarn, CitationReviewWarning) == (__file__, line_of("fixture"))

def test_misattributed(recwarn):
    assert_citations_supported(misattributed(), SOURCE, misattributed="warn")  # misattributed
    assert where(recwarn, CitationMisattributedWarning) == (__file__, line_of("misattributed"))

@pytest.mark.asyncio
async def test_async(recwarn, citecheck):
    await citecheck.aassert_supported(pick("aud_reject", "pii_encryption"), SOURCE)  # async
    assert where(recwarn, CitationReviewWarning) == (__file__, line_of("async"))

@pytest.mark.asyncio
async def test_async_misattributed(recwarn, citecheck):
    await citecheck.aassert_supported(misattributed(), SOURCE, misattributed="warn")  # async misattributed
    assert where(recwarn, CitationMisattributedWarning) == (__file__, line_of("async misattributed"))
"""


@pytest.fixture
def recording(suite: pytest.Pytester, jev_server: JevServer, inner_ini: str) -> pytest.Pytester:
    suite.makeini(inner_ini + "citecheck_model = jev-1.12\n")
    return suite


def test_warnings_name_the_line_of_the_test_that_checked(recording: pytest.Pytester) -> None:
    recording.makepyfile(test_it=TESTS)
    result = recording.runpytest("--citecheck-record-mode=once", "-p", "asyncio")
    result.assert_outcomes(passed=5)
    assert "_check/api.py" not in result.stdout.str() and "_gate" not in result.stdout.str()


BELOW_THRESHOLD = """
from pytest_citecheck import assert_citations_supported
from cookbook import SOURCE, pick

def test_below_threshold():
    assert_citations_supported(pick("aud_reject", "pii_encryption"), SOURCE)
"""


def test_filterwarnings_error_fails_on_a_review_and_the_documented_line_keeps_it_a_warning(
    recording: pytest.Pytester, inner_ini: str
) -> None:
    recording.makepyfile(test_it=BELOW_THRESHOLD)
    strict = inner_ini.replace("filterwarnings = default", "filterwarnings =\n    error")
    recording.makeini(strict + "citecheck_model = jev-1.12\n")
    recording.runpytest("--citecheck-record-mode=once").assert_outcomes(failed=1)
    # docs/usage.md: keep review warnings as warnings with one more line under `filterwarnings`.
    keep = strict.replace("    error", "    error\n    default::pytest_citecheck.CitationReviewWarning")
    recording.makeini(keep + "citecheck_model = jev-1.12\n")
    result = recording.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(["*test_it.py:5: CitationReviewWarning*"])
