"""No secret is ever written: not in cassettes, reports, JUnit XML, logs or terminal output.

Each run records through ``JevServer`` with canary keys passed every way a user might — the
``TYPESAFE_API_KEY`` environment variable, a ``citecheck_client`` override with ``api_key=``, and
extra headers (``x-api-key`` and a header name no redaction list knows) — with every output switched
on (JSON and HTML reports, JUnit XML with captured logs, ``-v -rA``, pytest's DEBUG log capture and
live logging, ``TYPESAFE_LOG_LEVEL=debug``), and ``citecheck review`` then writes the reviews file.
Every file under the run's directory and everything printed is searched: zero occurrences of any
canary.
"""

from __future__ import annotations

import logging
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from support import NOT_A_USERS_PLUGINS

from pytest_citecheck import _secrets
from pytest_citecheck.testing import JevServer, Reply

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "rfc7519"

ENV_KEY = "sk-canary-env-5d1c09e7a2f4"
CLIENT_KEY = "sk-canary-client-8e2b7f31c6a0"
X_API_KEY = "sk-canary-xapikey-41fa9d0b3e72"
ODD_HEADER_KEY = "sk-canary-oddheader-c37e15a98d24"
CANARIES = (ENV_KEY, CLIENT_KEY, X_API_KEY, ODD_HEADER_KEY)

INNER_TESTS = """
import json, pathlib, pytest
from pytest_citecheck import Source, assert_citations_supported, check_citations

HERE = pathlib.Path(__file__).parent
SOURCE = Source.from_file(HERE / "rfc7519.txt")
CITATIONS = {c["id"]: c for c in json.loads((HERE / "citations.json").read_text())}

def test_supported():
    assert_citations_supported([CITATIONS["aud_reject"]], SOURCE)

def test_contradicted():
    assert_citations_supported([CITATIONS["exp_required"]], SOURCE)

def test_needs_review():
    check_citations([CITATIONS["pii_encryption"]], SOURCE)

def test_api_error():
    assert_citations_supported([CITATIONS["duplicate_names"]], SOURCE)

# A user's own vcrpy setup that keeps every header (pytest-recording's vcr_config, filter
# switched off) must not switch pytest-citecheck's scrub off.
@pytest.mark.vcr
def test_under_pytest_recording():
    assert_citations_supported([CITATIONS["clock_skew"]], SOURCE)
"""

ENV_CONFTEST = """
import pytest

@pytest.fixture(scope="module")
def vcr_config():
    return {"filter_headers": [], "before_record_request": lambda request: request, "record_mode": "once"}
"""

CLIENT_CONFTEST = (
    ENV_CONFTEST
    + f"""
from typesafe_sdk import RetryPolicy, TypeSafeClient

@pytest.fixture
def citecheck_client():
    client = TypeSafeClient(
        api_key={CLIENT_KEY!r},
        headers={{"x-api-key": {X_API_KEY!r}, "X-Upstream-Auth-Key": {ODD_HEADER_KEY!r}}},
        compression=False,
        retry=RetryPolicy(max_retries=1, backoff_initial=0.01, backoff_max=0.01),
    )
    yield client
    client.close()
"""
)


def answering(sent: set[str]) -> Any:
    """The scripted answers; one error echoes back the credentials the run sent, as a careless server might."""

    def answer(claim: str, section: str) -> tuple[str, float] | Reply:
        if "expiration time" in claim:
            return ("contradicts", 0.99)
        if "personal data" in claim:
            return ("says_nothing", 0.52)
        if "same claim name twice" in claim:  # its message is shown in the failure
            return Reply(422, {"detail": "invalid request from " + " ".join(sorted(sent))})
        return ("supports", 0.97)

    return answer


# The inner runs leave out the plugins a user's suite does not have (NOT_A_USERS_PLUGINS).
OUTPUT_FLAGS = (
    *NOT_A_USERS_PLUGINS,
    "-v",
    "-rA",
    "--log-level=DEBUG",
    "--log-cli-level=DEBUG",
    "--junitxml=junit.xml",
    "-o",
    "junit_logging=all",
    "--citecheck-json=report.json",
    "--citecheck-html=report.html",
    "--citecheck-record-mode=once",
    "--citecheck-model=jev-1.12",
)


def leaks(text: str) -> list[str]:
    """The canaries (or a 12-character piece of one, e.g. after truncation) found in ``text``."""
    found = []
    for canary in CANARIES:
        pieces = {canary[i : i + 12] for i in range(0, len(canary) - 11, 4)}
        if any(piece in text for piece in pieces):
            found.append(canary)
    return found


