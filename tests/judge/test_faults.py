"""The fault matrix: every way asking Jev (or replaying its answer) can go wrong fails the test.

Each row of ``FAULTS`` injects one fault — through the Jev-compatible ``JevServer`` on 127.0.0.1,
or by damaging a cassette (each path's undamaged cassette is recorded once per module and copied
into each case) — under a real inner pytest run of one citation check, on each of the two
paths a check can take (``PATHS``: ``assert_citations_supported`` on threads, and
``await citecheck.aassert_supported`` through the async client), and asserts that
the inner test FAILED (never passed, never INTERNALERROR), that its message names the citation,
the cause and the remedy, that no traceback into the plugin was printed, and that no verdict for
the citation reached the JSON report or a cassette.

``docs/reliability.md`` holds this matrix as a table; regenerate it with
``python tests/judge/test_faults.py --write`` (``test_reliability_doc_matches_the_matrix`` checks it).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Imported once, at collection: pytester's in-process runs drop the modules a run imported, and an
# httpcore2 imported afresh under an httpx2 that was not lets a refused connection or a timeout escape
# unmapped and unretried -- an artifact of in-process runs, not of real sessions.
import httpcore2
import pytest
import typesafe_sdk  # noqa: F401
import vcr
import vcr.stubs.httpx_stubs  # noqa: F401

if TYPE_CHECKING:  # python tests/judge/test_faults.py runs without tests/ on sys.path
    from support import Offline

# The plugin's modules that a session imports lazily, imported here once: otherwise every in-process
# run would import and compile them afresh (something no real session does): a quarter of its CPU.
import pytest_citecheck._recording.replay
import pytest_citecheck._report.run_report
import pytest_citecheck._sources.formats  # noqa: F401
from pytest_citecheck.testing import JevServer, Reply, choice_answer

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "rfc7519"
RELIABILITY_DOC = REPO / "docs" / "reliability.md"
KEY = "sk-citecheck-faults-3b1e"
CITATION = "aud_reject"
CASSETTE = Path("cassettes") / "test_inner" / "test_cite.yaml"
MAX_RETRIES = 2

# The inner suite's client: a short timeout and fast retries (the SDK's defaults take 30 s to give
# up), otherwise configured the way a user overriding ``citecheck_client`` would.
INNER_CONFTEST = f"""
import os
import pytest
from typesafe_sdk import AsyncTypeSafeClient, RetryPolicy, TypeSafeClient

def options():
    return dict(
        api_key=os.environ.get("TYPESAFE_API_KEY") or "replay-placeholder",
        compression=False,
        timeout=float(os.environ.get("FAULTS_CLIENT_TIMEOUT", "0.3")),
        retry=RetryPolicy(max_retries={MAX_RETRIES}, backoff_initial=0.01, backoff_max=0.02, timeout=10),
    )

@pytest.fixture
def citecheck_client():
    client = TypeSafeClient(**options())
    yield client
    client.close()

@pytest.fixture
def citecheck_async_client():
    return lambda: AsyncTypeSafeClient(**options())  # built, and closed, by each acheck on its own loop
"""

INNER_HEAD = """
import json, pathlib
import pytest
from pytest_citecheck import Source, assert_citations_supported

HERE = pathlib.Path(__file__).parent
SOURCE = Source.from_file(HERE / "rfc7519.txt")
CITATIONS = {c["id"]: c for c in json.loads((HERE / "citations.json").read_text())}
"""

# The two paths a check takes to Jev, each the same one test (and so the same cassette).
PATHS = {
    "sync": f"""
def test_cite():
    assert_citations_supported([CITATIONS[{CITATION!r}]], SOURCE)
""",
    "async": f"""
@pytest.mark.asyncio
async def test_cite(citecheck):
    await citecheck.aassert_supported([CITATIONS[{CITATION!r}]], SOURCE)
