"""Malformed input gets a clear error naming the citation and the field, never a traceback.

Every case below is one inner test in a single real pytest session (run once per module, as a
subprocess) that hands pytest-citecheck something malformed: a citation missing a field or with a
field of the wrong type, an empty or whitespace quote, a section the source lacks, a citations
value that is not a list, an empty or binary document, a threshold outside 0..1, unknown marker or
call keywords. Each outer test then reads that case's failure in the inner run's output and checks
that it names what is wrong and where, and shows no traceback into pytest-citecheck's internals.
Nothing here reaches Jev: validation happens before any request (the inner run has no key and no
network, so a request would fail differently).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RFC7519 = REPO / "examples" / "rfc7519" / "rfc7519.txt"

GOOD_QUOTE = "JWTs that fail signature validation MUST be logged and reported to the issuer."


@dataclass(frozen=True)
class BadInput:
    name: str
    call: str  # the inner test's body (SOURCE, check, ok are in scope)
    expected: tuple[str, ...]  # phrases the error must contain (citation, field, what is wrong)
    marker: str = ""


def _cite(**fields: object) -> str:
    return repr(fields)


OK = dict(id="c1", claim="Failed tokens are reported to the issuer.", quote=GOOD_QUOTE, section="7.2")


def _with(**changes: object) -> str:
    """A citation like OK with some fields changed (a value of ... removes the field)."""
    fields = {**OK, **changes}
    return repr({k: v for k, v in fields.items() if v is not ...})


CASES: tuple[BadInput, ...] = (
    # --- a citation's fields ------------------------------------------------------------------
    BadInput("claim-missing", f"check([{_with(claim=...)}], SOURCE)", ("citation 'c1'", "field 'claim'", "is missing")),
    BadInput(
        "claim-none", f"check([{_with(claim=None)}], SOURCE)", ("citation 'c1'", "field 'claim'", "must be a string")
    ),
    BadInput(
        "claim-int",
        f"check([{_with(claim=42)}], SOURCE)",
        ("citation 'c1'", "field 'claim'", "must be a string, got int"),
    ),
    BadInput(
        "claim-list", f"check([{_with(claim=['a', 'b'])}], SOURCE)", ("citation 'c1'", "field 'claim'", "got list")
    ),
    BadInput("claim-empty", f"check([{_with(claim='')}], SOURCE)", ("citation 'c1'", "field 'claim'", "is empty")),
    BadInput(
        "claim-whitespace",
        "check([" + _with(claim="  \n\t ") + "], SOURCE)",
        ("citation 'c1'", "field 'claim'", "is empty"),
    ),
    BadInput("quote-int", f"check([{_with(quote=7)}], SOURCE)", ("citation 'c1'", "field 'quote'", "must be a string")),
    # A list of quotes (or sections) is a citation of several sections; each item must be valid.
    BadInput(
        "quote-list-empty", f"check([{_with(quote=[])}], SOURCE)", ("citation 'c1'", "field 'quote'", "empty list")
    ),
    BadInput(
        "quote-list-item",
        f"check([{_with(quote=[GOOD_QUOTE, 7])}], SOURCE)",
        ("citation 'c1'", "field 'quote'", "item 2 must be a non-empty string"),
    ),
    BadInput(
        "quote-empty", f"check([{_with(quote='')}], SOURCE)", ("citation 'c1'", "field 'quote'", "empty or whitespace")
    ),
    BadInput(
        "quote-whitespace",
        f"check([{_with(quote='   ')}], SOURCE)",
        ("citation 'c1'", "field 'quote'", "empty or whitespace"),
    ),
    BadInput(
        "section-not-in-source",
        f"check([{_with(section='99.9')}], SOURCE)",
        ("citation 'c1'", "field 'section'", "'99.9'", "does not have"),
    ),
    BadInput(
        "section-list-item",
        f"check([{_with(section=['7.2', None])}], SOURCE)",
        ("citation 'c1'", "field 'section'", "item 2 must be a section id string"),
    ),
    BadInput(
        "section-list-not-in-source",
        f"check([{_with(section=['7.2', '99.9'])}], SOURCE)",
        ("citation 'c1'", "field 'section'", "'99.9'", "does not have"),
    ),
    BadInput(
        "section-list-twice",
        f"check([{_with(section=['7.2', '7.2'])}], SOURCE)",
        ("citation 'c1'", "field 'section'", "names section '7.2' twice"),
    ),
    BadInput("section-empty", f"check([{_with(section='')}], SOURCE)", ("citation 'c1'", "field 'section'")),
    BadInput(
        "no-quote-no-section",
        f"check([{_with(quote=None, section=None)}], SOURCE)",
        ("citation 'c1'", "field 'section'", "must name the section"),
    ),
    BadInput("id-empty", f"check([{_with(id='')}], SOURCE)", ("citation '#0'", "field 'id'")),
    BadInput("id-bool", f"check([{_with(id=True)}], SOURCE)", ("citation '#0'", "field 'id'")),
    BadInput("id-list", f"check([{_with(id=['c1'])}], SOURCE)", ("citation '#0'", "field 'id'")),
    BadInput(
        "id-duplicate",
        f"check([{_with()}, {_with(claim='Another claim.')}], SOURCE)",
        ("citation 'c1'", "field 'id'", "more than one citation"),
    ),
    # --- a citation that is not one -----------------------------------------------------------
    BadInput("citation-is-a-string", "check(['Failed tokens are reported.'], SOURCE)", ("citation '#0'", "got str")),
    BadInput("citation-is-none", f"check([{_with()}, None], SOURCE)", ("citation '#1'", "got NoneType")),
    BadInput("citation-is-an-int", "check([5], SOURCE)", ("citation '#0'", "got int")),
    # --- the citations value ------------------------------------------------------------------
    BadInput(
        "citations-is-one-dict", f"check({_with()}, SOURCE)", ("field 'citations'", "got dict", "wrap it in a list")
    ),
    BadInput("citations-is-a-string", "check('c1', SOURCE)", ("field 'citations'", "got str")),
    BadInput("citations-is-none", "check(None, SOURCE)", ("field 'citations'", "got NoneType")),
    BadInput("citations-is-an-int", "check(3, SOURCE)", ("field 'citations'", "got int")),
    # --- the source document ------------------------------------------------------------------
    BadInput("document-empty", f"check([{_with()}], '')", ("field 'source'", "empty")),
    BadInput("document-whitespace", f"check([{_with()}], " + repr("  \n\n  ") + ")", ("field 'source'", "empty")),
    BadInput(
        "document-binary", f"check([{_with()}], " + repr("\x00\x01PK\x03\x04") + " * 50)", ("field 'source'", "binary")
    ),
    BadInput(
        "document-bytes", f"check([{_with()}], (HERE / 'rfc7519.txt').read_bytes())", ("field 'source'", "got bytes")
    ),
    BadInput("document-none", f"check([{_with()}], None)", ("field 'source'", "got NoneType")),
    BadInput(
        "document-without-sections",
        f"check([{_with()}], 'Just a paragraph of prose, with no numbered headings.', format='rfc')",
        ("field 'source'", "no numbered section headers"),
    ),
    BadInput(
        "format-unknown",
        f"check([{_with()}], 'Some text', format='docx-ish')",
        ("field 'format'", "unknown format 'docx-ish'"),
    ),
    BadInput("source-sections-empty", "Source(sections={})", ("field 'sections'", "no sections")),
    BadInput("source-section-not-text", "Source(sections={'1': b'bytes'})", ("field 'sections'", "must be text")),
    # --- thresholds and keywords --------------------------------------------------------------
    BadInput(
        "auto-accept-above-1",
        f"check([{_with()}], SOURCE, auto_accept=1.5)",
        ("auto_accept", "expected a number from 0 to 1, got 1.5"),
    ),
    BadInput("auto-accept-negative", f"check([{_with()}], SOURCE, auto_accept=-0.1)", ("auto_accept", "got -0.1")),
    BadInput("auto-accept-text", f"check([{_with()}], SOURCE, auto_accept='high')", ("auto_accept", "got 'high'")),
    BadInput("auto-accept-nan", f"check([{_with()}], SOURCE, auto_accept=float('nan'))", ("auto_accept", "got nan")),
    BadInput(
        "unknown-call-keyword",
        f"check([{_with()}], SOURCE, treshold=0.9)",
        ("unknown argument 'treshold'", "accepted: auto_accept"),
    ),
    BadInput(
        "review-unknown", f"ok([{_with()}], SOURCE, review='maybe')", ("review", "expected one of", "got 'maybe'")
    ),
    BadInput("fail-on-unknown", f"ok([{_with()}], SOURCE, fail_on='wrong')", ("fail_on", "unknown verdict 'wrong'")),
    BadInput("model-with-spaces", f"check([{_with()}], SOURCE, model='jev 1.12')", ("model", "expected a model name")),
    BadInput("concurrency-zero", f"check([{_with()}], SOURCE, concurrency=0)", ("concurrency", "at least 1, got 0")),
    BadInput(
        "marker-threshold-above-1",
        f"check([{_with()}], SOURCE)",
        ("@pytest.mark.citecheck(...)", "auto_accept", "got 2"),
        marker="@pytest.mark.citecheck(auto_accept=2)",
    ),
    BadInput(
        "marker-unknown-keyword",
        f"check([{_with()}], SOURCE)",
        ("@pytest.mark.citecheck(...)", "unknown argument 'threshold'"),
        marker="@pytest.mark.citecheck(threshold=0.9)",
    ),
)

INNER_HEADER = """
import pathlib, pytest
from pytest_citecheck import Source, assert_citations_supported as ok, check_citations as check

