"""Model pinning: the model asked for and the model that answered are in the cassette, and are compared."""

from __future__ import annotations

import pytest

from pytest_citecheck.testing import JevServer

TEST_FILE = """
from cookbook import SOURCE

def test_claims(citecheck):
    [result] = citecheck.check([{"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"}], SOURCE)
    assert result.verdict.value == "verified"
"""


@pytest.fixture
def server_answering_as(monkeypatch):
    servers = []

    def start(model: str | None) -> JevServer:
        server = JevServer(model=model).start()
        servers.append(server)
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        monkeypatch.setenv("TYPESAFE_API_KEY", "sk-test")
        return server

    yield start
    for server in servers:
        server.stop()


def test_the_cassette_keeps_the_requested_and_the_answering_model(suite, server_answering_as):
    server_answering_as("jev-1.12.4")
    suite.makepyfile(test_model=TEST_FILE)
    suite.runpytest("--citecheck-record-mode=once", "--citecheck-model=jev-1.12").assert_outcomes(passed=1)
    text = (suite.path / "cassettes" / "test_model" / "test_claims.yaml").read_text()
    assert '"model": "jev-1.12",' in text  # asked
    assert '"model": "jev-1.12.4",' in text  # answered


def test_recording_with_an_alias_warns_that_thresholds_may_drift(suite, server_answering_as):
    server_answering_as("jev-1.13.0")
    suite.makepyfile(test_model=TEST_FILE)
    result = suite.runpytest("--citecheck-record-mode=once")  # no model set: the SDK asks for jev-latest
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(
        [
            "*ModelPinWarning: citation 'aud': recorded with the alias 'jev-latest', answered by 'jev-1.13.0': "
            "thresholds tuned on it may drift*",
            "*pin the model: --citecheck-model=jev-1.13.0*",
        ]
    )


def test_a_pinned_recording_replays_quietly(suite, server_answering_as, offline):
    server_answering_as("jev-1.12")
    suite.makepyfile(test_model=TEST_FILE)
    suite.runpytest("--citecheck-record-mode=once", "--citecheck-model=jev-1.12").assert_outcomes(passed=1, warnings=0)
    offline()
    suite.runpytest("--citecheck-model=jev-1.12", "--citecheck-strict-model").assert_outcomes(passed=1, warnings=0)


def test_an_answer_from_another_model_warns_or_fails_when_strict(suite, server_answering_as, offline):
    server_answering_as("jev-1.13.0")  # asked for jev-1.12, the server answered with another version
    suite.makepyfile(test_model=TEST_FILE)
    suite.runpytest("--citecheck-record-mode=once", "--citecheck-model=jev-1.12", "-W", "ignore::UserWarning")
    offline()
    result = suite.runpytest("--citecheck-model=jev-1.12")
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(
        ["*ModelPinWarning: citation 'aud': the answer came from model 'jev-1.13.0', but the test asks for 'jev-1.12'*"]
    )
    strict = suite.runpytest("--citecheck-model=jev-1.12", "--citecheck-strict-model")
    strict.assert_outcomes(failed=1)
    strict.stdout.fnmatch_lines(
        [
            "*ModelMismatchError: citation 'aud': the answer came from model 'jev-1.13.0', but the test asks for 'jev-1.12'*",
            "*re-record with the model you mean*--citecheck-record-mode=rewrite*",
        ]
    )


def test_replaying_an_alias_recording_is_a_mismatch_under_strict(suite, server_answering_as, offline):
    server_answering_as("jev-1.13.0")
    suite.makepyfile(test_model=TEST_FILE)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    offline()
    suite.runpytest().assert_outcomes(passed=1, warnings=1)
    suite.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\ncitecheck_strict_model = true\n")
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*citation 'aud': the recorded answer came from model 'jev-1.13.0', but the test asks for the alias 'jev-latest'*"
        ]
    )


@pytest.mark.parametrize("answered", ["jev-latest", "jev-preview"])
def test_a_warning_never_advises_pinning_an_alias(suite, server_answering_as, answered):
    """Issue 26 item 8: the advice names a versioned id, never the alias the response reported."""
    server_answering_as(answered)
    suite.makepyfile(test_model=TEST_FILE)
    result = suite.runpytest("--citecheck-record-mode=once")  # no model set: the SDK asks for jev-latest
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(
        [
            f"*ModelPinWarning: citation 'aud': recorded with the alias 'jev-latest', answered by {answered!r}*",
            f"*pin a versioned model: --citecheck-model=jev-<version>*the response named only {answered!r}*",
        ]
    )
    assert f"--citecheck-model={answered}" not in result.stdout.str()


