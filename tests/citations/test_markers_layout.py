"""Inline markers wherever an answer's layout puts them, and claims kept as the answer wrote them.

Issue 24, item 8: a marker at the start of a line, in a bullet, after a heading or in a table cell is a
citation (``citations_from_markers("- [1] Refunds are granted at any time…", …)`` gave ``[]``, and the
check passed with nothing checked); the answer's own list of sources is still not a claim.
Issue 26, item 10: a claim is the answer's text as written, trimmed, nothing more (``a .changes file``
became ``a.changes file``).
"""

from __future__ import annotations

import pytest

from pytest_citecheck import Source, Status, Verdict, citations_from_markers
from pytest_citecheck.testing import JevServer

POLICY = "# Refunds\n\nRefunds are granted within 30 days of purchase.\n\n# Gifts\n\nGift cards are final.\n"


def claims(answer: str, sources: list[str] | None = None) -> list[tuple[str, str, str | None]]:
    return [(c.id, c.claim, c.document) for c in citations_from_markers(answer, sources or ["policy.md", "faq.md"])]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        pytest.param(
            "- [1] Refunds are granted at any time.", [("s1[1]", "Refunds are granted at any time.")], id="bullet"
        ),
        pytest.param("* [2] Gift cards are final.", [("s1[2]", "Gift cards are final.")], id="star-bullet"),
        pytest.param(
            "[1] Refunds are granted at any time.", [("s1[1]", "Refunds are granted at any time.")], id="line-start"
        ),
        pytest.param(
            "## Refunds\n[1] Refunds are granted at any time.",
            [("s2[1]", "Refunds are granted at any time.")],
            id="after-heading",
        ),
        pytest.param("## Refunds at any time [1]", [("s1[1]", "Refunds at any time")], id="in-heading"),
        pytest.param(
            "Refunds are easy.\n- [1] Refunds are granted at any time.\n- [2] Gift cards are final.",
            [("s2[1]", "Refunds are granted at any time."), ("s3[2]", "Gift cards are final.")],
            id="bullets-after-a-sentence",
        ),
        pytest.param(
            "| Item | Rule |\n|---|---|\n| Refunds | Granted at any time [1] |\n| Gift cards | Final [2] |",
            [("s6[1]", "Granted at any time"), ("s8[2]", "Final")],
            id="table-cells",
        ),
        pytest.param("1. [2] Gift cards are final.", [("s1[2]", "Gift cards are final.")], id="numbered-item"),
    ],
)
def test_a_marker_where_the_layout_puts_it_is_a_citation(answer: str, expected: list[tuple[str, str]]) -> None:
    assert [(id_, claim) for id_, claim, _ in claims(answer)] == expected


def test_a_marker_alone_on_its_line_still_closes_the_sentence_before() -> None:
    assert claims("Refunds are granted within 30 days.\n[1]") == [
        ("s1[1]", "Refunds are granted within 30 days.", "policy.md")
    ]


@pytest.mark.parametrize(
    "listing",
    [
        "[1] policy.md\n[2] faq.md",
        "- [1] policy.md\n- [2]: https://example.com/faq",
        "[1] The refund policy (policy.md)\n[2] faq.md",
        "Sources:\n[1] The refund policy, section 2\n[2] Frequently asked questions",
        "**References**\n- [1] The refund policy, section 2\n- [2] Frequently asked questions",
    ],
)
def test_the_answers_own_list_of_sources_is_not_a_claim(listing: str) -> None:
    answer = f"Refunds are granted within 30 days [1].\n\n{listing}\n"
    assert claims(answer) == [("s1[1]", "Refunds are granted within 30 days.", "policy.md")]


@pytest.mark.parametrize(
    ("answer", "claim"),
    [
        ("Upload a .changes file with the package [1].", "Upload a .changes file with the package."),
        ("Install it with dpkg -i ./foo.deb [1].", "Install it with dpkg -i ./foo.deb."),
        ("Refunds , as written ,  stay as written [1].", "Refunds , as written ,  stay as written."),
        ("  - Gift cards are final[2].  ", "Gift cards are final."),
        ("Refunds take 30 days. [1] Ask support.", "Refunds take 30 days."),
    ],
)
def test_a_claim_is_the_answers_text_as_written_trimmed(answer: str, claim: str) -> None:
    assert claims(answer)[0][1] == claim


def test_a_bullet_citation_is_checked_and_fails_when_jev_contradicts_it(direct_checker) -> None:
    # Before: citations_from_markers returned [] for this answer, and the check passed with nothing checked.
    def contradicts(claim: str, section: str) -> tuple[str, float]:
        return ("contradicts", 0.97) if "any time" in claim else ("supports", 0.96)

    server = JevServer(contradicts).start()
    try:
        citations = citations_from_markers(
            "Our policy:\n- [1] Refunds are granted at any time.\n- [2] Gift cards are final.",
            [("policy.md", "Refunds"), ("policy.md", "Gifts")],
        )
        results = direct_checker(server).check(citations, Source.from_text(POLICY, format="markdown", name="policy.md"))
    finally:
        server.stop()
    assert [(r.id, r.status, r.verdict) for r in results] == [
        ("s2[1]", Status.SECTION_ONLY, Verdict.CONTRADICTED),
        ("s3[2]", Status.SECTION_ONLY, Verdict.VERIFIED),
    ]
    assert sorted(request.body["state"]["claim"] for request in server.systemone_requests) == [
        "Gift cards are final.",
        "Refunds are granted at any time.",
    ]