HERE = pathlib.Path(__file__).parent
SOURCE = Source.from_file(HERE / "rfc7519.txt")
"""


def _inner_module() -> str:
    parts = [INNER_HEADER]
    for case in CASES:
        function = "test_" + case.name.replace("-", "_")
        parts.append(f"\n{case.marker}\ndef {function}():\n    {case.call}\n")
    return "\n".join(parts)


@pytest.fixture(scope="module")
def inner_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Run every case once; return each inner test's failure section, by case name."""
    root = tmp_path_factory.mktemp("bad_input")
    shutil.copy(RFC7519, root / "rfc7519.txt")
    (root / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (root / "test_bad.py").write_text(_inner_module())
    env = {k: v for k, v in os.environ.items() if not k.startswith("TYPESAFE_")}
    env["TYPESAFE_BASE_URL"] = "http://127.0.0.1:9"  # a request would fail as a connection error, not as bad input
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-rf", "test_bad.py"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = completed.stdout + completed.stderr
    assert "INTERNALERROR" not in output, output
    assert completed.returncode == 1, output
    sections: dict[str, str] = {"<all>": output}
    chunks = re.split(r"^_{3,} (test_\w+) _{3,}$", output, flags=re.MULTILINE)
    for name, body in zip(chunks[1::2], chunks[2::2]):
        sections[name] = body.split("=" * 10)[0]
    return sections


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_bad_input_is_a_clear_error(inner_run: dict[str, str], case: BadInput) -> None:
    function = "test_" + case.name.replace("-", "_")
    assert function in inner_run, f"{function} did not fail:\n{inner_run['<all>'][-3000:]}"
    section = inner_run[function]
    for phrase in case.expected:
        assert phrase in section, f"{phrase!r} not in:\n{section}"
    # The error is the whole story: no traceback into pytest-citecheck's internals.
    assert "pytest_citecheck" + os.sep not in section and "Traceback" not in section, section
    assert len(section.strip().splitlines()) <= 4, f"more than the error itself:\n{section}"


def test_there_are_at_least_30_cases() -> None:
    assert len(CASES) >= 30
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize(
    ("args", "ini", "expected"),
    [
        (["--citecheck-auto-accept=2"], "", "--citecheck-auto-accept: expected a number from 0 to 1, got '2'"),
        (["--citecheck-record-mode=sometimes"], "", "--citecheck-record-mode: expected one of none"),
        (["--citecheck-concurrency=many"], "", "--citecheck-concurrency: expected a whole number"),
        ([], "citecheck_auto_accept = nope", "ini citecheck_auto_accept: expected a number from 0 to 1, got 'nope'"),
        ([], "citecheck_fail_on = fabricated,bogus", "ini citecheck_fail_on: unknown verdict 'bogus'"),
    ],
    ids=["flag-threshold", "flag-record-mode", "flag-concurrency", "ini-threshold", "ini-fail-on"],
)
def test_a_bad_session_option_is_a_one_line_usage_error(
    pytester: pytest.Pytester, args: list[str], ini: str, expected: str
) -> None:
    pytester.makeini(f"[pytest]\nasyncio_default_fixture_loop_scope = function\n{ini}\n")
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = result.stderr.str()
    assert f"pytest-citecheck: {expected}" in errors, errors
    assert "Traceback" not in errors and "INTERNALERROR" not in errors, errors
