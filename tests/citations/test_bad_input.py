"""Malformed input gets a clear error naming the citation and the field, never a traceback.

Every case below is one inner test in a single real pytest session (run once per module, as a
subprocess) that hands pytest-citecheck something malformed: a citation missing a field or with a
field of the wrong type, an empty or whitespace quote, a section the source lacks, a citations
value that is not a list, an empty or binary document, a threshold outside 0..1, unknown marker or
call keywords. Each outer test then reads that case's failure in the inner run's output and checks
that it names what is wrong and where, and shows no traceback into pytest-citecheck's internals.
Nothing here reaches Jev: validation happens before any request (the inner run has no key and no
network, so a request would fail differently).

A bad flag or ini value is a usage error of one line, before any test runs: each is checked in an
in-process run, and one of them once more through a real ``pytest`` process.
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
from support import NOT_A_USERS_PLUGINS, Offline

REPO = Path(__file__).resolve().parents[2]
RFC7519 = REPO / "examples" / "rfc7519" / "rfc7519.txt"

GOOD_QUOTE = "JWTs that fail signature validation MUST be logged and reported to the issuer."


@dataclass(frozen=True)
class BadInput:
    name: str
    call: str  # the inner test's body (SOURCE, check, ok are in scope)
    expected: tuple[str, ...]  # phrases the error must contain (citation, field, what is wrong)
    marker: str = ""


OK = dict(id="c1", claim="Failed tokens are reported to the issuer.", quote=GOOD_QUOTE, section="7.2")


def _with(**changes: object) -> str:
    """A citation like OK with some fields changed (a value of ... removes the field)."""
    fields = {**OK, **changes}
    return repr({k: v for k, v in fields.items() if v is not ...})


def _field(name: str, field: str, value: object, *says: str, citation: str = "c1") -> BadInput:
    """A citation like OK but for one field (``...`` removes it): the error names the citation and the field."""
    return BadInput(
        name, f"check([{_with(**{field: value})}], SOURCE)", (f"citation {citation!r}", f"field {field!r}", *says)
    )


def _call(name: str, arguments: str, *says: str, function: str = "check", marker: str = "") -> BadInput:
    """``function([a good citation], arguments)``: what is wrong is in the other arguments (or the marker)."""
    return BadInput(name, f"{function}([{_with()}], {arguments})", says, marker)


def _citations(name: str, citations: str, *says: str) -> BadInput:
    """``check(citations, SOURCE)`` with a citations value that is not a list of citations."""
    return BadInput(name, f"check({citations}, SOURCE)", ("field 'citations'", *says))


CASES: tuple[BadInput, ...] = (
    # --- a citation's fields ------------------------------------------------------------------
    _field("claim-missing", "claim", ..., "is missing"),
    _field("claim-none", "claim", None, "must be a string"),
    _field("claim-int", "claim", 42, "must be a string, got int"),
    _field("claim-list", "claim", ["a", "b"], "got list"),
    _field("claim-empty", "claim", "", "is empty"),
    _field("claim-whitespace", "claim", "  \n\t ", "is empty"),
    _field("quote-int", "quote", 7, "must be a string"),
    # A list of quotes (or sections) is a citation of several sections; each item must be valid.
    _field("quote-list-empty", "quote", [], "empty list"),
    _field("quote-list-item", "quote", [GOOD_QUOTE, 7], "item 2 must be a non-empty string"),
    # [None] is not None: read as None it made a claim-only citation of a quoted one, silently.
    _field("quote-list-only-none", "quote", [None], "item 1 must be a non-empty string", "not [None]"),
    _field("section-list-only-none", "section", [None], "item 1 must be a section id string", "not [None]"),
    # A lone surrogate (json.loads of a "\\ud83d" whose pair was cut off) passed the check, then the
    # JSON report and the JUnit XML crashed at the session's end, and xdist raised INTERNALERROR.
    _field("claim-lone-surrogate", "claim", "Failed tokens are reported \udc80.", "lone surrogate (U+DC80"),
    _field("quote-lone-surrogate", "quote", GOOD_QUOTE + "\ud83d", "lone surrogate (U+D83D", "errors='replace'"),
    _field("section-lone-surrogate", "section", "7.2\udc80", "lone surrogate"),
    _field("id-lone-surrogate", "id", "c\udc80", "lone surrogate", citation="#0"),
    _field("quote-empty", "quote", "", "empty or whitespace"),
    _field("quote-whitespace", "quote", "   ", "empty or whitespace"),
    _field("section-not-in-source", "section", "99.9", "'99.9'", "does not have"),
    _field("section-list-item", "section", ["7.2", None], "item 2 must be a section id string"),
    _field("section-list-not-in-source", "section", ["7.2", "99.9"], "'99.9'", "does not have"),
    _field("section-list-twice", "section", ["7.2", "7.2"], "names section '7.2' twice"),
    _field("section-empty", "section", ""),
    # A float is not a section id: 4.10 reads as 4.1, which is another section (issue 24, item 12).
    _field("section-float", "section", 7.2, "never a float", "4.10 would read as '4.1'"),
    _field("section-list-float", "section", ["7.2", 4.1], "item 2", "never a float"),
    # A misspelt key is an error with a suggestion, not a field silently dropped (issue 24, item 12).
    BadInput(
        "key-misspelt-quote",
        f"check([{{'id': 'c1', 'claim': 'Failed tokens are reported.', 'qoute': {GOOD_QUOTE!r}, 'section': '7.2'}}], SOURCE)",
        ("citation 'c1'", "field 'qoute'", "'qoute': did you mean 'quote'?"),
    ),
    BadInput(
        "key-misspelt-section",
        "check([{'id': 'c1', 'claim': 'Failed tokens are reported.', 'sectoin': '7.2'}], SOURCE)",
        ("citation 'c1'", "field 'sectoin'", "did you mean 'section'?"),
    ),
    BadInput(
        "key-unknown",
        f"check([{{'id': 'c1', 'claim': 'c', 'quote': {GOOD_QUOTE!r}, 'confidence': 0.9}}], SOURCE)",
        ("citation 'c1'", "field 'confidence'", "a citation's keys are id, claim, quote, section, document"),
    ),
    BadInput(
        "no-quote-no-section",
        f"check([{_with(quote=None, section=None)}], SOURCE)",
        ("citation 'c1'", "field 'section'", "must name the section"),
    ),
    _field("id-empty", "id", "", citation="#0"),
    _field("id-bool", "id", True, citation="#0"),
    _field("id-list", "id", ["c1"], citation="#0"),
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
    _citations("citations-is-one-dict", _with(), "got dict", "wrap it in a list"),
    _citations("citations-is-a-string", "'c1'", "got str"),
    _citations("citations-is-none", "None", "got NoneType"),
    _citations("citations-is-an-int", "3", "got int"),
    # --- the source document ------------------------------------------------------------------
    _call("document-empty", "''", "field 'source'", "empty"),
    _call("document-whitespace", repr("  \n\n  "), "field 'source'", "empty"),
    _call("document-binary", repr("\x00\x01PK\x03\x04") + " * 50", "field 'source'", "binary"),
    _call("document-bytes", "(HERE / 'rfc7519.txt').read_bytes()", "field 'source'", "got bytes"),
    # A lone surrogate in the document was a JudgeError about JSON; in a section id it passed, then
    # crashed the JSON report at the session's end.
    _call("document-lone-surrogate", repr("1.  Scope\n\nText \udc80 here.\n"), "field 'source'", "lone surrogate"),
    _call(
        "section-text-lone-surrogate",
        "Source(sections={'1': 'Refunds are paid within thirty days \\udc80.'})",
        "field 'sections'",
        "section '1': its text holds a lone surrogate (U+DC80",
    ),
    _call(
        "section-id-lone-surrogate",
        "Source(sections={'1\\udc80': 'Refunds are paid within thirty days.'})",
        "field 'sections'",
        "its id holds a lone surrogate",
    ),
    _call("document-none", "None", "field 'source'", "got NoneType"),
    _call(
        "document-without-sections",
        "'Just a paragraph of prose, with no numbered headings.', format='rfc'",
        "field 'source'",
        "no numbered section headers",
    ),
    _call("format-unknown", "'Some text', format='docx-ish'", "field 'format'", "unknown format 'docx-ish'"),
    BadInput("source-sections-empty", "Source(sections={})", ("field 'sections'", "no sections")),
    BadInput("source-section-not-text", "Source(sections={'1': b'bytes'})", ("field 'sections'", "must be text")),
    # --- thresholds and keywords --------------------------------------------------------------
    _call("auto-accept-above-1", "SOURCE, auto_accept=1.5", "auto_accept", "expected a number from 0 to 1, got 1.5"),
    _call("auto-accept-negative", "SOURCE, auto_accept=-0.1", "auto_accept", "got -0.1"),
    _call("auto-accept-text", "SOURCE, auto_accept='high'", "auto_accept", "got 'high'"),
    _call("auto-accept-nan", "SOURCE, auto_accept=float('nan')", "auto_accept", "got nan"),
    # fuzzy=0 is not "off": every unrelated sentence would pass for the quote (a fabricated one judged).
    _call("fuzzy-zero", "SOURCE, fuzzy=0", "fuzzy", "expected a similarity from 0.7 to 1, or none, got 0"),
    _call("fuzzy-below-floor", "SOURCE, fuzzy=0.6", "fuzzy", "got 0.6", "none (not 0) turns fuzzy matching off"),
    _call("unknown-call-keyword", "SOURCE, treshold=0.9", "unknown argument 'treshold'", "accepted: auto_accept"),
    _call("review-unknown", "SOURCE, review='maybe'", "review", "expected one of", "got 'maybe'", function="ok"),
    _call("fail-on-unknown", "SOURCE, fail_on='wrong'", "fail_on", "unknown verdict 'wrong'", function="ok"),
    _call("model-with-spaces", "SOURCE, model='jev 1.12'", "model", "expected a model name"),
    _call("concurrency-zero", "SOURCE, concurrency=0", "concurrency", "at least 1, got 0"),
    _call(
        "marker-threshold-above-1",
        "SOURCE",
        "@pytest.mark.citecheck(...)",
        "auto_accept",
        "got 2",
        marker="@pytest.mark.citecheck(auto_accept=2)",
    ),
    _call(
        "marker-unknown-keyword",
        "SOURCE",
        "@pytest.mark.citecheck(...)",
        "unknown argument 'threshold'",
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


# Plugins installed here that no case uses: loading them is most of a fresh interpreter's start-up
# (langsmith's alone imports its whole client), and the inner session does not need them.
UNRELATED_PLUGINS = (*NOT_A_USERS_PLUGINS, "-p", "no:anyio")


@pytest.fixture(scope="module")
def inner_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Run every case once; return each inner test's failure section, by case name."""
    root = tmp_path_factory.mktemp("bad_input")
    shutil.copy(RFC7519, root / "rfc7519.txt")
    (root / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (root / "test_bad.py").write_text(_inner_module())
    # Offline: a request would fail as a connection error, not as bad input.
    env = Offline.env({k: v for k, v in os.environ.items() if not k.startswith("TYPESAFE_")})
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *UNRELATED_PLUGINS, "-rf", "test_bad.py"],
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


