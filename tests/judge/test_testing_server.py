"""The Jev-compatible server as a command (``python -m pytest_citecheck.testing``), as benchmarks and users run it."""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typesafe_sdk import (
    Choice,
    RetryPolicy,
    TypeSafeClient,
    TypeSafeRateLimitError,
    TypeSafeUnprocessableEntityError,
)

from pytest_citecheck._pytest_glue import fixtures
from pytest_citecheck.testing import REPLAY_PLACEHOLDER_KEY, JevServer, Reply, probabilities_for


def test_the_server_command_serves_rate_limits_then_answers_and_counts_requests():
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest_citecheck.testing",
            "--limit-first",
            "1",
            "--retry-after",
            "7",
            "--model",
            "jev-9",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        question = {
            "relation": Choice(instructions="How?", criteria={"supports": "a", "contradicts": "b", "says_nothing": "c"})
        }
        with TypeSafeClient(api_key="k", base_url=url, compression=False, retry=RetryPolicy(max_retries=0)) as client:
            with pytest.raises(TypeSafeRateLimitError) as limited:
                client.system_one(state={"claim": "c", "section": "s"}, questions=question)
            assert limited.value.retry_after_ms == 7000
            answer = client.system_one(state={"claim": "c", "section": "s"}, questions=question)
        assert answer.model == "jev-9"
        assert answer.answers["relation"].choice == "supports"
    finally:
        _, errors = server.communicate(input="", timeout=30)
    assert server.returncode == 0
    assert "served 2 requests" in errors


# --- rehearsing a recording: the server as a command, with an answers table -------------------