def _scan(pytester: pytest.Pytester, result: pytest.RunResult) -> dict[str, list[str]]:
    hits: dict[str, list[str]] = {}
    printed = "\n".join(result.outlines + result.errlines)
    if leaks(printed):
        hits["<terminal output>"] = leaks(printed)
    for path in pytester.path.rglob("*"):
        # The user's conftest.py holds the key on purpose (a client override), and so does the
        # bytecode Python compiles from it when bytecode is written (PYTHONDONTWRITEBYTECODE unset).
        users_own = path.name == "conftest.py" or (
            path.parent.name == "__pycache__" and path.name.startswith("conftest.")
        )
        if path.is_file() and not users_own:
            found = leaks(path.read_bytes().decode("utf-8", errors="replace"))
            if found:
                hits[str(path.relative_to(pytester.path))] = found
    return hits


def run_as_a_new_process(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str) -> pytest.RunResult:
    """An inner run in this process that starts, as a new process would, with no secret remembered.

    Only for runs whose SDK debug log is not what is tested: the SDK reads TYPESAFE_LOG_LEVEL when it is
    imported, so only a new process shows that log. The secrets the redaction has learnt are remembered
    for the life of a process, and this one may have learnt some already (the log filter test below shows
    it two of the canaries): a run that stopped learning a request's header values would be hidden by
    them, so each run starts from an empty memory.
    """
    monkeypatch.setattr(_secrets, "_known", set())
    return inner.runpytest_inprocess(*args)


@pytest.fixture
def inner(pytester: pytest.Pytester, inner_ini: str) -> pytest.Pytester:
    shutil.copy(EXAMPLE / "rfc7519.txt", pytester.path / "rfc7519.txt")
    shutil.copy(EXAMPLE / "citations.json", pytester.path / "citations.json")
    pytester.makeini(inner_ini)
    pytester.makepyfile(test_secrets_inner=INNER_TESTS)
    return pytester


# Each case is a real pytest process: the SDK reads TYPESAFE_LOG_LEVEL once, when it is imported. The
# default run keeps the case with everything switched on (the SDK's debug log and pytest's DEBUG
# capture) for both ways a key is passed; the lighter logging levels run in the slow tier.
@pytest.mark.parametrize("how", ["environment", "client-override"])
@pytest.mark.parametrize(
    ("sdk_log_level", "pytest_log_level"),
    [
        pytest.param(None, "DEBUG", id="debug-capture", marks=pytest.mark.slow),
        pytest.param("debug", "DEBUG", id="sdk-debug"),
        pytest.param(None, "INFO", id="info", marks=pytest.mark.slow),
    ],
)
def test_no_canary_key_is_written_or_printed(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str, sdk_log_level: str | None, pytest_log_level: str
) -> None:
    inner.makeconftest(ENV_CONFTEST if how == "environment" else CLIENT_CONFTEST)
    if sdk_log_level:
        monkeypatch.setenv("TYPESAFE_LOG_LEVEL", sdk_log_level)
    monkeypatch.setenv("TYPESAFE_API_KEY", ENV_KEY)
    expected = {ENV_KEY} if how == "environment" else {CLIENT_KEY, X_API_KEY, ODD_HEADER_KEY}
    with JevServer(answering(expected)) as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        # At INFO the SDK logs no headers, but vcrpy logs every recorded response body (echo included).
        flags = [flag.replace("=DEBUG", f"={pytest_log_level}") for flag in OUTPUT_FLAGS]
        result = inner.runpytest_subprocess(*flags)
        sent = [request.headers for request in server.systemone_requests]
    # The canaries really went over the wire (so finding none afterwards means something) ...
    sent_text = repr(sent)
    assert expected <= set(leaks(sent_text)), sent_text
    # ... the run did what it should (4 checks recorded, one contradicted, one API error whose
    # message, echoing the keys, is shown with them cut out) ...
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines(
        ["*citation 'duplicate_names': TypeSafe rejected the request as invalid (HTTP 422*invalid request from ****"]
    )
    assert list(inner.path.rglob("cassettes/**/*.yaml")), "nothing was recorded"
    for written in ("report.json", "report.html", "junit.xml"):
        assert (inner.path / written).exists(), written
    printed = result.stdout.str()
    if sdk_log_level == "debug":
        # ... the SDK's debug log (headers and bodies) really was printed ...
        assert "headers=" in printed and "/v1/systemone" in printed
    # ... so was vcrpy's record of the echoing response, with the keys cut out ...
    assert "Appending request" in printed and "invalid request from ***" in printed
    # ... a human records a decision, so the reviews file exists too ...
    reviewed = inner.run(
        sys.executable,
        "-m",
        "pytest_citecheck",
        "review",
        "--report",
        "report.json",
        "--accept",
        "pii_encryption",
        "--by",
        "tester",
    )
    assert reviewed.ret == 0, reviewed.stdout.str() + reviewed.stderr.str()
    assert list(inner.path.rglob("citecheck-reviews.json")), "no reviews file was written"
    # ... and not one canary was written or printed anywhere.
    assert _scan(inner, result) == {}
    assert leaks(reviewed.stdout.str() + reviewed.stderr.str()) == []


