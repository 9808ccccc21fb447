"""A check that fails on another thread fails its test, unless the test saw the failure (hunt-wrong-passes-4 F1).

A suite that checks many answers at once hands the checks to a ``ThreadPoolExecutor`` (or a thread).
A failed check raises on that thread: ``submit`` keeps the exception in a future nobody asks, an
unconsumed ``map`` never raises it, a thread's target only makes pytest warn. On main each such test
passed with a fabricated quote, and one whose Jev answer was never recorded passed in replay with
nothing checked. Now the test errors at teardown, naming the call, the thread, the failure and the
remedy; a failure the test took back (``future.result()``, inside ``pytest.raises`` or not) is the
test's own, as before.
"""

from __future__ import annotations

SUITE = """
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from pytest_citecheck import CitationsNotSupported, Source, assert_citations_supported, check_citations

SRC = Source(sections={"1": "Refunds are available within 30 days of purchase."})
BAD = [{"id": "b", "claim": "Refunds take 90 days.", "quote": "Refunds are available within 90 days", "section": "1"}]
UNRECORDED = [{"id": "u", "claim": "Refunds take 30 days.", "quote": "available within 30 days", "section": "1"}]


def test_submitted_and_left():
    with ThreadPoolExecutor() as pool:
        pool.submit(assert_citations_supported, BAD, SRC)


def test_map_never_read():
    with ThreadPoolExecutor() as pool:
        pool.map(lambda citation: assert_citations_supported([citation], SRC), BAD)


def test_thread_target():
    thread = threading.Thread(target=assert_citations_supported, args=(BAD, SRC), name="checker-thread")
    thread.start()
    thread.join()


def test_fixture_on_a_thread(citecheck):
    with ThreadPoolExecutor() as pool:
        pool.submit(citecheck.assert_supported, BAD, SRC)


def test_unrecorded_answer_on_a_thread():
    with ThreadPoolExecutor() as pool:
        pool.submit(check_citations, UNRECORDED, SRC)


def test_result_taken():
    with ThreadPoolExecutor() as pool:
        pool.submit(assert_citations_supported, BAD, SRC).result()


def test_result_expected_to_fail():
    with ThreadPoolExecutor() as pool:
        future = pool.submit(assert_citations_supported, BAD, SRC)
        with pytest.raises(CitationsNotSupported):
            future.result()


def test_map_read():
    with ThreadPoolExecutor() as pool:
        list(pool.map(lambda citation: assert_citations_supported([citation], SRC), BAD))


def test_results_on_a_thread():
    with ThreadPoolExecutor() as pool:
        results = pool.submit(check_citations, BAD, SRC).result()
    assert results[0].status.value == "missing"
"""


def test_a_check_failed_on_another_thread_fails_its_test(pytester):
    pytester.makeini("[pytest]\nfilterwarnings = default\n")
    pytester.makepyfile(test_refunds=SUITE)
    result = pytester.runpytest("-p", "no:randomly", "-rA")
    result.assert_outcomes(passed=7, failed=2, errors=5)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_submitted_and_left*",
            "*assert_citations_supported() failed on thread 'ThreadPoolExecutor-*' and the test never got its failure*",
            "*CitationsNotSupported: 1 of 1 citation not supported*",
            "*b * missing * fabricated*",
            "*-> take the failure back in the test: future.result() (list(pool.map(...)) for map)*",
        ]
    )
    result.stdout.fnmatch_lines(
        ["*ERROR at teardown of test_map_never_read*", "*failed on thread*called at test_refunds.py:19*"]
    )
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_thread_target*", "*failed on thread 'checker-thread'*"])
    result.stdout.fnmatch_lines(
        ["*ERROR at teardown of test_fixture_on_a_thread*", "*citecheck.assert_supported() failed on thread*"]
    )
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_unrecorded_answer_on_a_thread*",
            "*check_citations() failed on thread*",
            "*CassetteMissError*",
        ]
    )
    result.stdout.fnmatch_lines(
        ["FAILED test_refunds.py::test_result_taken - *", "FAILED test_refunds.py::test_map_read - *"]
    )
    for passed in ("test_result_expected_to_fail", "test_results_on_a_thread"):
        assert f"ERROR at teardown of {passed}" not in result.stdout.str()


