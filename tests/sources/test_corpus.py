"""Many documents: ``Corpus``, citations that name a ``document``, and step 1 across documents.

The documents are real licence texts (Debian's Apache-2.0, GPL-3 and MPL-2.0, kept in tests/data).
Checks run through real pytest sessions (pytester) with the real SDK against the loopback
``JevServer``; the JSON report and the requests the server received show what was located where
and what Jev was asked to judge.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from support import INNER_INI, html_report_cards

from pytest_citecheck import Corpus, Source, SourceError

DATA = Path(__file__).parent.parent / "data"
LICENCES = ("apache-2.0.txt", "gpl-3.0.txt", "mpl-2.0.txt")

GPL_6 = "You may convey a covered work in object code form under the terms of sections 4 and 5"
GPL_8 = "You may not propagate or modify a covered work except as expressly provided under this License."
APACHE_3 = "irrevocable (except as stated in this section) patent license to make, have made, use, offer to sell"
MPL_3_3 = "You may create and distribute a Larger Work under terms of Your choice"
# In Apache-2.0 §3 and in GPL-3 §10.
IN_TWO_DOCUMENTS = "including a cross-claim or counterclaim in a lawsuit"


# --- Corpus.from_dir ------------------------------------------------------------------------


def test_from_dir_ids_are_posix_paths_relative_to_the_directory_and_files_split_as_from_file(tmp_path):
    (tmp_path / "policies" / "2024").mkdir(parents=True)
    (tmp_path / "refunds.md").write_text("# Refunds\n\nWithin 30 days of purchase, ask for a refund.\n")
    (tmp_path / "policies" / "2024" / "terms of use.md").write_text("# Terms\n\n## 1 Use\n\nBe kind to one another.\n")
    (tmp_path / "policies" / "notes.txt").write_text("not markdown, not matched by the default pattern\n")

    corpus = Corpus.from_dir(tmp_path)

    assert list(corpus) == ["policies/2024/terms of use.md", "refunds.md"]
    for document_id in corpus:
        expected = Source.from_file(tmp_path / document_id)
        assert dict(corpus[document_id].sections) == dict(expected.sections)
        assert corpus[document_id].format == expected.format == "markdown"


def test_from_dir_takes_a_pattern_and_reads_real_licence_texts(tmp_path):
    for name in LICENCES:
        shutil.copy(DATA / name, tmp_path / name)
    corpus = Corpus.from_dir(str(tmp_path), pattern="*.txt")
    assert list(corpus) == list(LICENCES)
    assert dict(corpus["gpl-3.0.txt"].sections) == dict(Source.from_file(DATA / "gpl-3.0.txt").sections)
    assert len(corpus) == 3


def test_from_dir_errors_name_the_directory_and_the_pattern(tmp_path):
    with pytest.raises(SourceError, match=r"no file under .* matches '\*\*/\*\.md'"):
        Corpus.from_dir(tmp_path)
    with pytest.raises(SourceError, match="not a directory"):
        Corpus.from_dir(tmp_path / "missing")


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and symbolic links to devices are POSIX")
def test_from_dir_says_which_matching_entry_is_not_a_regular_file_instead_of_skipping_it(tmp_path):
    """A FIFO or a link that matches the pattern is a document the user meant to include: it was
    dropped without a word (or, if nothing else matched, "no file matches"). The FIFO is never
    opened: with no writer, opening it would wait for ever. A matching directory holds documents
    and is still passed over."""
    shutil.copy(DATA / "gpl-3.0.txt", tmp_path / "gpl-3.0.txt")
    (tmp_path / "licences.txt").mkdir()
    cases = {
        "pipe.txt": r"it is a FIFO \(named pipe\), not a regular file",
        "zero.txt": r"it is a character device, not a regular file",
        "loop.txt": r"cannot be read \(Too many levels of symbolic links\)",
        "dangling.txt": r"a symbolic link to a file that does not exist",
    }
    os.mkfifo(tmp_path / "pipe.txt")
    (tmp_path / "zero.txt").symlink_to("/dev/zero")
    (tmp_path / "loop.txt").symlink_to(tmp_path / "loop.txt")
    (tmp_path / "dangling.txt").symlink_to(tmp_path / "gone.txt")
    for name, said in cases.items():
        others = [tmp_path / other for other in cases if other != name]
        hidden = tmp_path / "hidden"
        hidden.mkdir()
        for other in others:
            other.rename(hidden / other.name)
        try:
            with pytest.raises(SourceError, match=rf"^field 'documents': document '{name}': {said}$"):
                Corpus.from_dir(tmp_path, pattern="*.txt")
        finally:
            for other in others:
                (hidden / other.name).rename(other)
            hidden.rmdir()
        # Named exactly (no wildcard), glob follows the name and drops a link to nothing or to itself:
        # it said "no file ... matches", as if the file the user named were not there.
        with pytest.raises(SourceError, match=rf"^field 'documents': document '{name}': {said}$"):
            Corpus.from_dir(tmp_path, pattern=name)
    for name in cases:
        (tmp_path / name).unlink()
    assert list(Corpus.from_dir(tmp_path, pattern="*.txt")) == ["gpl-3.0.txt"]


def test_from_dir_names_a_file_it_cannot_read_once(tmp_path):
    """The error said "document 'empty.md': field 'source': empty.md: the document is empty"."""
    (tmp_path / "empty.md").write_text("\n \n")
    with pytest.raises(SourceError, match=r"^field 'documents': document 'empty.md': the document is empty$"):
        Corpus.from_dir(tmp_path)
    (tmp_path / "empty.md").unlink()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "latin-1.md").write_bytes("# Café\n\nOuvert le dimanche.\n".encode("latin-1"))
    with pytest.raises(
        SourceError,
        match=r"^field 'documents': document 'notes/latin-1.md': it is not utf-8 text: invalid continuation byte "
        r"at byte 5 \(line 1\); if it is text in another encoding, pass it: encoding='latin-1' \(or 'cp1252', ...\)$",
    ):
        Corpus.from_dir(tmp_path)


# --- step 1 across documents, through pytest --------------------------------------------------


@pytest.fixture
def licences(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory with the three licences in documents/ and a module holding their Corpus."""
    (pytester.path / "documents").mkdir()
    for name in LICENCES:
        shutil.copy(DATA / name, pytester.path / "documents" / name)
    pytester.makepyfile(
        licences="""
        import pathlib
        from pytest_citecheck import Corpus
        CORPUS = Corpus.from_dir(pathlib.Path(__file__).parent / "documents", pattern="*.txt")
        """
    )
    pytester.makeini(INNER_INI)
    return pytester


