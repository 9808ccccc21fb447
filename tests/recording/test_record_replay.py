"""Recording through the real stack (typesafe-sdk -> httpx2 -> vcrpy -> loopback Jev) and replaying.

The record runs talk HTTP to ``JevServer`` on 127.0.0.1 with a canary key; the replay runs have
no key and a base URL where nothing listens, so any request that escaped the cassette would fail.
"""

from __future__ import annotations

import json

import pytest

SUITE = """
from cookbook import SOURCE, pick
from pytest_citecheck import assert_citations_supported, check_citations

def test_accurate(citecheck):
    results = citecheck.check(pick("epoch_seconds", "aud_reject", "clock_skew"), SOURCE)
    print("VERDICTS", [(r.id, r.verdict.value, r.confidence) for r in results])

def test_fabricated_and_claim_only():
    assert_citations_supported(pick("iat_future"), SOURCE, review="warn")
    citecheck_results = check_citations(pick("sig_reporting"), SOURCE)
    assert citecheck_results[0].verdict.value == "fabricated"
"""


def run_record(suite: pytest.Pytester, *args: str) -> pytest.RunResult:
    return suite.runpytest("--citecheck-record-mode=once", "--citecheck-json=report.json", *args)


def test_record_then_replay_gives_the_same_results_without_key_or_network(suite, jev_server, offline):
    suite.makepyfile(test_app=SUITE)
    recorded = run_record(suite)
    recorded.assert_outcomes(passed=2)
    recorded_rows = json.loads((suite.path / "report.json").read_text())["results"]
    assert len(jev_server.systemone_requests) == 4  # 3 accurate + iat_future; sig_reporting never asked
    cassettes = sorted(p.name for p in (suite.path / "cassettes" / "test_app").iterdir())
    assert cassettes == ["test_accurate.yaml", "test_fabricated_and_claim_only.yaml"]

    jev_server.stop()
    offline()
    replayed = suite.runpytest("--citecheck-json=replay.json")
    replayed.assert_outcomes(passed=2)
    replay_rows = json.loads((suite.path / "replay.json").read_text())["results"]
    strip = lambda rows: [{k: v for k, v in row.items() if k != "replayed"} for row in rows]  # noqa: E731
    assert strip(replay_rows) == strip(recorded_rows)
    assert all(row["replayed"] for row in replay_rows if row["status"] != "missing")
    assert not any(row.get("replayed") for row in recorded_rows)


def test_no_key_is_written_anywhere(suite, jev_server, canary_key, files_containing):
    suite.makepyfile(test_app=SUITE)
    result = run_record(suite, "-v", "-rA")
    result.assert_outcomes(passed=2)
    assert jev_server.systemone_requests[0].headers.get("Authorization") == f"Bearer {canary_key}"  # it was sent...
    assert files_containing(suite.path, canary_key) == []  # ...and written nowhere
    assert canary_key not in result.stdout.str() + result.stderr.str()
    cassette = (suite.path / "cassettes" / "test_app" / "test_accurate.yaml").read_text()
    assert "authorization" not in cassette.lower()
    assert "127.0.0.1" not in cassette  # the recording host is not kept either


def test_fabricated_quote_never_reaches_the_model(suite, jev_server):
    suite.makepyfile(
        test_app="""
        from cookbook import SOURCE, pick
        from pytest_citecheck import CitationsNotSupported, assert_citations_supported
        import pytest

        def test_fabricated():
            with pytest.raises(CitationsNotSupported) as caught:
                assert_citations_supported(pick("sig_reporting"), SOURCE)
            [result] = caught.value.results
            assert (result.status.value, result.verdict.value, result.confidence, result.auto) == ("missing", "fabricated", None, True)
        """
    )
    run_record(suite).assert_outcomes(passed=1)
    assert jev_server.requests == []
    assert not (suite.path / "cassettes").exists()


def test_request_carries_the_cookbook_state_and_question(suite, jev_server):
    suite.makepyfile(
        test_app="from cookbook import SOURCE, pick\ndef test_one(citecheck):\n    citecheck.check(pick('aud_reject'), SOURCE, model='jev-1.12')\n"
    )
    run_record(suite).assert_outcomes(passed=1)
    [request] = jev_server.systemone_requests
    body = request.body
    assert set(body) == {"state", "questions", "model"}
    assert body["model"] == "jev-1.12"
    assert set(body["state"]) == {"claim", "section"}
    assert body["state"]["section"].startswith('4.1.3.  "aud" (Audience) Claim')
    assert len(body["state"]["section"]) == 761
    assert body["questions"] == {
        "relation": {
            "type": "choice",
            "instructions": "How does the section relate to the claim?",
            "criteria": {
                "supports": "The section states the claim or directly implies that it is true",
                "contradicts": "The section states the opposite of the claim or implies it is false",
                "says_nothing": "The section does not address what the claim asserts, either way",
            },
        }
    }
    assert request.headers.get("Content-Encoding") is None  # compression=False: bodies stay readable JSON


