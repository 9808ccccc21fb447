"""The cookbook FAQ's extra questions (option ``questions``): asked in the relation's request, recorded, replayed, gated.

What is simulated, honestly: ``JevServer`` is scripted, so no test here shows that Jev answers
these questions well. The data is cookbook-style (a real-looking policy, a quote that is in it word
for word, a claim that drops the "unless" around it; a definitions section that only mentions what
another section rules on), and the scripted answers are what a model reading it should say. What
the tests prove is pytest-citecheck's side: each question rides in the same request as the relation
only when asked for and only for the citations it applies to; its answer is recorded in the
cassette and replayed without key or network; a flag sends a "verified" to review, a confident flag
fails the test; the failure message, the JSON report and the HTML report show the answers; a missing
or malformed answer fails closed; and without the option the request is the cookbook's, unchanged.
"""

from __future__ import annotations

import json
from typing import Any

# Imported once, at collection (see tests/judge/test_hostile.py: in-process runs re-import what they import).
import httpcore2  # noqa: F401
import pytest
import typesafe_sdk  # noqa: F401
import vcr
import vcr.stubs.httpx_stubs  # noqa: F401
from support import Offline, html_report_cards

from pytest_citecheck.testing import JevServer

KEY = "sk-questions-test-5e1a"

# --- out_of_context: "MUST ... unless", cited without the "unless" ---------------------------

LIFETIME = (
    "4.2.  Access token lifetime\n\n"
    "Access tokens MUST expire within 24 hours of issue, unless the client is registered as a "
    "confidential client; the authorization server MAY then issue access tokens that stay valid "
    "for up to 30 days."
)
QUOTE = "Access tokens MUST expire within 24 hours of issue"
DROPS_THE_UNLESS = "Every access token expires within 24 hours of being issued."
KEEPS_THE_UNLESS = (
    "Access tokens expire within 24 hours, except that confidential clients may get tokens for up to 30 days."
)
HEDGES = "Access tokens are short-lived: they expire within a day of issue."

OUT_OF_CONTEXT_SUITE = """
import pytest
from pytest_citecheck import Source, assert_citations_supported

POLICY = Source(sections={{
    "4.1": "4.1.  Issuing tokens\\n\\nThe authorization server issues an access token once the client has authenticated.",
    "4.2": {lifetime!r},
}})


def cite(claim):
    return [{{"id": "lifetime", "claim": claim, "quote": {quote!r}, "section": "4.2"}}]


{marker}
def test_drops_the_unless():
    assert_citations_supported(cite({drops!r}), POLICY{call})


{marker}
def test_keeps_the_unless():
    assert_citations_supported(cite({keeps!r}), POLICY{call})


{marker}
def test_hedges():
    assert_citations_supported(cite({hedges!r}), POLICY{call})


{marker}
def test_claim_only():
    assert_citations_supported([{{"id": "issuing", "claim": "Tokens are issued after authentication.", "section": "4.1"}}], POLICY{call})
"""


def relation(claim: str, section: str) -> tuple[str, float]:
    # A model that reads the quote and misses the "unless" says "supports" to the claim that drops it.
    return ("supports", 0.93)


def out_of_context(claim: str, section: str) -> float:
    return {DROPS_THE_UNLESS: 0.94, HEDGES: 0.68}.get(claim, 0.04)


# --- best_section: a definitions section that only mentions what section 6 rules on -----------

DEFINITIONS = (
    "2.  Definitions\n\n"
    "Refresh token: a credential the client uses to obtain a new access token. How refresh tokens "
    "are used, and how often, is set out in Section 6."
)
REFRESH = (
    "6.  Refreshing an access token\n\n"
    "A refresh token MAY be used only once. With every refresh, the authorization server MUST issue a "
    "new refresh token and revoke the old one."
)
SINGLE_USE = "A refresh token can be used only once."

BEST_SECTION_SUITE = """
from pytest_citecheck import Source, assert_citations_supported

POLICY = Source(sections={{"2": {definitions!r}, "6": {refresh!r}}})


def test_cites_the_definitions():
    assert_citations_supported([{{"id": "single_use", "claim": {claim!r}, "section": "2"}}], POLICY)


def test_cites_the_rule():
    assert_citations_supported([{{"id": "single_use", "claim": {claim!r}, "section": "6"}}], POLICY)


def test_quoted_is_not_asked():
    assert_citations_supported(
        [{{"id": "quoted", "claim": {claim!r}, "quote": "A refresh token MAY be used only once.", "section": "6"}}], POLICY
    )
"""


