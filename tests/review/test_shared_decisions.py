"""One decision, several citations: a decision is keyed by claim, section text, question and model, so
`citecheck review --accept` on one citation decides every identical citation of the report too (it says
so). The reviews file records each (test, citation) the decision covered, so a later change to any of
them is reported as a decision that no longer applies, and re-deciding one leaves the others decided.

Found by hunt-journey (N1): the decision was stored under the first test only; when the other test's
claim changed, its citation silently went back to "needs review", and under ``-k`` selecting only that
test the run said nothing about a decision at all.

Real pytest runs through pytester, cassettes recorded against the loopback JevServer, the real
``citecheck review`` command in a subprocess.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import review

from pytest_citecheck.testing import JevServer

# Two tests cite the same passage for the same claim; claims.json may give a test its own claim.
TEST_FILE = """
import json, pathlib
from pytest_citecheck import assert_citations_supported
from cookbook import SOURCE, pick

def cited(test):
    claims = json.loads((pathlib.Path(__file__).parent / "claims.json").read_text())
    (citation,) = pick("pii_encryption")
    return [dict(citation, claim=claims.get(test, citation["claim"]))]

def test_one():
    assert_citations_supported(cited("one"), SOURCE)

def test_two():
    assert_citations_supported(cited("two"), SOURCE)
"""

ONE = "test_answers.py::test_one"
TWO = "test_answers.py::test_two"


def rows_by_test(path: Path) -> dict[str, dict]:
    return {row["test"]: row for row in json.loads(path.read_text())["results"]}


@pytest.fixture
def decided_for_both(suite: pytest.Pytester, jev_server: JevServer, inner_ini: str) -> pytest.Pytester:
    """Both tests recorded, and one `--set` that decides both citations."""
    suite.makepyfile(test_answers=TEST_FILE)
    (suite.path / "claims.json").write_text("{}")
    suite.makeini(inner_ini + "citecheck_model = jev-1.12\n")
    suite.runpytest("--citecheck-record-mode=once", "--citecheck-json=report.json").assert_outcomes(
        passed=2, warnings=2
    )
    done = review(suite, "--report", "report.json", "--set", "pii_encryption=verified", "--by", "Ada")
    assert done.returncode == 0, done.stderr
    assert "the same decision also decides 1 other citation in 1 test" in done.stdout
    return suite


def change_claim(suite: pytest.Pytester, test: str, claim: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Give one test's citation a new claim and record its new verdict (unsupported, 0.5: needs review)."""
    claims = json.loads((suite.path / "claims.json").read_text())
    claims[test] = claim
    (suite.path / "claims.json").write_text(json.dumps(claims))
    with JevServer(lambda claim, section: ("says_nothing", 0.5)) as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        result = suite.runpytest("--citecheck-record-mode=rewrite", "-k", f"test_{test}")
    result.assert_outcomes(passed=1, deselected=1, warnings=1)


def test_the_reviews_file_records_every_citation_a_decision_covers(decided_for_both: pytest.Pytester) -> None:
    data = json.loads((decided_for_both.path / "citecheck-reviews.json").read_text())
    assert data["format"] == 2
    (entry,) = data["decisions"].values()
    assert (entry["test"], entry["citation"]) == (ONE, "pii_encryption")
    assert entry["also_decides"] == [{"citation": "pii_encryption", "test": TWO}]
    # The next run applies it to both.
    replay = decided_for_both.runpytest("--citecheck-record-mode=none", "--citecheck-json=report.json")
    replay.assert_outcomes(passed=2)
    rows = rows_by_test(decided_for_both.path / "report.json")
    assert rows[ONE]["decision"]["by"] == rows[TWO]["decision"]["by"] == "Ada"
    assert (
        "also_decides" not in rows[TWO]["decision"]
    )  # the report's rows carry the decision, not the file's bookkeeping