def test_a_mismatch_advises_the_versioned_id_that_answered(suite, server_answering_as):
    server_answering_as("jev-1.13.0")
    suite.makepyfile(test_model=TEST_FILE)
    result = suite.runpytest("--citecheck-record-mode=once", "--citecheck-model=jev-1.12")
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(["*re-record with the model you mean, or pin the model: --citecheck-model=jev-1.13.0*"])


# Two citations: recorded on worker threads (sync) or in tasks (async), where no frame leads back to the test.
TWO_CITATIONS = """
import pytest
from cookbook import SOURCE

CITATIONS = [
    {"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"},
    {"id": "iss", "claim": "A JWT can name its issuer.", "quote": None, "section": "4.1.1"},
]

MARK
DEF test_claims(citecheck):
    results = CHECK
    assert [result.verdict.value for result in results] == ["verified", "verified"]
"""
SYNC = {"MARK": "", "DEF": "def", "CHECK": "citecheck.check(CITATIONS, SOURCE)"}
# An async test as docs/cassettes.md shows one (anyio's pytest plugin here; pytest-asyncio's alike).
ASYNC = {
    "MARK": "@pytest.fixture\ndef anyio_backend():\n    return 'asyncio'\n\n@pytest.mark.anyio",
    "DEF": "async def",
    "CHECK": "await citecheck.acheck(CITATIONS, SOURCE)",
}


def _two_citations(words: dict[str, str]) -> str:
    text = TWO_CITATIONS
    for name, value in words.items():
        text = text.replace(name, value)
    return text


@pytest.mark.parametrize("words", [SYNC, ASYNC], ids=["threads", "tasks"])
def test_a_warning_from_citations_judged_at_once_names_the_tests_line(suite, server_answering_as, words):
    """Found trying a user's project: with several citations recorded at once, the warning named
    concurrent/futures/thread.py:58 (sync), or asyncio's events.py (async), rather than the test's line."""
    server_answering_as("jev-1.13.0")
    path = suite.makepyfile(test_model=_two_citations(words))
    line = next(number for number, text in enumerate(path.read_text().splitlines(), 1) if "results = " in text)
    result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(passed=1, warnings=1)  # one cause: one warning naming both
    result.stdout.fnmatch_lines(
        [f"*test_model.py:{line}: ModelPinWarning: 2 citations ('aud', 'iss'): recorded with the alias 'jev-latest'*"]
    )
    assert "thread.py" not in result.stdout.str() and "events.py" not in result.stdout.str()


def test_a_warning_held_from_threads_is_its_citations_error_under_filterwarnings_error(suite, server_answering_as):
    server_answering_as("jev-1.13.0")
    suite.makepyfile(test_model=_two_citations(SYNC))
    result = suite.runpytest("--citecheck-record-mode=once", "-W", "error::pytest_citecheck.ModelPinWarning")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*ModelPinWarning: 2 citations ('aud', 'iss'): recorded with the alias 'jev-latest'*"])


# Seven citations of registered claims, checked at once, one by one in a loop, and in two checks of which the
# second pins a model the server does not answer with: a suite recorded with the SDK's default alias.
SEVEN_CITATIONS = """
from cookbook import SOURCE

CITATIONS = [
    {"id": f"c{n}", "claim": f"A JWT can carry the claim of section 4.1.{n}.", "quote": None, "section": f"4.1.{n}"}
    for n in range(1, 8)
]

def test_at_once(citecheck):
    citecheck.check(CITATIONS, SOURCE)

def test_one_by_one(citecheck):
    for citation in CITATIONS:
        citecheck.check([citation], SOURCE)

def test_two_models(citecheck):
    citecheck.check(CITATIONS[:3], SOURCE)
    citecheck.check(CITATIONS[3:], SOURCE, model="jev-1.12")
"""
ALIAS_RECORDED = "recorded with the alias 'jev-latest', answered by 'jev-1.13.0': thresholds tuned on it may drift*"
OTHER_MODEL = "the answer came from model 'jev-1.13.0', but the test asks for 'jev-1.12'*"
ALIAS_REPLAYED = "the recorded answer came from model 'jev-1.13.0', but the test asks for the alias 'jev-latest'*"