def rows_of(pytester: pytest.Pytester, name: str = "report.json") -> dict[str, dict]:
    return {row["id"]: row for row in json.loads((pytester.path / name).read_text())["results"]}


CITATIONS = [
    {"id": "found", "claim": "Binaries may be conveyed.", "quote": GPL_6, "document": "gpl-3.0.txt", "section": "6"},
    {"id": "cited-document-only", "claim": "Patents are licensed.", "quote": APACHE_3, "document": "apache-2.0.txt"},
    {"id": "no-document", "claim": "Larger works are allowed.", "quote": MPL_3_3},
    {
        "id": "other-section",
        "claim": "Binaries may be conveyed.",
        "quote": GPL_6,
        "document": "gpl-3.0.txt",
        "section": "5",
    },
    {
        "id": "other-document",
        "claim": "Violations end the licence.",
        "quote": GPL_8,
        "document": "apache-2.0.txt",
        "section": "4",
    },
    {
        "id": "invented",
        "claim": "Patents need a notice.",
        "quote": "each Contributor must notify the Licensor of every patent",
        "document": "apache-2.0.txt",
        "section": "3",
    },
    {
        "id": "claim-only",
        "claim": "The GPL comes with no warranty.",
        "quote": None,
        "document": "gpl-3.0.txt",
        "section": "15",
    },
    {
        "id": "cited-in-later-document",
        "claim": "Counterclaims count.",
        "quote": IN_TWO_DOCUMENTS,
        "document": "gpl-3.0.txt",
    },
    {"id": "in-two-documents", "claim": "Counterclaims count.", "quote": IN_TWO_DOCUMENTS},
]


def test_step_1_looks_in_the_cited_document_first_then_every_other_one(licences, jev_server):
    licences.makepyfile(
        test_app=f"""
        from licences import CORPUS

        def test_answer(citecheck):
            citecheck.check({CITATIONS!r}, CORPUS)
        """
    )
    result = licences.runpytest("--citecheck-record-mode=once", "--citecheck-json=report.json")
    result.assert_outcomes(passed=1)
    rows = rows_of(licences)
    where = {
        cid: (row["status"], row["document"], row["section"], row["cited_document"], row["cited_section"])
        for cid, row in rows.items()
    }
    assert where == {
        "found": ("found", "gpl-3.0.txt", "6", "gpl-3.0.txt", "6"),
        "cited-document-only": ("found", "apache-2.0.txt", "3", "apache-2.0.txt", None),
        "no-document": ("found", "mpl-2.0.txt", "3.3", None, None),
        "other-section": ("found-elsewhere", "gpl-3.0.txt", "6", "gpl-3.0.txt", "5"),
        "other-document": ("found-elsewhere", "gpl-3.0.txt", "8", "apache-2.0.txt", "4"),
        "invented": ("missing", None, None, "apache-2.0.txt", "3"),
        "claim-only": ("section-only", "gpl-3.0.txt", "15", "gpl-3.0.txt", "15"),
        # In both Apache-2.0 and GPL-3: the cited document wins; uncited, the first in the corpus's order.
        "cited-in-later-document": ("found", "gpl-3.0.txt", "10", "gpl-3.0.txt", None),
        "in-two-documents": ("found", "apache-2.0.txt", "3", None, None),
    }
    # The closest passage of an invented quote says which document it is in.
    assert rows["invented"]["closest"]["document"] == "apache-2.0.txt"
    # Jev judges where the quote really is (GPL-3 §8 for the one cited as Apache-2.0 §4).
    gpl = Source.from_file(DATA / "gpl-3.0.txt")
    judged = {
        request.body["state"]["claim"]: request.body["state"]["section"] for request in jev_server.systemone_requests
    }
    assert judged["Violations end the licence."] == gpl.sections["8"]
    assert judged["The GPL comes with no warranty."] == gpl.sections["15"]
    assert rows["other-document"]["section_text"] == gpl.sections["8"]


