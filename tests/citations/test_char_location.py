"""Claude's ``char_location`` offsets index the text the app sent (issue 23, found 1 and 2).

The plugin read them against its cleaned text (page footers and headers gone), so on RFC 7519 none of
six placed citations got the right section; and offsets pointing at one section with ``cited_text``
from another passed as ``found``. The offsets are read through ``Source.place`` (the offset map of the
text as given): they name the cited section, and a quote found elsewhere is ``found-elsewhere``.
"""

from __future__ import annotations

from pathlib import Path

from pytest_citecheck import Source, Status
from pytest_citecheck._citations.adapt import adapt_citations
from pytest_citecheck._locate.citations import Located, locate_all
from pytest_citecheck._options import Settings

RFC = Path(__file__).resolve().parents[2] / "examples" / "rfc7519" / "rfc7519.txt"


def block(text: str, cited: str, start: int, end: int) -> dict:
    return {
        "type": "text",
        "text": text,
        "citations": [
            {
                "type": "char_location",
                "cited_text": cited,
                "document_index": 0,
                "start_char_index": start,
                "end_char_index": end,
            }
        ],
    }


def test_offsets_into_the_sent_text_name_the_section_they_point_at() -> None:
    raw = RFC.read_text()
    source = Source.from_file(RFC)
    sentence = "Use of this claim is OPTIONAL."  # in 4.1.1 to 4.1.7: only the offsets say which
    exp = raw.index('4.1.4.  "exp" (Expiration Time) Claim\n\n   The')
    start = raw.index(sentence, exp)
    [citation] = adapt_citations(
        [block("The exp claim is optional.", sentence, start, start + len(sentence))], source=source
    )
    assert citation.section == "4.1.4"
    [located] = locate_all([citation], source, Settings())
    assert isinstance(located, Located) and (located.status, located.section) == (Status.FOUND, "4.1.4")


def test_offsets_that_disagree_with_the_cited_text_are_found_elsewhere_naming_both_places() -> None:
    raw = RFC.read_text()
    source = Source.from_file(RFC)
    aud = raw.index("Each principal intended to process the JWT MUST")
    quote = "the JWT MUST NOT be accepted for processing"  # section 4.1.4
    [citation] = adapt_citations([block("Expired tokens are refused.", quote, aud, aud + 48)], source=source)
    [located] = locate_all([citation], source, Settings())
    assert isinstance(located, Located)
    assert (located.status, citation.section, located.section) == (Status.FOUND_ELSEWHERE, "4.1.3", "4.1.4")