def best_section(claim: str, section: str) -> float:
    """Jev's probability that the section is the one that deals with the claim."""
    return 0.97 if section.startswith("6.") else 0.07


def refresh_relation(claim: str, section: str) -> tuple[str, float]:
    # The definitions do mention refresh tokens, and point to the rule: "supports", less surely.
    return ("supports", 0.97) if section.startswith("6.") else ("supports", 0.91)


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, offline: Offline) -> Any:
    """Write the suite, run it (recording through a scripted JevServer, or replaying with no key and no network)."""
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)

    def go(
        *args: str,
        suite: str = "out_of_context",
        ini: str = "",
        marker: str = "",
        call: str = "",
        answers: dict[str, Any] | None = None,
        replay: bool = False,
        report: str = "report.json",
    ) -> tuple[pytest.RunResult, JevServer | None, list[dict[str, Any]]]:
        pytester.makeini(f"[pytest]\nfilterwarnings = default\nasyncio_default_fixture_loop_scope = function\n{ini}\n")
        if suite == "out_of_context":
            source = OUT_OF_CONTEXT_SUITE.format(
                lifetime=LIFETIME,
                quote=QUOTE,
                drops=DROPS_THE_UNLESS,
                keeps=KEEPS_THE_UNLESS,
                hedges=HEDGES,
                marker=marker,
                call=call,
            )
            questions = {"out_of_context": out_of_context, "best_section": lambda claim, section: 0.96}
            script: dict[str, Any] = {"answer": relation, "questions": questions}
        else:
            source = BEST_SECTION_SUITE.format(definitions=DEFINITIONS, refresh=REFRESH, claim=SINGLE_USE)
            script = {"answer": refresh_relation, "questions": {"best_section": best_section}}
        if answers is not None:
            script["questions"] = answers
        pytester.makepyfile(test_policy=source)
        common = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "--citecheck-model=jev-1.12")
        common += (f"--citecheck-json={report}", "-W", "default")
        if replay:
            offline()
            result = pytester.runpytest(*common, "--citecheck-record-mode=none", *args)
            server = None
        else:
            with JevServer(script["answer"], questions=script["questions"]) as server:
                monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
                result = pytester.runpytest(*common, "--citecheck-record-mode=once", *args)
        path = pytester.path / report
        rows = json.loads(path.read_text())["results"] if path.exists() else []
        return result, server, rows

    return go


