"""``--citecheck-estimate``: a dry run that counts what a record run would send, and sends nothing.

Every run here has the loopback Jev listening with a key set, so a request that escaped the
estimate would reach it: each asserts the server received none. The counts are then checked
against what a real record run of the same suite sends (the requests the server receives, and
their bodies' sizes from ``content-length``).
"""

from __future__ import annotations

import json
import math

import pytest

A_MODULE = """
from cookbook import SOURCE, pick
from pytest_citecheck import assert_citations_supported

def test_two(citecheck):
    citecheck.assert_supported(pick("epoch_seconds", "aud_reject"), SOURCE)

def test_same_again():
    assert_citations_supported(pick("epoch_seconds"), SOURCE)  # identical to one of test_two's: sent once

def test_fabricated_only():
    assert_citations_supported(pick("sig_reporting"), SOURCE, review="warn")  # step 1 fails it: never asked
"""

B_MODULE = """
from cookbook import SOURCE, pick

def test_checked(citecheck):
    results = citecheck.check(pick("clock_skew", "exp_required", "sig_reporting"), SOURCE)
    assert all(r.verdict.value == "verified" for r in results), "a check must never return a partial list"
"""


def tokens_of(content_length: int) -> int:
    return math.ceil(content_length / 3) + 200  # the documented rule (_estimate.tally)


def estimate_json(pytester: pytest.Pytester, name: str = "estimate.json") -> dict:
    return json.loads((pytester.path / name).read_text())["estimate"]


def test_nothing_is_sent_and_the_counts_are_what_a_record_run_sends(suite, jev_server):
    suite.makepyfile(test_a=A_MODULE, test_b=B_MODULE)
    result = suite.runpytest(
        "--citecheck-estimate", "--citecheck-record-mode=rewrite", "--citecheck-json=estimate.json", "-rs"
    )

    assert jev_server.requests == []
    assert not (suite.path / "cassettes").exists()  # nothing recorded
    assert result.ret == 1  # an estimate never passes for a test run
    result.assert_outcomes(failed=1, skipped=3)  # test_fabricated_only: step 1's verdict is real
    output = result.stdout.str()
    assert "counted, not sent; no verdict" in output
    assert "The run fails (--citecheck-estimate): 3 checks estimated, not judged." in output
    assert "CitationsNotSupported" in output  # the fabricated quote fails as it would in any run

    estimate = estimate_json(suite)
    by_module = {entry["module"]: entry for entry in estimate["modules"]}
    assert by_module["test_a.py"]["requests"] == 2  # epoch_seconds once, aud_reject
    assert by_module["test_b.py"]["requests"] == 2  # clock_skew, exp_required; sig_reporting never asked
    assert estimate["identical_requests_counted_once"] == 1
    assert estimate["total"]["requests"] == 4
    assert estimate["sent"] == 0
    report = json.loads((suite.path / "estimate.json").read_text())
    assert all(row["test"].endswith("test_fabricated_only") for row in report["results"])  # no other verdicts
    assert "module" in output and "test_a.py" in output and "total" in output

    # What a record run really sends: the same requests, the same bodies.
    suite.runpytest("--citecheck-record-mode=rewrite")
    sent = jev_server.systemone_requests
    distinct = {json.dumps(request.body, sort_keys=True) for request in sent}
    assert len(distinct) == estimate["total"]["requests"]
    sizes = {json.dumps(r.body, sort_keys=True): int(r.headers["Content-Length"]) for r in sent}
    assert estimate["total"]["input_tokens"] == sum(tokens_of(size) for size in sizes.values())
    assert estimate["total"]["output_tokens"] == 50 * len(distinct)
    assert estimate["total"]["dollars"] == round(estimate["total"]["input_tokens"] * 0.042 / 1e6, 6)


