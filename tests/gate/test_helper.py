"""assert_citations_supported and the citecheck fixture: what fails a test, what goes to review."""

from __future__ import annotations

import pytest

from pytest_citecheck.testing import JevServer

# A handbook whose claims the scripted server judges by keyword, so each test states its verdicts.
HANDBOOK = """
from pytest_citecheck import Source
HANDBOOK = Source(sections={
    "1": "1. Refunds\\n\\nRefunds are issued within 30 days of purchase. After 30 days no refund is given.",
    "2": "2. Shipping\\n\\nOrders ship within two business days.",
})
def cite(cid, claim, quote, section="1"):
    return {"id": cid, "claim": claim, "quote": quote, "section": section}
"""


def handbook_answer(claim: str, section: str) -> tuple[str, float]:
    if "CONTRADICT" in claim:
        return ("contradicts", 0.98)
    if "NOTHING" in claim:
        return ("says_nothing", 0.98)
    if "UNSURE" in claim:
        return ("supports", 0.6)  # confidence 0.4: below any sensible auto_accept
    return ("supports", 0.98)


@pytest.fixture
def handbook(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, canary_key: str, inner_ini: str):
    server = JevServer(handbook_answer).start()
    monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
    monkeypatch.setenv("TYPESAFE_API_KEY", canary_key)
    pytester.makeini(inner_ini + "citecheck_record_mode = once\ncitecheck_model = jev-1.13.0\n")
    pytester.makepyfile(handbook=HANDBOOK)
    yield pytester
    server.stop()


def run_one(pytester: pytest.Pytester, body: str, *args: str) -> pytest.RunResult:
    pytester.makepyfile(
        test_app="import pytest\nfrom handbook import HANDBOOK, cite\nfrom pytest_citecheck import *\n\n" + body
    )
    return pytester.runpytest(*args)


def test_supported_citations_pass_and_return_their_results(handbook):
    result = run_one(
        handbook,
        """
def test_ok():
    results = assert_citations_supported([cite("r", "Refunds come within 30 days.", "Refunds are issued within 30 days")], HANDBOOK)
    assert [(r.id, r.status.value, r.section, r.verdict.value, r.auto) for r in results] == [("r", "found", "1", "verified", True)]
""",
    )
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("claim", "quote", "verdict"),
    [
        ("Refunds are fine.", "Refunds are issued within 90 days", "fabricated"),
        ("CONTRADICT refunds any time.", "After 30 days no refund is given", "contradicted"),
        ("NOTHING about refunds.", "Refunds are issued within 30 days", "unsupported"),
    ],
)
def test_fabricated_contradicted_and_unsupported_fail_with_a_table_and_a_hint(handbook, claim, quote, verdict):
    result = run_one(
        handbook, f"def test_bad():\n    assert_citations_supported([cite('c1', {claim!r}, {quote!r})], HANDBOOK)\n"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*CitationsNotSupported: 1 of 1 citation not supported:",
            "*id  status*section*verdict*conf*action*claim",
            f"*c1 *{verdict}*FAIL*{claim[:20]}*",
            "*What next: *",
        ]
    )


def test_fail_on_decides_which_confident_verdicts_fail(handbook):
    result = run_one(
        handbook,
        """
def test_unsupported_allowed():
    assert_citations_supported([cite("u", "NOTHING about refunds.", "Refunds are issued within 30 days")], HANDBOOK,
                               fail_on="fabricated,contradicted")

@pytest.mark.citecheck(fail_on=["contradicted"])
def test_fabricated_allowed_by_marker():
    assert_citations_supported([cite("f", "Refunds are fine.", "not in the handbook at all")], HANDBOOK)
""",
    )
    result.assert_outcomes(passed=2)


def test_below_threshold_passes_with_a_review_warning_by_default(handbook):
    result = run_one(
        handbook,
        "def test_unsure():\n    assert_citations_supported([cite('u', 'UNSURE refunds.', 'Refunds are issued within 30 days')], HANDBOOK)\n",
    )
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(
        ["*CitationReviewWarning: 1 citation below auto_accept 0.8 needs a human review:*", "*u *verified*0.40*review*"]
    )


@pytest.mark.parametrize(("policy", "outcome"), [("fail", "failed"), ("xfail", "xfailed"), ("skip", "skipped")])
def test_review_policy_fail_xfail_skip(handbook, policy, outcome):
    result = run_one(
        handbook,
        f"def test_unsure():\n    assert_citations_supported([cite('u', 'UNSURE refunds.', 'Refunds are issued within 30 days')], HANDBOOK, review={policy!r})\n",
        "-rsx",
    )
    result.assert_outcomes(**{outcome: 1})
    result.stdout.fnmatch_lines(["*u*verified*0.40*"])