""",
}


def _usage() -> dict[str, int]:
    return {"input_tokens": 10, "output_tokens": 4}


def _answer(**overrides: Any) -> dict[str, Any]:
    return {**choice_answer("supports", 0.97), **overrides}


@dataclass(frozen=True)
class Fault:
    """One row of the matrix: what is injected, and what the failed test must say."""

    name: str
    injected: str
    cause: str  # a phrase of the failure message naming the cause
    remedy: str  # a phrase of the failure message naming what to do
    reply: Reply | dict[str, Any] | None = None  # what JevServer answers while recording
    side: str = "server"  # "server": recorded through JevServer; "cassette": replayed from a damaged cassette
    damage: Callable[[Path], None] | None = None  # cassette side: how the recorded cassette is damaged
    replay_args: tuple[str, ...] = ()
    attempts: int = 1  # requests the server must have seen (retried faults: 1 + MAX_RETRIES)
    refused: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _corrupt_yaml(path: Path) -> None:
    path.write_text("citecheck_format: 1\ninteractions: [ {request: unclosed\n  - : :\n", encoding="utf-8")


def _newer_format(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert re.match(r"citecheck_format: \d+\n", text)
    path.write_text(re.sub(r"^citecheck_format: \d+\n", "citecheck_format: 99\n", text), encoding="utf-8")


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (old, text)
    path.write_text(text.replace(old, new), encoding="utf-8")


def _flip_the_answer(path: Path) -> None:
    """A consistent hand edit: choice, probabilities and confidence all say "contradicts" now."""
    text = path.read_text(encoding="utf-8")
    answer = re.search(r'( *)"relation": \{\n.*?\n\1\}', text[text.index("\n  response:") :], re.S)
    assert answer is not None, text
    flipped = (
        answer.group(0)
        .replace('"choice": "supports"', '"choice": "contradicts"')
        .replace('"contradicts": 0.02', '"contradicts": @')
        .replace('"supports": 0.96', '"supports": 0.02')
        .replace('"contradicts": @', '"contradicts": 0.96')
    )
    assert '"contradicts": 0.96' in flipped and '"choice": "contradicts"' in flipped, flipped
    path.write_text(text.replace(answer.group(0), flipped), encoding="utf-8")


def _garbage_body(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    damaged = re.sub(r"(\n    body:\n      string: )\|\n(?:        .*\n)+", r"\1'<html>garbage</html>'\n", text)
    assert damaged != text
    path.write_text(damaged, encoding="utf-8")


def _stored_status(code: int, message: str) -> Callable[[Path], None]:
    return lambda path: _edit(path, "code: 200\n      message: OK", f"code: {code}\n      message: {message}")


def _cut_at_a_line(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-10]), encoding="utf-8")  # inside the response's JSON body


def _cut_mid_structure(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: text.index("\n    headers:") + 1], encoding="utf-8")  # the request's headers and all after


def _cut_before_digest(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: text.rindex("\n  digest: ") + 1], encoding="utf-8")  # the digest line and all after


def _cut_after_interaction(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: text.index("\n", text.rindex("\n  digest: ") + 1) + 1], encoding="utf-8")  # its end line


def _not_utf8(path: Path) -> None:
    data = path.read_bytes()
    assert data.count(b"audience list") == 1
    path.write_bytes(data.replace(b"audience list", b"audience \xff\xfelist"))


def _a_directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _delete(path: Path) -> None:
    path.unlink()


FAULTS: tuple[Fault, ...] = (
    Fault(
        "http-401",
        "HTTP 401 (bad API key)",
        "rejected the API key (HTTP 401)",
        "set TYPESAFE_API_KEY to a valid key",
        Reply(401, {"detail": "Invalid API key"}),
    ),
    Fault(
        "http-403",
        "HTTP 403 (key may not use the model)",
        "refused access (HTTP 403)",
        "check that the key may use this model",
        Reply(403, {"detail": "Forbidden"}),
    ),
    Fault(
        "http-422",
        "HTTP 422 (request rejected as invalid)",
        "rejected the request as invalid (HTTP 422",
        "check the model name",
        Reply(422, {"detail": [{"loc": ["body", "model"], "msg": "unknown model", "type": "value_error"}]}),
    ),
    Fault(
        "http-429",
        "HTTP 429 with Retry-After, every attempt, until retries run out",
        "rate-limiting the request (HTTP 429) until retries ran out",
        "lower the request rate or retry later",
        Reply(429, {"detail": "Too many requests"}, {"retry-after": "0"}),
        attempts=1 + MAX_RETRIES,
    ),
    *(
        Fault(
            f"http-{status}",
            f"HTTP {status}{what}, every attempt",
            f"failed to answer (HTTP {status}) after retries",
            "retry later",
            Reply(status, {"detail": detail}),
            attempts=1 + MAX_RETRIES,
        )
        for status, what, detail in ((500, "", "Internal error"), (529, " (overloaded)", "Overloaded"))
    ),
    Fault(
        "timeout",
        "no reply before the client's timeout, every attempt",
        "no answer from TypeSafe before the timeout",
        "raise the client's timeout",
        Reply(200, _answer(), delay=1.0),
        attempts=1 + MAX_RETRIES,
    ),
    Fault(
        "connection-refused",
        "nothing listens at TYPESAFE_BASE_URL",
        "could not connect to TypeSafe",
        "check TYPESAFE_BASE_URL and the network",
        refused=True,
    ),
    Fault(
        "not-json",
        "HTTP 200 whose body is not JSON",
        "response is malformed",
        "report it to TypeSafe if it persists",
        Reply(200, b"<html><body>502 Bad Gateway</body></html>", {"content-type": "text/html"}),
    ),
    Fault(
        "no-relation-answer",
        "HTTP 200 without the `relation` answer",
        "has no 'relation' answer",
        "re-record the citation",
        Reply(200, {"model": "jev-1.13.0", "answers": {}, "usage": _usage()}),
    ),
    Fault(
        "unknown-label",
        "a `relation` choice outside supports/contradicts/says_nothing",
        "unknown label 'maybe'",
        "re-record the citation",
        _answer(choice="maybe"),
    ),
    Fault(
        "probabilities-off",
        "probabilities summing to 1.6",
        "do not form a distribution",
        "re-record the citation",
        _answer(probabilities={"supports": 0.9, "contradicts": 0.4, "says_nothing": 0.3}),
    ),
    Fault(
        "confidence-out-of-range",
        "confidence 1.7",
        "confidence 1.7 is outside 0..1",
        "re-record the citation",
        _answer(confidence=1.7),
    ),
    Fault(
        "confidence-negative",
        "confidence -0.2",
        "confidence -0.2 is outside 0..1",
        "re-record the citation",
        _answer(confidence=-0.2),
    ),
    Fault(
        "cassette-miss",
        "replay (`--citecheck-record-mode=none`) with no cassette",
        "no recorded answer matches this citation's request",
        "record it with a TypeSafe API key",
        side="cassette",
        damage=_delete,
    ),
    Fault(
        "cassette-corrupt-yaml",
        "replay from a cassette that is not valid YAML",
        "cannot read cassette",
        "restore it from version control",
        side="cassette",
        damage=_corrupt_yaml,
    ),
    Fault(
        "cassette-other-model",
        "replay asking `jev-1.13` from a cassette recorded with `jev-1.12`",
        "recorded with model 'jev-1.12'",
        "--citecheck-record-mode=rewrite",
        side="cassette",
        replay_args=("--citecheck-model=jev-1.13",),
    ),
    Fault(
        "cassette-newer-format",
        "replay from a cassette written by a newer cassette format (99)",
        "newer than this pytest-citecheck understands",
        "upgrade pytest-citecheck",
        side="cassette",
        damage=_newer_format,
    ),
    Fault(
        "choice-not-argmax",
        "a `relation` choice that is not the label its probabilities put highest",
        "answer contradicts itself: it chose 'supports', but its probabilities put 'contradicts' highest",
        "re-record the citation",
        _answer(probabilities={"supports": 0.02, "contradicts": 0.96, "says_nothing": 0.02}, confidence=0.94),
    ),
    Fault(
        "confidence-not-from-probabilities",
        "confidence 0.99 over probabilities 0.34/0.33/0.33",
        "its confidence 0.99 does not follow from its probabilities",
        "re-record the citation",
        _answer(probabilities={"supports": 0.34, "contradicts": 0.33, "says_nothing": 0.33}, confidence=0.99),
    ),
    Fault(
        "nested-too-deep",
        "HTTP 200 whose JSON body is nested 200,000 deep",
        "response is malformed (its JSON is nested too deeply",
        "report it to TypeSafe if it persists",
        Reply(200, b"[" * 200_000 + b"]" * 200_000),
    ),
    Fault(
        "garbage-gzip",
        "HTTP 200 with `Content-Encoding: gzip` and a body that is not gzip",
        "response could not be decoded (Content-Encoding",
        "a proxy between you and TypeSafe may be altering responses",
        Reply(200, b"this is not gzip at all", {"content-encoding": "gzip"}),
        attempts=1 + MAX_RETRIES,  # the SDK retries it as a connection error
    ),
    Fault(
        "cassette-hand-edited",
        "replay from a cassette whose answer was edited consistently (choice, probabilities, confidence)",
        "does not match its digest: edited by hand?",
        "re-record with TYPESAFE_API_KEY=...",
        side="cassette",
        damage=_flip_the_answer,
    ),
    Fault(
        "cassette-garbage-body",
        "replay from a cassette whose recorded response body is not JSON",
        "its response body is not JSON",
        "restore it from version control",
        side="cassette",
        damage=_garbage_body,
    ),
    Fault(
        "cassette-stored-500",
        "replay from a cassette whose recorded response is an HTTP 500",
        "holds an HTTP 500 response",
        "restore it from version control",
        side="cassette",
        damage=_stored_status(500, "Internal Server Error"),
    ),
    Fault(
        "cassette-stored-302",
        "replay from a cassette whose recorded response is an HTTP 302",
        "holds an HTTP 302 response",
        "restore it from version control",
        side="cassette",
        damage=_stored_status(302, "Found"),
    ),
    Fault(
        "cassette-cut-at-a-line",
        "replay from a cassette cut short at a line boundary (inside a body)",
        "the file ends early, inside interaction 1",
        "restore it from version control",
        side="cassette",
        damage=_cut_at_a_line,
    ),
    Fault(
        "cassette-cut-mid-structure",
        "replay from a cassette cut short inside a request (YAML still parses)",
        "the file ends early",
        "restore it from version control",
        side="cassette",
        damage=_cut_mid_structure,
    ),
    Fault(
        "cassette-cut-before-its-digest",
        "replay from a cassette of one interaction cut short just before its digest line",
        "the file ends early, inside interaction 1, before its digest",
        "restore it from version control (git checkout --",
        side="cassette",
        damage=_cut_before_digest,
    ),
    Fault(
        "cassette-cut-after-an-interaction",
        "replay from a cassette cut short just after its interaction's digest line (its end line lost)",
        "the file ends early, after interaction 1, where its end line should be",
        "restore it from version control (git checkout --",
        side="cassette",
        damage=_cut_after_interaction,
    ),
    Fault(
        "cassette-not-utf8",
        "replay from a cassette with bytes that are not UTF-8",
        "is not UTF-8 text",
        "restore it from version control",
        side="cassette",
        damage=_not_utf8,
    ),
    Fault(
        "cassette-is-a-directory",
        "replay where the cassette's path is a directory",
        "is a directory, not a cassette file",
        "remove or rename that directory",
        side="cassette",
        damage=_a_directory,
    ),
)


@pytest.fixture(params=list(PATHS))
def inner(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> pytest.Pytester:
    shutil.copy(EXAMPLE / "rfc7519.txt", pytester.path / "rfc7519.txt")
    shutil.copy(EXAMPLE / "citations.json", pytester.path / "citations.json")
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makeconftest(INNER_CONFTEST)
    pytester.makepyfile(test_inner=INNER_HEAD + PATHS[request.param])
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
    return pytester


def _closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _run(inner: pytest.Pytester, *args: str) -> pytest.RunResult:
    # A pinned model, as the docs advise once thresholds are tuned; a later --citecheck-model wins.
    return inner.runpytest(
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
        "--citecheck-json=report.json",
        "--citecheck-model=jev-1.12",
        *args,
    )


def _assert_failed_closed(result: pytest.RunResult, fault: Fault, where: Path) -> None:
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output, output
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == 1 and "passed" not in outcomes, output
    assert result.ret == pytest.ExitCode.TESTS_FAILED, output
    # The message names the citation, the cause and the remedy ...
    assert f"citation {CITATION!r}" in output, output
    assert fault.cause in output, output
    assert fault.remedy in output, output
    # ... and is the whole story: no traceback into the plugin's internals.
    assert "Traceback" not in output and "pytest_citecheck" + "/" not in output, output
    # A citation that was not judged has no verdict: its row is errored and names the cause (it had no
    # row before, and a report read alone looked clean).
    report = json.loads((where / "report.json").read_text())
    rows = [row for row in report["results"] if row["id"] == CITATION]
    assert [(row["verdict"], row["confidence"]) for row in rows] == [("errored", None)], rows
    assert fault.cause in f"{rows[0]['error']['type']}: {rows[0]['error']['message']}", rows


def _record(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, reply: Any, *, refused: bool = False
) -> tuple[pytest.RunResult, JevServer]:
    """Run the check recording, with a JevServer giving every request ``reply`` (``refused``: where nothing listens)."""
    # A copy for each request: JevServer consumes a scripted Reply's headers, and every attempt, on
    # either path, must be sent the same reply.
    # The short timeout is for a reply the server delays on purpose; any other reply gets time to arrive
    # on a loaded machine (a 400,000-character body read past 0.3 s was retried, and sent twice).
    monkeypatch.setenv("FAULTS_CLIENT_TIMEOUT", "0.3" if getattr(reply, "delay", 0) else "10")
    with JevServer(lambda claim, section: copy.deepcopy(reply)) as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", _closed_port_url() if refused else server.url)
        return _run(inner, "--citecheck-record-mode=once"), server


def _replay(inner: pytest.Pytester, offline: Offline, *args: str) -> pytest.RunResult:
    """Replay as CI does: no key, nothing listening."""
    offline()
    return _run(inner, "--citecheck-record-mode=none", *args)


def _assert_verified(result: pytest.RunResult, where: Path) -> None:
    result.assert_outcomes(passed=1)
    report = json.loads((where / "report.json").read_text())
    assert [(row["id"], row["verdict"]) for row in report["results"]] == [(CITATION, "verified")]


def _record_undamaged(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """Record the check with Jev answering well; the control: it passes. Returns the cassette it wrote."""
    result, _ = _record(inner, monkeypatch, ("supports", 0.97))
    _assert_verified(result, inner.path)
    return (inner.path / CASSETTE).read_bytes()


@pytest.fixture(scope="module")
def undamaged_cassettes() -> dict[str, bytes]:
    """Each path's undamaged cassette, by path: recorded once per module (and xdist worker), not once per fault."""
    return {}


