"""A quote that is in the document but runs across a section border (hunt-journey F1).

A retriever's chunk (llama-index's CitationQueryEngine cuts GPL-3 into 512-token chunks) often runs
from the end of one section into the next. Checked against the whole document's Source, such a
quote is in no one section, so it fails as ``fabricated``; the failure used to say "the quote is not
in the source ... did the model misquote §14, or invent it?", which is false (the text is verbatim)
and whose remedy (fix the citation) does not help. It now says where the quote runs and what works:
name the sections it runs across, or check a retrieved chunk against ``Corpus.from_documents``.
Through real pytest runs over Debian's GPL-3, with the loopback Jev for the remedy's judged run.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import INNER_INI

from pytest_citecheck.testing import JevServer

GPL3 = Path(__file__).parent.parent / "data" / "gpl-3.0.txt"

# The end of §11 and the start of §12 of GPL-3, as Debian ships it (a chunk llama-index retrieved).
SPANNING = (
    "Nothing in this License shall be construed as excluding or limiting\n"
    "any implied license or other defenses to infringement that may\n"
    "otherwise be available to you under applicable patent law.\n\n"
    "  12. No Surrender of Others' Freedom.\n\n"
    "  If conditions are imposed on you (whether by court order, agreement or\n"
    "otherwise) that contradict the conditions of this License"
)

SUITE = """
from pytest_citecheck import Corpus, Source, assert_citations_supported

GPL = Source.from_file("gpl-3.0.txt")
CLAIM = "Conditions imposed on you do not excuse you from the licence."

def test_whole_source():
    assert_citations_supported([{"id": "chunk", "claim": CLAIM, "quote": QUOTE}], GPL)

def test_corpus():
    corpus = Corpus({"gpl-3.0.txt": GPL})
    assert_citations_supported([{"id": "chunk", "claim": CLAIM, "quote": QUOTE, "document": "gpl-3.0.txt"}], corpus)

def test_remedy_names_the_sections():
    assert_citations_supported([{"id": "chunk", "claim": CLAIM, "quote": QUOTE, "section": ["11", "12"]}], GPL)
"""


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makeini(INNER_INI)
    shutil.copy(GPL3, pytester.path / "gpl-3.0.txt")
    pytester.makepyfile(test_span=SUITE.replace("QUOTE", repr(SPANNING)))
    return pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once", *args)


def test_a_quote_across_a_section_border_says_so_and_names_the_remedy(
    pytester: pytest.Pytester, jev_server: JevServer
) -> None:
    result = _run(pytester)
    result.assert_outcomes(failed=2, passed=1)  # the remedy's test passes: Jev judges §11 + §12
    out = result.stdout.str()
    whole, corpus = out.split("_ test_corpus _")[0], out.split("_ test_corpus _")[1].split("_ test_remedy")[0]
    for failure, document in ((whole, ""), (corpus, " of 'gpl-3.0.txt'")):
        assert "runs across \u00a711 to \u00a712" + document in failure, failure
        assert "did the model misquote" not in failure and "invent it" not in failure
        assert "section=['11', '12']" in failure
        assert "Corpus.from_documents" in failure
    assert len(jev_server.systemone_requests) == 1  # only the remedy's citation was sent


def test_the_json_report_names_the_sections_the_quote_runs_across(
    pytester: pytest.Pytester, jev_server: JevServer
) -> None:
    import json

    _run(pytester, "-k", "whole_source", "--citecheck-json=report.json")
    [row] = json.loads((pytester.path / "report.json").read_text())["results"]
    assert row["verdict"] == "fabricated"  # fail closed: nothing was judged
    assert row["closest"]["across"] == ["11", "12"]
    assert row["closest"]["section"] == "11" and row["closest"]["similarity"] == 1.0


def test_the_html_report_says_the_quote_runs_across_sections(pytester: pytest.Pytester, jev_server: JevServer) -> None:
    from support import html_report_data

    _run(pytester, "-k", "whole_source", "--citecheck-html=report.html")
    page = (pytester.path / "report.html").read_text()
    assert "Across sections" in page and "across sections 11 to 12" in page
    assert html_report_data(pytester.path / "report.html")  # the page's data still reads


def test_a_fabricated_quote_is_looked_for_across_the_borders_near_its_closest_passage_only(monkeypatch):
    """Looking for a quote across section borders reads the sections around its closest passage, not the
    whole document: run together and indexed for each fabricated quote, a 1 MB manual cost 0.14 s a quote
    (the closest passage: 0.2 ms). Counted here as the text of each locator built over sections run
    together, for ten fabricated quotes; and the spanning quote is still found from either side."""
    from pytest_citecheck import Source
    from pytest_citecheck._locate import across

    # The class across.py builds with (pytester's in-process runs above may leave another copy of the module).
    QuoteLocator = across.QuoteLocator
    built = []
    original = QuoteLocator.__init__

    def counting(self, source, *args, **kwargs):
        if list(source.sections) == ["range"]:
            built.append(len(source.sections["range"]))
        original(self, source, *args, **kwargs)

    monkeypatch.setattr(QuoteLocator, "__init__", counting)
    gpl = Source.from_file(GPL3)
    names = list(gpl.sections)
    widest = max(
        len(" ".join(gpl.sections[name] for name in names[max(0, i - across.SPAN) : i + across.SPAN + 1]))
        for i in range(len(names))
    )
    assert widest < len(" ".join(gpl.sections.values())) * 0.75  # a window is not the document
    for number, near in enumerate(names):
        quote = f"a sentence {number} that no section of the GPL holds"
        assert across.find_spanning(gpl, quote, near, casefold=False) is None
    assert built and max(built) <= widest
    for near in ("11", "12"):
        found = across.find_spanning(gpl, SPANNING, near, casefold=False)
        assert found is not None and found.sections == ("11", "12")
    assert across.find_spanning(gpl, SPANNING, "3", casefold=False) is None  # too far from its closest passage


def test_the_github_annotation_says_the_quote_runs_across_sections(
    pytester: pytest.Pytester, jev_server: JevServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(pytester.path))
    result = _run(pytester, "-k", "whole_source")
    [annotation] = [line for line in result.outlines if line.startswith("::error ")]
    assert "runs across sections 11 to 12, so nothing judged it" in annotation
    assert "the quote is not in the source" not in annotation


def test_a_chunk_over_four_sections_is_found_across_them(direct_checker) -> None:
    """The retriever's chunk of the journey (hunt-journey F1): from the end of §11 over §12 and §13 into §14,
    longer than the sections around its closest passage. Searching only one section on either side of the
    closest passage (089091f) missed it and said "did the model misquote §14, or invent it?" again."""
    from pytest_citecheck import Source

    gpl = Source.from_file(GPL3)
    tail = gpl.sections["11"][-600:]
    quote = tail[tail.index("Nothing in this License") :] + "\n\n  " + gpl.sections["12"] + "\n\n  "
    quote += gpl.sections["13"] + "\n\n  " + gpl.sections["14"][:200].rsplit(" ", 1)[0]
    [result] = direct_checker().check([{"id": "chunk", "claim": "A claim.", "quote": quote}], gpl)
    assert result.verdict.value == "fabricated" and result.closest is not None
    assert result.closest.across == ("11", "12", "13", "14")
