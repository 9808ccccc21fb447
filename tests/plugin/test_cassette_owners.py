"""Which tests own which cassette file, worked out once for the collected tests (``bookkeeping.cassette_of``).

A test alone with its file (most tests) gets it without a list of others; tests that name one
cassette on purpose share it; a test that would use another's file by accident fails, naming both.
"""

from __future__ import annotations

import pytest

COLLIDING = """
import pytest
from pytest_citecheck import Source, check_citations

TEXT = Source(sections={"1": "Refunds are issued within 30 days."})

def test_a():
    check_citations([], TEXT)

@pytest.mark.citecheck(cassette="test_a")
def test_b():
    check_citations([], TEXT)

@pytest.mark.citecheck(cassette="test_a")
def test_c():
    check_citations([], TEXT)

@pytest.mark.citecheck(cassette="together")
def test_d():
    check_citations([], TEXT)

@pytest.mark.citecheck(cassette="together")
def test_e():
    check_citations([], TEXT)

def test_f():
    check_citations([], TEXT)

class TestG:
    def test_a(self):
        check_citations([], TEXT)
"""


def test_tests_sharing_a_cassette_by_accident_fail_and_the_others_run(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ncitecheck_record_mode = none\n")
    pytester.makepyfile(test_owners=COLLIDING)
    result = pytester.runpytest()
    result.assert_outcomes(passed=4, failed=3)
    # The unnamed test collides with both that name its file; each of those collides with it alone.
    lines = sorted(line for line in result.stdout.lines if line.startswith("CassetteCollisionError:"))
    ids = [", ".join(sorted(line.split("would be shared by ")[1].split(",")[0].split(" and "))) for line in lines]
    assert sorted(ids) == [
        "test_owners.py::test_a, test_owners.py::test_b",
        "test_owners.py::test_a, test_owners.py::test_b, test_owners.py::test_c",
        "test_owners.py::test_a, test_owners.py::test_c",
    ]
    assert all(line.startswith("CassetteCollisionError: cassette cassettes/test_owners/test_a.yaml:") for line in lines)
