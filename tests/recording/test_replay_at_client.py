"""Replay answers the SDK's own call: inside its send, outside its retry loop, or else at ``Client.request``
(``_recording.seams``; ``replay.Recording._sync_sdk_send`` and ``_answer_at_client``).

The answer must be the one the transports would give, whatever client the user configured: one with
a transport of its own is answered from the cassette, never sent; one with event hooks goes the long
way, so its hooks still see each request and answer; a call that is not a TypeSafe request passes
through; and the client classes are left as they were.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from pytest_citecheck._recording.replay import Recording, ReplayMiss
from pytest_citecheck._recording.responses import Recorded

SUITE = """
from cookbook import SOURCE, pick
from pytest_citecheck import assert_citations_supported

def test_cite():
    assert_citations_supported(pick("epoch_seconds", "aud_reject", "clock_skew"), SOURCE)
"""

ASYNC_SUITE = """
import anyio
from cookbook import SOURCE, pick

def test_cite(citecheck):
    anyio.run(citecheck.aassert_supported, pick("epoch_seconds", "aud_reject", "clock_skew"), SOURCE)
"""

# A user's client whose transport is a class of its own (not one of httpx2's, which replay also
# patches): anything that reaches it is sent, and the run says so.
OWN_TRANSPORT_CONFTEST = """
import httpx2, pytest
from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient

SENT = []

class CompanyProxy(httpx2.BaseTransport):
    def handle_request(self, request):
        SENT.append(request.url.path)
        raise httpx2.ConnectError("the company proxy is not reachable from CI")

class AsyncCompanyProxy(httpx2.AsyncBaseTransport):
    async def handle_async_request(self, request):
        SENT.append(request.url.path)
        raise httpx2.ConnectError("the company proxy is not reachable from CI")

@pytest.fixture
def citecheck_client():
    with TypeSafeClient(api_key="sk-placeholder", compression=False, transport=CompanyProxy()) as client:
        yield client

@pytest.fixture
def citecheck_async_client():
    return lambda: AsyncTypeSafeClient(api_key="sk-placeholder", compression=False, transport=AsyncCompanyProxy())

def pytest_sessionfinish(session):
    print("\\nSENT:", len(SENT))
"""

# A user's client with event hooks (logging each request and answer, say): they run on replay too.
HOOKED_CONFTEST = """
import httpx2, pytest
from typesafe_sdk import TypeSafeClient

SEEN = []

@pytest.fixture
def citecheck_client():
    hooks = {
        "request": [lambda request: SEEN.append("request " + request.url.path)],
        "response": [lambda response: SEEN.append(f"response {response.status_code}")],
    }
    with httpx2.Client(event_hooks=hooks) as http_client:
        with TypeSafeClient(api_key="sk-placeholder", compression=False, http_client=http_client) as client:
            yield client

def pytest_sessionfinish(session):
    print("\\nSEEN:", ",".join(SEEN))
"""


# Both at once: a company proxy's transport and event hooks (hunt-replay: such a client went the long way,
# through httpx2 to its own transport, which sent the request and answered it in record mode none).
HOOKED_OWN_TRANSPORT_CONFTEST = (
    OWN_TRANSPORT_CONFTEST.replace(
        "transport=CompanyProxy())",
        "http_client=httpx2.Client(transport=CompanyProxy(), event_hooks={'request': [lambda r: SEEN.append(1)]}))",
    )
    .replace(
        "transport=AsyncCompanyProxy())",
        "http_client=httpx2.AsyncClient(transport=AsyncCompanyProxy(), event_hooks={'request': [hook]}))",
    )
    .replace("SENT = []", "SENT = []\nSEEN = []\n\nasync def hook(request):\n    SEEN.append(1)")
    .replace('print("\\nSENT:", len(SENT))', 'print("\\nSENT:", len(SENT), "SEEN:", len(SEEN))')
)


def _replaying_with(suite: pytest.Pytester, jev_server, offline, module: str, conftest: str) -> None:
    """``module`` recorded against the loopback server with the default client, then offline, the
    server stopped, and the user's client (``conftest``) in place: what every test here replays with."""
    suite.makepyfile(test_app=module)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    offline()
    jev_server.stop()
    suite.makeconftest(conftest)