def test_the_other_tests_citation_is_reported_stale_when_its_claim_changes(
    decided_for_both: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = decided_for_both
    change_claim(suite, "two", "JWTs must always be encrypted.", monkeypatch)
    stale_line = "1 human decision no longer applies (the claim, section or model changed): review again."

    # Only the changed test selected: it used to say nothing of a decision at all.
    only = suite.runpytest("--citecheck-record-mode=none", "-k", "test_two", "--citecheck-json=report.json")
    only.stdout.fnmatch_lines([stale_line])
    row = rows_by_test(suite.path / "report.json")[TWO]
    assert row["decision"] is None and row["stale_decision"]["by"] == "Ada"

    # The whole suite: test_one keeps the decision, test_two's is stale.
    whole = suite.runpytest("--citecheck-record-mode=none", "--citecheck-json=report.json")
    whole.stdout.fnmatch_lines(["1 verdict decided by a human (reviews file).", stale_line])
    rows = rows_by_test(suite.path / "report.json")
    assert rows[ONE]["decision"]["by"] == "Ada" and rows[TWO]["stale_decision"]["by"] == "Ada"
    listed = review(suite, "--report", "report.json", "--list")
    assert "stale:   Ada decided verified" in listed.stdout


def test_deciding_the_first_tests_changed_citation_leaves_the_other_test_decided(
    decided_for_both: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recording a decision replaces the test's earlier one; the earlier one also covered test_two,
    whose citation has not changed: it must stay decided, not go back to needing review."""
    suite = decided_for_both
    change_claim(suite, "one", "JWTs must always be encrypted.", monkeypatch)
    suite.runpytest("--citecheck-record-mode=none", "--citecheck-json=report.json").assert_outcomes(
        passed=2, warnings=1
    )
    done = review(suite, "--report", "report.json", "--set", f"{ONE}::pii_encryption=verified", "--by", "Bo")
    assert done.returncode == 0, done.stderr

    replay = suite.runpytest("--citecheck-record-mode=none", "--citecheck-json=report.json")
    replay.assert_outcomes(passed=2)
    rows = rows_by_test(suite.path / "report.json")
    assert rows[ONE]["decision"]["by"] == "Bo" and rows[ONE]["verdict"] == "verified"
    assert rows[TWO]["decision"]["by"] == "Ada" and rows[TWO]["verdict"] == "verified"
    decisions = json.loads((suite.path / "citecheck-reviews.json").read_text())["decisions"]
    assert sorted((entry["test"], entry["by"]) for entry in decisions.values()) == [(ONE, "Bo"), (TWO, "Ada")]
    assert all("also_decides" not in entry for entry in decisions.values())

    # test_two's claim changes in its turn: reported stale, under the decision it had kept.
    change_claim(suite, "two", "JWTs must be encrypted with AES.", monkeypatch)
    only = suite.runpytest("--citecheck-record-mode=none", "-k", "test_two")
    only.stdout.fnmatch_lines(["1 human decision no longer applies*"])


def test_a_reviews_file_of_format_1_still_loads_and_applies(decided_for_both: pytest.Pytester) -> None:
    """A file written before decisions recorded the citations they cover (format 1) is read as before."""
    path = decided_for_both.path / "citecheck-reviews.json"
    data = json.loads(path.read_text())
    (entry,) = data["decisions"].values()
    del entry["also_decides"]
    path.write_text(json.dumps({**data, "format": 1}))
    replay = decided_for_both.runpytest("--citecheck-record-mode=none", "--citecheck-json=report.json")
    replay.assert_outcomes(passed=2)
    rows = rows_by_test(decided_for_both.path / "report.json")
    assert rows[ONE]["decision"]["by"] == rows[TWO]["decision"]["by"] == "Ada"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("x", "field 'also_decides' is 'x', expected a list of {test, citation} objects"),
        ([{"test": "t.py::t"}], "field 'also_decides' is [{'test': 't.py::t'}], expected a list of {test, citation}"),
        ([{"test": 1, "citation": "c"}], "field 'also_decides' is [{'test': 1, 'citation': 'c'}], expected a list"),
    ],
)
def test_a_damaged_also_decides_fails_the_test_naming_the_field(
    decided_for_both: pytest.Pytester, value: object, problem: str
) -> None:
    path = decided_for_both.path / "citecheck-reviews.json"
    data = json.loads(path.read_text())
    (entry,) = data["decisions"].values()
    entry["also_decides"] = value
    path.write_text(json.dumps(data, indent=2))
    result = decided_for_both.runpytest("--citecheck-record-mode=none")
    result.assert_outcomes(failed=2)
    assert problem in result.stdout.str()
    assert "(citation 'pii_encryption')" in result.stdout.str()


def test_a_decision_is_dead_only_when_every_test_it_decides_is_gone(decided_for_both: pytest.Pytester) -> None:
    """test_one renamed: the decision recorded under it also decides test_two's citation, which is still
    collected (deselected here, so the decision did not apply in this run): not dead. Both gone: dead."""
    suite = decided_for_both
    (suite.path / "test_answers.py").write_text(TEST_FILE.replace("def test_one", "def test_uno"))
    result = suite.runpytest("--citecheck-record-mode=none", "-k", "test_nothing_matches")
    assert "no citation any more" not in result.stdout.str()
    renamed = TEST_FILE.replace("def test_one", "def test_uno").replace("def test_two", "def test_dos")
    (suite.path / "test_answers.py").write_text(renamed)
    result = suite.runpytest("--citecheck-record-mode=none", "-k", "test_nothing_matches")
    result.stdout.fnmatch_lines(
        [
            "1 human decision in 1 reviews file applies to no citation any more:",
            f"  dead  {ONE} 'pii_encryption' (verified by Ada) in citecheck-reviews.json: no test of that name*",
        ]
    )
