"""A cassette recorded against the rehearsal server never replays as Jev's verdict (hunt-wrong-passes N1).

The rehearsal server (``JevServer``, ``citecheck serve``) answers from a script or a table someone
wrote. Its cassettes once looked like TypeSafe's (the host is scrubbed, only content-type is kept),
so a record run that forgot to unset ``TYPESAFE_BASE_URL`` committed table answers that CI replayed
as Jev's: every citation the table "supports" passed, verified by nobody. Now every 2xx answer of the
server carries ``"rehearsal"`` in its body (covered by the digest), and a marked answer, replayed or
received, fails its citation unless the run opts in with ``--citecheck-rehearsal``.

This repository's inner runs opt in through ``INNER_RUN_OPTIONS``; the tests here take it back with
``-o citecheck_rehearsal=false`` (the last ``-o`` wins), as a user's run without the knob is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import EXAMPLE, REPO, Offline

from pytest_citecheck._rehearsal import REHEARSAL_KEY, REHEARSAL_MARK, is_marked
from pytest_citecheck.testing import JevServer, Reply

SYNC = """
from cookbook import SOURCE
from pytest_citecheck import assert_citations_supported

CITATION = {"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"}

def test_claims():
    assert_citations_supported([CITATION], SOURCE, model="jev-1.12")
"""
ASYNC = """
import pytest
from cookbook import SOURCE

CITATION = {"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"}

@pytest.mark.asyncio
async def test_claims(citecheck):
    await citecheck.aassert_supported([CITATION], SOURCE, model="jev-1.12")