REHEARSAL_SUITE = """
from cookbook import SOURCE, pick
from pytest_citecheck import check_citations

def test_rehearsed():
    results = check_citations(pick("epoch_seconds", "exp_required", "aud_reject"), SOURCE)
    for r in results:
        print("ROW", r.id, r.verdict.value, r.confidence, r.judgement.probabilities[r.judgement.choice])
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def server_command(*args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """The server as a user starts it in the background: stdin is /dev/null, so only a signal stops it."""
    server = subprocess.Popen(
        [sys.executable, "-m", "pytest_citecheck.testing", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        yield server, server.stdout.readline().strip()
    finally:
        if server.poll() is None:
            server.kill()
        server.communicate(timeout=30)


@pytest.fixture
def answers_table(tmp_path: Path, cookbook_citations: list[dict]) -> Path:
    claims = {c["id"]: c["claim"] for c in cookbook_citations}
    table = {
        claims["epoch_seconds"]: ["supports", 0.93],
        claims["exp_required"]: {
            "choice": "contradicts",
            "probabilities": {"supports": 0.011, "contradicts": 0.977, "says_nothing": 0.012},
        },
        "*": ["says_nothing", 0.61],
    }
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(table))
    return path


def test_rehearsal_records_against_the_command_with_the_scripted_answers_exactly(
    suite, answers_table, monkeypatch, offline
):
    port = free_port()
    with server_command("--answers", str(answers_table), "--port", str(port), "--require-real-key") as (server, url):
        assert url == f"http://127.0.0.1:{port}"
        monkeypatch.setenv("TYPESAFE_BASE_URL", url)
        monkeypatch.setenv("TYPESAFE_API_KEY", "rehearsal-key")
        suite.makepyfile(test_rehearsal=REHEARSAL_SUITE)
        recorded = suite.runpytest("-s", "--citecheck-record-mode=once")
        recorded.assert_outcomes(passed=1)
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
        _, log = server.communicate(timeout=30)
    # Exactly as scripted: no rounding of 0.93 (to 0.94, as there once was), nor of 0.977.
    recorded.stdout.fnmatch_lines(
        [
            "*ROW epoch_seconds verified 0.89 0.93",
            "ROW exp_required contradicted 0.97 0.977",
            "ROW aud_reject unsupported 0.41 0.61",
        ]
    )
    assert "served 3 requests" in log
    assert "supports 0.93 for claim 'JWT date fields" in log
    cassette = (suite.path / "cassettes" / "test_rehearsal" / "test_rehearsed.yaml").read_text()
    assert "0.93" in cassette and "0.977" in cassette and "rehearsal-key" not in cassette

    # The rehearsal's cassette replays like any other: no server, no key.
    offline()
    replayed = suite.runpytest("-s")
    replayed.assert_outcomes(passed=1)
    replayed.stdout.fnmatch_lines(["*ROW epoch_seconds verified 0.89 0.93"])


def test_require_real_key_refuses_the_placeholder_of_a_forgotten_key(suite, answers_table, monkeypatch):
    with server_command("--answers", str(answers_table), "--require-real-key") as (server, url):
        monkeypatch.setenv("TYPESAFE_BASE_URL", url)  # and no TYPESAFE_API_KEY: the plugin's placeholder is sent
        suite.makepyfile(test_rehearsal=REHEARSAL_SUITE)
        result = suite.runpytest("--citecheck-record-mode=once")
        server.send_signal(signal.SIGINT)  # Ctrl-C
        assert server.wait(timeout=30) == 0
        _, log = server.communicate(timeout=30)
    result.assert_outcomes(failed=1)
    # The run knows no key was set (it sent its placeholder): it says so, not that a key was "rejected"
    # (hunt-journey N2: "TypeSafe rejected the API key (HTTP 401)" when there was no key at all).
    result.stdout.fnmatch_lines(
        [
            "JudgeError: citation 'epoch_seconds': no TYPESAFE_API_KEY is set in this run, and a record run needs "
            "one (TypeSafe answered HTTP 401 to the placeholder key the plugin sends without one)",
            "  -> set TYPESAFE_API_KEY to your TypeSafe API key, or replay the committed cassette*",
        ]
    )
    assert "rejected the API key" not in result.stdout.str()
    assert "TYPESAFE_API_KEY was not set in the pytest run" in log
    assert not (suite.path / "cassettes" / "test_rehearsal" / "test_rehearsed.yaml").exists()


def test_a_key_that_was_set_and_refused_is_a_rejected_key(suite, monkeypatch):
    """A key that is set and answered 401 is a wrong key: the message says so, and never prints it."""
    with JevServer(lambda claim, section: Reply(401, {"detail": "Invalid API key"})) as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        monkeypatch.setenv("TYPESAFE_API_KEY", "sk-wrong-key-0123456789abcdef")
        suite.makepyfile(test_rehearsal=REHEARSAL_SUITE)
        result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "JudgeError: citation 'epoch_seconds': TypeSafe rejected the API key (HTTP 401)",
            "  -> set TYPESAFE_API_KEY to a valid key*",
        ]
    )
    assert "no TYPESAFE_API_KEY is set" not in result.stdout.str()
    assert "sk-wrong-key" not in result.stdout.str() + result.stderr.str()


def test_a_base_url_with_a_user_and_password_is_named_as_the_cause_of_a_401(suite, monkeypatch):
    """The HTTP library sends a base URL's ``user:pass@`` as Basic authentication in place of the key: a 401 then
    names the URL, not a rejected key (found trying hostile settings: the old message sent users to their key)."""
    with JevServer() as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url.replace("://", "://alice:pw-0123456789abcdef@"))
        monkeypatch.setenv("TYPESAFE_API_KEY", "sk-right-key-0123456789abcdef")
        suite.makepyfile(test_rehearsal=REHEARSAL_SUITE)
        result = suite.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "JudgeError: citation 'epoch_seconds': TypeSafe refused the request (HTTP 401): TYPESAFE_BASE_URL holds a user name or "
            "password (user:...@host), which the HTTP library sends as Basic authentication in place of the API key*",
            "  -> take the user name and password out of TYPESAFE_BASE_URL (the key goes in TYPESAFE_API_KEY)*",
        ]
    )
    output = result.stdout.str() + result.stderr.str()
    assert "rejected the API key" not in output
    assert "pw-0123456789abcdef" not in output and "sk-right-key" not in output


def test_a_claim_the_table_does_not_list_is_an_error_naming_it(tmp_path):
    table = tmp_path / "answers.json"
    table.write_text(json.dumps({"Only this claim.": "supports"}))
    question = {
        "relation": Choice(instructions="How?", criteria={"supports": "a", "contradicts": "b", "says_nothing": "c"})
    }
    with server_command("--answers", str(table)) as (server, url):
        with TypeSafeClient(api_key="k", base_url=url, compression=False, retry=RetryPolicy(max_retries=0)) as client:
            assert client.system_one(state={"claim": " Only this claim. ", "section": "s"}, questions=question)
            with pytest.raises(TypeSafeUnprocessableEntityError, match="no answer for the claim 'Another claim.'"):
                client.system_one(state={"claim": "Another claim.", "section": "s"}, questions=question)
        server.terminate()
        assert server.wait(timeout=30) == 0


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("[1, 2]", "must be a JSON object mapping claims to answers"),
        ("{not json", "is not JSON"),
        (
            '{"A claim.": "agrees"}',
            "claim 'A claim.': field 'choice' must be one of supports, contradicts, says_nothing",
        ),
        ('{"A claim.": ["supports", 1.5]}', "claim 'A claim.': field 'probability' must be a number above 1/3"),
        ('{"A claim.": {"choice": "supports", "probabilities": {"supports": 0.9}}}', "field 'probabilities' must give"),
        ('{"A claim.": {"choice": "supports", "confidence": 0.9}}', "unknown field 'confidence'"),
        ('{"A claim.": "supports", "A claim.": "contradicts"}', "'A claim.' is listed twice in one object"),
        (
            '{"A claim.": "supports", " A claim. ": "contradicts"}',
            "claim ' A claim. ' is listed twice (claims match without surrounding spaces)",
        ),
    ],
)
def test_a_bad_answers_table_is_refused_at_start_naming_the_claim_and_field(tmp_path, table, message):
    path = tmp_path / "answers.json"
    path.write_text(table)
    result = subprocess.run(
        [sys.executable, "-m", "pytest_citecheck.testing", "--answers", str(path)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stdout == ""  # no URL: nothing is served


def test_scripted_probabilities_are_kept_exactly():
    for top in (0.93, 0.95, 0.97, 0.975, 0.5):
        probabilities = probabilities_for("supports", top)
        assert probabilities["supports"] == top
        assert sum(probabilities.values()) == pytest.approx(1)
    assert probabilities_for("contradicts", 0.93) == {"supports": 0.03, "contradicts": 0.93, "says_nothing": 0.04}


def test_the_refused_placeholder_is_the_plugins_replay_key():
    assert REPLAY_PLACEHOLDER_KEY == fixtures.REPLAY_ONLY_KEY


def test_yes_no_questions_are_scripted_by_name_and_flag_nothing_unscripted():
    from typesafe_sdk import Noul

    from pytest_citecheck.testing import JevServer

    questions = {
        "relation": Choice(instructions="How?", criteria={"supports": "a", "contradicts": "b", "says_nothing": "c"}),
        "out_of_context": Noul(instructions="Out of context?"),
        "best_section": Noul(instructions="The best section?"),
        "anything_else": Noul(instructions="Other?"),
    }
    state = {"claim": "c", "section": "s"}
    with JevServer() as server, TypeSafeClient(api_key="k", base_url=server.url, compression=False) as client:
        unscripted = client.system_one(state=state, questions=questions).answers
    # "no" for the questions whose "yes" flags, "yes" for best_section, whose "no" does.
    assert [unscripted[name].noul for name in ("out_of_context", "best_section", "anything_else")] == [0.02, 0.98, 0.02]
    with (
        JevServer(
            questions={"out_of_context": lambda claim, section: 0.91}, screen=lambda claim, section: 0.4
        ) as server,
        TypeSafeClient(api_key="k", base_url=server.url, compression=False) as client,
    ):
        scripted = client.system_one(state=state, questions=questions).answers
    assert [scripted[name].noul for name in ("out_of_context", "best_section", "anything_else")] == [0.91, 0.98, 0.4]


SYNC_AND_ASYNC = """
import pytest
from cookbook import SOURCE, pick

