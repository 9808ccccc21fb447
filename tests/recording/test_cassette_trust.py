"""A cassette is read only when it can be checked, and holds one answer per question.

Issue 24 items 10 and 11, through real pytest runs on the sync and the async path:

- **The digest cannot be switched off.** Flipping a recorded answer, then setting
  ``citecheck_format`` to ``1``, ``true`` or ``-7`` (or deleting it) and deleting the digest lines,
  once made the test pass on the flipped answer. Only the current format is read now: anything
  else, or a missing digest, fails the test with a ``CassetteError`` saying how to re-record.
- **Two recordings of one request** (what a union merge of two branches leaves) once replayed the
  first, with only an "unused" warning. Now a ``CassetteError`` names both interactions and says to
  keep one; and a test that asks the same question twice records it once, and replays it twice.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import Offline

from pytest_citecheck._recording.cassette_file import interaction_digest, read_interactions

SYNC = """
from cookbook import SOURCE
from pytest_citecheck import assert_citations_supported

CITATION = {"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"}

def test_claims():
    assert_citations_supported([dict(CITATION, id=f"aud{n}") for n in range(TIMES)], SOURCE, model="jev-1.12")
"""
ASYNC = """
import pytest
import yaml
from cookbook import SOURCE

CITATION = {"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"}

@pytest.mark.asyncio
async def test_claims(citecheck):
    await citecheck.aassert_supported([dict(CITATION, id=f"aud{n}") for n in range(TIMES)], SOURCE, model="jev-1.12")
"""
PATHS = {"sync": SYNC, "async": ASYNC}
CASSETTE = Path("cassettes") / "test_app" / "test_claims.yaml"
REMEDY = "*-> re-record with TYPESAFE_API_KEY=... pytest 'test_app.py::test_claims' --citecheck-record-mode=rewrite*"


def record(suite: pytest.Pytester, jev_server: Any, path: str, *, times: int = 1) -> Path:
    jev_server.answer = lambda claim, section: ("contradicts", 0.97)
    suite.makepyfile(test_app=PATHS[path].replace("TIMES", str(times)))
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(failed=1)  # recorded: contradicted
    return suite.path / CASSETTE


def flip_to_supports(text: str) -> str:
    """A consistent edit of the answer: choice, probabilities and confidence all say "supports"."""
    head, tail = text.split("\n  response:", 1)
    edited = (
        tail.replace('"choice": "contradicts"', '"choice": "supports"')
        .replace('"contradicts": 0.96', '"contradicts": @')
        .replace('"supports": 0.02', '"supports": 0.96')
        .replace('"contradicts": @', '"contradicts": 0.02')
    )
    assert '"choice": "supports"' in edited and '"supports": 0.96' in edited, edited
    return head + "\n  response:" + edited


def without_digests(text: str) -> str:
    return re.sub(r"\n  digest: sha256:[0-9a-f]+\n", "\n", text)


# --- item 10: only the current format, and every digest, are read -------------------------------


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("line", ["citecheck_format: 1\n", "citecheck_format: true\n", "citecheck_format: -7\n", ""])
def test_a_flipped_answer_with_its_format_changed_and_digests_deleted_fails_the_replay(
    suite: pytest.Pytester, jev_server: Any, offline: Offline, path: str, line: str
) -> None:
    cassette = record(suite, jev_server, path)
    text = cassette.read_text(encoding="utf-8")
    assert text.startswith("citecheck_format: 3\n")
    cassette.write_text(line + without_digests(flip_to_supports(text))[len("citecheck_format: 3\n") :])
    offline()
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    value = line.partition(": ")[2].strip()
    said = (
        f"says citecheck_format: {'True' if value == 'true' else value}" if line else "has no 'citecheck_format' line"
    )
    result.stdout.fnmatch_lines(
        [
            f"*CassetteError: citation 'aud0': cassette *test_claims.yaml: the file {said}; pytest-citecheck reads "
            "only formats 2 and 3, whose interactions carry the digests that show they were not edited*",
            REMEDY,
        ]
    )


@pytest.mark.parametrize("path", PATHS)
def test_a_current_format_file_with_its_digests_deleted_fails_the_replay(
    suite: pytest.Pytester, jev_server: Any, offline: Offline, path: str
) -> None:
    cassette = record(suite, jev_server, path)
    cassette.write_text(without_digests(flip_to_supports(cassette.read_text(encoding="utf-8"))))
    offline()
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*CassetteError: citation 'aud0': *interaction 1 (claim *) has no digest*", REMEDY])


# --- item 11: one recording per request ----------------------------------------------------------


def union_merge(text: str) -> str:
    """The cassette as a union merge of two branches leaves it: the request twice, with two answers, each digested."""
    data = yaml.safe_load(text)
    [interaction] = data["interactions"]
    other = copy.deepcopy(interaction)
    other["response"]["body"]["string"] = flip_to_supports("\n  response:" + other["response"]["body"]["string"])[
        len("\n  response:") :
    ]
    other["digest"] = interaction_digest(other)
    data["interactions"] = [interaction, other]
    return str(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120))


@pytest.mark.parametrize("path", PATHS)
def test_two_recordings_of_one_request_fail_the_replay_naming_both(
    suite: pytest.Pytester, jev_server: Any, offline: Offline, path: str
) -> None:
    cassette = record(suite, jev_server, path)
    merged = union_merge(cassette.read_text(encoding="utf-8"))
    assert merged.count("- request:") == 2 and merged.count("digest: sha256:") == 2
    cassette.write_text(merged)
    offline()
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*CassetteError: citation 'aud0': cannot read cassette *test_claims.yaml: interactions 1 and 2 both "
            "record the request of claim 'A JWT can name its audience.', each with its own answer*",
            "*-> keep one of them: delete interaction 1 or 2 from the file*",
        ]
    )
    assert "unused" not in result.stdout.str().lower()


@pytest.mark.parametrize("path", PATHS)
def test_a_question_asked_twice_is_recorded_once_and_replayed_twice(
    suite: pytest.Pytester, jev_server: Any, offline: Offline, path: str
) -> None:
    cassette = record(suite, jev_server, path, times=2)
    assert len(jev_server.systemone_requests) == 1  # identical requests are sent once per run (_judge.sharing)
    assert len(read_interactions(cassette)) == 1
    offline()
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*contradicted*"])
    assert "CassetteError" not in result.stdout.str() and "unused" not in result.stdout.str().lower()
