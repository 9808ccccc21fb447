"""The public API's types: a type checker catches a user's mistakes, and correct code checks clean.

The main test runs ``mypy --strict`` (the ``test`` extra installs it) on a user's test module, as a
user's CI would, and compares the lines it reports with the lines marked ``# error`` below.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import typing
from collections.abc import Callable
from pathlib import Path

import pytest
from typesafe_sdk import AsyncTypeSafeClient, TypeSafeClient

import pytest_citecheck
from pytest_citecheck import CheckOptions, Verdict, plugin
from pytest_citecheck._options import (
    MISATTRIBUTED_POLICIES,
    PER_TEST_OPTIONS,
    RECORD_MODES,
    REVIEW_POLICIES,
    UNUSED_POLICIES,
    MisattributedPolicy,
    RecordMode,
    ReviewPolicy,
    UnusedPolicy,
)
from pytest_citecheck._options.keywords import VerdictName
from pytest_citecheck._sources.formats import FORMATS
from pytest_citecheck._sources.source import BuiltinFormat

USER_MODULE = """
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Unpack

from pydantic import BaseModel

from pytest_citecheck import (
    CheckOptions,
    Checker,
    CitationDict,
    CitationLike,
    CitationResult,
    Corpus,
    Source,
    Verdict,
    assert_citations_supported,
    check_citations,
)

POLICY = "# Refunds\\n\\nRefunds are accepted within 30 days of purchase.\\n"
CITES = [{"id": "window", "claim": "Refunds take 30 days.", "quote": "within 30 days of purchase", "section": "refunds"}]


@dataclass
class Cite:
    id: str
    claim: str
    quote: str | None
    section: str | None


@dataclass
class Answer:
    id: str
    text: str


class CiteModel(BaseModel):
    id: int
    claim: str
    quote: str
    section: str


def test_what_users_write(citecheck: Checker) -> None:
    results: list[CitationResult] = assert_citations_supported(
        CITES, POLICY, auto_accept=0.9, review="fail", fail_on=[Verdict.FABRICATED, "contradicted"], format="markdown"
    )
    check_citations([Cite("a", "c", None, "refunds")], Source.from_text(POLICY, format="markdown"), model="jev-1.13.0")
    check_citations([CiteModel(id=1, claim="c", quote="q", section="s")], POLICY, fuzzy=0.9, window="none")
    check_citations(json.loads("[]"), Corpus({"policy": POLICY}), fail_on="fabricated,contradicted")
    citecheck.check(CITES, POLICY, format="faq", concurrency=4, casefold=True, min_quote_length=8)
    assert results[0].verdict is Verdict.VERIFIED


async def test_async(citecheck: Checker) -> None:
    await citecheck.aassert_supported(CITES, Source.from_file("policy.md"), screen=True, auto_accept=None)
    await citecheck.acheck(CITES, POLICY)


def test_mixed_citations() -> None:
    mixed: list[CitationLike] = [Cite("a", "c", None, "refunds"), CiteModel(id=1, claim="c", quote="q", section="s")]
    mixed.append({"id": "d", "claim": "c", "section": 4})
    typed: CitationDict = {"id": "t", "claim": "c", "quote": "q", "section": ["1", 2], "document": "policy"}
    check_citations([*mixed, typed], Corpus({"policy": POLICY}))


def assert_answer(source: str, **options: Unpack[CheckOptions]) -> None:
    assert_citations_supported(CITES, source, **options)


def test_mistakes() -> None:
    assert_citations_supported(CITES, POLICY, auto_acept=0.9)  # error: Unexpected keyword argument "auto_acept"
    check_citations(CITES, 42)  # error: Argument 2 to "check_citations" has incompatible type "int"
    check_citations(CITES, POLICY, review="later")  # error: Argument "review" to "check_citations" has incompatible type
    check_citations(CITES, POLICY, auto_accept="high")  # error: Argument "auto_accept" to "check_citations" has incompatible type "str"
    check_citations(CITES[0], POLICY)  # error: Argument 1 to "check_citations" has incompatible type
    check_citations([Answer("a", "no claim")], POLICY)  # error: List item 0 has incompatible type "Answer"
    assert_answer(POLICY, window=1.5)  # error: Argument "window" to "assert_answer" has incompatible type "float"
    typo: CitationDict = {"claim": "c", "qoute": "q"}  # error: Extra key "qoute" for TypedDict "CitationDict"
    four_ten: CitationDict = {"claim": "c", "section": 4.10}  # error: Incompatible types (expression has type "float"
    check_citations([typo, four_ten], POLICY)
