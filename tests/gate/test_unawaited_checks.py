"""A check that was called and never awaited checked nothing, and says so (hunt-wrong-passes F3).

``citecheck.aassert_supported(...)`` without ``await`` (in an async test, or in a sync one) made a
coroutine that never ran: on main the test passed with a fabricated quote, Python's
"coroutine ... was never awaited" RuntimeWarning the only trace. Now the test errors at teardown,
naming the call, where it was made, and the remedy. An awaited
check, and one handed to ``anyio.run``, still run as before.
"""

from __future__ import annotations

SUITE = """
import anyio
import pytest
from pytest_citecheck import Source

SRC = Source(sections={"1": "Refunds are available within 30 days of purchase."})
BAD = [{"id": "b", "claim": "Refunds take 90 days.", "quote": "Refunds are available within 90 days", "section": "1"}]


@pytest.mark.asyncio
async def test_async_forgot_await(citecheck):
    citecheck.aassert_supported(BAD, SRC)


def test_sync_calls_the_async_check(citecheck):
    citecheck.aassert_supported(BAD, SRC)


@pytest.mark.asyncio
async def test_acheck_forgot_await(citecheck):
    citecheck.acheck(BAD, SRC)


@pytest.mark.asyncio
async def test_awaited(citecheck):
    await citecheck.aassert_supported(BAD, SRC)


def test_anyio_run(citecheck):
    anyio.run(citecheck.aassert_supported, BAD, SRC)
"""


def test_a_check_never_awaited_errors_naming_the_call_and_the_remedy(pytester):
    pytester.makeini("[pytest]\nfilterwarnings = default\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(test_refunds=SUITE)
    result = pytester.runpytest("-p", "no:randomly", "-rA")
    result.assert_outcomes(passed=3, failed=2, errors=3)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_async_forgot_await*",
            "*citecheck.aassert_supported() was called at test_refunds.py:11 and never awaited: its citations were "
            "not checked",
            "*-> await it: write await citecheck.aassert_supported(...)*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_sync_calls_the_async_check*",
            "*aassert_supported() was called at test_refunds.py:15*",
        ]
    )
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_acheck_forgot_await*", "*citecheck.acheck() was called*"])
    result.stdout.fnmatch_lines(
        ["FAILED test_refunds.py::test_awaited - *", "FAILED test_refunds.py::test_anyio_run - *"]
    )
    assert "was never awaited" not in result.stdout.str() + result.stderr.str()