def test_a_replay_run_prints_no_placeholder_confusion_and_no_key(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Record with a key, then replay with it still set: the replay writes and prints no key either."""
    inner.makeconftest(ENV_CONFTEST)
    monkeypatch.setenv("TYPESAFE_API_KEY", ENV_KEY)
    monkeypatch.setenv("TYPESAFE_LOG_LEVEL", "debug")
    with JevServer(answering({ENV_KEY})) as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        # The recording is the setup here (the matrix above scans recording runs with the SDK's debug log
        # on), so it runs in process; the replay under test is a process of its own, with that log on.
        run_as_a_new_process(inner, monkeypatch, *OUTPUT_FLAGS).assert_outcomes(passed=3, failed=2)
    result = inner.runpytest_subprocess(
        *[flag for flag in OUTPUT_FLAGS if "record-mode" not in flag], "--citecheck-record-mode=none"
    )
    assert result.parseoutcomes().get("passed") == 3
    assert _scan(inner, result) == {}


def test_the_sdk_log_filter_redacts_every_header_but_the_harmless_ones(caplog: pytest.LogCaptureFixture) -> None:
    """The plugin's filter on the ``typesafe_sdk`` logger, for headers the SDK's own list misses."""
    from pytest_citecheck._recording.redaction import install_log_redaction

    install_log_redaction()
    install_log_redaction()  # idempotent: one filter however often the plugin is configured
    sdk_logger = logging.getLogger("typesafe_sdk")
    assert sum(type(f).__name__ == "HeaderValueRedactor" for f in sdk_logger.filters) == 1
    assert type(sdk_logger.filters[0]).__name__ == "HeaderValueRedactor", "first, before the SDK's own filter"
    assert any(type(f).__name__ == "HeaderValueRedactor" for f in logging.getLogger("vcr.cassette").filters)
    with caplog.at_level(logging.DEBUG, logger="typesafe_sdk"):
        sdk_logger.debug(
            "%(method)s %(url)s headers=%(headers)s",
            {
                "method": "POST",
                "url": "http://x/v1/systemone",
                "headers": {
                    "Content-Type": "application/json",
                    "X-Upstream-Auth-Key": ODD_HEADER_KEY,
                    "x-api-key": X_API_KEY,
                },
            },
        )
    assert leaks(caplog.text) == []
    assert "application/json" in caplog.text and "X-Upstream-Auth-Key" in caplog.text


# --- keys echoed in a 2xx body, or sent in the claim, are not recorded -----------------------------

ECHO_TESTS = """
import os
from pytest_citecheck import Source, assert_citations_supported
import pathlib

SOURCE = Source.from_file(pathlib.Path(__file__).parent / "rfc7519.txt")
LEAKED = {leaked}

def test_echoed():
    # An app that leaks its own key into an answer: the claim carries it to Jev.
    claim = "A JWT can name its audience, says the service with key " + LEAKED + "."
    assert_citations_supported([{{"id": "aud", "claim": claim, "quote": None, "section": "4.1.3"}}], SOURCE)
"""


@pytest.mark.parametrize("how", ["environment", "client-override"])
def test_a_key_echoed_in_a_2xx_body_or_sent_in_the_claim_is_not_recorded(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    inner.makeconftest(ENV_CONFTEST if how == "environment" else CLIENT_CONFTEST)
    leaked = 'os.environ["TYPESAFE_API_KEY"]' if how == "environment" else repr(CLIENT_KEY)
    inner.makepyfile(test_echo=ECHO_TESTS.format(leaked=leaked))
    monkeypatch.setenv("TYPESAFE_API_KEY", ENV_KEY)
    expected = {ENV_KEY} if how == "environment" else {CLIENT_KEY, X_API_KEY, ODD_HEADER_KEY}
    server = JevServer()
    server.answer = lambda claim, section: _echo_answer(server)
    with server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        recorded = run_as_a_new_process(
            inner, monkeypatch, "test_echo.py", "--citecheck-record-mode=once", "--citecheck-model=jev-1.12"
        )
        assert expected <= set(leaks(repr(server.systemone_requests))), "the keys went over the wire"
    recorded.assert_outcomes(passed=1)
    cassette = inner.path / "cassettes" / "test_echo" / "test_echoed.yaml"
    text = cassette.read_text()
    assert leaks(text) == [], text
    assert "says the service with key ***." in text  # the request's claim
    assert '"request_headers"' in text and "***" in text.split("  response:")[1]  # the echo, with the keys cut out
    # The recording still replays: the same redaction is applied to the live request before matching.
    replayed = run_as_a_new_process(
        inner, monkeypatch, "test_echo.py", "--citecheck-record-mode=none", "--citecheck-model=jev-1.12"
    )
    replayed.assert_outcomes(passed=1)
    # Nothing else the two runs wrote holds a key (the test module holds the one it leaks, by design, and so does
    # its bytecode, __pycache__/test_echo.*.pyc, where PYTHONDONTWRITEBYTECODE is unset).
    leaked_elsewhere = {name: found for name, found in _scan(inner, replayed).items() if not _the_test_module(name)}
    assert leaked_elsewhere == {}


def _the_test_module(name: str) -> bool:
    """``test_echo.py``, or the bytecode Python compiled from it."""
    path = Path(name)
    return name == "test_echo.py" or (path.parent.name == "__pycache__" and path.name.startswith("test_echo."))


def _echo_answer(server: JevServer) -> dict[str, Any]:
    """A 2xx answer from a proxy or debug build that echoes the request's headers back in the body."""
    from pytest_citecheck.testing import choice_answer

    headers = server.requests[-1].headers
    return {**choice_answer("supports", 0.97), "debug": {"request_headers": headers, "note": f"seen {headers}"}}


# --- keys echoed in the fields of a 2xx answer are printed nowhere ----------------------------------

ECHO_FIELD_TESTS = """
import pathlib
from pytest_citecheck import Source, assert_citations_supported

SOURCE = Source.from_file(pathlib.Path(__file__).parent / "rfc7519.txt")

def test_echoed():
    assert_citations_supported([{"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"}], SOURCE)
"""


def _echoing_reply(where: str) -> Reply:
    """A 2xx answer that puts the request's key into one of its fields, as a careless proxy might."""
    from pytest_citecheck.testing import choice_answer

    answer = choice_answer("supports", 0.97)
    answers: dict[str, Any] = {"relation": answer}
    model = "jev-1.12"
    if where == "model":
        model = f"jev-1.12+{ENV_KEY}"
    elif where == "choice":
        answer["choice"] = ENV_KEY
    elif where == "label":
        answer["probabilities"][ENV_KEY] = answer["probabilities"].pop("says_nothing")
    else:  # the answer's name
        answers = {ENV_KEY: answer}
    return Reply(200, {"model": model, "answers": answers, "usage": {"input_tokens": 90, "output_tokens": 40}})


@pytest.mark.parametrize(
    ("where", "flags", "outcome"),
    [
        ("model", (), "passed"),  # a ModelPinWarning names the model that answered
        ("model", ("--citecheck-strict-model",), "failed"),  # a ModelMismatchError names it
        ("choice", (), "failed"),  # "unknown label ..."
        ("label", (), "failed"),  # "probabilities name ..."
        ("answer-name", (), "failed"),  # "no 'relation' answer (got ...)"
    ],
)
def test_a_key_echoed_in_a_field_of_a_2xx_answer_is_printed_nowhere(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, where: str, flags: tuple[str, ...], outcome: str
) -> None:
    # Found by hand: a server that put the key in "model" or "choice" had it printed by the warning or
    # the failure that quotes the field, and written to JUnit XML, though the cassette had it cut out.
    inner.makepyfile(test_echo=ECHO_FIELD_TESTS)
    monkeypatch.setenv("TYPESAFE_API_KEY", ENV_KEY)
    with JevServer(lambda claim, section: _echoing_reply(where)) as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        result = run_as_a_new_process(
            inner, monkeypatch, "test_echo.py", "-rA", "--junitxml=junit.xml", "--citecheck-json=report.json",
            "--debug=pytestdebug.log", "--citecheck-record-mode=once", "--citecheck-model=jev-1.12", *flags,
        )  # fmt: skip
    result.assert_outcomes(**{outcome: 1}, warnings=1 if outcome == "passed" else 0)
    assert "***" in result.stdout.str()  # the field was shown, with the key cut out
    assert _scan(inner, result) == {}
    if outcome == "passed":  # the warning is the test's, at its line, not the plugin's
        result.stdout.fnmatch_lines(["*test_echo.py:7: ModelPinWarning: citation 'aud': the answer came from model*"])


def test_a_key_echoed_in_the_model_of_a_re_recorded_answer_is_not_in_the_drift_lines(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makepyfile(test_echo=ECHO_FIELD_TESTS)
    monkeypatch.setenv("TYPESAFE_API_KEY", ENV_KEY)
    flags = ("--citecheck-model=jev-1.12", "-p", "no:warnings")
    with JevServer(lambda claim, section: ("supports", 0.97)) as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        run_as_a_new_process(inner, monkeypatch, "test_echo.py", "--citecheck-record-mode=once", *flags)
        server.answer = lambda claim, section: ("contradicts", 0.97)
        server.model = f"jev-1.12.{ENV_KEY}"
        result = run_as_a_new_process(inner, monkeypatch, "test_echo.py", "--citecheck-record-mode=rewrite", *flags)
    result.stdout.fnmatch_lines(["*flip*'aud': verified 0.95 (jev-1.12) -> contradicted 0.95 (jev-1.12.***)"])
    assert _scan(inner, result) == {}


def test_a_model_name_with_escape_sequences_is_shown_harmlessly_by_the_pinning_warning(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The answering model is the server's text, like an error body: an OSC 52 clipboard write and a
    # GitHub workflow command in it reached the terminal raw through the ModelPinWarning.
    inner.makepyfile(test_echo=ECHO_FIELD_TESTS)
    monkeypatch.setenv("TYPESAFE_API_KEY", ENV_KEY)
    with JevServer(model="jev-1.12\x1b]52;c;cHduZWQ=\x07\n::warning::pwned") as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        result = run_as_a_new_process(
            inner, monkeypatch, "test_echo.py", "--citecheck-record-mode=once", "--citecheck-model=jev-1.12"
        )
    result.assert_outcomes(passed=1, warnings=1)
    printed = result.stdout.str()
    assert "\x1b" not in printed and "\x07" not in printed
    assert not any(line.lstrip().startswith("::") for line in result.outlines)
    result.stdout.fnmatch_lines([r"*ModelPinWarning: citation 'aud': the answer came from model 'jev-1.12\x1b]52;c;*"])


@pytest.mark.parametrize(
    ("secret", "ensure_ascii"),
    [
        ("sk-canary-bytes-7d0e5b2a91c4", False),
        ("sk-canary-é-bytes-7d0e5b2a91c4", False),  # as UTF-8 bytes
        ("sk-canary-é-bytes-7d0e5b2a91c4", True),  # as \u00e9 inside a JSON string
        ('sk-canary-"quoted"-7d0e5b2a91c4', False),  # as \" inside a JSON string
    ],
)
def test_a_known_secret_in_a_request_body_given_as_bytes_is_cut_in_every_form_it_stands_in(
    secret: str, ensure_ascii: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replay searches a bytes body as bytes (``redact_body``): the secret is found however JSON wrote it,
    and a body without one comes back as the same object."""
    import json

    from pytest_citecheck._recording.redaction import redact_body

    monkeypatch.setattr(_secrets, "_known", set())
    _secrets.remember_secret(secret)
    body = json.dumps({"state": {"claim": f"the key is {secret}", "section": "é"}}, ensure_ascii=ensure_ascii).encode()
    redacted = redact_body(body)
    assert isinstance(redacted, bytes) and secret not in redacted.decode()
    assert json.loads(redacted) == {"state": {"claim": "the key is ***", "section": "é"}}
    clean = json.dumps({"state": {"claim": "no key here", "section": "é"}}, ensure_ascii=ensure_ascii).encode()
    assert redact_body(clean) is clean


# --- a key echoed with JSON's optional escapes -----------------------------------------------------

# A key with the characters of base64 (a "/" and a "+"), as many providers' keys have.
SLASHED_KEY = "sk-canary/slashed+2f9c4e71b0a8/d35e=="


def _slash_escaping_echo(server: JevServer) -> Reply:
    """A 2xx answer from a proxy that echoes the request's headers with every "/" written "\\/", as PHP's
    json_encode does by default (hunt-replay: the key went through the body scrub, which looked for it
    only as json.dumps writes it, into vcrpy's and the SDK's log lines, and so into the terminal, the
    log file and the JUnit XML; the cassette writer's last cut then changed the body under its digest,
    and the recording failed its replay as 'edited by hand?')."""
    import json

    from pytest_citecheck.testing import choice_answer

    body = {
        "model": "jev-1.12",
        "answers": {"relation": choice_answer("supports", 0.97)},
        "usage": {"input_tokens": 100, "output_tokens": 40},
        "debug": {"request_headers": server.requests[-1].headers},
    }
    return Reply(200, json.dumps(body).replace("/", "\\/").encode())


def test_a_key_echoed_with_escaped_slashes_is_printed_nowhere_and_the_recording_replays(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makeconftest(ENV_CONFTEST)
    inner.makepyfile(test_echo=ECHO_FIELD_TESTS)
    monkeypatch.setenv("TYPESAFE_API_KEY", SLASHED_KEY)
    monkeypatch.setenv("TYPESAFE_LOG_LEVEL", "debug")
    server = JevServer()
    server.answer = lambda claim, section: _slash_escaping_echo(server)
    with server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        recorded = inner.runpytest_subprocess(*OUTPUT_FLAGS, "test_echo.py")
    recorded.assert_outcomes(passed=1)
    pieces = {piece for piece in SLASHED_KEY.split("/") if len(piece) >= 8}  # what any escaping leaves whole
    printed = "\n".join(recorded.outlines + recorded.errlines)
    assert "request_headers" in printed  # the echo was logged: finding no key there means something
    written = {
        str(path.relative_to(inner.path)): path.read_text("utf-8", errors="replace")
        for path in inner.path.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert [piece for piece in pieces if piece in printed] == []
    assert {name: [piece for piece in pieces if piece in text] for name, text in written.items()} == {
        name: [] for name in written
    }
    replayed = inner.runpytest_subprocess(
        *NOT_A_USERS_PLUGINS, "--citecheck-record-mode=none", "--citecheck-model=jev-1.12", "test_echo.py"
    )
    replayed.assert_outcomes(passed=1)


# --- a key inside a failing citation's id and claim is printed nowhere ---------------------------------

FAILING_WITH_KEY_TESTS = """
import os
import pathlib
from pytest_citecheck import Source, assert_citations_supported

SOURCE = Source.from_file(pathlib.Path(__file__).parent / "rfc7519.txt")
KEY = os.environ["TYPESAFE_API_KEY"]

def test_fabricated():
    # An app that leaks its own key into its answer, into a citation that then fails: every message
    # about a failing citation quotes its id and claim.
    assert_citations_supported([{"id": "aud-" + KEY, "claim": "Audiences, says the service with key " + KEY + ".",
                                 "quote": "The aud claim is mandatory " + KEY, "section": "4.1.3"}], SOURCE)

def test_id_at_a_cut({width}):
    assert_citations_supported([{"id": "x" * {width} + KEY, "claim": "y" * {width} + KEY,
                                 "quote": "The aud claim is mandatory", "section": "4.1.3"}], SOURCE)
"""


@pytest.mark.parametrize("width", [20, 37])
def test_a_key_in_a_failing_citations_id_and_claim_is_printed_nowhere(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, jev_server: JevServer, width: int
) -> None:
    """Found by feeding hostile citations: the terminal summary, the failure's message (and so JUnit XML),
    pytest's JUnit properties, GitHub's annotations and step summary printed a key that a claim or an id
    carried, where the cassettes and reports had it cut out. ``width`` puts the key where a column is cut."""
    monkeypatch.setenv("TYPESAFE_API_KEY", ENV_KEY)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(inner.path / "step-summary.md"))
    inner.makepyfile(
        test_echo=FAILING_WITH_KEY_TESTS.replace("{width}", str(width)).replace("(" + str(width) + ")", "()")
    )
    result = run_as_a_new_process(
        inner, monkeypatch, "test_echo.py", "--citecheck-record-mode=once", "-v", "-rA", "--junitxml=junit.xml"
    )
    result.assert_outcomes(failed=2)
    assert "::error " in result.stdout.str() and (inner.path / "step-summary.md").exists()
    assert "Audiences, says the service with key ***." in result.stdout.str()
    leaked_elsewhere = {name: found for name, found in _scan(inner, result).items() if not _the_test_module(name)}
    assert leaked_elsewhere == {}