def test_a_corpus_replays_with_no_key_and_acheck_takes_one_too(licences, jev_server, offline):
    citations = [c for c in CITATIONS if c["id"] in ("found", "other-document", "claim-only")]
    licences.makepyfile(
        test_app=f"""
        import pytest
        from licences import CORPUS

        def test_sync(citecheck):
            results = citecheck.check({citations!r}, CORPUS)
            assert [(r.status.value, r.document) for r in results] == EXPECTED

        @pytest.mark.asyncio
        async def test_async(citecheck):
            results = await citecheck.acheck({citations!r}, CORPUS)
            assert [(r.status.value, r.document) for r in results] == EXPECTED

        EXPECTED = [("found", "gpl-3.0.txt"), ("found-elsewhere", "gpl-3.0.txt"), ("section-only", "gpl-3.0.txt")]
        """
    )
    licences.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=2)
    offline()
    licences.runpytest().assert_outcomes(passed=2)


def test_assert_citations_supported_takes_a_corpus_and_its_failure_names_the_documents(licences, jev_server):
    citations = [c for c in CITATIONS if c["id"] in ("found", "other-document")]
    licences.makepyfile(
        test_app=f"""
        from licences import CORPUS
        from pytest_citecheck import assert_citations_supported

        def test_answer():
            assert_citations_supported({citations!r}, CORPUS)
        """
    )
    result = licences.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*1 of 2 citations not supported:",
            "*id  *status  *document  *section  *verdict*",
            "*other-document  found-elsewhere  gpl-3.0.txt  8  *verified  0.94  FAIL*",
            "*other-document: cited §4 of 'apache-2.0.txt', the quote is in §8 of 'gpl-3.0.txt'*",
        ]
    )


def test_the_normalised_form_of_a_corpus_is_built_once_per_corpus_object(licences, jev_server):
    licences.makeconftest(
        """
        import pytest
        from pytest_citecheck._locate import locator

        BUILT = []

        @pytest.fixture(autouse=True, scope="session")
        def count_locators():
            original = locator.QuoteLocator.__init__
            def counting(self, source):
                BUILT.append(len(source.sections))
                original(self, source)
            locator.QuoteLocator.__init__ = counting
            yield
            locator.QuoteLocator.__init__ = original
            print("LOCATORS BUILT", len(BUILT))
        """
    )
    quotes = [c for c in CITATIONS if c["quote"] is not None][:4]
    licences.makepyfile(
        test_app=f"""
        from licences import CORPUS

        def test_one(citecheck):
            citecheck.check({quotes!r}, CORPUS)

        def test_two(citecheck):
            citecheck.check({quotes!r}, CORPUS)
        """
    )
    result = licences.runpytest("-s", "--citecheck-record-mode=once")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*LOCATORS BUILT 1"])


# --- bad input: the citation and the field ----------------------------------------------------

BAD = [
    (
        {"id": "ghost", "claim": "x is so.", "quote": GPL_6, "document": "gpl-2.0.txt"},
        "citation 'ghost', field 'document': names document 'gpl-2.0.txt', which the corpus does not have "
        "(it has apache-2.0.txt, gpl-3.0.txt, mpl-2.0.txt)",
    ),
    (
        {"id": "typed", "claim": "x is so.", "quote": GPL_6, "document": 3},
        "citation 'typed', field 'document': must be a document id string, got 3",
    ),
    (
        {"id": "wrong-section", "claim": "x is so.", "quote": None, "document": "apache-2.0.txt", "section": "15"},
        "citation 'wrong-section', field 'section': names section '15', which document 'apache-2.0.txt' does not have",
    ),
    (
        {"id": "nowhere", "claim": "x is so.", "quote": None},
        "citation 'nowhere', field 'section': is missing: a citation without a quote must name the section "
        "(or the document) it rests on",
    ),
    (
        {"id": "ambiguous", "claim": "x is so.", "quote": None, "section": "3"},
        "citation 'ambiguous', field 'document': section '3' is in 3 documents (apache-2.0.txt, gpl-3.0.txt, "
        "mpl-2.0.txt): name the document",
    ),
]