# A flag or ini value pytest-citecheck refuses: the id, the flags, the ini line, what the error says.
BAD_SESSION_OPTIONS = {
    "flag-threshold": (
        ["--citecheck-auto-accept=2"],
        "",
        "--citecheck-auto-accept: expected a number from 0 to 1, got '2'",
    ),
    "flag-record-mode": (["--citecheck-record-mode=sometimes"], "", "--citecheck-record-mode: expected one of none"),
    "flag-concurrency": (["--citecheck-concurrency=many"], "", "--citecheck-concurrency: expected a whole number"),
    "ini-threshold": (
        [],
        "citecheck_auto_accept = nope",
        "ini citecheck_auto_accept: expected a number from 0 to 1, got 'nope'",
    ),
    "ini-fail-on": ([], "citecheck_fail_on = fabricated,bogus", "ini citecheck_fail_on: unknown verdict 'bogus'"),
}


def _session_with(pytester: pytest.Pytester, ini: str) -> None:
    pytester.makeini(f"[pytest]\nasyncio_default_fixture_loop_scope = function\n{ini}\n")
    pytester.makepyfile("def test_nothing():\n    pass\n")


def _assert_one_line_usage_error(result: pytest.RunResult, expected: str) -> None:
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = result.stderr.str()
    assert f"pytest-citecheck: {expected}" in errors, errors
    assert "Traceback" not in errors and "INTERNALERROR" not in errors, errors
    assert len(errors.strip().splitlines()) == 1, errors


@pytest.mark.parametrize(("args", "ini", "expected"), BAD_SESSION_OPTIONS.values(), ids=BAD_SESSION_OPTIONS.keys())
def test_a_bad_session_option_is_a_one_line_usage_error(
    pytester: pytest.Pytester, args: list[str], ini: str, expected: str
) -> None:
    _session_with(pytester, ini)
    _assert_one_line_usage_error(pytester.runpytest_inprocess(*args), expected)


def test_the_real_command_line_prints_a_bad_session_option_on_one_line(pytester: pytest.Pytester) -> None:
    """End to end, once: a real ``pytest`` process prints what the in-process runs above read, and exits 4."""
    args, ini, expected = BAD_SESSION_OPTIONS["flag-threshold"]
    _session_with(pytester, ini)
    _assert_one_line_usage_error(pytester.runpytest_subprocess(*args), expected)
