"""Misattributed citations: the quote is real, but not in the section the citation names.

The case from issue 12: RFC 7519's NumericDate definition is in §2; an answer that cites it as §3
used to be reported ``verified`` (judged against §2) with no word about the wrong section. Now it is
``found-elsewhere``: Jev still judges §2, where the quote is, the result and the JSON report keep both
places, and the ``misattributed`` knob (fail, warn, ignore; flag, ini, marker, call) decides what it
does to the test.
"""

from __future__ import annotations

import json

import pytest
from support import INNER_INI, RFC7519

from pytest_citecheck import Source

MISCITED = '{**pick("epoch_seconds")[0], "section": "3"}'  # the quote is in §2


def write_suite(suite: pytest.Pytester, marker: str = "", call: str = "") -> None:
    suite.makepyfile(
        test_app=f"""
        import pytest
        from cookbook import SOURCE, pick
        from pytest_citecheck import assert_citations_supported

        {marker}
        def test_answer():
            results = assert_citations_supported([{MISCITED}, *pick("clock_skew")], SOURCE{call})
            print("STATUSES", [r.status.value for r in results])
        """
    )


def rows(suite: pytest.Pytester) -> dict[str, dict]:
    return {row["id"]: row for row in json.loads((suite.path / "report.json").read_text())["results"]}


def record(suite: pytest.Pytester) -> None:
    write_suite(suite, call=", misattributed='ignore'")
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)


@pytest.fixture
def recorded_here(suite, jev_server) -> pytest.Pytester:
    """Recorded by this test's own run: for a test that asserts on the requests Jev saw."""
    record(suite)
    write_suite(suite)
    return suite


@pytest.fixture
def recorded(suite, jev_server, recorded_once) -> pytest.Pytester:
    """Recorded once per module (the same run as ``recorded_here``), a copy of it in each later test."""
    recorded_once(suite, lambda: record(suite))
    write_suite(suite)
    return suite


def test_by_default_a_misattributed_citation_fails_and_says_where_it_was_cited_and_where_the_quote_is(
    recorded_here, jev_server
):
    result = recorded_here.runpytest("--citecheck-json=report.json")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*1 of 2 citations not supported:",
            "*epoch_seconds  found-elsewhere  2        verified  0.94  FAIL*",
            "*epoch_seconds: cited §3, the quote is in §2*",
            "*What next: a misattributed citation quotes real text from another place than it names*",
        ]
    )
    row = rows(recorded_here)["epoch_seconds"]
    assert (row["status"], row["section"], row["cited_section"], row["verdict"]) == (
        "found-elsewhere",
        "2",
        "3",
        "verified",
    )
    # Jev judged §2, where the quote is: the recorded request is the one for §2.
    judged = [r.body["state"]["section"] for r in jev_server.systemone_requests]
    assert Source.from_file(RFC7519).sections["2"] in judged
    # Every row keeps the section its citation named, whatever its status.
    assert rows(recorded_here)["clock_skew"]["cited_section"] == "4.1.4"


@pytest.mark.parametrize(
    ("how", "args", "marker", "call", "ini"),
    [
        ("flag", ["--citecheck-misattributed=warn"], "", "", ""),
        ("ini", [], "", "", "citecheck_misattributed = warn\n"),
        ("marker", [], "@pytest.mark.citecheck(misattributed='warn')", "", "citecheck_misattributed = ignore\n"),
        ("call", ["--citecheck-misattributed=fail"], "", ", misattributed='warn'", ""),
    ],
)
def test_warn_passes_with_a_warning_through_every_channel(recorded, how, args, marker, call, ini):
    write_suite(recorded, marker=marker, call=call)
    recorded.makeini(INNER_INI + ini)
    result = recorded.runpytest("-s", *args)
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(
        [
            "*STATUSES ?'found-elsewhere', 'found'?",
            "*CitationMisattributedWarning: 1 citation quotes another place than it names (misattributed='warn'):",
            "*epoch_seconds: cited §3, the quote is in §2*",
        ]
    )


@pytest.mark.parametrize(
    ("args", "marker", "call", "ini"),
    [
        (["--citecheck-misattributed=ignore"], "", "", ""),
        ([], "", "", "citecheck_misattributed = ignore\n"),
        (["--citecheck-misattributed=fail"], "@pytest.mark.citecheck(misattributed='ignore')", "", ""),
        ([], "@pytest.mark.citecheck(misattributed='fail')", ", misattributed='ignore'", ""),
    ],
    ids=["flag", "ini", "marker", "call"],
)
def test_ignore_passes_silently_and_still_reports_where_the_quote_is(recorded, args, marker, call, ini):
    write_suite(recorded, marker=marker, call=call)
    recorded.makeini(INNER_INI + ini)
    result = recorded.runpytest("-s", "--citecheck-json=report.json", *args)
    result.assert_outcomes(passed=1)
    assert "Misattributed" not in result.stdout.str()
    row = rows(recorded)["epoch_seconds"]
    assert (row["status"], row["section"], row["cited_section"]) == ("found-elsewhere", "2", "3")


def test_fail_through_the_ini_file_beats_nothing_and_a_bad_value_is_a_usage_error(recorded):
    recorded.makeini(INNER_INI + "citecheck_misattributed = fail\n")
    recorded.runpytest().assert_outcomes(failed=1)
    bad = recorded.runpytest("--citecheck-misattributed=maybe")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--citecheck-misattributed: expected one of fail, warn, ignore; got 'maybe'*"])


def test_a_quote_in_the_cited_section_and_elsewhere_is_attributed_to_the_cited_section(suite, jev_server):
    optional = "Use of this claim is OPTIONAL."  # in §4.1.1 to §4.1.7 of RFC 7519
    suite.makepyfile(
        test_app=f"""
        from cookbook import SOURCE

        def test_answer(citecheck):
            results = citecheck.check(
                [
                    {{"id": "cited", "claim": "aud is optional.", "quote": {optional!r}, "section": "4.1.3"}},
                    {{"id": "uncited", "claim": "iss is optional.", "quote": {optional!r}}},
                ],
                SOURCE,
            )
            print("WHERE", [(r.status.value, r.section, r.cited_section) for r in results])
        """
    )
    result = suite.runpytest("-s", "--citecheck-record-mode=once")
    result.assert_outcomes(passed=1)
    # Cited: the cited section. Not cited: the cookbook's first section in numeric order.
    result.stdout.fnmatch_lines(["*WHERE ?('found', '4.1.3', '4.1.3'), ('found', '4.1.1', None)?"])


@pytest.mark.parametrize(
    ("cited", "found", "words"),
    [
        (("3", None), ("2", None), "cited §3, the quote is in §2"),
        (("5", "GPL-3"), ("6", "GPL-3"), "cited §5 of 'GPL-3', the quote is in §6"),
        ((None, "LGPL-3"), ("8", "GPL-3"), "cited 'LGPL-3', the quote is in §8 of 'GPL-3'"),
        (
            ("Refunds > EU", "terms.md"),
            ("Refunds", "terms.md"),
            "cited section 'Refunds > EU' of 'terms.md', the quote is in section 'Refunds'",
        ),
    ],
)
def test_the_words_for_where_a_citation_points_and_where_its_quote_is(cited, found, words):
    from pytest_citecheck._gate import where_cited

    assert where_cited(*cited, *found) == words
