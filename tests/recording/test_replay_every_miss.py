"""Replay goes on past a cassette miss: every other citation is judged from the cassette, and every
miss is named once, in one failure (replay-all-misses).

Before, a replayed test whose second claim had changed stopped at that citation: every later citation
got an ``errored`` row "not checked: the check stopped at citation 'late'" although its recording was
in the cassette, and a second changed claim further on went unnamed until the first was re-recorded
(one CI round trip per changed claim). A test that caught the miss then passed with the later
citations' recordings unplayed, so ``--citecheck-unused=delete`` deleted recordings that were still
good. Recording still stops at the first error: an outage would otherwise be sent once per citation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import Offline, failures_section

from pytest_citecheck._recording.cassette_file import read_interactions
from pytest_citecheck.testing import JevServer, Reply

SUITE = """
import contextlib
import os
import pytest
from pytest_citecheck import CassetteMissError, Source, assert_citations_supported

SOURCE = Source(sections={
    "1": "Refunds are granted within 30 days of purchase.",
    "2": "Shipping is free for orders over 50 euros.",
    "3": "Gift cards cannot be exchanged for cash.",
    "4": "Support answers within two working days.",
})
EXTRA = os.environ.get("EXTRA", "")
CITATIONS = [
    {"id": "good", "claim": "Refunds within 30 days.", "quote": "Refunds are granted within 30 days", "section": "1"},
    {"id": "late", "claim": "Free shipping over 50 euros" + EXTRA,
     "quote": "Shipping is free for orders over 50 euros", "section": "2"},
    {"id": "gift", "claim": "Gift cards are not refundable in cash.",
     "quote": "Gift cards cannot be exchanged", "section": "3"},
    {"id": "help", "claim": "Support replies in two working days" + EXTRA,
     "quote": "Support answers within two working days", "section": "4"},
]

def test_four():
    assert_citations_supported(CITATIONS, SOURCE)

def test_caught():
    # Replayed with changed claims, the test expects the miss (and passes): what it left unplayed is unused.
    with pytest.raises(CassetteMissError) if EXTRA else contextlib.nullcontext():
        assert_citations_supported([dict(c, id="c-" + c["id"]) for c in CITATIONS], SOURCE)

@pytest.fixture
def anyio_backend():
    return "asyncio"

@pytest.mark.anyio
async def test_tasks(citecheck):
    await citecheck.aassert_supported([dict(c, id="t-" + c["id"]) for c in CITATIONS], SOURCE)
"""

CHANGED = " (changed after recording)"


def _rows(path: Path) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in json.loads(path.read_text(encoding="utf-8"))["results"]}


@pytest.fixture
def changed(suite: pytest.Pytester, jev_server: JevServer, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The suite recorded, then two claims changed ('late' and 'help') and offline, as CI replays."""
    suite.makepyfile(test_answers=SUITE)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=3)
    monkeypatch.setenv("EXTRA", CHANGED)
    Offline(monkeypatch)()
    return suite


def _assert_every_miss_named(rows: dict[str, dict[str, Any]], prefix: str = "") -> None:
    verdicts = {name: rows[prefix + name]["verdict"] for name in ("good", "late", "gift", "help")}
    # 'gift', after the first miss, is judged from its recording; each changed claim is its own miss.
    assert verdicts == {"good": "verified", "late": "errored", "gift": "verified", "help": "errored"}
    for name in ("late", "help"):
        error = rows[prefix + name]["error"]
        assert error["type"] == "CassetteMissError"
        assert error["message"].startswith(
            f"citation '{prefix}{name}': the cassette holds a recording of this citation"
        )
        assert "not checked" not in error["message"]
    assert "error" not in rows[prefix + "gift"] and rows[prefix + "gift"]["confidence"] is not None


