"""The second example: an app answering from a Corpus of Debian's licence texts, replayed with no key.

It must show every way a citation over many documents can turn out (found, found-elsewhere in
another section and in another document, missing, section-only, document-only) and the
``misattributed`` knob in all three values, and run exactly as the README says.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import NOT_A_USERS_PLUGINS, REPO

EXAMPLE = REPO / "examples" / "licences"

# (test, id, status, document, section, cited document, cited section, verdict, confidence, auto)
TABLE = [
    ("apache_patent", "found", "Apache-2.0", "3", "Apache-2.0", "3", "verified", 0.94, True),
    ("apache_trademarks", "found", "Apache-2.0", "6", "Apache-2.0", "6", "contradicted", 0.97, True),
    ("mpl_larger_work", "found", "MPL-2.0", "3.3", "MPL-2.0", "3.3", "verified", 0.88, True),
    ("gpl_object_code", "found-elsewhere", "GPL-3", "6", "GPL-3", "5", "verified", 0.91, True),
    ("lgpl_termination", "found-elsewhere", "GPL-3", "8", "LGPL-3", None, "verified", 0.85, True),
    ("bsd_advertising", "missing", None, None, "BSD", "3", "fabricated", None, True),
    ("gpl_warranty", "section-only", "GPL-3", "15", "GPL-3", "15", "verified", 0.97, True),
    ("bsd_binaries", "document-only", "BSD", None, "BSD", None, "verified", 0.82, True),
]
KNOB_TESTS = {
    "test_misattributed_fails_by_default": "fail",
    "test_misattributed_warns": "warn",
    "test_misattributed_ignored": "ignore",
}


@pytest.fixture
def example(pytester: pytest.Pytester, no_typesafe_env) -> pytest.Pytester:
    shutil.copytree(EXAMPLE, pytester.path / "licences", ignore=shutil.ignore_patterns("__pycache__"))
    return pytester


def test_the_documents_are_debians_licence_texts_verbatim():
    names = sorted(path.name for path in (EXAMPLE / "documents").iterdir())
    assert names == ["Apache-2.0", "BSD", "GPL-3", "LGPL-3", "MPL-2.0"]
    debian = Path("/usr/share/common-licenses")
    if not debian.is_dir():
        pytest.skip("not a Debian machine: nothing to compare the copies with")
    for name in names:
        assert (EXAMPLE / "documents" / name).read_bytes() == (debian / name).read_bytes(), name


def test_the_example_shows_every_outcome_and_the_misattributed_knob_in_all_three_values(example):
    result = example.runpytest_subprocess(
        "licences", "-rP", "-p", "no:cacheprovider", *NOT_A_USERS_PLUGINS, "--citecheck-json=report.json"
    )
    result.assert_outcomes(passed=12, warnings=1)
    rows = json.loads((example.path / "report.json").read_text())["results"]
    table_rows = {row["id"]: row for row in rows if "test_answer_citation" in row["test"]}
    table = [
        (
            cid,
            r["status"],
            r["document"],
            r["section"],
            r["cited_document"],
            r["cited_section"],
            r["verdict"],
            r["confidence"],
            r["auto"],
        )
        for cid, r in table_rows.items()
    ]
    assert table == TABLE
    assert all(row["replayed"] for row in rows if row["status"] != "missing")
    assert {row["model"] for row in rows if row["status"] != "missing"} == {"synthetic-1"}
    # The knob, in its three values, over the same two misattributed citations (one shared cassette).
    for test, value in KNOB_TESTS.items():
        knob_rows = [row for row in rows if row["test"].endswith(test)]
        assert [(row["id"], row["status"]) for row in knob_rows] == [
            ("gpl_object_code", "found-elsewhere"),
            ("lgpl_termination", "found-elsewhere"),
        ], value
    out = result.stdout
    out.fnmatch_lines(
        [
            "*misattributed='fail' (the default) fails the test:",
            "2 of 2 citations not supported:",
            "*gpl_object_code: cited §5 of 'GPL-3', the quote is in §6 (which Jev judged)",
            "*lgpl_termination: cited 'LGPL-3', the quote is in §8 of 'GPL-3' (which Jev judged)",
        ]
    )
    out.fnmatch_lines(["*CitationMisattributedWarning: 2 citations quote another place than they name*"])
    out.fnmatch_lines(
        [
            "*bsd_advertising*fabricated*FAIL*",
            # The closest passage is a hint: from the cited document when it holds a close one, else from another.
            "*bsd_advertising: the quote is not in the source; closest passage §* of '*'*",
        ]
    )
    out.fnmatch_lines(["*= citecheck =*", "14 citations checked in 11 tests: *"])
    cassettes = sorted(p.name for p in (example.path / "licences" / "cassettes" / "test_licences").iterdir())
    assert "misattributed.yaml" in cassettes


# Slow tier: a build script's run is a pytest process recording every cassette; the default run checks the
# same build path (JevServer, pytest.main in record mode) with the RFC 7519 example's script.
@pytest.mark.slow
def test_committed_cassettes_are_exactly_what_the_build_script_makes(example):
    folder = example.path / "licences" / "cassettes" / "test_licences"
    committed = {p.name: p.read_bytes() for p in folder.iterdir()}
    shutil.rmtree(example.path / "licences" / "cassettes")
    build = subprocess.run(
        [sys.executable, str(example.path / "licences" / "build_cassettes.py")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTEST_ADDOPTS": " ".join(NOT_A_USERS_PLUGINS)},
    )
    assert build.returncode == 0, build.stdout + build.stderr
    assert "scripted (synthetic) answers" in build.stdout
    rebuilt = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert rebuilt == committed
    # bsd_advertising never reached the model; the knob tests share one cassette.
    assert len(committed) == 7 + 1
