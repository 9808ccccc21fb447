"""The licence assistant's test suite: its citations into a Corpus of Debian's licence texts, checked.

Eight answers, one citation each, cover every way a citation over many documents can turn out:

- ``found``: the quote is in the section and document the citation names (``apache_patent``,
  ``mpl_larger_work``; ``apache_trademarks`` too, but Jev finds that §6 contradicts the claim);
- ``found-elsewhere``: the quote is real but somewhere else: another section (``gpl_object_code``
  cites GPL-3 §5, the quote is in §6) or another document (``lgpl_termination`` cites LGPL-3, the
  quote is GPL-3's). Jev judges where the quote is; ``misattributed`` decides what it does to the test;
- ``missing``: a quote no document holds (``bsd_advertising`` quotes the old 4-clause BSD licence);
- ``section-only`` and ``document-only``: claims that cite a section (``gpl_warranty``) or a whole
  document (``bsd_binaries``) with no quote.

The planted failures are expected: each such test asserts that pytest-citecheck fails the check
and prints the failure as the app's developer would see it (``pytest -rP``). The last three tests
check the same two misattributed citations with ``misattributed`` set to fail, warn and ignore;
they share one cassette (``cassette="misattributed"``), so the two questions are recorded once.

Every answer is replayed from ``cassettes/``: scripted, synthetic answers recorded by
``build_cassettes.py`` (not Jev's), so no key and no network are needed.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest
from app import ANSWERS, LICENCES, ask

from pytest_citecheck import CitationsNotSupported, assert_citations_supported


class Row(NamedTuple):
    status: str
    document: str | None
    section: str | None
    verdict: str
    confidence: float | None


EXPECTED = {
    "apache_patent": Row("found", "Apache-2.0", "3", "verified", 0.94),
    "apache_trademarks": Row("found", "Apache-2.0", "6", "contradicted", 0.97),
    "mpl_larger_work": Row("found", "MPL-2.0", "3.3", "verified", 0.88),
    "gpl_object_code": Row("found-elsewhere", "GPL-3", "6", "verified", 0.91),
    "lgpl_termination": Row("found-elsewhere", "GPL-3", "8", "verified", 0.85),
    "bsd_advertising": Row("missing", None, None, "fabricated", None),
    "gpl_warranty": Row("section-only", "GPL-3", "15", "verified", 0.97),
    "bsd_binaries": Row("document-only", "BSD", None, "verified", 0.82),
}
# Caught on purpose: a contradicted claim, two misattributed citations, a fabricated quote.
PLANTED_FAILURES = {"apache_trademarks", "gpl_object_code", "lgpl_termination", "bsd_advertising"}
QUESTIONS = list(ANSWERS)
MISATTRIBUTED = [
    citation
    for answer in ANSWERS.values()
    for citation in answer["citations"]
    if citation["id"] in ("gpl_object_code", "lgpl_termination")
]


def test_the_corpus_is_debians_licence_texts():
    assert list(LICENCES) == ["Apache-2.0", "BSD", "GPL-3", "LGPL-3", "MPL-2.0"]
    assert {document: LICENCES[document].format for document in LICENCES} == dict.fromkeys(LICENCES, "numbered")


@pytest.mark.parametrize("question", QUESTIONS, ids=[ANSWERS[q]["citations"][0]["id"] for q in QUESTIONS])
def test_answer_citation(question):
    [citation] = ask(question)["citations"]
    if citation["id"] in PLANTED_FAILURES:
        with pytest.raises(CitationsNotSupported) as caught:
            assert_citations_supported([citation], LICENCES)
        print(f"pytest-citecheck caught the planted citation {citation['id']!r}:\n{caught.value}")
        [result] = caught.value.results
    else:
        [result] = assert_citations_supported([citation], LICENCES)
    row = Row(result.status.value, result.document, result.section, result.verdict.value, result.confidence)
    assert row == EXPECTED[citation["id"]]


@pytest.mark.citecheck(cassette="misattributed")
def test_misattributed_fails_by_default():
    with pytest.raises(CitationsNotSupported) as caught:
        assert_citations_supported(MISATTRIBUTED, LICENCES)
    print(f"misattributed='fail' (the default) fails the test:\n{caught.value}")
    assert "cited §5 of 'GPL-3', the quote is in §6" in str(caught.value)


@pytest.mark.citecheck(cassette="misattributed", misattributed="warn")
def test_misattributed_warns():
    # Passes, with a CitationMisattributedWarning listing both citations (see the warnings summary).
    results = assert_citations_supported(MISATTRIBUTED, LICENCES)
    assert [r.status.value for r in results] == ["found-elsewhere", "found-elsewhere"]


@pytest.mark.citecheck(cassette="misattributed")
def test_misattributed_ignored():
    results = assert_citations_supported(MISATTRIBUTED, LICENCES, misattributed="ignore")
    assert [(r.cited_document, r.document) for r in results] == [("GPL-3", "GPL-3"), ("LGPL-3", "GPL-3")]