@pytest.mark.parametrize("module", [SUITE, ASYNC_SUITE], ids=["sync", "async"])
def test_a_users_client_with_a_transport_of_its_own_is_answered_from_the_cassette(
    suite: pytest.Pytester, jev_server, offline, module: str
) -> None:
    _replaying_with(suite, jev_server, offline, module, OWN_TRANSPORT_CONFTEST)
    result = suite.runpytest("--citecheck-record-mode=none", "-s", "--citecheck-json=report.json")
    result.assert_outcomes(passed=1)
    assert "SENT: 0" in result.stdout.str()
    rows = json.loads((suite.path / "report.json").read_text())["results"]
    assert [(row["id"], row["verdict"]) for row in rows] == [
        ("epoch_seconds", "verified"),
        ("aud_reject", "verified"),
        ("clock_skew", "verified"),
    ]


@pytest.mark.parametrize("module", [SUITE, ASYNC_SUITE], ids=["sync", "async"])
def test_a_users_client_with_a_transport_of_its_own_and_event_hooks_is_answered_from_the_cassette(
    suite: pytest.Pytester, jev_server, offline, module: str
) -> None:
    """The hooks see each request, the transport none: nothing is sent, and a changed claim is a miss."""
    _replaying_with(suite, jev_server, offline, module, HOOKED_OWN_TRANSPORT_CONFTEST)
    result = suite.runpytest("--citecheck-record-mode=none", "-s")
    result.assert_outcomes(passed=1)
    assert "SENT: 0 SEEN: 3" in result.stdout.str()
    suite.makepyfile(test_app=module.replace('pick("epoch_seconds", ', 'pick("epoch_seconds", "duplicate_names", '))
    result = suite.runpytest("--citecheck-record-mode=none", "-s")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*CassetteMissError: citation 'duplicate_names': no recorded answer matches*"])
    assert "SENT: 0" in result.stdout.str()


def test_a_changed_claim_through_a_users_own_transport_is_a_miss_not_a_request(
    suite: pytest.Pytester, jev_server, offline
) -> None:
    _replaying_with(suite, jev_server, offline, SUITE, OWN_TRANSPORT_CONFTEST)
    suite.makepyfile(test_app=SUITE.replace('pick("epoch_seconds", ', 'pick("epoch_seconds", "duplicate_names", '))
    result = suite.runpytest("--citecheck-record-mode=none", "-s")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*CassetteMissError: citation 'duplicate_names': no recorded answer matches*"])
    assert "SENT: 0" in result.stdout.str()


def test_a_users_client_with_event_hooks_sees_each_replayed_request_and_answer(
    suite: pytest.Pytester, jev_server, offline
) -> None:
    _replaying_with(suite, jev_server, offline, SUITE, HOOKED_CONFTEST)
    result = suite.runpytest("--citecheck-record-mode=none", "-s")
    result.assert_outcomes(passed=1)
    assert "SEEN: " + ",".join(["request /v1/systemone", "response 200"] * 3) in result.stdout.str()