def test_review_fail_says_needs_review_not_fail_and_names_citecheck_review(handbook):
    result = run_one(
        handbook,
        """
def test_unsure():
    assert_citations_supported([cite("ok", "Refunds come within 30 days.", "Refunds are issued within 30 days"),
                                cite("u", "UNSURE refunds.", "Refunds are issued within 30 days")], HANDBOOK, review="fail")

def test_unsure_and_contradicted():
    assert_citations_supported([cite("c", "CONTRADICT refunds any time.", "After 30 days no refund is given"),
                                cite("u", "UNSURE refunds.", "Refunds are issued within 30 days"),
                                cite("ok", "Refunds come within 30 days.", "Refunds are issued within 30 days")],
                               HANDBOOK, review="fail")
""",
    )
    result.assert_outcomes(failed=2)
    output = result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*CitationsNotSupported: 1 of 2 citations needs review (below auto_accept 0.8; review='fail' fails the test):",
            "*u *found*verified*0.40*needs review*UNSURE refunds.",
            "*What next: run `citecheck review` to confirm or correct each verdict that needs review*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*CitationsNotSupported: 1 of 3 citations not supported, 1 more needs review "
            "(below auto_accept 0.8; review='fail' fails the test):",
            "*c *found*contradicted*0.97*FAIL*CONTRADICT*",
            "*u *found*verified*0.40*needs review*UNSURE refunds.",
            "*What next: a contradicted claim*; run `citecheck review` to confirm or correct each verdict*",
        ]
    )
    assert "verified  0.40  FAIL" not in output and "1 of 2 citations not supported" not in output


def test_review_fail_from_the_command_line(handbook):
    result = run_one(
        handbook,
        "def test_unsure():\n    assert_citations_supported([cite('u', 'UNSURE refunds.', 'Refunds are issued within 30 days')], HANDBOOK)\n",
        "--citecheck-review=fail",
    )
    result.assert_outcomes(failed=1)


def test_objects_with_attributes_and_text_sources_are_accepted(handbook):
    result = run_one(
        handbook,
        """
from dataclasses import dataclass
RFC_TEXT = "1.  Intro\\n\\n   Tokens are signed.\\n\\n2.  Claims\\n\\n   A claim is a name/value pair.\\n"

@dataclass
class Cite:
    id: str
    claim: str
    quote: str | None
    section: str | None

def test_objects():
    results = assert_citations_supported([Cite("a", "Claims are pairs.", "A claim is a name/value pair.", "2")], RFC_TEXT, format="rfc")
    assert (results[0].section, results[0].verdict.value) == ("2", "verified")
""",
    )
    result.assert_outcomes(passed=1)


def test_check_returns_results_without_failing(handbook):
    result = run_one(
        handbook,
        """
def test_check(citecheck):
    results = citecheck.check([cite("f", "Refunds are fine.", "Refunds are issued within 90 days"),
                               cite("s", "Shipping is fast.", None, section="2")], HANDBOOK)
    assert [(r.id, r.status.value, r.verdict.value, r.confidence) for r in results] == [
        ("f", "missing", "fabricated", None), ("s", "section-only", "verified", 0.97)]
""",
    )
    result.assert_outcomes(passed=1)


def test_citecheck_client_can_be_overridden_in_conftest(handbook):
    handbook.makeconftest(
        """
import pytest, httpx2, json
from typesafe_sdk import TypeSafeClient

@pytest.fixture
def citecheck_client():
    def answer(request):
        return httpx2.Response(200, json={"model": "jev-mock", "usage": {"input_tokens": 1, "output_tokens": 1},
            "answers": {"relation": {"type": "choice", "choice": "contradicts", "confidence": 0.9,
                                     "probabilities": {"supports": 0.02, "contradicts": 0.93, "says_nothing": 0.05}}}})
    with TypeSafeClient(api_key="k", compression=False, transport=httpx2.MockTransport(answer)) as client:
        yield client
"""
    )
    result = run_one(
        handbook,
        "def test_mocked(citecheck):\n    [r] = citecheck.check([cite('m', 'Refunds.', 'Refunds are issued within 30 days')], HANDBOOK)\n    assert (r.verdict.value, r.model) == ('contradicted', 'jev-mock')\n",
    )
    result.assert_outcomes(passed=1)


def test_fixtures_are_documented(pytester, inner_ini):
    pytester.makeini(inner_ini)
    result = pytester.runpytest("--fixtures")
    result.stdout.fnmatch_lines(["citecheck -- *", "*A citation checker bound to this test*"])
    result.stdout.fnmatch_lines(
        ["citecheck_client -- *", "*The ``typesafe_sdk.TypeSafeClient`` that asks Jev, shared by the session's tests*"]
    )


def test_nothing_is_printed_when_no_citation_was_checked(pytester, inner_ini):
    pytester.makeini(inner_ini)
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert "citecheck ==" not in result.stdout.str()


TWO_SERVERS_CONFTEST = """
import pytest
from pytest_citecheck.testing import JevServer

@pytest.fixture
def second_server(monkeypatch):
    # Started after the session's first check, and pointed at through the environment.
    with JevServer(lambda claim, section: ("contradicts", 0.98)) as server:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        monkeypatch.setenv("TYPESAFE_API_KEY", "sk-second-server-key")
        yield server
"""

