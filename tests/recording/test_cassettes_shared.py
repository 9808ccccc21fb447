"""One recorded answer for identical questions: ``@pytest.mark.citecheck(cassette="name")``.

Tests that name the same cassette share one file (``cassettes/<module>/<name>.yaml``, like
pytest-recording's ``default_cassette``): a question one of them recorded is replayed for the
others, so it is paid for once. Writers merge into the file under a lock, so workers of xdist
recording into one shared cassette at once lose nothing.
"""

from __future__ import annotations

import json
import multiprocessing
import re
from pathlib import Path

import pytest
from support import CANARY_KEY, REPO

from pytest_citecheck._recording.cassette_file import read_interactions

SHARED_SUITE = """
import pytest
from cookbook import SOURCE, pick

@pytest.mark.citecheck(cassette="jwt-answers")
def test_first(citecheck):
    citecheck.check(pick("clock_skew"), SOURCE)

@pytest.mark.citecheck(cassette="jwt-answers")
def test_second(citecheck):
    citecheck.check(pick("clock_skew"), SOURCE)

@pytest.mark.citecheck(cassette="jwt-answers")
def test_third(citecheck):
    citecheck.check(pick("clock_skew", "aud_reject"), SOURCE)
"""


def claims_in(path: Path) -> list[str]:
    return sorted(json.loads(i["request"]["body"])["state"]["claim"][:20] for i in read_interactions(path))


def test_tests_naming_one_cassette_record_each_question_once_and_replay_it_for_all(
    suite, jev_server, offline, files_containing
):
    suite.makepyfile(test_app=SHARED_SUITE)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=3)
    assert len(jev_server.systemone_requests) == 2  # clock_skew once, aud_reject once
    shared = suite.path / "cassettes" / "test_app" / "jwt-answers.yaml"
    assert [p.name for p in shared.parent.iterdir()] == ["jwt-answers.yaml"]
    assert claims_in(shared) == ["Expiration checks ar", "If a validator does "]

    offline()
    replay = suite.runpytest("--citecheck-unused=fail", "--citecheck-json=report.json")
    replay.assert_outcomes(passed=3)
    assert replay.ret == 0
    assert "Unused recordings" not in replay.stdout.str()
    rows = json.loads((suite.path / "report.json").read_text())["results"]
    assert len(rows) == 4 and all(row["replayed"] for row in rows)
    assert not files_containing(suite.path, CANARY_KEY)


def test_a_new_question_is_added_to_the_shared_cassette_and_rewrite_keeps_one_answer_per_question(
    suite, jev_server, offline
):
    suite.makepyfile(test_app=SHARED_SUITE)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=3)
    shared = suite.path / "cassettes" / "test_app" / "jwt-answers.yaml"
    # Another test names the cassette and asks something it does not hold yet: recorded beside the rest.
    suite.makepyfile(
        test_app=SHARED_SUITE
        + """
@pytest.mark.citecheck(cassette="jwt-answers")
def test_fourth(citecheck):
    citecheck.check(pick("epoch_seconds", "clock_skew"), SOURCE)
"""
    )
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=4)
    assert len(jev_server.systemone_requests) == 3
    assert claims_in(shared) == ["Expiration checks ar", "If a validator does ", "JWT date fields are "]

    # rewrite re-records what each test asks and keeps one answer per question.
    suite.runpytest("--citecheck-record-mode=rewrite").assert_outcomes(passed=4)
    assert claims_in(shared) == ["Expiration checks ar", "If a validator does ", "JWT date fields are "]

    offline()
    suite.runpytest("--citecheck-unused=fail").assert_outcomes(passed=4)


@pytest.mark.slow
def test_a_shared_cassette_is_recorded_by_xdist_workers_at_once_and_replayed(suite, jev_server, offline):
    ids = ["epoch_seconds", "aud_reject", "clock_skew", "exp_required", "duplicate_names", "pii_encryption"]
    body = "import pytest\nfrom cookbook import SOURCE, pick\n"
    for number in range(12):
        body += (
            f"\n@pytest.mark.citecheck(cassette='everyone')\n"
            f"def test_{number:02d}(citecheck):\n    citecheck.check(pick({ids[number % 6]!r}), SOURCE)\n"
        )
    suite.makepyfile(test_spread=body)
    suite.runpytest("-n", "2", "--citecheck-record-mode=once").assert_outcomes(passed=12)
    shared = suite.path / "cassettes" / "test_spread" / "everyone.yaml"
    assert len(read_interactions(shared)) == 6  # every question, once: nothing lost, nothing doubled
    assert 6 <= len(jev_server.systemone_requests) <= 12

    offline()
    for workers in (["-n", "2"], []):
        replay = suite.runpytest(*workers, "--citecheck-unused=fail")
        replay.assert_outcomes(passed=12)
        assert replay.ret == 0


def _merge_one(args: tuple[str, int]) -> None:
    from pytest_citecheck._recording.shared import merge_into_shared

    path, number = args
    body = json.dumps({"model": "jev-1.12", "questions": {}, "state": {"claim": f"claim {number}", "section": "s"}})
    request = {"body": body, "headers": {}, "method": "POST", "uri": "https://api.typesafe.ai/v1/systemone"}
    response = {"body": {"string": "{}"}, "headers": {}, "status": {"code": 200, "message": "OK"}}
    merge_into_shared(Path(path), [{"request": request, "response": response}])


@pytest.mark.slow
def test_concurrent_writers_to_one_shared_cassette_lose_no_interaction(tmp_path):
    path = tmp_path / "cassettes" / "test_x" / "shared.yaml"
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        pool.map(_merge_one, [(str(path), number) for number in range(24)])
    claims = sorted(json.loads(i["request"]["body"])["state"]["claim"] for i in read_interactions(path))
    assert claims == sorted(f"claim {number}" for number in range(24))
    assert [p.name for p in path.parent.iterdir()] == ["shared.yaml"]  # no temporary or lock file left behind


def test_a_cassette_name_stays_inside_the_cassette_directory_and_a_bad_one_is_an_error(suite, jev_server):
    suite.makepyfile(
        test_app="""
        import pytest
        from cookbook import SOURCE, pick

        @pytest.mark.citecheck(cassette="../../escaped")
        def test_hostile(citecheck):
            citecheck.check(pick("clock_skew"), SOURCE)

        @pytest.mark.citecheck(cassette=3)
        def test_typed(citecheck):
            citecheck.check(pick("clock_skew"), SOURCE)
        """
    )
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*@pytest.mark.citecheck(...) on function test_typed (test_app.py:*): cassette: expected a cassette name (a string), got 3*"
        ]
    )
    written = [p.relative_to(suite.path) for p in suite.path.rglob("*.yaml")]
    assert len(written) == 1 and written[0].parts[:2] == ("cassettes", "test_app")
    assert not (suite.path.parent / "escaped.yaml").exists()


def test_the_cost_paragraph_quotes_the_price_and_the_rfc_7519_examples_tokens():
    text = (REPO / "docs" / "cassettes.md").read_text()
    price = re.search(r"\$(0\.\d+) per million input tokens", text)
    assert price is not None and float(price.group(1)) == 0.042
    total = 0
    requests = 0
    for cassette in sorted((REPO / "examples" / "rfc7519" / "cassettes").rglob("*.yaml")):
        for interaction in read_interactions(cassette):
            total += json.loads(interaction["response"]["body"]["string"])["usage"]["input_tokens"]
            requests += 1
    assert f"{requests} requests" in text
    assert f"{total:,} input tokens" in text
    assert f"${total * 0.042 / 1_000_000:.5f}" in text
