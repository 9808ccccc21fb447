"""A replay that misses for some citations and raises something else for another (replay-leftovers-2).

Replaying only, nothing is sent, so the check goes on past every error of ours, not only past a miss:
the test fails once, naming each citation with its cause and remedy, and each citation has its row.
Before, a model mismatch (``strict_model``) or a malformed recorded answer after a miss stopped the
check there: later citations were "not checked", a later miss went unnamed, and when only one miss came
before it the failure named that miss alone (the mismatch only in its row). An invalid citation
(``CitationInputError``) was raised alone: the misses, and the command that re-records them, were not
in the failure at all.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import Offline, failures_section

from pytest_citecheck._recording.cassette_file import interaction_digest, read_interactions, write_interactions
from pytest_citecheck.testing import JevServer

SUITE = """
import os
from pytest_citecheck import Source, assert_citations_supported

SOURCE = Source(sections={
    "1": "Refunds are granted within 30 days of purchase.",
    "2": "Shipping is free for orders over 50 euros.",
    "3": "Gift cards cannot be exchanged for cash.",
    "4": "Support answers within two working days.",
    "5": "Returns need the original receipt.",
})
EXTRA = os.environ.get("EXTRA", "")
ODD = {"id": "odd", "claim": "A receipt is needed for returns.", "quote": "Returns need the original receipt",
       "section": os.environ.get("ODD_SECTION", "5")}
CITATIONS = [
    {"id": "good", "claim": "Refunds within 30 days.", "quote": "Refunds are granted within 30 days", "section": "1"},
    {"id": "late", "claim": "Free shipping over 50 euros" + EXTRA,
     "quote": "Shipping is free for orders over 50 euros", "section": "2"},
    *([ODD] if os.environ.get("ODD") else []),
    {"id": "gift", "claim": "Gift cards are not refundable in cash.",
     "quote": "Gift cards cannot be exchanged", "section": "3"},
    {"id": "help", "claim": "Support replies in two working days" + EXTRA,
     "quote": "Support answers within two working days", "section": "4"},
]

if os.environ.get("ASYNC"):  # the same citations through the async client (acheck), replaying the same cassette
    import pytest

    @pytest.mark.asyncio
    async def test_mixed(citecheck):
        await citecheck.aassert_supported(CITATIONS, SOURCE)
else:
    def test_mixed():
        assert_citations_supported(CITATIONS, SOURCE)
"""

CHANGED = " (changed after recording)"
CASSETTE = Path("cassettes") / "test_mixed" / "test_mixed.yaml"
MODEL = "--citecheck-model=jev-1.12"


def _record(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, model: str, *args: str) -> None:
    with JevServer(model=model) as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        monkeypatch.setenv("TYPESAFE_API_KEY", "ts_test_key_mixed_0000")
        suite.runpytest(*args, MODEL, "-W", "ignore::UserWarning").assert_outcomes(passed=1)


@pytest.fixture
def recorded(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """Five citations recorded by a server answering as the model asked for ('odd' among them)."""
    suite.makepyfile(test_mixed=SUITE)
    monkeypatch.setenv("ODD", "1")
    _record(suite, monkeypatch, "jev-1.12.4", "--citecheck-record-mode=once")
    return suite


def _replay(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str, misses: bool = True
) -> pytest.RunResult:
    """Offline; with ``misses``, 'late' and 'help' changed after recording: two misses around 'odd'."""
    if misses:
        monkeypatch.setenv("EXTRA", CHANGED)
    Offline(monkeypatch)()
    result = suite.runpytest("--citecheck-record-mode=none", MODEL, "--citecheck-json=r.json", *args)
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    result.assert_outcomes(failed=1)
    return result


def _rows(suite: pytest.Pytester) -> dict[str, dict[str, Any]]:
    report = json.loads((suite.path / "r.json").read_text(encoding="utf-8"))
    return {row["id"]: row for row in report["results"]}


def _assert_misses(failure: str, rows: dict[str, dict[str, Any]]) -> None:
    """'late' and 'help' missed, each named in the failure with its cause and the re-record command;
    'good' and 'gift', around them, were judged from the cassette."""
    for name in ("late", "help"):
        assert f"citation '{name}': the cassette holds a recording of this citation" in failure
        assert rows[name]["verdict"] == "errored" and rows[name]["error"]["type"] == "CassetteMissError"
    assert failure.count("--citecheck-record-mode=rewrite") >= 2
    assert rows["good"]["verdict"] == rows["gift"]["verdict"] == "verified"
    assert "not checked" not in failure
    assert all("not checked" not in json.dumps(row) for row in rows.values())


def test_a_model_mismatch_between_two_misses_is_named_with_them(
    recorded: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 'odd' re-recorded from a server answering as another model: a mismatch under strict_model.
    cassette = recorded.path / CASSETTE
    kept = [i for i in read_interactions(cassette) if "receipt" not in i["request"]["body"]]
    write_interactions(cassette, kept)
    _record(recorded, monkeypatch, "jev-1.13.0", "--citecheck-record-mode=new_episodes")
    result = _replay(recorded, monkeypatch, "--citecheck-strict-model")
    failure = failures_section(result.stdout.str())
    rows = _rows(recorded)
    _assert_misses(failure, rows)
    assert "citation 'odd': the answer came from model 'jev-1.13.0', but the test asks for 'jev-1.12'" in failure
    assert "re-record with the model you mean" in failure
    assert rows["odd"]["verdict"] == "errored" and rows["odd"]["error"]["type"] == "ModelMismatchError"


def _malform(cassette: Path, *words: str) -> None:
    """The recorded answers to the requests that name one of ``words`` edited to a label Jev never gives,
    their digests made again (as a tool that re-saves would)."""
    interactions = read_interactions(cassette)
    for interaction in interactions:
        if any(word in interaction["request"]["body"] for word in words):
            body = json.loads(interaction["response"]["body"]["string"])
            body["answers"]["relation"]["choice"] = "maybe"
            interaction["response"]["body"]["string"] = json.dumps(body)
            interaction["digest"] = interaction_digest(interaction)
    write_interactions(cassette, interactions)


@pytest.fixture(params=["sync", "async"])
def through(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The suite's test checks through assert_citations_supported, or through the async client (acheck: tasks,
    not threads), which shares failure() with it and is tested on its own."""
    if request.param == "async":
        monkeypatch.setenv("ASYNC", "1")
    return str(request.param)