RUNNER = """
import threading

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    # The test's own body on a thread of its own, as pytest-run-parallel runs it.
    raised = []

    def body():
        try:
            pyfuncitem.obj()
        except BaseException as error:
            raised.append(error)

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    if raised:
        raise raised[0]
    return True
"""

BODIES = """
import pytest
from pytest_citecheck import CitationsNotSupported, Source, assert_citations_supported

SRC = Source(sections={"1": "Refunds are available within 30 days of purchase."})
BAD = [{"id": "b", "claim": "Refunds take 90 days.", "quote": "Refunds are available within 90 days", "section": "1"}]


def test_expected_to_fail():
    with pytest.raises(CitationsNotSupported):
        assert_citations_supported(BAD, SRC)


def test_fails():
    assert_citations_supported(BAD, SRC)
"""


def test_a_test_body_run_on_a_thread_has_its_checks_failures(pytester):
    pytester.makeconftest(RUNNER)
    pytester.makepyfile(test_bodies=BODIES)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    assert "never got its failure" not in result.stdout.str()


TASKS = """
import asyncio

import anyio
import pytest
from pytest_citecheck import CitationsNotSupported, Source

SRC = Source(sections={"1": "Refunds are available within 30 days of purchase."})
BAD = [{"id": "b", "claim": "Refunds take 90 days.", "quote": "Refunds are available within 90 days", "section": "1"}]


@pytest.mark.asyncio
async def test_task_left(citecheck):
    task = asyncio.create_task(citecheck.aassert_supported(BAD, SRC))
    await asyncio.sleep(0.1)


@pytest.mark.asyncio
async def test_gathered_as_values(citecheck):
    [failure] = await asyncio.gather(citecheck.aassert_supported(BAD, SRC), return_exceptions=True)
    assert isinstance(failure, CitationsNotSupported)


@pytest.mark.asyncio
async def test_task_awaited(citecheck):
    task = asyncio.create_task(citecheck.aassert_supported(BAD, SRC))
    await asyncio.sleep(0.1)
    with pytest.raises(CitationsNotSupported):
        await task


@pytest.mark.asyncio
async def test_awaited_expected_to_fail(citecheck):
    with pytest.raises(CitationsNotSupported):
        await citecheck.aassert_supported(BAD, SRC)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_task_group_expected_to_fail(citecheck, anyio_backend):
    with pytest.raises(ExceptionGroup):
        async with anyio.create_task_group() as group:
            group.start_soon(citecheck.aassert_supported, BAD, SRC)


def test_anyio_run_expected_to_fail(citecheck):
    with pytest.raises(CitationsNotSupported):
        anyio.run(citecheck.aassert_supported, BAD, SRC)


@pytest.mark.asyncio
async def test_awaited_fails(citecheck):
    await citecheck.aassert_supported(BAD, SRC)
"""


def test_a_check_failed_in_a_task_the_test_never_awaited_fails_its_test(pytester):
    pytester.makeini("[pytest]\nfilterwarnings = default\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(test_tasks=TASKS)
    result = pytester.runpytest("-p", "no:randomly", "-rA")
    result.assert_outcomes(passed=7, failed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_task_left*",
            "*citecheck.aassert_supported() failed in a task (called at test_tasks.py:13) and the test never got its "
            "failure*",
            "*CitationsNotSupported: 1 of 1 citation not supported*",
            "*-> await the task in the test (await task, or asyncio.gather(...) without return_exceptions=True*",
        ]
    )
    result.stdout.fnmatch_lines(["FAILED test_tasks.py::test_awaited_fails - *"])
    assert result.stdout.str().count("ERROR at teardown of") == 1  # test_task_left alone