class _OwnTransport(httpx2.BaseTransport):
    """A transport class replay does not patch: what reaches it is listed."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        self.sent.append(request.url.path)
        return httpx2.Response(204)


def test_serving_answers_typesafe_calls_at_the_client_passes_others_on_and_restores_the_classes(
    tmp_path: Path,
) -> None:
    recording = Recording.load(tmp_path / "none.yaml")  # no file: a recording of nothing
    before = [dict(cls.__dict__) for cls in (httpx2.Client, httpx2.AsyncClient)]
    transport = _OwnTransport()
    body = b'{"state": {"claim": "c", "section": "s"}}'
    headers = httpx2.Headers({"Content-Type": "application/json"})
    with httpx2.Client(transport=transport) as client, recording.serving():
        with pytest.raises(ReplayMiss):  # the SDK's call: answered here, and there is no recording
            client.request("POST", "http://127.0.0.1:9/v1/systemone", content=body, headers=headers)
        assert client.request("GET", "http://127.0.0.1:9/elsewhere").status_code == 204
        # Not the SDK's call (an option that changes the request): httpx2 builds it, and the recording
        # answers it in place of the client's transport (a class replay does not patch, which would send it).
        with pytest.raises(ReplayMiss):
            client.request("POST", "http://127.0.0.1:9/v1/systemone", content=body, params={"q": "1"})
    assert transport.sent == ["/elsewhere"]
    assert [dict(cls.__dict__) for cls in (httpx2.Client, httpx2.AsyncClient)] == before


def test_an_answer_at_the_client_is_the_recorded_response_read_and_tied_to_its_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the SDK reads of it: status, headers, the body (already read), and the request's method and
    URL (its error messages name them)."""
    recorded = Recorded(
        0,
        {
            "response": {
                "status": {"code": 200, "message": "OK"},
                "headers": {"Content-Type": ["application/json"]},
                "body": {"string": '{"answer": "é"}'},
            }
        },
    )
    recording = Recording.load(tmp_path / "none.yaml")
    asked: list[tuple[str, str, bytes]] = []
    monkeypatch.setattr(recording, "take", lambda *request: asked.append(request) or recorded)
    url = "http://127.0.0.1:9/base/v1/systemone"
    with httpx2.Client(transport=_OwnTransport()) as client, recording.serving():
        for _ in range(2):
            response = client.request(
                "POST", url, content=b'{"b": 1, "a": 2}', headers=httpx2.Headers({"Content-Type": "application/json"})
            )
            assert (response.status_code, response.reason_phrase, response.headers["content-type"]) == (
                200,
                "OK",
                "application/json",
            )
            assert response.content == '{"answer": "é"}'.encode()
            assert (response.request.method, str(response.request.url)) == ("POST", url)
    assert asked == [("POST", "/v1/systemone", b'{"b": 1, "a": 2}')] * 2