@pytest.fixture
def undamaged_cassette(
    inner: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    undamaged_cassettes: dict[str, bytes],
) -> Path:
    """This path's undamaged cassette, in the inner directory: recorded by the first case that asks, copied after."""
    path = request.node.callspec.params["inner"]
    if path not in undamaged_cassettes:
        undamaged_cassettes[path] = _record_undamaged(inner, monkeypatch)
        (inner.path / "report.json").unlink()  # the replay under test writes its own
    cassette = inner.path / CASSETTE
    cassette.parent.mkdir(parents=True, exist_ok=True)
    cassette.write_bytes(undamaged_cassettes[path])
    return cassette


@pytest.mark.parametrize("fault", [f for f in FAULTS if f.side == "server"], ids=lambda f: f.name)
def test_a_server_fault_fails_the_test(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, fault: Fault) -> None:
    result, server = _record(inner, monkeypatch, fault.reply, refused=fault.refused)
    _assert_failed_closed(result, fault, inner.path)
    assert len(server.systemone_requests) == (0 if fault.refused else fault.attempts)
    # A fault is never recorded as if it were Jev's answer: only accepted answers are written, so
    # the next recording asks again instead of replaying it forever.
    cassette = inner.path / CASSETTE
    assert not cassette.exists(), cassette.read_text()


