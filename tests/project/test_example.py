"""The RFC 7519 example reproduces the cookbook's published table, replayed with no key and no network."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from support import NOT_A_USERS_PLUGINS

# The cookbook's table: (id, quote status, section, verdict, confidence, auto).
COOKBOOK_TABLE = [
    ("epoch_seconds", "found", "2", "verified", 0.93, True),
    ("aud_reject", "found", "4.1.3", "verified", 0.95, True),
    ("sig_reporting", "missing", None, "fabricated", None, True),
    ("clock_skew", "found", "4.1.4", "verified", 0.99, True),
    ("exp_required", "found", "4.1.4", "contradicted", 0.99, True),
    ("pii_encryption", "found", "3", "unsupported", 0.27, False),
    ("iat_future", "section-only", "4.1.6", "unsupported", 0.56, False),
    ("duplicate_names", "found", "4", "verified", 0.99, True),
]


@pytest.fixture
def example(pytester: pytest.Pytester, no_typesafe_env, example_dir) -> pytest.Pytester:
    shutil.copytree(example_dir, pytester.path / "rfc7519", ignore=shutil.ignore_patterns("__pycache__", "*.json.tmp"))
    return pytester


def test_example_reproduces_the_cookbooks_table(example):
    result = example.runpytest_subprocess(
        "rfc7519", "-rP", "-p", "no:cacheprovider", *NOT_A_USERS_PLUGINS, "--citecheck-json=report.json"
    )
    result.assert_outcomes(passed=9, warnings=2)
    rows = json.loads((example.path / "report.json").read_text())["results"]
    table = [(r["id"], r["status"], r["section"], r["verdict"], r["confidence"], r["auto"]) for r in rows]
    assert table == COOKBOOK_TABLE
    assert {r["model"] for r in rows if r["status"] != "missing"} == {"jev-1.12"}
    assert all(r["replayed"] for r in rows if r["status"] != "missing")
    # The planted failures are shown as a user would see them...
    result.stdout.fnmatch_lines(
        [
            "*pytest-citecheck caught the planted citation 'sig_reporting':",
            "1 of 1 citation not supported:",
            "*sig_reporting  missing  -        fabricated  -     FAIL    Tokens that fail signature validation*",
            "*pytest-citecheck caught the planted citation 'exp_required':",
            "*exp_required  found   4.1.4    contradicted  0.99  FAIL    Every JWT must include an expiration time*",
        ]
    )
    # ...the review cases as warnings, and the summary as the cookbook's table.
    result.stdout.fnmatch_lines(["*CitationReviewWarning: 1 citation below auto_accept 0.8 needs a human review:*"])
    result.stdout.fnmatch_lines(
        [
            "*= citecheck =*",
            "8 citations checked in 8 tests: 4 verified, 2 unsupported, 1 contradicted, 1 fabricated",
            "*epoch_seconds    verified      0.93 (computed 0.92)  auto",  # 0.95 of 3 labels gives 0.925
            "*pii_encryption   unsupported   0.27                  review",
            "*iat_future       unsupported   0.56                  review",
        ]
    )


def test_committed_cassettes_are_exactly_what_the_build_script_makes(example):
    committed = {p.name: p.read_bytes() for p in (example.path / "rfc7519" / "cassettes" / "test_rfc7519").iterdir()}
    shutil.rmtree(example.path / "rfc7519" / "cassettes")
    build = subprocess.run(
        [sys.executable, str(example.path / "rfc7519" / "build_cassettes.py")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTEST_ADDOPTS": " ".join(NOT_A_USERS_PLUGINS)},
    )
    assert build.returncode == 0, build.stdout + build.stderr
    assert "7 requests answered from json_cache.json" in build.stdout
    rebuilt = {p.name: p.read_bytes() for p in (example.path / "rfc7519" / "cassettes" / "test_rfc7519").iterdir()}
    assert rebuilt == committed
    assert len(committed) == 7  # sig_reporting never reached the model, so it has no cassette
