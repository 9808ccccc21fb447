"""One bad citation never hides the others (issue 23, item 5).

A citation with an input error becomes a result with status ``invalid``; the other citations are
still located and judged, and then the check fails with the error, which names the citation, the
field and the remedy. Before, the first bad citation stopped the whole check: nothing else was asked.
"""

from __future__ import annotations

import pytest

from pytest_citecheck import CitationInputError, Status, Verdict
from pytest_citecheck.testing import JevServer

POLICY = "# Refunds\n\nRefunds are granted within 30 days of purchase.\n\n# Gifts\n\nGift cards are final.\n"
GOOD = {
    "id": "window",
    "claim": "Refunds take 30 days.",
    "quote": "granted within 30 days of purchase",
    "section": "Refunds",
}
FINAL = {"id": "final", "claim": "Gift cards are final.", "quote": None, "section": "Gifts"}


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        pytest.param(
            {"id": "typo", "claim": "Gift cards are final.", "qoute": "Gift cards are final."},
            r"citation 'typo', field 'qoute': 'qoute': did you mean 'quote'\?",
            id="read-when-adapted",
        ),
        pytest.param(
            {"id": "ghost", "claim": "Gift cards are final.", "quote": None, "section": "returns"},
            r"citation 'ghost', field 'section': names section 'returns'",
            id="found-by-step-1",
        ),
        pytest.param(
            {
                "type": "text",
                "text": "Refunds are quick.",
                "citations": [{"type": "char_location", "cited_text": 42, "document_index": 0}],
            },
            r"citation '#1.1', field 'cited_text': must be a string",
            id="an-sdk-block",
        ),
    ],
)
@pytest.mark.parametrize("asserting", [False, True], ids=["check", "assert_supported"])
def test_the_others_are_checked_and_the_bad_one_fails_naming_its_field(
    direct_checker, bad: dict, message: str, asserting: bool
) -> None:
    server = JevServer().start()
    try:
        checker = direct_checker(server)
        call = checker.assert_supported if asserting else checker.check
        with pytest.raises(CitationInputError, match=message):
            call([GOOD, bad, FINAL], POLICY, format="markdown")
    finally:
        server.stop()
    assert sorted(request.body["state"]["claim"] for request in server.systemone_requests) == [
        "Gift cards are final.",
        "Refunds take 30 days.",
    ]
    assert [(r.status, r.verdict) for r in checker.results] == [
        (Status.FOUND, Verdict.VERIFIED),
        (Status.INVALID, Verdict.ERRORED),
        (Status.SECTION_ONLY, Verdict.VERIFIED),
    ]
    assert checker.results[1].confidence is None and checker.results[1].claim in (
        "Gift cards are final.",
        "Refunds are quick.",
    )


@pytest.mark.asyncio
async def test_the_async_path_checks_the_others_too(direct_checker, monkeypatch: pytest.MonkeyPatch) -> None:
    server = JevServer().start()
    monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
    monkeypatch.setenv("TYPESAFE_API_KEY", "sk-test")
    try:
        checker = direct_checker(server)
        with pytest.raises(CitationInputError, match="did you mean 'quote'"):
            await checker.acheck([GOOD, {"id": "typo", "claim": "c", "qoute": "q"}, FINAL], POLICY, format="markdown")
    finally:
        server.stop()
    assert [r.status for r in checker.results] == [Status.FOUND, Status.INVALID, Status.SECTION_ONLY]
    assert len(server.systemone_requests) == 2