@pytest.mark.parametrize("fault", [f for f in FAULTS if f.side == "cassette"], ids=lambda f: f.name)
def test_a_cassette_fault_fails_the_replay(
    inner: pytest.Pytester, offline: Offline, undamaged_cassette: Path, fault: Fault
) -> None:
    if fault.damage is not None:
        fault.damage(undamaged_cassette)
    result = _replay(inner, offline, *fault.replay_args)
    _assert_failed_closed(result, fault, inner.path)


def test_without_a_fault_the_same_check_passes(
    inner: pytest.Pytester, offline: Offline, undamaged_cassette: Path
) -> None:
    """The control for the matrix: the harness can see a pass, so the failures above are the faults'.

    Recorded through JevServer as the server faults are (``undamaged_cassette`` asserts that run
    passed, the first time it records each path), and replayed from the undamaged cassette as the
    cassette faults are, the same check passes, with its verdict in the report.
    """
    _assert_verified(_replay(inner, offline), inner.path)


# --- the table in docs/reliability.md -------------------------------------------------------------

TABLE_START = "<!-- fault-matrix: generated by `python tests/judge/test_faults.py`; do not edit by hand -->"
TABLE_END = "<!-- end fault-matrix -->"


def matrix_table() -> str:
    """The fault matrix as Markdown: one row per parametrised case of the tests above (each run on every path)."""
    lines = [
        f"Every row runs on both paths ({', '.join(f'`{path}`' for path in PATHS)}): `assert_citations_supported` "
        "(the sync client, on threads) and `await citecheck.aassert_supported` (the async client, in tasks).",
        "",
        "| fault | side | injected | outcome | the message says (cause) | the message says (remedy) |",
        "|---|---|---|---|---|---|",
    ]
    for fault in FAULTS:
        side = "cassette (replay)" if fault.side == "cassette" else "Jev API (record)"
        if fault.attempts > 1:
            side += f", {fault.attempts} attempts"
        lines.append(
            f"| `{fault.name}` | {side} | {fault.injected} | test fails | …{fault.cause}… | …{fault.remedy}… |"
        )
    return "\n".join(lines) + "\n"