TWO_SERVERS_TEST = """
from handbook import HANDBOOK, cite
from pytest_citecheck import check_citations

CLIENTS = []

def check():
    [result] = check_citations([cite("r", "Refunds come within 30 days.", "Refunds are issued within 30 days")], HANDBOOK)
    return result.verdict.value

def test_1_first_server(citecheck_client):
    CLIENTS.append(citecheck_client)
    assert check() == "verified"

def test_2_second_server(second_server, citecheck_client):
    CLIENTS.append(citecheck_client)
    assert check() == "contradicted"
    [request] = second_server.systemone_requests
    assert request.headers["Authorization"] == "Bearer sk-second-server-key"

def test_3_first_server_again(citecheck_client):
    CLIENTS.append(citecheck_client)
    assert check() == "verified"

def test_4_unchanged_environment(citecheck_client):
    # Neither TYPESAFE_BASE_URL nor TYPESAFE_API_KEY changed since test 3: the same client, not a new one.
    assert citecheck_client is CLIENTS[-1]
    assert CLIENTS[0] is not CLIENTS[1] and CLIENTS[1] is not CLIENTS[2]
"""


def test_the_session_client_follows_a_changed_environment(handbook):
    handbook.makeconftest(TWO_SERVERS_CONFTEST)
    result = run_one(handbook, TWO_SERVERS_TEST.replace("from handbook import HANDBOOK, cite\n", ""))
    result.assert_outcomes(passed=4)


# A client answering every request "contradicts" from a mock transport, for the overrides below.
MOCK_CLIENT = """
import httpx2
from typesafe_sdk import TypeSafeClient

def mock_client():
    def answer(request):
        return httpx2.Response(200, json={"model": "jev-mock", "usage": {"input_tokens": 1, "output_tokens": 1},
            "answers": {"relation": {"type": "choice", "choice": "contradicts", "confidence": 0.9,
                                     "probabilities": {"supports": 0.02, "contradicts": 0.93, "says_nothing": 0.05}}}})
    return TypeSafeClient(api_key="k", compression=False, transport=httpx2.MockTransport(answer))
"""

HELPER_SEES = """
from handbook import HANDBOOK, cite
from pytest_citecheck import check_citations

def test_{name}():
    [r] = check_citations([cite('m', 'Refunds {name}.', 'Refunds are issued within 30 days')], HANDBOOK)
    assert r.model == {model!r}
"""


def test_the_helper_uses_the_fixtures_each_test_sees(handbook):
    # The helper's checker and client are the ``citecheck`` and ``citecheck_client`` fixtures as each
    # test sees them: overridden by a directory's conftest, by a module, by a class, or the plugin's
    # own (built without pytest's fixture machinery then), test after test in one run.
    handbook.makepyfile(mock=MOCK_CLIENT)
    handbook.syspathinsert()  # ``mock`` and ``handbook`` for the conftest in a subdirectory too
    overrides = handbook.mkdir("overrides")
    (overrides / "conftest.py").write_text(
        "import pytest\nfrom mock import mock_client\n\n@pytest.fixture\ndef citecheck_client():\n"
        "    with mock_client() as client:\n        yield client\n"
    )
    (overrides / "test_a_by_conftest.py").write_text(HELPER_SEES.format(name="a", model="jev-mock"))
    (handbook.path / "test_b_plain.py").write_text(HELPER_SEES.format(name="b", model="jev-1.13.0"))
    by_module = HELPER_SEES.format(name="c", model="jev-mock")
    by_module += "\nimport pytest\nfrom mock import mock_client\n\n@pytest.fixture\ndef citecheck_client():\n"
    by_module += "    with mock_client() as client:\n        yield client\n"
    (handbook.path / "test_c_by_module.py").write_text(by_module)
    (handbook.path / "test_d_plain_again.py").write_text(HELPER_SEES.format(name="d", model="jev-1.13.0"))
    checker_override = """
import pytest
from handbook import HANDBOOK, cite
from mock import mock_client
from pytest_citecheck import Checker, check_citations

class TestE:
    @pytest.fixture
    def citecheck(self):
        with mock_client() as client:
            yield Checker(client=client, rehearsal=True)

    def test_e(self):
        [r] = check_citations([cite('m', 'Refunds e.', 'Refunds are issued within 30 days')], HANDBOOK)
        assert r.model == 'jev-mock'
"""
    (handbook.path / "test_e_checker_by_class.py").write_text(checker_override)
    (handbook.path / "test_f_plain_last.py").write_text(HELPER_SEES.format(name="f", model="jev-1.13.0"))
    # One argument: pytest 8.4 (the lowest version allowed) collects only the first of two
    # overlapping arguments. Directories and files are collected in name order, "overrides" first.
    result = handbook.runpytest("-p", "no:randomly", "-v", ".")
    result.assert_outcomes(passed=6)
    result.stdout.re_match_lines([r"overrides/test_a_by_conftest.py::test_a PASSED", r"test_b_plain.py::test_b PASSED"])