"""


def _expected_errors(source: str) -> dict[int, str]:
    return {
        number: line.split("# error: ", 1)[1]
        for number, line in enumerate(source.splitlines(), start=1)
        if "# error: " in line
    }


@pytest.mark.slow
def test_mypy_strict_reports_a_users_mistakes_and_passes_correct_code(tmp_path: Path) -> None:
    module = tmp_path / "test_user.py"
    module.write_text(USER_MODULE)
    # Where pytest_citecheck is imported from (an editable install's import hook is invisible to mypy);
    # its own modules are then checked as sources, so their errors are silenced, as for an installed package.
    package_root = Path(pytest_citecheck.__file__).resolve().parent.parent
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=silent",
            "--cache-dir",
            str(tmp_path / "cache"),
            module.name,
        ],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(package_root)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    reported: dict[int, list[str]] = {}
    for line in result.stdout.splitlines():
        found = re.match(r"test_user\.py:(\d+): error: (.*)", line)
        if found:
            reported.setdefault(int(found[1]), []).append(found[2])
    expected = _expected_errors(USER_MODULE)
    assert set(reported) == set(expected), result.stdout + result.stderr
    for number, fragment in expected.items():
        assert any(fragment in message for message in reported[number]), (number, reported[number])
    assert result.returncode == 1


def test_check_options_are_the_per_test_options():
    # A knob added to _options.OPTIONS as per-test must be added to CheckOptions, and the reverse.
    assert CheckOptions.__optional_keys__ == frozenset(PER_TEST_OPTIONS)
    assert not CheckOptions.__required_keys__


def test_the_literal_types_name_exactly_the_accepted_values():
    assert set(typing.get_args(BuiltinFormat)) == set(FORMATS)
    # ``errored`` is no verdict fail_on may name (a check that raised fails its test whatever it says).
    assert set(typing.get_args(VerdictName)) == {verdict.value for verdict in Verdict} - {"errored"}
    assert typing.get_args(ReviewPolicy) == REVIEW_POLICIES == ("warn", "fail", "xfail", "skip")
    assert "rewrite" in RECORD_MODES
    # Each choice twice: a type (``_options.keywords``, loaded when named) and the tuple the parser accepts.
    assert typing.get_args(RecordMode) == RECORD_MODES
    assert typing.get_args(UnusedPolicy) == UNUSED_POLICIES
    assert typing.get_args(MisattributedPolicy) == MISATTRIBUTED_POLICIES


def test_the_client_fixtures_are_typed_for_editors():
    from pytest_citecheck._pytest_glue.fixtures import SessionClient

    # The names plugin.py imports only for type checkers (it loads none of them).
    names = {
        "TypeSafeClient": TypeSafeClient,
        "AsyncTypeSafeClient": AsyncTypeSafeClient,
        "SessionClient": SessionClient,
    }
    client = typing.get_type_hints(plugin.citecheck_client.__wrapped__, vars(plugin), names)
    async_client = typing.get_type_hints(plugin.citecheck_async_client.__wrapped__, vars(plugin), names)
    assert client["return"] == TypeSafeClient
    assert async_client["return"] == Callable[[], AsyncTypeSafeClient]


@pytest.mark.slow
def test_pyright_reports_the_same_lines_as_mypy(tmp_path: Path) -> None:
    # Issue 26, item 17: a mixed list typed list[CitationLike] and a CitationDict check clean under both
    # checkers, and both report exactly the lines marked "# error" (pyright in its default mode).
    import json
    import shutil

    pyright = shutil.which("pyright", path=str(Path(sys.executable).parent)) or shutil.which("pyright")
    if pyright is None:
        pytest.skip("pyright is not installed (pip install pyright)")
    (tmp_path / "test_user.py").write_text(USER_MODULE)
    package_root = Path(pytest_citecheck.__file__).resolve().parent.parent
    (tmp_path / "pyrightconfig.json").write_text(json.dumps({"extraPaths": [str(package_root)]}))
    result = subprocess.run(
        [pyright, "--pythonpath", sys.executable, "--outputjson", "test_user.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    diagnostics = json.loads(result.stdout)["generalDiagnostics"]
    reported = {item["range"]["start"]["line"] + 1 for item in diagnostics if item["severity"] == "error"}
    assert reported == set(_expected_errors(USER_MODULE)), result.stdout