def test_reliability_doc_matches_the_matrix() -> None:
    text = RELIABILITY_DOC.read_text(encoding="utf-8")
    start, end = text.index(TABLE_START) + len(TABLE_START), text.index(TABLE_END)
    assert text[start:end].strip() == matrix_table().strip(), (
        "regenerate the table: python tests/judge/test_faults.py --write"
    )


def write_doc() -> None:
    text = RELIABILITY_DOC.read_text(encoding="utf-8")
    start, end = text.index(TABLE_START) + len(TABLE_START), text.index(TABLE_END)
    RELIABILITY_DOC.write_text(text[:start] + "\n" + matrix_table() + text[end:], encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_doc()
    else:
        print(matrix_table(), end="")


@pytest.mark.parametrize(
    ("error", "cause"),
    [
        ("httpcore2.ConnectError('[Errno 111] Connection refused')", "could not connect to TypeSafe (ConnectError"),
        ("httpcore2.ReadTimeout('timed out')", "no answer from TypeSafe before the timeout (ReadTimeout)"),
        ("httpx2.ConnectError('[Errno 111] Connection refused')", "could not connect to TypeSafe (ConnectError"),
        ("httpx2.RemoteProtocolError('peer closed connection')", "could not connect to TypeSafe (RemoteProtocolError"),
    ],
)
def test_a_transport_error_that_escapes_the_sdk_reads_like_the_sdks(error: str, cause: str) -> None:
    """Under vcrpy, the HTTP library's own exception can reach us instead of the SDK's (see judge)."""
    import httpx2

    from pytest_citecheck._judge.failures import translate_error

    translated = translate_error(CITATION, eval(error, {"httpcore2": httpcore2, "httpx2": httpx2}), record_hint="-")
    assert translated is not None, "an untranslated error fails the test as a raw traceback"
    assert translated.citation == CITATION and cause in translated.cause
    assert "TYPESAFE_BASE_URL" in translated.remedy or "timeout" in translated.remedy


def test_a_runtime_error_with_pytest_recordings_words_raised_elsewhere_is_left_alone() -> None:
    """Only the RuntimeError pytest-recording's --block-network raises in its own module is explained:
    the same words raised by the test's own code (or any other RuntimeError) pass through untouched."""
    import socket

    import pytest_recording.network as network

    from pytest_citecheck._judge.failures import translate_error

    try:
        raise RuntimeError("Network is disabled for host '127.0.0.1'")
    except RuntimeError as own:
        assert translate_error(CITATION, own, record_hint="-") is None
    network.block_socket()
    try:
        with socket.socket() as sock, pytest.raises(RuntimeError) as blocked:
            sock.connect(("192.0.2.1", 9))
    finally:
        network.unblock_socket()
    translated = translate_error(CITATION, blocked.value, record_hint="-")
    assert translated is not None and translated.citation == CITATION
    # The host to allow, when pytest-recording's words name it (0.15 does; 0.13 says "Network is disabled").
    host = "192.0.2.1" if "192.0.2.1" in str(blocked.value) else "HOST"
    assert "--block-network" in translated.cause and f"--allowed-hosts={host}" in translated.remedy


CLOSED_CLIENT_CONFTEST = """
import pytest
from typesafe_sdk import TypeSafeClient

@pytest.fixture
def citecheck_client():
    with TypeSafeClient(api_key="replay-placeholder", compression=False) as client:
        return client  # returned from inside the with block: closed before the test uses it
"""


@pytest.mark.parametrize("mode", ["none", "once"])
def test_a_closed_citecheck_client_fails_naming_the_citation_and_the_fix(pytester: pytest.Pytester, mode: str) -> None:
    """hunt-replay F3: a ``citecheck_client`` fixture that returned its client from inside a ``with`` block
    failed the test with httpx2's raw ``RuntimeError`` and a traceback into httpx2, naming no citation."""
    shutil.copy(EXAMPLE / "rfc7519.txt", pytester.path / "rfc7519.txt")
    shutil.copy(EXAMPLE / "citations.json", pytester.path / "citations.json")
    pytester.makeini("[pytest]\ncitecheck_model = jev-1.12\n")
    pytester.makeconftest(CLOSED_CLIENT_CONFTEST)
    pytester.makepyfile(test_inner=INNER_HEAD + PATHS["sync"])
    result = pytester.runpytest_subprocess(f"--citecheck-record-mode={mode}", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    output = " ".join(result.stdout.str().split())
    assert "Traceback" not in output and "INTERNALERROR" not in output
    assert f"citation '{CITATION}': the TypeSafe client it was asked through is closed (Cannot send a request" in output
    assert "-> give pytest-citecheck a client that is open while the test checks" in output
    assert not (pytester.path / CASSETTE).exists()


def test_a_runtime_error_raised_elsewhere_is_not_called_a_closed_client() -> None:
    """Only httpx2's own refusal is read as a closed client: the same words from anywhere else pass through."""
    from pytest_citecheck._judge.failures import translate_error

    try:
        raise RuntimeError("Cannot send a request, as the client has been closed.")
    except RuntimeError as own:
        assert translate_error(CITATION, own, record_hint="-") is None
