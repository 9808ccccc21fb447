"""TypeSafe's cookbook "Double-checking citations", as the test suite of an app that cites RFC 7519.

Eight citations of RFC 7519 (JSON Web Token): four accurate, four planted to fail. Catching the
planted ones is the point, so each test asserts what pytest-citecheck does with its citation:

- an accurate citation passes (`verified`, confidence >= 0.8);
- a fabricated quote (`sig_reporting`) and a contradicted claim (`exp_required`) fail the check:
  the test expects that failure and prints it as the app's developer would see it (`pytest -rP`);
- two verdicts under the threshold (`pii_encryption`, `iat_future`) pass with a review warning.

Every answer is replayed from `cassettes/`, built from the cookbook's recorded jev-1.12 answers
(`json_cache.json`, TypeSafe's public example data) by `build_cassettes.py`: no key, no network.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pytest

from pytest_citecheck import CitationsNotSupported, Source, assert_citations_supported

HERE = Path(__file__).parent
RFC7519 = Source.from_file(HERE / "rfc7519.txt")  # detected as format "rfc" (RFC Editor plain text)
CITATIONS = json.loads((HERE / "citations.json").read_text(encoding="utf-8"))


class Row(NamedTuple):
    status: str
    section: str | None
    verdict: str
    confidence: float | None
    action: str


# The cookbook's published table (quote status, section, verdict, confidence, action).
COOKBOOK_TABLE = {
    "epoch_seconds": Row("found", "2", "verified", 0.93, "auto"),
    "aud_reject": Row("found", "4.1.3", "verified", 0.95, "auto"),
    "sig_reporting": Row("missing", None, "fabricated", None, "auto"),
    "clock_skew": Row("found", "4.1.4", "verified", 0.99, "auto"),
    "exp_required": Row("found", "4.1.4", "contradicted", 0.99, "auto"),
    "pii_encryption": Row("found", "3", "unsupported", 0.27, "review"),
    "iat_future": Row("section-only", "4.1.6", "unsupported", 0.56, "review"),
    "duplicate_names": Row("found", "4", "verified", 0.99, "auto"),
}
PLANTED_FAILURES = {"sig_reporting", "exp_required"}


def test_the_source_is_the_cookbooks():
    assert len(RFC7519.text) == 58_365
    assert len(RFC7519.sections) == 45


@pytest.mark.parametrize("citation", CITATIONS, ids=[c["id"] for c in CITATIONS])
def test_cookbook_citation(citation):
    if citation["id"] in PLANTED_FAILURES:
        with pytest.raises(CitationsNotSupported) as caught:
            assert_citations_supported([citation], RFC7519)
        print(f"pytest-citecheck caught the planted citation {citation['id']!r}:\n{caught.value}")
        [result] = caught.value.results
    else:
        [result] = assert_citations_supported([citation], RFC7519)
    row = Row(
        result.status.value,
        result.section,
        result.verdict.value,
        result.confidence,
        "auto" if result.auto else "review",
    )
    assert row == COOKBOOK_TABLE[citation["id"]]
