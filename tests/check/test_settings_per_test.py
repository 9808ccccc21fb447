"""Each test's checker gets its own settings from its own chain of markers.

What a checker works out from the test's module and class (``_pytest_glue.fixtures``) is kept for
the tests that share them; a test's own markers (its decorator, its parametrized case, one a
fixture adds while it runs) must still reach that test alone, and only that test: in whatever
order tests with and without their own markers run in one module and one class.
"""

from __future__ import annotations

import json

import pytest

from pytest_citecheck.testing import JevServer

MODEL = "jev-1.12"

TESTS = """
import pytest
from pytest_citecheck import assert_citations_supported, check_citations
from cookbook import SOURCE, pick

pytestmark = pytest.mark.citecheck(auto_accept=0.85)

def test_module_first():
    check_citations(pick("epoch_seconds"), SOURCE)

@pytest.mark.citecheck(auto_accept=0.95)
def test_own_marker():
    check_citations(pick("epoch_seconds"), SOURCE)

@pytest.mark.citecheck(auto_accept=0.95)
def test_same_marker_other_test():
    check_citations(pick("epoch_seconds"), SOURCE)

def test_module_after():
    check_citations(pick("epoch_seconds"), SOURCE)

@pytest.mark.citecheck(auto_accept=0.99, review="xfail")
def test_review_policy_of_its_own():
    assert_citations_supported(pick("epoch_seconds"), SOURCE)
    raise AssertionError("not reached: the verdict needs review, and this test's policy is xfail")

@pytest.fixture
def stricter(request):
    request.applymarker(pytest.mark.citecheck(auto_accept=0.93))

def test_marker_added_by_a_fixture(stricter):
    check_citations(pick("epoch_seconds"), SOURCE)

@pytest.mark.parametrize("case", [pytest.param("plain"), pytest.param("marked", marks=pytest.mark.citecheck(auto_accept=0.91))])
def test_case(case):
    check_citations(pick("epoch_seconds"), SOURCE)

@pytest.mark.citecheck(auto_accept=0.9)
class TestInClass:
    def test_class_first(self):
        check_citations(pick("epoch_seconds"), SOURCE)

    @pytest.mark.citecheck(auto_accept=0.97)
    def test_method_marker(self):
        check_citations(pick("epoch_seconds"), SOURCE)

    def test_class_after(self):
        check_citations(pick("epoch_seconds"), SOURCE)

class TestPlainClass:
    def test_in_plain_class(self):
        check_citations(pick("epoch_seconds"), SOURCE)

    @pytest.mark.citecheck(auto_accept=0.96)
    def test_method_marker_in_plain_class(self):
        check_citations(pick("epoch_seconds"), SOURCE)
"""

OTHER = """
from pytest_citecheck import check_citations
from cookbook import SOURCE, pick

def test_other_module():
    check_citations(pick("epoch_seconds"), SOURCE)
"""

# A marker added to the module while the run goes on: the tests after it see it, as pytest's own
# lookups would (whichever order they run in).
LATER = """
import pytest
from pytest_citecheck import check_citations
from cookbook import SOURCE, pick

def test_first():
    check_citations(pick("epoch_seconds"), SOURCE)

def test_marks_its_module(request):
    request.node.parent.add_marker(pytest.mark.citecheck(auto_accept=0.92))
    check_citations(pick("epoch_seconds"), SOURCE)

def test_last():
    check_citations(pick("epoch_seconds"), SOURCE)
"""

LATER_EXPECTED = {
    "as written": {
        "test_later.py::test_first": (0.8, None),
        "test_later.py::test_marks_its_module": (0.92, "test_later.py"),
        "test_later.py::test_last": (0.92, "test_later.py"),
    },
    "reversed": {
        "test_later.py::test_last": (0.8, None),
        "test_later.py::test_marks_its_module": (0.92, "test_later.py"),
        "test_later.py::test_first": (0.92, "test_later.py"),
    },
}

# test -> (auto_accept, auto_accept_scope), as each test's report row says.
EXPECTED = {
    "test_settings.py::test_module_first": (0.85, "test_settings.py"),
    "test_settings.py::test_own_marker": (0.95, "test_settings.py::test_own_marker"),
    "test_settings.py::test_same_marker_other_test": (0.95, "test_settings.py::test_same_marker_other_test"),
    "test_settings.py::test_module_after": (0.85, "test_settings.py"),
    "test_settings.py::test_review_policy_of_its_own": (0.99, "test_settings.py::test_review_policy_of_its_own"),
    "test_settings.py::test_marker_added_by_a_fixture": (0.93, "test_settings.py::test_marker_added_by_a_fixture"),
    "test_settings.py::test_case[plain]": (0.85, "test_settings.py"),
    "test_settings.py::test_case[marked]": (0.91, "test_settings.py::test_case"),
    "test_settings.py::TestInClass::test_class_first": (0.9, "test_settings.py::TestInClass"),
    "test_settings.py::TestInClass::test_method_marker": (0.97, "test_settings.py::TestInClass::test_method_marker"),
    "test_settings.py::TestInClass::test_class_after": (0.9, "test_settings.py::TestInClass"),
    "test_settings.py::TestPlainClass::test_in_plain_class": (0.85, "test_settings.py"),
    "test_settings.py::TestPlainClass::test_method_marker_in_plain_class": (
        0.96,
        "test_settings.py::TestPlainClass::test_method_marker_in_plain_class",
    ),
    "test_other.py::test_other_module": (0.8, None),
}


@pytest.mark.parametrize("order", ["as written", "reversed"])
def test_each_test_gets_the_settings_of_its_own_markers(
    suite: pytest.Pytester, jev_server: JevServer, order: str
) -> None:
    """Tests with and without markers of their own, in one module and one class, in either order."""
    suite.makepyfile(test_settings=TESTS, test_other=OTHER, test_later=LATER)
    expected = {**EXPECTED, **LATER_EXPECTED[order]}
    suite.makeini(f"[pytest]\nfilterwarnings = ignore\ncitecheck_model = {MODEL}\n")
    if order == "reversed":
        suite.makeconftest("def pytest_collection_modifyitems(items):\n    items.reverse()\n")
    result = suite.runpytest("--citecheck-record-mode=once", "--citecheck-json=report.json", "-p", "no:randomly")
    result.assert_outcomes(passed=16, xfailed=1)
    rows = json.loads((suite.path / "report.json").read_text())["results"]
    assert len(rows) == len(expected)
    assert {row["test"]: (row["auto_accept"], row["auto_accept_scope"]) for row in rows} == expected
    # The confidence the server answers sits between the thresholds: each test's own one decided.
    needs_review = {row["test"] for row in rows if not row["auto"]}
    assert needs_review == {test for test, (auto_accept, _) in expected.items() if auto_accept > rows[0]["confidence"]}
    assert needs_review and needs_review != set(expected)
    # The same tests, replayed from what they recorded: the same settings again.
    replayed = suite.runpytest("--citecheck-record-mode=none", "--citecheck-json=again.json", "-p", "no:randomly")
    replayed.assert_outcomes(passed=16, xfailed=1)
    again = json.loads((suite.path / "again.json").read_text())["results"]
    assert {row["test"]: (row["auto_accept"], row["auto_accept_scope"]) for row in again} == expected