def _pin_warnings(result: pytest.RunResult) -> list[str]:
    """The ModelPinWarning lines of pytest's warnings summary, one per warning (its location and first line)."""
    return [line.split(": ", 1)[1] for line in result.outlines if ": ModelPinWarning: " in line]


def _said_once_per_cause(result: pytest.RunResult, at_once: str, other: str) -> None:
    result.assert_outcomes(passed=3, warnings=4)
    assert sorted(_pin_warnings(result)) == sorted(
        [
            "ModelPinWarning: 7 citations ('c1', 'c2', 'c3', 'c4', 'c5' and 2 more): " + at_once.rstrip("*"),
            "ModelPinWarning: citation 'c1': " + at_once.rstrip("*"),  # the loop's first check; not said again
            "ModelPinWarning: 3 citations ('c1', 'c2', 'c3'): " + at_once.rstrip("*"),
            "ModelPinWarning: 4 citations ('c4', 'c5', 'c6', 'c7'): " + other.rstrip("*"),
        ]
    )  # in any order: under xdist the tests end in any order


def _cut_after_cause(result: pytest.RunResult) -> None:
    """The warnings' first lines end at the cause's text: cut them there for a comparison."""
    for index, line in enumerate(result.outlines):
        for cause in (ALIAS_RECORDED, OTHER_MODEL, ALIAS_REPLAYED):
            head = cause.rstrip("*")
            if head in line:
                result.outlines[index] = line[: line.index(head) + len(head)]


def test_a_suite_recorded_with_an_alias_warns_once_per_cause_per_test(suite, server_answering_as, offline):
    """Found and not fixed last session: one ModelPinWarning per citation, each naming its own citation,
    so pytest's summary could not group them (a suite of 500 citations printed 500 warnings)."""
    server_answering_as("jev-1.13.0")
    suite.makepyfile(test_suite=SEVEN_CITATIONS)
    recorded = suite.runpytest("--citecheck-record-mode=once")
    _cut_after_cause(recorded)
    _said_once_per_cause(recorded, ALIAS_RECORDED, OTHER_MODEL)
    recorded.stdout.fnmatch_lines(["*-> pin the model: --citecheck-model=jev-1.13.0*"])
    offline()
    replayed = suite.runpytest()
    _cut_after_cause(replayed)
    _said_once_per_cause(replayed, ALIAS_REPLAYED, OTHER_MODEL)


def test_the_one_warning_per_cause_made_an_error_fails_each_test_it_concerns(suite, server_answering_as, offline):
    server_answering_as("jev-1.13.0")
    suite.makepyfile(test_suite=SEVEN_CITATIONS)
    suite.runpytest("--citecheck-record-mode=once", "-W", "ignore::UserWarning").assert_outcomes(passed=3)
    offline()
    result = suite.runpytest("-W", "error::pytest_citecheck.ModelPinWarning")
    result.assert_outcomes(failed=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # a failing test, never an INTERNALERROR
    result.stdout.fnmatch_lines(
        ["*ModelPinWarning: 7 citations ('c1', 'c2', 'c3', 'c4', 'c5' and 2 more): " + ALIAS_REPLAYED]
    )
    # Still strict per citation: every mismatch is its citation's own error, fail closed.
    strict = suite.runpytest("--citecheck-strict-model")
    strict.assert_outcomes(failed=3)
    strict.stdout.fnmatch_lines(["*ModelMismatchError*7 citations could not be judged*", "*citation 'c7': *"])


@pytest.mark.slow
def test_under_xdist_each_test_says_each_cause_once(suite, server_answering_as):
    server_answering_as("jev-1.13.0")
    suite.makepyfile(test_suite=SEVEN_CITATIONS)
    result = suite.runpytest_subprocess("--citecheck-record-mode=once", "-n", "2")
    _cut_after_cause(result)
    _said_once_per_cause(result, ALIAS_RECORDED, OTHER_MODEL)