"""
PATHS = {"sync": SYNC, "async": ASYNC}
CASSETTE = Path("cassettes") / "test_app" / "test_claims.yaml"
NOT_OPTED_IN = ("-o", "citecheck_rehearsal=false")
REFUSED = [
    "*JudgeError: citation 'aud': this answer came from the rehearsal server (pytest-citecheck's JevServer or "
    "`citecheck serve`, which answers from a script or a table someone wrote), not from TypeSafe's Jev*",
    "*-> record this test against TypeSafe (unset TYPESAFE_BASE_URL, set TYPESAFE_API_KEY and run with "
    "--citecheck-record-mode=rewrite); or, for a rehearsal that is meant to use these answers, opt in with "
    "--citecheck-rehearsal (ini: citecheck_rehearsal = true)*",
]


def record(suite: pytest.Pytester, path: str) -> Path:
    """The test recorded against the loopback server (which "supports" everything), opted in as a rehearsal."""
    suite.makepyfile(test_app=PATHS[path])
    suite.runpytest("--citecheck-record-mode=once", "--citecheck-rehearsal").assert_outcomes(passed=1)
    return suite.path / CASSETTE


def answer_of(cassette: Path) -> dict[str, Any]:
    [interaction] = yaml.safe_load(cassette.read_text(encoding="utf-8"))["interactions"]
    answer: dict[str, Any] = json.loads(interaction["response"]["body"]["string"])
    return answer


@pytest.mark.parametrize("path", PATHS)
# none: replay's own reader; new_episodes: vcrpy plays the recording back.
@pytest.mark.parametrize("mode", ["none", "new_episodes"])
def test_a_rehearsal_cassette_replayed_without_opting_in_fails_naming_the_citation(
    suite: pytest.Pytester, jev_server: JevServer, offline: Offline, path: str, mode: str
) -> None:
    cassette = record(suite, path)
    assert answer_of(cassette)[REHEARSAL_KEY] == REHEARSAL_MARK
    offline()
    result = suite.runpytest(*NOT_OPTED_IN, f"--citecheck-record-mode={mode}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(REFUSED)
    result.stdout.no_fnmatch_line("*INTERNALERROR*")


@pytest.mark.parametrize("path", PATHS)
def test_a_rehearsal_cassette_replays_when_the_run_opts_in(
    suite: pytest.Pytester, jev_server: JevServer, offline: Offline, path: str
) -> None:
    record(suite, path)
    offline()
    suite.runpytest(*NOT_OPTED_IN, "--citecheck-rehearsal").assert_outcomes(passed=1)
    suite.makeini(
        "[pytest]\nfilterwarnings = default\nasyncio_default_fixture_loop_scope = function\ncitecheck_rehearsal = true\n"
    )
    monkey = pytest.MonkeyPatch()
    try:
        monkey.delenv("PYTEST_ADDOPTS")  # only the ini opts in now
        result = suite.runpytest("-p", "no:randomly")
    finally:
        monkey.undo()
    result.assert_outcomes(passed=1)
    # Opted in, the summary says how many answers came from the rehearsal server, not Jev.
    result.stdout.fnmatch_lines(["1 answer came from the rehearsal server (JevServer, citecheck serve), not Jev."])


def test_the_mark_cannot_be_removed_by_hand(suite: pytest.Pytester, jev_server: JevServer, offline: Offline) -> None:
    cassette = record(suite, "sync")
    text = cassette.read_text(encoding="utf-8")
    line = f'      "{REHEARSAL_KEY}": "{REHEARSAL_MARK}",\n'
    assert line in text
    cassette.write_text(text.replace(line, ""), encoding="utf-8")
    offline()
    result = suite.runpytest(*NOT_OPTED_IN)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*CassetteError: citation 'aud': *interaction 1 (claim *) does not match its digest*"])


@pytest.mark.parametrize("path", PATHS)
def test_a_record_run_refuses_a_marked_answer_and_saves_nothing(
    suite: pytest.Pytester, jev_server: JevServer, path: str
) -> None:
    """TYPESAFE_BASE_URL left pointing at the rehearsal server while recording for real."""
    suite.makepyfile(test_app=PATHS[path])
    result = suite.runpytest("--citecheck-record-mode=once", *NOT_OPTED_IN)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(REFUSED)
    assert len(jev_server.systemone_requests) == 1
    assert not (suite.path / CASSETTE).exists()


def test_every_2xx_answer_is_marked_but_errors_and_raw_bodies_are_as_scripted() -> None:
    import httpx2

    replies = iter(
        [
            ("supports", 0.9),
            Reply(200, {"model": "m", "answers": {}, "usage": {}}),
            Reply(200, {"model": "m", "answers": {}, "usage": {}}, rehearsal=False),
            Reply(500, {"detail": "boom"}),
            Reply(200, b'{"raw": 1}'),
        ]
    )
    with JevServer(lambda claim, section: next(replies), key_required=False) as server:
        request = {"state": {"claim": "c", "section": "s"}, "questions": {"relation": {"type": "choice"}}}
        bodies = [httpx2.post(server.url + "/v1/systemone", json=request).content for _ in range(5)]
    assert [is_marked(body) for body in bodies] == [True, True, False, False, False]
    assert json.loads(bodies[0])[REHEARSAL_KEY] == REHEARSAL_MARK


def test_the_readme_main_job_holds_jevs_answers_only() -> None:
    """examples/rfc7519's cassettes are the cookbook's recorded answers, re-served unmarked; replayed with no opt-in."""
    cassettes = sorted((EXAMPLE / "cassettes").rglob("*.yaml"))
    assert cassettes
    for cassette in cassettes:
        assert f'"{REHEARSAL_KEY}"' not in cassette.read_text(encoding="utf-8"), cassette
    assert "rehearsal=False" in (EXAMPLE / "build_cassettes.py").read_text(encoding="utf-8")
    assert "citecheck_rehearsal" not in (EXAMPLE / "pytest.ini").read_text(encoding="utf-8")
    assert (REPO / "examples" / "licences").is_dir()


@pytest.mark.parametrize("mode", ["none", "new_episodes"])
def test_the_mark_cannot_be_hidden_by_a_json_escape(
    suite: pytest.Pytester, jev_server: JevServer, offline: Offline, mode: str
) -> None:
    """``"\\u0072ehearsal"`` is the key ``"rehearsal"`` to every JSON reader, and the digest (taken over the
    parsed body) still matches: the answer is still the rehearsal server's, on either replay path."""
    cassette = record(suite, "sync")
    text = cassette.read_text(encoding="utf-8")
    escaped = text.replace(f'"{REHEARSAL_KEY}":', '"\\u0072ehearsal":')
    assert escaped != text
    cassette.write_text(escaped, encoding="utf-8")
    assert answer_of(cassette)[REHEARSAL_KEY] == REHEARSAL_MARK
    offline()
    result = suite.runpytest(*NOT_OPTED_IN, f"--citecheck-record-mode={mode}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(REFUSED)


def test_a_replayed_answer_says_whether_it_is_marked_without_being_parsed_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Reading the cassette parsed each answer: the response replay builds carries what it found."""
    from types import SimpleNamespace

    from pytest_citecheck import _rehearsal
    from pytest_citecheck._recording.responses import Recorded, read_response, request_for

    def parsed_again(content: bytes) -> bool:
        raise AssertionError(f"parsed again: {content!r}")

    monkeypatch.setattr(_rehearsal, "is_marked", parsed_again)
    request = request_for("POST", "https://api.typesafe.ai/v1/systemone")
    for answer, marked in (({"answers": {}, REHEARSAL_KEY: REHEARSAL_MARK}, True), ({"answers": {}}, False)):
        body = {"string": json.dumps(answer)}
        interaction = {"response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": body}}
        response = read_response(Recorded(1, interaction, answer), request)
        assert _rehearsal.response_is_marked(SimpleNamespace(raw_http_response=response)) is marked
    # A response made some other way (a live answer, vcrpy's playback) is read from its body.
    monkeypatch.undo()
    live = SimpleNamespace(raw_http_response=SimpleNamespace(extensions={}, content=b'{"rehearsal": "x"}'))
    assert _rehearsal.response_is_marked(live) is True
    # So is a stand-in without extensions (a test's own fake response): not taken as unmarked.
    stand_in = SimpleNamespace(raw_http_response=SimpleNamespace(content=b'{"rehearsal": "x"}'))
    assert _rehearsal.response_is_marked(stand_in) is True