@pytest.mark.parametrize(("citation", "message"), BAD, ids=[c["id"] for c, _ in BAD])
def test_a_bad_document_or_section_is_an_error_naming_the_citation_and_the_field(licences, citation, message):
    licences.makepyfile(
        test_app=f"""
        from licences import CORPUS

        def test_answer(citecheck):
            citecheck.check([{citation!r}], CORPUS)
        """
    )
    result = licences.runpytest()
    result.assert_outcomes(failed=1)
    assert message in result.stdout.str()
    assert "Traceback" not in result.stdout.str()


def test_a_document_named_against_a_single_source_is_an_error(suite):
    suite.makepyfile(
        test_app="""
        from cookbook import SOURCE, pick

        def test_answer(citecheck):
            citecheck.check([{**pick("clock_skew")[0], "document": "rfc7519.txt"}], SOURCE)
        """
    )
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*citation 'clock_skew', field 'document': names document 'rfc7519.txt', but the source is one document*"]
    )


# --- 3. claim-only citations of a whole document ----------------------------------------------


def test_a_claim_citing_only_a_document_is_judged_against_the_whole_document(licences, jev_server):
    licences.makepyfile(
        test_app="""
        from licences import CORPUS

        def test_answer(citecheck):
            [result] = citecheck.check(
                [{"id": "whole", "claim": "Apache-2.0 grants a patent licence.", "quote": None, "document": "apache-2.0.txt"}],
                CORPUS,
            )
            print("RESULT", result.status.value, result.document, result.section, result.verdict.value)
        """
    )
    result = licences.runpytest("-s", "--citecheck-record-mode=once", "--citecheck-json=report.json")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*RESULT document-only apache-2.0.txt None verified"])
    [request] = jev_server.systemone_requests
    assert request.body["state"]["section"] == Source.from_file(DATA / "apache-2.0.txt").text
    row = rows_of(licences)["whole"]
    assert (row["status"], row["document"], row["section"], row["cited_document"]) == (
        "document-only",
        "apache-2.0.txt",
        None,
        "apache-2.0.txt",
    )


def test_a_document_too_large_to_judge_whole_says_to_cite_a_section_or_a_quote_and_names_both_limits(
    licences, jev_server
):
    shutil.copy(DATA / "rfc6749.txt", licences.path / "documents" / "rfc6749.txt")
    licences.makepyfile(
        test_app="""
        from licences import CORPUS

        def test_answer(citecheck):
            citecheck.check([{"id": "oauth", "claim": "OAuth has tokens.", "quote": None, "document": "rfc6749.txt"}], CORPUS)
        """
    )
    result = licences.runpytest()
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    assert "citation 'oauth', field 'document': document 'rfc6749.txt' is too large to judge whole" in text
    assert "cite a section of it, or quote the passage the claim rests on" in text
    assert "32,000" in text and "64,000" in text
    assert not jev_server.systemone_requests


# --- the reports: document beside section ----------------------------------------------------


def test_the_terminal_summary_json_and_html_reports_show_the_document_and_where_it_was_cited(
    licences, jev_server, browser
):
    citations = [c for c in CITATIONS if c["id"] in ("found", "other-document", "invented")]
    licences.makepyfile(
        test_app=f"""
        from licences import CORPUS

        def test_answer(citecheck):
            citecheck.check({citations!r}, CORPUS)
        """
    )
    result = licences.runpytest(
        "-v", "--citecheck-record-mode=once", "--citecheck-json=report.json", "--citecheck-html=report.html"
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*= citecheck =*",
            "3 citations checked in 1 test: 2 verified, 1 fabricated",
            "  id              verdict     conf  action  document     section  test",
            "  found           verified    0.94  auto    gpl-3.0.txt  6        test_app.py::test_answer",
            "  other-document  verified    0.94  warn    gpl-3.0.txt  8        test_app.py::test_answer",
            "  invented        fabricated  -     auto    -            -        test_app.py::test_answer",
            "1 citation quotes another place than it names: other-document (cited §4 of 'apache-2.0.txt', "
            "the quote is in §8 of 'gpl-3.0.txt').",
        ]
    )
    card = html_report_cards(browser, licences.path / "report.html")["other-document"]
    assert "found elsewhere" in card
    assert "<dt>Document</dt><dd>gpl-3.0.txt</dd>" in card
    assert "<dt>Section</dt><dd>§ 8</dd>" in card
    assert "<dt>Cited</dt><dd>§ 4 of apache-2.0.txt: the quote is not there</dd>" in card
