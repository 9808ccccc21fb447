"""Claims that need several sections: ``section=["4", "9"]`` or several quotes, judged in one request over all of them.

The cookbook: "a claim that depends on several hops through the document, where section 4 defines a
term that section 9 then qualifies ... either assemble the relevant sections into one state or
split the check". The data is that case: section 4 says pseudonymised data is personal data,
section 9 says personal data is deleted 30 days after the contract ends, and the claim is about
pseudonymised data's deletion. ``JevServer`` is scripted to answer "supports" only when it reads
both sections (what a model should do: neither section settles the claim alone). The tests prove
the plugin's side, through real pytest runs that record and then replay: the state holds every
section, labelled, in document order, under the one ``section`` key of the cookbook's request
(the relation question is unchanged); the report names the sections and highlights every quote; a
quote of several that is not in the source is ``fabricated`` without a request; an assembly too
large for Jev is a clear error naming each section's size, before anything is sent.
"""

from __future__ import annotations

import json
from typing import Any

import httpcore2  # noqa: F401  (imported once: see tests/judge/test_hostile.py)
import pytest
import typesafe_sdk  # noqa: F401
import vcr
import vcr.stubs.httpx_stubs  # noqa: F401
from support import Offline, html_report_data

from pytest_citecheck.testing import JevServer

KEY = "sk-assembly-test-3b7d"
DEFINITIONS = (
    "4.  Definitions\n\n"
    '"Personal data" means any information relating to an identified or identifiable natural person. '
    "Pseudonymised data counts as personal data."
)
SECURITY = "7.  Security\n\nPersonal data is encrypted at rest and in transit."
RETENTION = "9.  Retention\n\nPersonal data MUST be deleted within 30 days after the contract ends."
CLAIM = "Pseudonymised data must be deleted within 30 days after the contract ends."
DEFINES = "Pseudonymised data counts as personal data."
RULES = "Personal data MUST be deleted within 30 days after the contract ends."
ASSEMBLED = f"[section 4]\n{DEFINITIONS}\n\n[section 9]\n{RETENTION}"

SUITE = f"""
import pytest
from pytest_citecheck import CitationInputError, CitationsNotSupported, Source, assert_citations_supported, check_citations

POLICY = Source(sections={{"4": {DEFINITIONS!r}, "7": {SECURITY!r}, "9": {RETENTION!r}}})
CLAIM = {CLAIM!r}


def test_both_sections():
    # Named out of document order: the assembly keeps the document's.
    assert_citations_supported([{{"id": "retention", "claim": CLAIM, "section": ["9", "4"]}}], POLICY)


def test_one_section_alone():
    assert_citations_supported([{{"id": "retention", "claim": CLAIM, "section": "9"}}], POLICY)


def test_two_quotes():
    assert_citations_supported([{{"id": "retention", "claim": CLAIM, "quote": [{DEFINES!r}, {RULES!r}]}}], POLICY)


def test_a_missing_quote():
    citation = {{"id": "retention", "claim": CLAIM, "quote": [{DEFINES!r}, "Personal data is kept for ten years."]}}
    with pytest.raises(CitationsNotSupported) as caught:
        assert_citations_supported([citation], POLICY)
    [result] = caught.value.results
    print("MISSING", result.verdict.value, result.quote, result.closest.section)
    print(str(caught.value).splitlines()[-2])


def test_too_large():
    big = Source(sections={{"4": "4.  Definitions\\n\\n" + "word " * 12000, "9": "9.  Retention\\n\\n" + "word " * 12000}})
    with pytest.raises(CitationInputError) as caught:
        check_citations([{{"id": "retention", "claim": CLAIM, "section": ["4", "9"]}}], big)
    print("TOO LARGE", caught.value)
"""


def hops(claim: str, section: str) -> tuple[str, float]:
    """Neither section settles the claim alone; together they do."""
    if "Pseudonymised data counts" in section and "MUST be deleted" in section:
        return ("supports", 0.95)
    return ("says_nothing", 0.6)


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, offline: Offline) -> Any:
    pytester.makeini("[pytest]\nfilterwarnings = default\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(test_policy=SUITE)
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)

    def go(*args: str, replay: bool = False) -> tuple[pytest.RunResult, JevServer | None, list[dict[str, Any]]]:
        common = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "--citecheck-model=jev-1.12", "-s", *args)
        if replay:
            offline()
            result, server = pytester.runpytest(*common, "--citecheck-record-mode=none"), None
        else:
            with JevServer(hops, questions={"out_of_context": lambda claim, section: 0.03}) as server:
                monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
                result = pytester.runpytest(*common, "--citecheck-record-mode=once")
        report = pytester.path / "report.json"
        rows = json.loads(report.read_text())["results"] if report.exists() else []
        return result, server, rows

    return go