def test_recorded_answers_are_replayed_free_and_the_rest_counted(suite, jev_server):
    suite.makepyfile(test_a=A_MODULE)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=2, failed=1)
    recorded = len(jev_server.requests)
    suite.makepyfile(test_b=B_MODULE)
    cassettes = {p: p.read_bytes() for p in (suite.path / "cassettes").rglob("*.yaml")}

    result = suite.runpytest(
        "--citecheck-estimate",
        "--citecheck-record-mode=once",
        "--citecheck-json=estimate.json",
        "--citecheck-estimate-input-price=2",
        "--citecheck-estimate-output-price=$10",
    )

    assert len(jev_server.requests) == recorded  # the estimate sent nothing
    assert {p: p.read_bytes() for p in (suite.path / "cassettes").rglob("*.yaml")} == cassettes
    result.assert_outcomes(passed=2, failed=1, skipped=1)  # test_a replays with real verdicts; test_b would send
    estimate = estimate_json(suite)
    by_module = {entry["module"]: entry for entry in estimate["modules"]}
    assert (by_module["test_a.py"]["requests"], by_module["test_a.py"]["replayed"]) == (0, 3)
    assert (by_module["test_b.py"]["requests"], by_module["test_b.py"]["replayed"]) == (2, 0)
    total = estimate["total"]
    assert total["dollars"] == round((total["input_tokens"] * 2 + total["output_tokens"] * 10) / 1e6, 6)
    assert "Replayed: answered from cassettes, free; 3 requests." in result.stdout.str()


def test_record_mode_none_sends_nothing_and_counts_the_misses(suite, jev_server):
    suite.makepyfile(test_b=B_MODULE)
    result = suite.runpytest("--citecheck-estimate", "--citecheck-json=estimate.json")
    assert jev_server.requests == []
    result.assert_outcomes(failed=1)  # a cassette miss, as in any replay run
    total = estimate_json(suite)["total"]
    # Replay goes on past a miss: both of the check's unrecorded requests are counted, not just the first.
    assert (total["requests"], total["unrecorded"], total["checks_not_judged"]) == (0, 2, 0)
    assert "record mode none would not send either" in result.stdout.str()


def test_a_clients_own_transport_is_never_reached(suite, jev_server):
    """A suite's own ``citecheck_client``, with a real network transport to the server: still nothing is sent."""
    suite.makeconftest(
        """
        import os, pytest
        from typesafe_sdk import TypeSafeClient

        @pytest.fixture
        def citecheck_client():
            with TypeSafeClient(base_url=os.environ["TYPESAFE_BASE_URL"], compression=False) as client:
                yield client
        """
    )
    suite.makepyfile(test_b=B_MODULE)
    result = suite.runpytest("--citecheck-estimate", "--citecheck-record-mode=all")
    assert jev_server.requests == []
    result.assert_outcomes(skipped=1)
    assert result.ret == 1


def test_async_checks_are_counted_too(suite, jev_server):
    suite.makepyfile(
        test_estimated_async="""
        import pytest
        from cookbook import SOURCE, pick

        @pytest.mark.asyncio
        async def test_async(citecheck):
            await citecheck.aassert_supported(pick("clock_skew", "exp_required", "aud_reject"), SOURCE)
        """
    )
    result = suite.runpytest("--citecheck-estimate", "--citecheck-record-mode=rewrite", "--citecheck-json=e.json")
    assert jev_server.requests == []
    result.assert_outcomes(skipped=1)
    assert estimate_json(suite, "e.json")["total"]["requests"] == 3


