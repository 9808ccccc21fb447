"""The shortcuts replay takes reading a cassette and a request give what the long way gives.

``read_cassette_text`` tells a blank file without copying it, ``replay_key`` parses a body without
``parsed_body``'s cache, ``method_and_endpoint`` remembers its answers, and replay reads a
request's headers from their raw bytes: each must agree with what it stands for.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from pytest_citecheck import _secrets
from pytest_citecheck._recording.cassette_file import read_cassette_text
from pytest_citecheck._recording.matching import compact_json, method_and_endpoint, parsed_body, replay_key
from pytest_citecheck._recording.redaction import remember_header_pairs
from pytest_citecheck._recording.replay import Recording, ReplayMiss
from pytest_citecheck._recording.seams import header_pairs, scrubbed


@pytest.mark.parametrize("text", ["", " ", "\n\n", " \t\n", "\u3000\n\u2028"], ids=repr)
def test_a_blank_cassette_file_holds_no_recording(tmp_path: Path, text: str) -> None:
    path = tmp_path / "blank.yaml"
    path.write_text(text, encoding="utf-8")
    assert read_cassette_text(path) is None


@pytest.mark.parametrize("text", ["x", "\n x\n", "\u3000é"], ids=repr)
def test_a_cassette_file_with_any_other_character_is_read_whole(tmp_path: Path, text: str) -> None:
    path = tmp_path / "some.yaml"
    path.write_text(text, encoding="utf-8")
    assert read_cassette_text(path) == text


def _by_the_definition(body: Any) -> str:
    """``replay_key`` as documented: ``compact_json`` of the parsed body, the text of a JSON string, else ""."""
    parsed = parsed_body(body)
    if isinstance(parsed, (dict, list)):
        return compact_json(parsed)
    return parsed if isinstance(parsed, str) else ""


@pytest.mark.parametrize(
    "body",
    [
        b'{"state": {"claim": "c", "section": "s\\u00e9"}, "model": "m", "n": [1, 2.5, true, null]}',
        '{"b": 1, "a": {"d": [], "c": {}}}',
        "\ufeff{}".encode("utf-16"),
        b'["x", 1]',
        b'"a JSON string"',
        b"42",
        b"not JSON",
        b"\xff\xfe\x00",
        b"",
        None,
        "[" * 100_000,  # nested too deep: not JSON replay can use
    ],
    ids=lambda body: repr(body)[:40],
)
def test_the_replay_key_of_a_body_is_the_one_its_definition_gives(body: Any) -> None:
    assert replay_key(body) == _by_the_definition(body)


def test_bodies_that_differ_only_in_layout_and_key_order_have_one_key_and_a_changed_claim_another() -> None:
    sent = json.dumps({"state": {"claim": "Tokens expire.", "section": "4.1.4"}, "model": "jev"}).encode()
    stored = json.dumps({"model": "jev", "state": {"section": "4.1.4", "claim": "Tokens expire."}}, indent=2)
    changed = sent.replace(b"expire.", b"expire!")
    assert replay_key(sent) == replay_key(stored) != replay_key(changed)


@pytest.mark.parametrize(
    ("method", "uri", "expected"),
    [
        ("post", "https://api.typesafe.ai/v1/systemone", ("POST", "/v1/systemone")),
        ("POST", "http://127.0.0.1:9/base/v1/systemone", ("POST", "/v1/systemone")),
        ("GET", "/v1/models", ("GET", "/v1/models")),
        ("GET", "https://example.test/elsewhere", ("GET", "/elsewhere")),
    ],
)
def test_the_method_and_endpoint_are_the_same_when_asked_again(
    method: str, uri: str, expected: tuple[str, str]
) -> None:
    assert method_and_endpoint(method, uri) == expected
    assert method_and_endpoint(method, uri) == expected


@pytest.mark.parametrize(
    "value",
    [b"tok-plain-0123456789abcdef", "tok-utf8-é-0123456789abcdef".encode(), b"tok-latin1-\xe9-0123456789abcdef"],
    ids=["ascii", "utf-8", "latin-1"],
)
def test_replay_remembers_the_header_values_httpx2_decodes(monkeypatch: pytest.MonkeyPatch, value: bytes) -> None:
    """Replay decodes the raw header bytes itself, as ``Headers.multi_items`` does (its encoding
    chosen over all of them): the secrets it remembers are the same."""
    monkeypatch.setattr(_secrets, "_known", set())
    monkeypatch.delenv("TYPESAFE_API_KEY", raising=False)
    headers = [(b"X-Key", value), (b"Content-Type", b"application/json")]
    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/systemone", headers=headers, content=b"{}")
    scrubbed(request, request.content)
    by_replay = set(_secrets._known)
    _secrets._known.clear()
    remember_header_pairs(request.headers.multi_items())
    assert by_replay == set(_secrets._known) and len(by_replay) == 1


@pytest.mark.parametrize(
    ("headers", "encoding"),
    [
        ([(b"X-Key", b"tok-plain"), (b"Content-Type", b"application/json")], None),
        ([(b"X-Key", "tok-é".encode()), (b"Accept", b"*/*")], None),
        ([(b"X-Key", b"tok-\xe9"), (b"Accept", b"*/*")], None),
        ([(b"X-Key", b"tok-plain"), (b"Accept", b"*/*")], "iso-8859-1"),
        ([(b"X-Key", b"tok-plain")], "utf-8"),
        # ASCII bytes that another encoding reads otherwise: decoded with the encoding given.
        ([("X-Key".encode("utf-16-le"), "tok".encode("utf-16-le"))], "utf-16-le"),
        ([], None),
    ],
    ids=["ascii", "utf-8", "latin-1", "ascii-given-latin-1", "ascii-given-utf-8", "given-utf-16", "none"],
)
def test_replay_decodes_headers_as_multi_items_does(headers: list[tuple[bytes, bytes]], encoding: str | None) -> None:
    """ASCII headers are decoded without httpx2's pass to pick an encoding; whatever the bytes and the
    encoding a caller gave, the pairs are the ones ``multi_items`` gives, names in the case sent."""
    given = httpx2.Headers(headers)
    if encoding is not None:
        given.encoding = encoding
    pairs = header_pairs(given)
    assert pairs == [(name.decode(given.encoding), value.decode(given.encoding)) for name, value in headers]
    assert [(name.lower(), value) for name, value in pairs] == given.multi_items()


def test_serving_patches_while_any_request_is_in_flight_and_restores_the_classes_after(tmp_path: Path) -> None:
    """Two requests in flight at once share one set of patches; the last one out (even by an error)
    leaves each transport class's own attributes as they were, and a request that is not TypeSafe's
    reaches the transport it was sent to."""
    recording = Recording.load(tmp_path / "none.yaml")  # no file: a recording of nothing
    classes = (httpx2.HTTPTransport, httpx2.AsyncHTTPTransport, httpx2.MockTransport)
    before = [dict(cls.__dict__) for cls in classes]
    sent: list[str] = []
    transport = httpx2.MockTransport(lambda request: sent.append(request.url.path) or httpx2.Response(204))
    with recording.serving():
        patched = httpx2.MockTransport.handle_request
        with recording.serving():
            assert httpx2.MockTransport.handle_request is patched
        assert httpx2.MockTransport.handle_request is patched  # one request still in flight
        assert transport.handle_request(httpx2.Request("GET", "http://127.0.0.1:9/elsewhere")).status_code == 204
        with pytest.raises(ReplayMiss):
            transport.handle_request(httpx2.Request("POST", "http://127.0.0.1:9/v1/systemone", content=b"{}"))
    assert sent == ["/elsewhere"]
    assert [dict(cls.__dict__) for cls in classes] == before
    with pytest.raises(KeyError), recording.serving():
        raise KeyError("the request failed")
    assert [dict(cls.__dict__) for cls in classes] == before
