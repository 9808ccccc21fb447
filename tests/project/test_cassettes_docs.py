"""docs/cassettes.md covers every recording feature with the commands a user types."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_citecheck._cli import COMMANDS
from pytest_citecheck._options import OPTIONS_BY_NAME

CASSETTES = Path(__file__).resolve().parents[2] / "docs" / "cassettes.md"


@pytest.mark.parametrize("name", ["unused", "strict_model", "drift_tolerance", "fail_on_flip", "concurrency"])
def test_each_recording_option_is_explained_with_its_flag(name):
    assert OPTIONS_BY_NAME[name].flag in CASSETTES.read_text()


@pytest.mark.parametrize(
    "usage",
    [
        "--citecheck-record-mode=rewrite",
        "--citecheck-unused=delete",
        "citecheck merge shard-1.json shard-2.json -o report.json",
        "pytest -n 4",
        "@pytest.mark.vcr",
        "<test>.citecheck.yaml",
        "await citecheck.acheck(",
        "await citecheck.aassert_supported(",
        "citecheck_async_client",
        "ModelPinWarning",
        "`previous`",
        "citecheck serve --answers answers.json --port 8765 --require-real-key",
        "`python -m pytest_citecheck.testing` is the same command",
        "`--latency MS`",
        "--citecheck-cassette-dir=rehearsal-cassettes",
    ],
)
def test_the_commands_and_names_a_user_needs_are_there(usage):
    assert usage in CASSETTES.read_text()


def test_the_merge_command_is_registered():
    assert COMMANDS["merge"][0] == "pytest_citecheck._report.shards:main"
    assert COMMANDS["serve"][0] == "pytest_citecheck.testing.serve:main"


def test_the_rehearsal_answers_table_in_the_docs_is_one_the_server_accepts(tmp_path):
    from pytest_citecheck.testing import load_answers

    text = CASSETTES.read_text()
    section = text[text.index("## Rehearse recording without a key") :]
    table = section[section.index("```json\n") + len("```json\n") : section.index("\n```", section.index("```json"))]
    (tmp_path / "answers.json").write_text(table)
    answers = load_answers(str(tmp_path / "answers.json"))
    assert answers["*"]["choice"] == "supports"
    assert answers["JWTs that carry personal data must be encrypted, not just signed."]["confidence"] == 0.28