def test_replay_judges_every_citation_and_names_every_miss_once(changed: pytest.Pytester) -> None:
    result = changed.runpytest("--citecheck-record-mode=none", "--citecheck-json=r.json", "-k", "four")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*4 citations checked in 1 test: 2 verified, 2 errored"])
    _assert_every_miss_named(_rows(changed.path / "r.json"))
    failure = failures_section(result.stdout.str())
    assert "CassetteMissError" in failure
    # One failure naming both misses, each with its cause and the command that re-records the test.
    assert "2 citations have no recorded answer in the cassette" in failure
    for name in ("late", "help"):
        assert f"citation '{name}': the cassette holds a recording of this citation" in failure
    assert failure.count("--citecheck-record-mode=rewrite") >= 2
    assert "'gift'" not in failure and "not checked" not in failure


def test_replay_on_threads_goes_on_past_a_miss(changed: pytest.Pytester) -> None:
    # Record mode once with the cassette there replays only, on up to ``concurrency`` threads.
    result = changed.runpytest(
        "--citecheck-record-mode=once", "--citecheck-concurrency=4", "--citecheck-json=r.json", "-k", "four"
    )
    result.assert_outcomes(failed=1)
    _assert_every_miss_named(_rows(changed.path / "r.json"))
    assert "2 citations have no recorded answer in the cassette" in failures_section(result.stdout.str())


def test_an_async_check_names_every_miss_in_its_failure(changed: pytest.Pytester) -> None:
    result = changed.runpytest("--citecheck-record-mode=none", "--citecheck-json=r.json", "-k", "tasks")
    result.assert_outcomes(failed=1)
    _assert_every_miss_named(_rows(changed.path / "r.json"), "t-")
    failure = failures_section(result.stdout.str())
    assert "2 citations have no recorded answer in the cassette" in failure
    assert "citation 't-late'" in failure and "citation 't-help'" in failure


def test_a_test_that_catches_the_miss_leaves_only_the_stale_recordings_unused(changed: pytest.Pytester) -> None:
    cassette = changed.path / "cassettes" / "test_answers" / "test_caught.yaml"
    result = changed.runpytest(
        "--citecheck-record-mode=none", "--citecheck-json=r.json", "--citecheck-unused=delete", "-k", "caught"
    )
    result.assert_outcomes(passed=1)
    report = json.loads((changed.path / "r.json").read_text(encoding="utf-8"))
    # Only the recordings of the two changed claims were not played: 'gift', after the first miss, was.
    unused = sorted(entry["claim"] for entry in report["unused"])
    assert unused == ["Free shipping over 50 euros", "Support replies in two working days"]
    kept = sorted(i["request"]["body"]["state"]["claim"] for i in _bodies(cassette))
    assert kept == ["Gift cards are not refundable in cash.", "Refunds within 30 days."]


def _bodies(path: Path) -> list[dict[str, Any]]:
    interactions = read_interactions(path)
    for interaction in interactions:
        body = interaction["request"]["body"]
        if isinstance(body, str):
            interaction["request"]["body"] = json.loads(body)
    return interactions


def test_recording_still_stops_at_the_first_error(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # An outage while recording: one request is sent, not one per citation.
    suite.makepyfile(test_answers=SUITE)
    with JevServer(lambda claim, section: Reply(400, {"detail": "refused"})) as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        monkeypatch.setenv("TYPESAFE_API_KEY", "ts_test_key_for_outage_0000")
        result = suite.runpytest(
            "--citecheck-record-mode=once", "--citecheck-concurrency=1", "--citecheck-json=r.json", "-k", "four"
        )
        sent = {request.body["state"]["claim"] for request in server.systemone_requests}
    result.assert_outcomes(failed=1)
    assert sent == {"Refunds within 30 days."}
    rows = _rows(suite.path / "r.json")
    stopped = "not checked: the check stopped at citation 'good', whose check raised first"
    assert [rows[name]["error"]["message"] for name in ("late", "gift", "help")] == [stopped] * 3
