"""Model pinning: the model asked for and the model that answered are in the cassette, and are compared."""

from __future__ import annotations

import contextlib

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
import contextlib

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
ALIAS_RECORDED = "recorded with the alias 'jev-latest', answered by 'jev-1.13.0': thresholds tuned on it may drift"
OTHER_MODEL = "the answer came from model 'jev-1.13.0', but the test asks for 'jev-1.12'"
ALIAS_REPLAYED = "the recorded answer came from model 'jev-1.13.0', but the test asks for the alias 'jev-latest'"
ONCE = "*(said once per run (under xdist, once per worker), at the first check it concerns: later checks are not warned again)"


def _line(marker: str) -> int:
    """The line of SEVEN_CITATIONS (as pytester writes it) that holds ``marker``."""
    return next(n for n, text in enumerate(SEVEN_CITATIONS.strip().splitlines(), 1) if marker in text)


def _pin_warnings(result: pytest.RunResult) -> list[str]:
    """Each ModelPinWarning of pytest's warnings summary: where (file:line), and its first line up to the cause."""
    said = []
    for line in result.outlines:
        if ": ModelPinWarning: " in line:
            where, text = line.strip().split(": ModelPinWarning: ", 1)
            for cause in (ALIAS_RECORDED, OTHER_MODEL, ALIAS_REPLAYED):
                if cause in text:
                    text = text[: text.index(cause) + len(cause)]
            said.append(f"{where.rsplit('/', 1)[-1]}: {text}")
    return said


def _said_once_per_cause(result: pytest.RunResult, alias_cause: str) -> None:
    result.assert_outcomes(passed=3, warnings=2)
    assert _pin_warnings(result) == [
        f"test_suite.py:{_line('(CITATIONS, SOURCE)')}: 7 citations ('c1', 'c2', 'c3', 'c4', 'c5' and 2 more): "
        + alias_cause,
        f"test_suite.py:{_line('CITATIONS[3:]')}: 4 citations ('c4', 'c5', 'c6', 'c7'): " + OTHER_MODEL,
    ]
    result.stdout.fnmatch_lines([ONCE])


def test_a_suite_recorded_with_an_alias_warns_once_per_cause(suite, server_answering_as, offline):
    """Found and not fixed last session: one ModelPinWarning per citation, each naming its own citation,
    so pytest's summary could not group them (a suite of 500 citations printed 500 warnings; these 21)."""
    server_answering_as("jev-1.13.0")
    suite.makepyfile(test_suite=SEVEN_CITATIONS)
    recorded = suite.runpytest("--citecheck-record-mode=once")
    _said_once_per_cause(recorded, ALIAS_RECORDED)
    recorded.stdout.fnmatch_lines(["*-> pin the model: --citecheck-model=jev-1.13.0*"])
    offline()
    _said_once_per_cause(suite.runpytest(), ALIAS_REPLAYED)


def test_the_warning_made_an_error_fails_the_test_that_says_it(suite, server_answering_as, offline):
    server_answering_as("jev-1.13.0")
    suite.makepyfile(test_suite=SEVEN_CITATIONS)
    suite.runpytest("--citecheck-record-mode=once", "-W", "ignore::UserWarning").assert_outcomes(passed=3)
    offline()
    result = suite.runpytest("-W", "error::pytest_citecheck.ModelPinWarning", "-rA")
    # The first test of each cause fails with it; test_one_by_one's cause was said (raised) already.
    result.assert_outcomes(failed=2, passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # failing tests, never an INTERNALERROR
    result.stdout.fnmatch_lines(
        [
            f"*ModelPinWarning: 7 citations ('c1', 'c2', 'c3', 'c4', 'c5' and 2 more): {ALIAS_REPLAYED}*",
            ONCE,
            f"test_suite.py:{_line('(CITATIONS, SOURCE)')}: ModelPinWarning",  # at the test's line
            f"*ModelPinWarning: 4 citations ('c4', 'c5', 'c6', 'c7'): {OTHER_MODEL}*",
            "PASSED test_suite.py::test_one_by_one",
        ],
        consecutive=False,
    )
    # Strict model mode is still per citation: every mismatch is its citation's own error, fail closed.
    strict = suite.runpytest("--citecheck-strict-model")
    strict.assert_outcomes(failed=3)
    strict.stdout.fnmatch_lines(["*ModelMismatchError*7 citations could not be judged*", "*citation 'c7': *"])


@pytest.mark.slow
def test_under_xdist_each_worker_says_each_cause_once(suite, server_answering_as):
    server_answering_as("jev-1.13.0")
    suite.makepyfile(test_suite=SEVEN_CITATIONS)
    result = suite.runpytest_subprocess("--citecheck-record-mode=once", "-n", "2")
    said = _pin_warnings(result)
    result.assert_outcomes(passed=3, warnings=len(said))
    # Each worker is a run of its own: the alias is said once by each that met it, at a test's line.
    checks = {_line(marker) for marker in ("(CITATIONS, SOURCE)", "([citation], SOURCE)", "(CITATIONS[:3], SOURCE)")}
    alias = [line for line in said if line.endswith(ALIAS_RECORDED)]
    assert 1 <= len(alias) <= 2 and {int(line.split(":")[1]) for line in alias} <= checks, said
    assert [line for line in said if line.endswith(OTHER_MODEL)] == [
        f"test_suite.py:{_line('CITATIONS[3:]')}: 4 citations ('c4', 'c5', 'c6', 'c7'): " + OTHER_MODEL
    ]
    assert len(said) == len(alias) + 1


class _MeetingAtTheLookUp(set[tuple[str, str]]):
    """The run's set of causes said, whose look-up waits (up to a second) for a second thread to have looked too:
    the interleaving two threads of one test (pytest-run-parallel) can meet by chance, made certain."""

    def __init__(self) -> None:
        super().__init__()
        import threading

        self.both_looking = threading.Barrier(2, timeout=1)

    def __contains__(self, key: object) -> bool:
        import threading

        found = super().__contains__(key)
        with contextlib.suppress(threading.BrokenBarrierError):
            self.both_looking.wait()  # both have looked before either goes on
        return found


def test_two_threads_meeting_one_cause_at_once_warn_once():
    """Found and not fixed last session: ``ModelPins.say`` looked the cause up in the run's set and added it
    in two steps, so two threads of one test that met the same cause between them both warned. The window
    is two lines wide, which a real run meets by chance only: the look-up here waits for the other thread."""
    import threading
    import warnings

    from pytest_citecheck import ModelPinWarning
    from pytest_citecheck._recording.checking import ModelPins

    said = _MeetingAtTheLookUp()
    cause, remedy = "recorded from the alias 'jev'", "pin the model: --citecheck-model=jev-1.13.0"
    checks = [ModelPins(said) for _ in range(2)]
    for index, pins in enumerate(checks):
        pins.note(0, f"c{index}", cause, remedy)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # Each on a thread of the test's, as pytest-run-parallel runs a test's body: the warning names its line.
        threads = [threading.Thread(target=lambda pins=pins: pins.say({})) for pins in checks]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert [type(warning.message) for warning in caught] == [ModelPinWarning]
    assert said == {(cause, remedy)}