@pytest.mark.usefixtures("through")
def test_a_malformed_recorded_answer_between_two_misses_is_named_with_them(
    recorded: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _malform(recorded.path / CASSETTE, "receipt")
    result = _replay(recorded, monkeypatch)
    failure = failures_section(result.stdout.str())
    rows = _rows(recorded)
    _assert_misses(failure, rows)
    assert "citation 'odd':" in failure and "maybe" in failure
    assert rows["odd"]["verdict"] == "errored" and rows["odd"]["error"]["type"] == "JudgeError"


def _assert_named(failure: str, rows: dict[str, dict[str, Any]], names: tuple[str, ...], kind: str) -> None:
    """No miss: the failure names each of ``names`` (every one, not the first alone), whose rows are errored
    ``kind``; the others were judged from the cassette."""
    assert f"{kind}: {len(names)} citations could not be judged" in failure
    for name in names:
        assert f"citation '{name}':" in failure
        assert rows[name]["verdict"] == "errored" and rows[name]["error"]["type"] == kind
    judged = [row for name, row in rows.items() if name not in names]
    assert judged and all(row["verdict"] == "verified" for row in judged)
    assert "not checked" not in failure


@pytest.mark.usefixtures("through")
def test_two_malformed_recorded_answers_and_no_miss_are_both_named(
    recorded: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _malform(recorded.path / CASSETTE, "receipt", "Gift cards")
    failure = failures_section(_replay(recorded, monkeypatch, misses=False).stdout.str())
    _assert_named(failure, _rows(recorded), ("odd", "gift"), "JudgeError")
    assert failure.count("'maybe'") >= 2


def test_two_model_mismatches_and_no_miss_are_both_named(
    recorded: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 'odd' and 'gift' re-recorded from a server answering as another model.
    cassette = recorded.path / CASSETTE
    kept = [i for i in read_interactions(cassette) if not any(w in i["request"]["body"] for w in ("receipt", "Gift"))]
    write_interactions(cassette, kept)
    _record(recorded, monkeypatch, "jev-1.13.0", "--citecheck-record-mode=new_episodes")
    result = _replay(recorded, monkeypatch, "--citecheck-strict-model", misses=False)
    failure = failures_section(result.stdout.str())
    _assert_named(failure, _rows(recorded), ("odd", "gift"), "ModelMismatchError")
    assert failure.count("the answer came from model 'jev-1.13.0', but the test asks for 'jev-1.12'") == 2


def test_an_invalid_citation_and_misses_fail_once_naming_the_field_and_every_miss(
    recorded: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ODD_SECTION", "99")  # a section the source lacks
    result = _replay(recorded, monkeypatch)
    failure = failures_section(result.stdout.str())
    rows = _rows(recorded)
    _assert_misses(failure, rows)
    assert "CitationInputError: citation 'odd', field 'section'" in failure
    assert rows["odd"]["verdict"] == "errored" and rows["odd"]["error"]["type"] == "CitationInputError"
    assert rows["odd"]["status"] == "invalid"


def test_an_invalid_citation_and_one_miss_name_both(recorded: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ODD_SECTION", "99")
    monkeypatch.setenv("EXTRA", CHANGED)
    Offline(monkeypatch)()
    result = recorded.runpytest("--citecheck-record-mode=none", MODEL, "--citecheck-json=r.json", "-k", "mixed")
    result.assert_outcomes(failed=1)
    failure = failures_section(result.stdout.str())
    assert "citation 'odd', field 'section'" in failure
    assert "citation 'late': the cassette holds a recording" in failure
