"""Writing a cassette without PyYAML's emitter (``_recording.layout.write_layout``): PyYAML's very text, or nothing.

The fast writer must never write a file differently from what PyYAML writes for the same data
(``CassetteSerializer`` with its own dumper): for data in the layout it gives the same text, byte for
byte, and for anything else it gives None and PyYAML writes it, as before.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from support import recorded_interaction

from pytest_citecheck._recording import cassette_file
from pytest_citecheck._recording.cassette_file import CassetteSerializer, read_cassette_text, read_checked
from pytest_citecheck._recording.layout import END_KEY, END_VALUE, write_layout


def _by_pyyaml(cassette: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> str:
    with monkeypatch.context() as patched:
        patched.setattr(cassette_file, "write_layout", lambda data: None)
        return CassetteSerializer.serialize(copy.deepcopy(cassette))


def _written_as_pyyaml_writes(cassette: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> bool:
    """The serializer wrote what PyYAML writes; True when the fast writer wrote it."""
    calls: list[bool] = []
    real = cassette_file.write_layout

    def counted(data: dict[str, Any]) -> str | None:
        text = real(data)
        calls.append(text is not None)
        return text

    with monkeypatch.context() as patched:
        patched.setattr(cassette_file, "write_layout", counted)
        ours = CassetteSerializer.serialize(copy.deepcopy(cassette))
    assert ours == _by_pyyaml(cassette, monkeypatch)
    return calls == [True]


def test_a_recording_is_written_byte_for_byte_as_pyyaml_writes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = [("The fee is 5%.", "1. Fees\n\n  The fee is 5% of the total."), ("Ça coûte 5 €", '第1条 料金 "quoted" \\')]
    cassette = {"version": 1, "interactions": [recorded_interaction(claim, section) for claim, section in pairs]}
    assert _written_as_pyyaml_writes(cassette, monkeypatch)


def test_the_cassettes_in_the_repository_are_written_again_as_they_are(pytestconfig: pytest.Config) -> None:
    paths = sorted(pytestconfig.rootpath.glob("examples/**/*.yaml"))
    assert paths
    for path in paths:
        text = read_cassette_text(path)
        assert text is not None
        data = read_checked(text)[0]
        assert write_layout(data) == text, path


def test_any_claim_and_section_is_written_as_pyyaml_writes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.tuples(st.text(max_size=40), st.text(max_size=200)), min_size=1, max_size=3, unique=True))
    def agrees(pairs: list[tuple[str, str]]) -> None:
        cassette = {"version": 1, "interactions": [recorded_interaction(claim, section) for claim, section in pairs]}
        fast = _written_as_pyyaml_writes(cassette, monkeypatch)
        # JSON escapes the control characters; what it leaves as it is, YAML writes as plain text.
        if all(character.isprintable() or character < " " for pair in pairs for character in "".join(pair)):
            assert fast

    agrees()


def _edited(edit: str) -> dict[str, Any]:
    """A cassette (as the serializer is given it) with one thing PyYAML writes another way, or that is not the layout."""
    interaction = recorded_interaction("The fee is 5%.", "Fees")
    request, response = interaction["request"], interaction["response"]
    if edit == "trailing space":
        request["body"] = "model   \njev\n"
    elif edit == "not JSON, one line":
        request["body"] = "model=jev"
    elif edit == "not JSON, several lines":
        request["body"] = "model\n  jev\n"
    elif edit == "status 404":
        response["status"] = {"code": 404, "message": "Not Found"}
    elif edit == "status true":
        response["status"]["code"] = True
    elif edit == "another header":
        response["headers"]["x-request-id"] = ["abc"]
    elif edit == "two content types":
        response["headers"]["content-type"] = ["application/json", "text/plain"]
    elif edit == "headers in another order":
        request["headers"] = {"content-type": ["application/json"], "accept": ["*/*"]}
    elif edit == "another uri":
        request["uri"] = "https://example.com/v1/systemone"
    elif edit == "answer not JSON":
        response["body"]["string"] = "  leading space\n"
    elif edit == "tab":
        request["body"] = json.dumps({"state": {"claim": "a\tb"}}).replace("\\t", "\t")
    elif edit == "bytes body":
        request["body"] = b'{"model": "jev"}'
    return {"version": 1, "interactions": [interaction]}


@pytest.mark.parametrize(
    ("edit", "fast"),
    [
        ("trailing space", False),
        ("not JSON, one line", False),
        ("not JSON, several lines", True),  # a literal block, as PyYAML writes it
        ("status 404", False),
        ("status true", False),
        ("another header", False),
        ("two content types", False),
        ("headers in another order", False),
        ("another uri", False),
        ("answer not JSON", False),
        ("tab", False),
        ("bytes body", True),  # JSON: pretty-printed as text first
    ],
)
def test_anything_else_is_left_to_pyyaml(edit: str, fast: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _written_as_pyyaml_writes(_edited(edit), monkeypatch) is fast


@pytest.mark.parametrize(
    "change",
    [
        lambda data: data.update(version=True),
        lambda data: data.update(version=2),
        lambda data: data.update(citecheck_format=2),
        lambda data: data.update(citecheck_format=4),
        lambda data: data.pop(END_KEY),
        lambda data: data.update({END_KEY: END_VALUE[:-1]}),
        lambda data: data.update(extra="x"),
        lambda data: data["interactions"][0].update(recorded_at="2020-01-01"),
        lambda data: data["interactions"][0]["request"].pop("headers"),
        lambda data: data["interactions"][0]["response"]["body"].update(encoding="utf-8"),
        lambda data: data["interactions"][0].update(digest=1),
        lambda data: data["interactions"][0]["request"].update(method="PO ST"),
        lambda data: data["interactions"][0]["request"].update(body="{\n\n}\n"),
        lambda data: data["interactions"][0]["request"].update(body="{\n}"),
        lambda data: data["interactions"][0]["request"].update(body="{\n}\n\n"),
        lambda data: data["interactions"][0]["request"].update(body=" {\n}\n"),
        lambda data: data["interactions"][0]["request"].update(body="{\n}\u2028\n"),
    ],
)
def test_data_not_in_the_layout_is_never_written_fast(change: Any) -> None:
    text = read_cassette_text(_example_cassette())
    assert text is not None
    data = read_checked(text)[0]
    assert write_layout(copy.deepcopy(data)) == text
    change(data)
    assert write_layout(data) is None


def _example_cassette() -> Any:
    from pathlib import Path

    return next(iter(sorted((Path(__file__).parents[2] / "examples").glob("**/*.yaml"))))