def test_a_section_too_large_fails_before_anything_is_counted_and_a_large_one_is_counted(suite, jev_server):
    big = "Tokens are counted. " * 4_000  # 80,000 characters: fits one request with window=
    huge = "Tokens are counted. " * 40_000  # 800,000 characters: too large for one request
    suite.makepyfile(
        test_sizes=f"""
        from pytest_citecheck import Source, assert_citations_supported
        BIG, HUGE = {big!r}, {huge!r}
        CITATION = [{{"id": "c", "claim": "Tokens are counted.", "quote": "Tokens are counted.", "section": "1"}}]

        def test_big():
            assert_citations_supported(CITATION, Source(sections={{"1": BIG[:60_000]}}))

        def test_huge():
            assert_citations_supported(CITATION, Source(sections={{"1": HUGE}}))
        """
    )
    result = suite.runpytest("--citecheck-estimate", "--citecheck-record-mode=rewrite", "--citecheck-json=e.json")
    assert jev_server.requests == []
    result.assert_outcomes(skipped=1, failed=1)
    assert "section '1' is too large for one Jev request" in result.stdout.str()
    [module] = estimate_json(suite, "e.json")["modules"]
    assert module["requests"] == 1
    assert module["input_tokens"] > 60_000 // 3  # the whole section is in the body


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--citecheck-estimate-input-price", "-1"),
        ("--citecheck-estimate-input-price", "nan"),
        ("--citecheck-estimate-input-price", "inf"),
        ("--citecheck-estimate-output-price", "0,042"),
        ("--citecheck-estimate-output-price", "1e400"),
        ("--citecheck-estimate-input-price", "42000"),
        ("--citecheck-estimate-input-price", "\x1b[31mred" + "9" * 200),
    ],
)
def test_a_bad_price_is_a_usage_error(pytester, flag, value):
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = pytester.runpytest("--citecheck-estimate", f"{flag}={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = result.stderr.str()
    assert f"pytest-citecheck: {flag}: expected US dollars per million tokens" in error
    assert "\x1b" not in error and len(error.splitlines()[0]) < 250


def test_a_bad_price_in_the_ini_file_names_the_key(pytester):
    pytester.makeini("[pytest]\ncitecheck_estimate = true\ncitecheck_estimate_input_price = free\n")
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ini citecheck_estimate_input_price: expected US dollars per million tokens" in result.stderr.str()


@pytest.mark.slow
def test_under_xdist_the_controller_adds_up_every_workers_counts(suite, jev_server):
    """Two workers, identical requests in different modules: the same table as a serial run, and nothing sent."""
    suite.makepyfile(test_a=A_MODULE, test_b=B_MODULE, test_c=A_MODULE.replace("test_two", "test_two_again"))
    args = ("--citecheck-estimate", "--citecheck-record-mode=rewrite")
    serial = suite.runpytest(*args, "--citecheck-json=serial.json", "-p", "no:xdist")
    spread = suite.runpytest(*args, "--citecheck-json=spread.json", "-n", "2")
    assert jev_server.requests == []
    assert spread.ret == serial.ret == 1
    spread.assert_outcomes(failed=2, skipped=5)
    assert estimate_json(suite, "spread.json") == estimate_json(suite, "serial.json")
    total = estimate_json(suite, "spread.json")["total"]
    assert (total["requests"], total["checks_not_judged"]) == (4, 5)  # test_c asks only what test_a asks
    assert estimate_json(suite, "spread.json")["identical_requests_counted_once"] == 4
    assert "test_c.py" not in {m["module"] for m in estimate_json(suite, "spread.json")["modules"] if m["requests"]}


def test_identical_requests_with_another_key_are_counted_as_a_record_run_sends_them(suite, jev_server):
    """A record run shares an answer only between requests with the same key and headers (``_judge.sharing``):
    a test whose ``citecheck_client`` carries another key sends its own. Found by hand: the estimate counted
    them once, by body only (3 requests estimated, 4 sent)."""
    suite.makepyfile(
        test_a_default="""
        from cookbook import SOURCE, pick

        def test_default_key(citecheck):
            citecheck.assert_supported(pick("epoch_seconds", "aud_reject"), SOURCE)

        def test_default_key_again(citecheck):
            citecheck.assert_supported(pick("epoch_seconds"), SOURCE)  # same key, same body: shared
        """,
        test_b_other="""
        import pytest
        from typesafe_sdk import TypeSafeClient
        from cookbook import SOURCE, pick

        @pytest.fixture
        def citecheck_client():
            client = TypeSafeClient(api_key="sk-another-project-0123456789", compression=False)
            yield client
            client.close()

        def test_other_key(citecheck):
            citecheck.assert_supported(pick("epoch_seconds"), SOURCE)  # same body, another key: sent again
        """,
    )
    suite.runpytest("--citecheck-estimate", "--citecheck-record-mode=rewrite", "--citecheck-json=estimate.json")
    assert jev_server.requests == []
    estimate = estimate_json(suite)

    suite.runpytest("--citecheck-record-mode=rewrite", "-p", "no:randomly").assert_outcomes(passed=3)
    sent = jev_server.systemone_requests
    assert len(sent) == 3  # epoch_seconds once per key, aud_reject once
    assert estimate["total"]["requests"] == len(sent)
    assert estimate["identical_requests_counted_once"] == 1  # test_default_key_again's
    assert estimate["total"]["input_tokens"] == sum(tokens_of(int(r.headers["Content-Length"])) for r in sent)