@pytest.mark.parametrize("marked", [True, False], ids=["marked-read", "read-by-httpx2"])
def test_an_answer_at_the_client_is_what_httpx2_builds_from_the_same_content(
    marked: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replay marks a response read rather than reading it through httpx2 (``_mark_read``), only while
    that leaves what ``Response(content=...)`` leaves; with this httpx2 it does (else replay would read
    each response the long way, which this test's second case checks is the same answer)."""
    from pytest_citecheck._recording import responses

    assert responses._reads_as_given(), "this httpx2 keeps other state: replay reads every response the long way"
    if not marked:
        monkeypatch.setattr(responses, "_reads_as_given", lambda: False)
    body = '{"answers": {"relation": {"choice": "supports", "confidence": 0.93}}, "note": "é"}'
    recorded = Recorded(
        0,
        {
            "response": {
                "status": {"code": 200, "message": "OK"},
                "headers": {"Content-Type": ["application/json"]},
                "body": {"string": body},
            }
        },
    )
    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/systemone")
    expected = httpx2.Response(
        200,
        headers={"Content-Type": "application/json"},
        content=body.encode(),
        request=request,
        extensions={"reason_phrase": b"OK"},
    )
    answer = responses.read_response(recorded, request)
    for name in ("status_code", "reason_phrase", "content", "text", "encoding", "is_closed", "is_stream_consumed"):
        assert getattr(answer, name) == getattr(expected, name), name
    assert answer.headers.multi_items() == expected.headers.multi_items()
    assert answer.json() == expected.json()
    assert answer.read() == body.encode()
    assert b"".join(answer.iter_bytes()) == body.encode()
    assert answer.request is request
    answer.close()  # as the SDK may: a read response closes without error


# Counts every entry into tenacity's retry loop, the SDK's (``typesafe_sdk._core.transport.send``) included.
RETRY_LOOPS_CONFTEST = """
import tenacity

LOOPS = []
for retrying in (tenacity.Retrying, tenacity.AsyncRetrying):
    def counted(self, *args, _original=retrying.__call__, **kwargs):
        LOOPS.append(1)
        return _original(self, *args, **kwargs)
    retrying.__call__ = counted

def pytest_sessionfinish(session):
    print("\\nRETRY LOOPS:", len(LOOPS))
"""


@pytest.mark.parametrize("module", [SUITE, ASYNC_SUITE], ids=["sync", "async"])
def test_a_replayed_request_is_answered_inside_the_sdks_send_without_entering_its_retry_loop(
    suite: pytest.Pytester, jev_server, offline, module: str
) -> None:
    """A recorded answer is a 2xx, never retried: the loop is skipped (a tenth of a replayed request's cost).
    Recording still goes through it, and a miss still fails its citation."""
    suite.makeconftest(RETRY_LOOPS_CONFTEST)
    suite.makepyfile(test_app=module)
    recorded = suite.runpytest("--citecheck-record-mode=once", "-s")
    recorded.assert_outcomes(passed=1)
    assert "RETRY LOOPS: 3" in recorded.stdout.str()
    offline()
    jev_server.stop()
    replayed = suite.runpytest("--citecheck-record-mode=none", "-s", "--citecheck-json=report.json")
    replayed.assert_outcomes(passed=1)
    assert "RETRY LOOPS: 0" in replayed.stdout.str()
    rows = json.loads((suite.path / "report.json").read_text())["results"]
    assert [row["verdict"] for row in rows] == ["verified"] * 3
    suite.makepyfile(test_app=module.replace('pick("epoch_seconds", ', 'pick("epoch_seconds", "duplicate_names", '))
    missed = suite.runpytest("--citecheck-record-mode=none", "-s")
    missed.assert_outcomes(failed=1)
    missed.stdout.fnmatch_lines(["*CassetteMissError: citation 'duplicate_names': no recorded answer matches*"])


def test_serving_puts_the_sdks_send_back_and_without_that_seam_answers_at_the_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK's modules are left as found; an SDK without ``RequestState`` or its send (another series)
    is answered at ``Client.request`` as before, never sent."""
    from typesafe_sdk import Choice, TypeSafeClient
    from typesafe_sdk._core.client.aio import client as aio_client
    from typesafe_sdk._core.client.sync import client as sync_client

    from pytest_citecheck._recording import replay

    before = (sync_client.send, aio_client.send_async)
    question = {"relation": Choice(instructions="How?", criteria={"yes": "it does", "no": "it does not"})}
    recording = Recording.load(tmp_path / "none.yaml")
    transport = _OwnTransport()
    with TypeSafeClient(api_key="sk-placeholder", compression=False, transport=transport) as client:
        with recording.serving():
            assert sync_client.send is not before[0] and aio_client.send_async is not before[1]
            with pytest.raises(ReplayMiss):
                client.system_one(state={"claim": "c", "section": "s"}, questions=question)
        assert (sync_client.send, aio_client.send_async) == before

        class CompanyClient(httpx2.Client):  # a subclass's own request runs: answered there, not in the SDK
            def request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
                requested.append(args[1])
                return super().request(*args, **kwargs)

        requested: list[str] = []
        with TypeSafeClient(
            api_key="sk-placeholder", compression=False, http_client=CompanyClient(transport=transport)
        ) as own:
            with recording.serving(), pytest.raises(ReplayMiss):
                own.system_one(state={"claim": "c", "section": "s"}, questions=question)
        assert [url.rsplit("/", 1)[-1] for url in requested] == ["systemone"]
        monkeypatch.setattr(replay, "sdk_sends", lambda: (None, ()))
        with recording.serving():
            assert (sync_client.send, aio_client.send_async) == before
            with pytest.raises(ReplayMiss):
                client.system_one(state={"claim": "c", "section": "s"}, questions=question)
    assert transport.sent == []