def by_test(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {row["test"].split("::")[-1]: row for row in rows}


def test_a_claim_that_needs_two_sections_is_judged_on_both_at_once(run: Any, pytester: pytest.Pytester) -> None:
    recorded, server, rows = run("--citecheck-json=report.json", "--citecheck-html=report.html")
    recorded.assert_outcomes(passed=5, warnings=1)  # the warning: section 9 alone says nothing of pseudonymised data
    output = recorded.stdout.str()

    assert server is not None
    bodies = {request.body["state"]["section"]: request.body for request in server.systemone_requests}
    # Both sections, and 9 alone; the two quotes ask what "both sections" asked (the same request, sent once
    # per run: _judge.sharing); no request for the rest.
    assert len(server.systemone_requests) == 2
    both = bodies[ASSEMBLED]  # one state: every section, labelled, in document order, as the cookbook's "section"
    assert both["state"] == {"claim": CLAIM, "section": ASSEMBLED}
    assert list(both["questions"]) == ["relation"]
    assert both["questions"]["relation"]["instructions"] == "How does the section relate to the claim?"

    row = by_test(rows)
    together = row["test_both_sections"]
    assert (together["section"], together["sections"], together["status"]) == ("4 + 9", ["4", "9"], "section-only")
    assert (together["verdict"], together["auto"], together["section_text"]) == ("verified", True, ASSEMBLED)
    alone = row["test_one_section_alone"]
    assert (alone["section"], alone["verdict"], alone["auto"], "sections" in alone) == (
        "9",
        "unsupported",
        False,
        False,
    )

    # Several quotes: each found (here without naming a section), their sections assembled, each quote located in the text.
    quoted = row["test_two_quotes"]
    assert (quoted["status"], quoted["sections"], quoted["quotes"], quoted["verdict"]) == (
        "found",
        ["4", "9"],
        [DEFINES, RULES],
        "verified",
    )
    assert [quoted["section_text"][start:end] for start, end in quoted["spans"]] == [DEFINES, RULES]
    # The HTML report's card (its data: tests/report/test_html_report.py draws cards in Chromium) marks both quotes.
    texts, cards = html_report_data(pytester.path / "report.html")
    card = next(card for card in cards if texts[card["t"]].endswith("::test_two_quotes"))
    assert [texts[card["s"]][1][start:end] for start, end in card["p"]] == [DEFINES, RULES]
    assert card["w"] == "§ 4, § 9 (judged together)"

    # A quote of several that is not in the source: fabricated, no request, with that quote and its closest passage.
    assert "MISSING fabricated Personal data is kept for ten years. 7" in output, output
    assert "retention: quote 2 of 2 is not in the source: 'Personal data is kept for ten years.'" in output
    # Too large together (each alone would fit): a clear error naming each section's size, nothing sent.
    assert "TOO LARGE citation 'retention', field 'section': sections 4 + 9 are too large to judge together" in output
    assert "4 (60,017 characters, about 20,006 tokens), 9 (60,015 characters, about 20,005 tokens)" in output
    assert "Split the check: one citation per section" in output

    # Recorded, and replayed with no key and no network to the same results.
    replayed, _, replay_rows = run("--citecheck-json=report.json", replay=True)
    replayed.assert_outcomes(passed=5, warnings=1)
    # How each answer came (replayed now; sent, or a copy of an identical request's, then) aside.
    strip = lambda rows: [{k: v for k, v in r.items() if k not in ("replayed", "shared")} for r in rows]  # noqa: E731
    assert strip(replay_rows) == strip(rows)


def test_out_of_context_reads_every_quote_of_an_assembly(run: Any) -> None:
    recorded, server, rows = run("--citecheck-questions=out_of_context", "-k", "two_quotes")
    recorded.assert_outcomes(passed=1)
    assert server is not None
    [request] = server.systemone_requests
    assert request.body["state"] == {"claim": CLAIM, "section": ASSEMBLED, "quote": f"{DEFINES}\n\n{RULES}"}
    assert list(request.body["questions"]) == ["relation", "out_of_context"]