def by_test(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {row["test"].split("::")[-1]: row for row in rows}


def test_out_of_context_flags_a_quote_cited_without_its_unless(run: Any, pytester: pytest.Pytester) -> None:
    recorded, server, rows = run("--citecheck-questions=out_of_context")
    # The claim that drops the "unless" fails on the confident flag although Jev's relation said "supports";
    # the one that keeps it passes; the unsure flag (0.68 < auto_accept 0.8) passes with a review warning.
    recorded.assert_outcomes(passed=3, failed=1, warnings=1)
    output = recorded.stdout.str()
    assert "lifetime: out_of_context: FLAGGED, confident (0.94 >= auto_accept 0.8): fails" in output, output
    assert "the section qualifies the quoted passage in a way the claim leaves out" in output
    assert "lifetime: out_of_context: flagged (0.68 < auto_accept 0.8): needs review" in output
    assert "FAILED test_policy.py::test_drops_the_unless" in output

    # One request per citation, the question in it, the quote in the state; claim-only: not asked.
    assert server is not None
    requests = {request.body["state"]["claim"]: request.body for request in server.systemone_requests}
    assert len(requests) == 4
    asked = requests[DROPS_THE_UNLESS]
    assert list(asked["questions"]) == ["relation", "out_of_context"]
    assert asked["questions"]["out_of_context"]["type"] == "noul"
    assert asked["state"] == {"claim": DROPS_THE_UNLESS, "section": LIFETIME, "quote": QUOTE}
    not_asked = requests["Tokens are issued after authentication."]
    assert list(not_asked["questions"]) == ["relation"] and set(not_asked["state"]) == {"claim", "section"}

    row = by_test(rows)
    assert (row["test_drops_the_unless"]["verdict"], row["test_drops_the_unless"]["auto"]) == ("verified", False)
    assert row["test_drops_the_unless"]["questions"] == {
        "out_of_context": {"yes": 0.94, "concern": 0.94, "flagged": True, "confident": True}
    }
    assert row["test_hedges"]["questions"]["out_of_context"]["confident"] is False
    assert row["test_hedges"]["flagged"] is True
    assert row["test_keeps_the_unless"]["questions"]["out_of_context"]["flagged"] is False
    assert row["test_keeps_the_unless"]["auto"] is True
    assert "questions" not in row["test_claim_only"]
    assert "1 flag" not in output and "2 flags from extra questions" in output

    # Recorded: the answer is in the cassette, and replays with no key and no network, to the same outcome.
    cassette = (pytester.path / "cassettes" / "test_policy" / "test_drops_the_unless.yaml").read_text()
    assert "out_of_context" in cassette and '"noul": 0.94' in cassette
    replayed, _, replay_rows = run("--citecheck-questions=out_of_context", replay=True, report="replay.json")
    replayed.assert_outcomes(passed=3, failed=1, warnings=1)
    assert "lifetime: out_of_context: FLAGGED, confident" in replayed.stdout.str()
    assert [r["questions"] for r in replay_rows if "questions" in r] == [
        r["questions"] for r in rows if "questions" in r
    ]
    assert all(r["replayed"] for r in replay_rows)

    # Without the option the recorded requests no longer match: the question is part of the request.
    without, _, _ = run(replay=True, report="without.json")
    assert "CassetteMissError" in without.stdout.str()


def test_best_section_flags_a_section_that_only_touches_the_claim(run: Any, pytester: pytest.Pytester) -> None:
    recorded, server, rows = run("--citecheck-questions=best_section", suite="best_section")
    recorded.assert_outcomes(passed=2, failed=1)
    output = recorded.stdout.str()
    assert "FAILED test_policy.py::test_cites_the_definitions" in output
    assert "single_use: best_section: FLAGGED, confident (0.93 >= auto_accept 0.8): fails" in output, output
    assert "another section is likely the one to cite" in output

    assert server is not None
    bodies = [request.body for request in server.systemone_requests]
    claim_only = [body for body in bodies if "quote" not in body["state"] and body["state"]["section"] == DEFINITIONS]
    assert len(claim_only) == 1 and list(claim_only[0]["questions"]) == ["relation", "best_section"]
    assert set(claim_only[0]["state"]) == {"claim", "section"}
    quoted = [body for body in bodies if body["state"]["section"] == REFRESH]
    assert sorted(list(body["questions"]) for body in quoted) == [["relation"], ["relation", "best_section"]]

    row = by_test(rows)
    assert row["test_cites_the_definitions"]["questions"] == {
        "best_section": {"yes": 0.07, "concern": 0.93, "flagged": True, "confident": True}
    }
    assert row["test_cites_the_rule"]["questions"]["best_section"]["flagged"] is False
    assert "questions" not in row["test_quoted_is_not_asked"]

    replayed, _, replay_rows = run(
        "--citecheck-questions=best_section", suite="best_section", replay=True, report="replay.json"
    )
    replayed.assert_outcomes(passed=2, failed=1)
    assert (
        by_test(replay_rows)["test_cites_the_definitions"]["questions"]
        == row["test_cites_the_definitions"]["questions"]
    )


QUESTIONS_ON = {
    "flag": {"args": ("--citecheck-questions=out_of_context,best_section",)},
    "ini": {"ini": "citecheck_questions = out_of_context, best_section"},
    "marker": {"marker": '@pytest.mark.citecheck(questions=["out_of_context", "best_section"])'},
    "call": {"call": ', questions=["out_of_context", "best_section"]'},
}


@pytest.mark.parametrize("how", list(QUESTIONS_ON))
def test_the_questions_are_set_through_every_channel(run: Any, how: str) -> None:
    settings = QUESTIONS_ON[how]
    result, server, rows = run(*settings.get("args", ()), **{k: v for k, v in settings.items() if k != "args"})
    result.assert_outcomes(passed=3, failed=1, warnings=1)
    assert server is not None
    # Each citation gets the questions that apply to it: out_of_context for the quoted ones only.
    assert sorted(tuple(request.body["questions"]) for request in server.systemone_requests) == [
        ("relation", "best_section"),
        ("relation", "out_of_context"),
        ("relation", "out_of_context"),
        ("relation", "out_of_context"),
    ]


def test_a_call_can_turn_the_questions_off(run: Any) -> None:
    result, server, rows = run("--citecheck-questions=out_of_context", call=", questions=[]")
    result.assert_outcomes(passed=4)
    assert server is not None
    assert all(list(request.body["questions"]) == ["relation"] for request in server.systemone_requests)


def test_an_unknown_question_is_a_usage_error(run: Any) -> None:
    result, _, _ = run("--citecheck-questions=out_of_context,best_secton")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unknown question 'best_secton'; the questions are out_of_context, best_section" in result.stderr.str()


@pytest.mark.parametrize(
    ("answer", "cause"),
    [
        ({"type": "future-type", "value": 1}, "has no 'out_of_context' answer"),
        ({"type": "noul", "noul": 1.7}, "'out_of_context' answer 1.7 is not a probability from 0 to 1"),
    ],
    ids=["missing", "above-1"],
)
def test_a_missing_or_malformed_answer_fails_closed(run: Any, answer: dict[str, Any], cause: str) -> None:
    result, _, rows = run("--citecheck-questions=out_of_context", answers={"out_of_context": lambda c, s: answer})
    result.assert_outcomes(passed=1, failed=3)  # the claim-only citation is not asked, and passes
    output = result.stdout.str()
    assert "citation 'lifetime'" in output and cause in output, output
    # Only the claim-only citation has a verdict; the three that were asked are errored, naming the cause.
    assert [row["verdict"] for row in rows].count("errored") == 3 and len(rows) == 4
    assert all(cause in row["error"]["message"] for row in rows if row["verdict"] == "errored")


def test_the_html_report_shows_the_answers(run: Any, pytester: pytest.Pytester, browser: Any) -> None:
    result, _, _ = run("--citecheck-questions=out_of_context", "--citecheck-html=report.html")
    result.assert_outcomes(passed=3, failed=1, warnings=1)
    page = "\n".join(html_report_cards(browser, pytester.path / "report.html").values())
    assert '<span class="tag flagged">flagged: out_of_context</span>' in page
    assert "<strong>flagged, confident</strong> (at or above auto_accept 0.80): fails the test" in page
    assert "concern 0.94, Jev's probability of yes 0.94" in page
    assert "<strong>flagged</strong> (below auto_accept 0.80): needs review" in page
    assert "<code>out_of_context</code>: not flagged (concern 0.04" in page


def test_without_the_option_the_request_is_the_cookbooks(run: Any) -> None:
    result, server, rows = run()
    result.assert_outcomes(passed=4)  # nothing flags the claim that drops the "unless": the risk the question covers
    assert server is not None
    for request in server.systemone_requests:
        assert list(request.body["questions"]) == ["relation"]
        assert set(request.body["state"]) == {"claim", "section"}
    assert all("questions" not in row for row in rows)


def test_a_human_decision_overrides_a_confident_flag() -> None:
    """The gate: a confident flag fails unless a human decided the citation (then the human's verdict counts)."""
    from pytest_citecheck._gate import decide
    from pytest_citecheck._options import Settings
    from pytest_citecheck._results import CitationResult, Judgement, QuestionAnswer, Status, Verdict

    judgement = Judgement(
        "supports",
        0.93,
        {"supports": 0.95, "contradicts": 0.03, "says_nothing": 0.02},
        "jev-1.12",
        questions={"out_of_context": QuestionAnswer(yes=0.94, concern=0.94)},
    )
    flagged = CitationResult(
        "c", "claim", "quote", Status.FOUND, "1", Verdict.VERIFIED, 0.93, False, judgement=judgement
    )
    assert decide([flagged], Settings()).failing == (flagged,)
    lenient = Settings(fail_on=frozenset({Verdict.FABRICATED, Verdict.CONTRADICTED}))
    assert decide([flagged], lenient).failing == ()  # fail_on without "unsupported": a flag alone is a review
    assert decide([flagged], lenient).review == (flagged,)
    decided = CitationResult(**{**flagged.__dict__, "decision": {"verdict": "verified", "action": "confirm"}})
    assert decide([decided], Settings()).failing == ()


def test_citecheck_review_says_why_a_citation_was_flagged() -> None:
    from pytest_citecheck._report.row import ReportRow
    from pytest_citecheck._review.command import describe

    row = {
        "id": "lifetime",
        "test": "test_policy.py::test_hedges",
        "claim": HEDGES,
        "quote": QUOTE,
        "verdict": "verified",
        "confidence": 0.91,
        "auto": False,
        "auto_accept": 0.8,
        "section": "4.2",
        "section_text": LIFETIME,
        "span": [LIFETIME.index(QUOTE), LIFETIME.index(QUOTE) + len(QUOTE)],
        "questions": {"out_of_context": {"yes": 0.68, "concern": 0.68, "flagged": True, "confident": False}},
    }
    shown = describe(ReportRow.from_json(row), color=False)
    assert "needs review" in shown
    assert "  flagged: out_of_context (concern 0.68, needs review): the section qualifies the quoted passage" in shown