def test_sync(citecheck):
    citecheck.assert_supported(pick("aud_reject"), SOURCE)

@pytest.mark.asyncio
async def test_async(citecheck):
    await citecheck.aassert_supported(pick("clock_skew"), SOURCE)
"""


@pytest.mark.parametrize(
    ("key", "said"),
    [
        (None, "no TYPESAFE_API_KEY is set in this run, and a record run needs one"),
        ("sk-wrong-key-0123456789abcdef", "TypeSafe rejected the API key (HTTP 401)"),
    ],
)
def test_a_401_says_whether_a_key_was_set_for_the_sync_and_the_async_client(suite, monkeypatch, key, said):
    with JevServer(lambda claim, section: Reply(401, {"detail": "Invalid API key"})) as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        if key is None:
            monkeypatch.delenv("TYPESAFE_API_KEY", raising=False)
        else:
            monkeypatch.setenv("TYPESAFE_API_KEY", key)
        suite.makepyfile(test_both=SYNC_AND_ASYNC)
        result = suite.runpytest("--citecheck-record-mode=once", "-p", "asyncio")
    result.assert_outcomes(failed=2)
    output = result.stdout.str()
    for citation in ("aud_reject", "clock_skew"):
        assert f"citation '{citation}': {said}" in output
    assert "sk-wrong-key" not in output + result.stderr.str()