def test_a_miss_names_the_citation_and_the_command_that_records_it(suite, no_typesafe_env):
    suite.makepyfile(
        test_app="from cookbook import SOURCE, pick\ndef test_one(citecheck):\n    citecheck.check(pick('clock_skew'), SOURCE)\n"
    )
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*CassetteMissError: citation 'clock_skew': no recorded answer matches this citation's request*",
            "*-> record it with a TypeSafe API key: TYPESAFE_API_KEY=... pytest 'test_app.py::test_one' --citecheck-record-mode=once",
        ]
    )
    assert "INTERNALERROR" not in result.stdout.str()
    assert "Traceback" not in result.stdout.str()


def test_an_edited_claim_is_a_miss_not_another_verdict(suite, jev_server, offline):
    suite.makepyfile(
        test_app="from cookbook import SOURCE, pick\ndef test_one(citecheck):\n    citecheck.check(pick('clock_skew'), SOURCE)\n"
    )
    run_record(suite).assert_outcomes(passed=1)
    citations = json.loads((suite.path / "citations.json").read_text())
    for citation in citations:
        if citation["id"] == "clock_skew":
            citation["claim"] = "Expiration checks allow no clock skew at all."
    (suite.path / "citations.json").write_text(json.dumps(citations))
    jev_server.stop()
    offline()
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    # The cassette holds this citation with the old claim: the miss says so (see test_cassettes_stale.py).
    result.stdout.fnmatch_lines(["*citation 'clock_skew': *the claim changed*", "*--citecheck-record-mode=rewrite"])


def test_replay_works_against_any_base_url(suite, jev_server, monkeypatch):
    suite.makepyfile(
        test_app="from cookbook import SOURCE, pick\ndef test_one(citecheck):\n    citecheck.check(pick('clock_skew'), SOURCE)\n"
    )
    run_record(suite).assert_outcomes(passed=1)
    monkeypatch.setenv("TYPESAFE_BASE_URL", "https://jev.example.invalid/base")
    suite.runpytest().assert_outcomes(passed=1)
    assert len(jev_server.requests) == 1  # the replay sent nothing


def test_rewrite_records_again_from_scratch(suite, jev_server):
    suite.makepyfile(
        test_app="from cookbook import SOURCE, pick\ndef test_one(citecheck):\n    citecheck.check(pick('clock_skew', 'aud_reject'), SOURCE)\n"
    )
    run_record(suite).assert_outcomes(passed=1)
    cassette = suite.path / "cassettes" / "test_app" / "test_one.yaml"
    first = cassette.read_text()
    suite.makepyfile(
        test_app="from cookbook import SOURCE, pick\ndef test_one(citecheck):\n    citecheck.check(pick('clock_skew'), SOURCE)\n"
    )
    suite.runpytest("--citecheck-record-mode=rewrite").assert_outcomes(passed=1)
    assert len(jev_server.systemone_requests) == 3
    second = cassette.read_text()
    assert first.count("- request:") == 2 and second.count("- request:") == 1


def test_parametrised_and_class_tests_get_distinct_safe_cassette_names(suite, jev_server):
    suite.makepyfile(
        test_app="""
        import pytest
        from cookbook import SOURCE, pick

        @pytest.mark.parametrize("cid", ["clock_skew", "aud_reject", "a/b: c?"])
        def test_param(citecheck, cid):
            citecheck.check(pick(cid if cid in ("clock_skew", "aud_reject") else "epoch_seconds"), SOURCE)

        class TestGroup:
            def test_param(self, citecheck):
                citecheck.check(pick("duplicate_names"), SOURCE)
        """
    )
    run_record(suite).assert_outcomes(passed=4)
    names = sorted(p.name for p in (suite.path / "cassettes" / "test_app").iterdir())
    assert len(names) == 4
    assert "test_param[clock_skew].yaml" in names
    assert "test_param[aud_reject].yaml" in names
    assert "TestGroup.test_param.yaml" in names
    odd = [
        n
        for n in names
        if n not in ("test_param[clock_skew].yaml", "test_param[aud_reject].yaml", "TestGroup.test_param.yaml")
    ]
    assert len(odd) == 1 and "/" not in odd[0] and ":" not in odd[0] and "?" not in odd[0]
