"""What a verdict below auto_accept does to its test (`review`), and which verdicts fail (`fail_on`).

Each is set by flag, ini key, marker and call keyword; real pytest runs through pytester, Jev's
answers recorded from the loopback JevServer (pii_encryption is "unsupported" at 0.28, below the
threshold; exp_required is "contradicted" at 0.98, above it).
"""

from __future__ import annotations

import pytest

from pytest_citecheck.testing import JevServer

OUTCOME = {"warn": {"passed": 1, "warnings": 1}, "fail": {"failed": 1}, "xfail": {"xfailed": 1}, "skip": {"skipped": 1}}

BELOW_THRESHOLD = """
import pytest
from pytest_citecheck import assert_citations_supported
from cookbook import SOURCE, pick

def test_below_threshold():
    assert_citations_supported(pick("aud_reject", "pii_encryption"), SOURCE)
"""


@pytest.fixture
def recording(suite: pytest.Pytester, jev_server: JevServer, inner_ini: str) -> pytest.Pytester:
    suite.makeini(inner_ini + "citecheck_model = jev-1.12\n")
    return suite


@pytest.mark.parametrize("policy", ["warn", "fail", "xfail", "skip"])
def test_review_policy_from_the_command_line(recording: pytest.Pytester, policy: str) -> None:
    recording.makepyfile(test_it=BELOW_THRESHOLD)
    result = recording.runpytest("--citecheck-record-mode=once", f"--citecheck-review={policy}", "-rsx")
    result.assert_outcomes(**OUTCOME[policy])
    if policy == "fail":
        result.stdout.fnmatch_lines(
            [
                "*1 of 2 citations needs review (below auto_accept 0.8; review='fail' fails the test)*",
                "*pii_encryption*unsupported*0.28*needs review*",
                "*What next: run `citecheck review`*",
            ]
        )
    else:
        # The warning, the xfail reason and the skip reason all name the citation to review.
        result.stdout.fnmatch_lines(["*1 citation below auto_accept 0.8 needs a human review*"])
        assert "pii_encryption" in result.stdout.str()


def test_review_xfail_under_runxfail_fails_instead_of_passing(recording: pytest.Pytester) -> None:
    """``--runxfail`` makes ``pytest.xfail()`` return (pytest 8 and later): review='xfail' then let the
    verdict below auto_accept pass, unreviewed (hunt-wrong-passes F6). Run as if not marked, it fails."""
    recording.makepyfile(test_it=BELOW_THRESHOLD)
    recording.runpytest("--citecheck-record-mode=once", "--citecheck-review=xfail").assert_outcomes(xfailed=1)
    result = recording.runpytest("--citecheck-review=xfail", "--runxfail")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*1 citation below auto_accept 0.8 needs a human review*",
            "*pii_encryption*",
            "*review='xfail' under --runxfail: the test fails as if it were not marked xfail*",
        ]
    )


def test_review_policy_from_the_ini_file(recording: pytest.Pytester, inner_ini: str) -> None:
    recording.makeini(inner_ini + "citecheck_model = jev-1.12\ncitecheck_review = xfail\n")
    recording.makepyfile(test_it=BELOW_THRESHOLD)
    recording.runpytest("--citecheck-record-mode=once").assert_outcomes(xfailed=1)


def test_review_policy_per_test_from_marker_and_call_with_call_over_marker_over_flag(
    recording: pytest.Pytester,
) -> None:
    recording.makepyfile(
        test_it="""
        import pytest
        from pytest_citecheck import assert_citations_supported
        from cookbook import SOURCE, pick

        CITES = pick("aud_reject", "pii_encryption")

        @pytest.mark.citecheck(review="fail")
        def test_marker_fail():
            assert_citations_supported(CITES, SOURCE)

        @pytest.mark.citecheck(review="skip")
        def test_marker_skip():
            assert_citations_supported(CITES, SOURCE)

        def test_call_xfail():
            assert_citations_supported(CITES, SOURCE, review="xfail")

        @pytest.mark.citecheck(review="fail")
        def test_call_beats_marker():
            assert_citations_supported(CITES, SOURCE, review="warn")

        def test_flag_applies_without_marker():
            assert_citations_supported(CITES, SOURCE)
        """
    )
    result = recording.runpytest("--citecheck-record-mode=once", "--citecheck-review=skip", "-rA")
    result.assert_outcomes(failed=1, skipped=2, xfailed=1, passed=1, warnings=1)
    for line in (
        "FAILED test_it.py::test_marker_fail*",
        "XFAIL test_it.py::test_call_xfail*",
        "PASSED test_it.py::test_call_beats_marker",
    ):
        result.stdout.fnmatch_lines([line])


def test_fail_on_decides_which_confident_verdicts_fail(recording: pytest.Pytester) -> None:
    recording.makepyfile(
        test_it="""
        import pytest
        from pytest_citecheck import assert_citations_supported
        from cookbook import SOURCE, pick

        def test_contradicted_fails_by_default():
            assert_citations_supported(pick("exp_required"), SOURCE)

        def test_contradicted_allowed_by_call():
            assert_citations_supported(pick("exp_required"), SOURCE, fail_on="fabricated")

        @pytest.mark.citecheck(fail_on=["contradicted"])
        def test_fabricated_allowed_by_marker():
            assert_citations_supported(pick("sig_reporting"), SOURCE)
        """
    )
    result = recording.runpytest("--citecheck-record-mode=once", "-rA")
    result.assert_outcomes(failed=1, passed=2)
    result.stdout.fnmatch_lines(["FAILED test_it.py::test_contradicted_fails_by_default*"])

    # From the command line: with only "fabricated" failing, the contradicted verdict passes.
    flagged = recording.runpytest("--citecheck-fail-on=fabricated", "-k", "default")
    flagged.assert_outcomes(passed=1)


def test_a_bad_review_policy_is_a_usage_error_naming_the_flag(recording: pytest.Pytester) -> None:
    recording.makepyfile(test_it=BELOW_THRESHOLD)
    result = recording.runpytest("--citecheck-review=ignore")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--citecheck-review: expected one of warn, fail, xfail, skip; got 'ignore'*"])


def test_a_bad_review_keyword_fails_the_test_naming_it(recording: pytest.Pytester) -> None:
    recording.makepyfile(
        test_it="""
        from pytest_citecheck import assert_citations_supported
        from cookbook import SOURCE, pick

        def test_it():
            assert_citations_supported(pick("aud_reject"), SOURCE, review="shrug")
        """
    )
    result = recording.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*review: expected one of warn, fail, xfail, skip; got 'shrug'*"])
