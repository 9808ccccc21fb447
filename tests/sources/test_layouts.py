"""The layouts of real manuals (issue 22), each split with ``auto`` from an excerpt of a Debian package's
document (see tests/data/README.md): a Sphinx text build, a DocBook text render, a rendered man
page, Markdown with front matter and with HTML comments. The ids and sizes asserted are those a
reader sees in the file: each section runs from its heading to the next one."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest
from support import NETTLE_INFO_NODES

from pytest_citecheck import Source, SourceError, SourceWarning, Status
from pytest_citecheck._citations.adapt import adapt_citations
from pytest_citecheck._locate.citations import locate_all
from pytest_citecheck._options import Settings
from pytest_citecheck._sources.formats import detect

DATA = Path(__file__).parent.parent / "data"


def load(name: str) -> Source:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a real manual split right is split silently
        return Source.from_file(DATA / name)


def test_a_sphinx_text_build_splits_at_its_underlined_titles_and_appendices_get_letters() -> None:
    source = load("debian-policy-excerpt.txt")
    assert source.format == "rst"
    assert list(source.sections) == [
        "Debian Policy Manual",
        "Debian Policy Manual > Appendices",
        *["1", "1.1", "1.2", "1.3", "1.3.1", "1.3.2", "1.3.3", "1.4", "1.5", "1.6", "2"],
        *["A.1", "A.2", "A.2.1"],  # the appendices restart at "1.": their own ids
    ]
    sizes = {key: len(text) for key, text in source.sections.items()}
    assert sizes["1.1"] == 4679 and sizes["1.3.2"] == 473 and sizes["A.2.1"] == 889
    assert source.sections["1"] == "1. About this manual\n********************"  # a chapter with no text of its own
    assert source.sections["1.1"].startswith("1.1. Scope\n==========\n\nThis manual describes the policy")
    assert source.sections["1.1"].endswith("used in a\n    different way in this document.")
    # "~~~~"-style underlines are not code fences: the "-" underlined 1.3.x are sections of their own.
    assert source.sections["1.3.1"].startswith("1.3.1. Early history\n--------------------\n")
    assert source.sections["A.1"].startswith("1. Introduction and scope of these appendices\n****")
    # The contents list (bullets, not titles) stays in the title's section.
    assert "* 1.3. Authors and Maintainers" in source.sections["Debian Policy Manual"]


def test_a_docbook_text_render_splits_at_chapters_and_numbered_sections_never_at_its_contents() -> None:
    source = load("maint-guide-excerpt.txt")
    assert source.format == "docbook"
    assert {key: len(text) for key, text in source.sections.items()} == {
        "preamble": 3944,
        "1": 2334,
        "1.1": 2931,
        "2": 336,
        "2.1": 1543,
        "A": 641,
        "A.1": 2171,
    }
    # The table of contents lists 1.1 ... A.5: it is the preamble's, none of it a section.
    assert source.sections["preamble"].startswith("Debian New Maintainers' Guide")
    assert source.sections["preamble"].endswith(
        "Table of Contents\n\n1. Getting started The Right Way"[:0] + "A.5. Native Debian package"
    )
    assert "    1.1. Social dynamics of Debian" in source.sections["preamble"]
    assert source.sections["1"].startswith("Chapter\u00a01.\u00a0Getting started The Right Way\n\n    The rewrite")
    assert source.sections["1.1"].startswith("1.1.\u00a0Social dynamics of Debian\n\n    Here are some")
    assert source.sections["A.1"].startswith("A.1.\u00a0Shared libraries")


def test_a_docbook_render_with_plain_spaces_keeps_its_contents_list_out_of_numbered_sections() -> None:
    """base-passwd's users-and-groups.txt (lynx's render: "Chapter 1. Introduction" with plain spaces, a
    captioned contents list "1. Introduction", "2. Users and Groups"). ``numbered`` took the two contents
    entries for sections 1 and 2, each only its line, made the real chapters trailing headings, and a
    "HELP:" sentence of the body a third; ``auto`` chose that split. Found in December 2026."""
    source = load("base-passwd-users-and-groups-excerpt.txt")
    assert source.format == "docbook"
    assert list(source.sections) == ["preamble", "1", "2"]
    assert source.sections["preamble"].endswith(
        "Table of Contents\n   1. Introduction\n   2. Users and Groups\n     " + "_" * 58
    )
    assert source.sections["1"].startswith("Chapter 1. Introduction\n\n   The Debian base-passwd package")
    assert source.sections["2"].startswith("Chapter 2. Users and Groups\n")
    assert source.sections["2"].endswith("HELP: what do other print systems (rlpr, lprng, ...) do?")


def test_a_dblatex_pdf_splits_at_its_chapter_openings_not_its_contents() -> None:
    """The New Maintainers' Guide's PDF (dblatex) as pypdf reads it: "Chapter 1" alone on a line, the title
    on the next, "1.1 Title" sections, "Appendix A" alone; a contents list whose chapter lines have no dot
    leader ("1 Getting started The Right Way 1"). ``numbered`` took the contents lines for chapters 1, 2 and
    2.1, after which the body could not follow: the whole manual (57 pages) was 8 sections under ``auto``."""
    source = load("maint-guide-pdf-excerpt.txt")
    assert source.format == "numbered"
    # 4.1 and 4.2 are titled in lower case ("4.1 control"): sections all the same in a manual with chapters.
    assert list(source.sections) == [
        *["preamble", "1", "1.1", "1.2", "2", "2.1", "3", "4", "4.1", "4.2", "A", "A.1", "A.2"],
    ]
    assert "\n1 Source: gentoo\n" in source.sections["4.1"]  # a numbered listing's line is text
    assert source.sections["preamble"].endswith("DebianNewMaintainers’Guide 1 / 57")  # the contents, the page header
    assert source.sections["1"].startswith("Chapter 1\nGetting started The Right Way\n")
    assert source.sections["A"].startswith("Appendix A\nAdvanced packaging\n")
    assert source.sections["A.1"].startswith("A.1 Shared libraries\n")


def test_a_sphinx_pdf_splits_at_its_spelled_chapters_and_never_at_page_footers() -> None:
    """The Debian Policy Manual's PDF (Sphinx's LaTeX) as pypdf reads it: "CHAPTER", "ONE", the title in
    capitals; each even page ends "4 Chapter 1. About this manual", each odd one "1.4. Related documents 5";
    a list "10. Example Licenses" in 2.1. ``numbered`` made the page numbers chapters (the whole manual: 93
    sections, "1", "2", "4", "6", ...)."""
    source = load("debian-policy-pdf-excerpt.txt")
    assert source.format == "numbered"
    assert list(source.sections) == [
        *["preamble", "1", "1.1", "1.2", "1.3", "1.3.1", "1.3.2", "1.3.3"],
        *["2", "2.1", "2.2", "2.2.1"],
    ]
    assert source.sections["1"] == "CHAPTER\nONE\nABOUT THIS MANUAL"
    assert "\n4 Chapter 1. About this manual\n" in source.sections["1.3.2"]  # a footer is text of its page
    assert "\n10. Example Licenses\n" in source.sections["2.1"]


def test_sections_numbered_in_roman_capitals_split_past_their_right_aligned_contents_list() -> None:
    """libpng's manual (libpng-manual.txt) numbers its fifteen sections "I. Introduction" to "XV. Coding
    style", listed right-aligned under "TABLE OF CONTENTS". ``numbered`` knew only Arabic numbers: it took
    four list items "1)" to "4)" of section III for sections and three formulas ("Y = 0.2126 * R + ...") for
    trailing headings, with a third of the manual in the preamble, and no warning."""
    source = load("libpng-manual-excerpt.txt")
    assert source.format == "numbered"
    assert list(source.sections) == ["preamble", "I", "II", "III", "IV", "V"]
    assert source.sections["preamble"].endswith(
        " XIII. Detecting libpng\n  XIV. Source code repository\n   XV. Coding style"
    )
    assert source.sections["I"].startswith("I. Introduction\n\nThis file describes how to use and modify")
    assert "\n1) The PNG file gamma from the gAMA chunk." in source.sections["III"]
    assert source.sections["V"].startswith("V. Simplified API\n")


def test_page_headers_and_footers_after_the_last_numbered_section_are_no_headings() -> None:
    """OSF RFC 86.0 (PAM, in Debian's libpam-doc) has on every page a footer "Samar, Schemers      Page 18"
    and a header "OSF-RFC 86.0      PAM      October 1995". After its last numbered section, ``numbered``
    took the header for a heading (eight times in the whole document: "OSF-RFC 86.0 PAM October 1995 (8)"),
    each such section starting at the footer before it."""
    source = load("pam-rfc86-excerpt.txt")
    assert source.format == "numbered"
    # Its appendices are indented as its sections are: "   APPENDIX A. PAM API'S", "   A.1. Framework Layer API's".
    assert list(source.sections) == ["preamble", "1", "2", "A", "A.1"]
    assert source.sections["A"].startswith("APPENDIX A. PAM API'S\n")
    assert "OSF-RFC 86.0" in source.sections["A.1"]  # page furniture stays text of its page
    assert source.sections["A.1"].endswith(
        "Page 19\n\n\n\n\n\n\n\n   OSF-RFC 86.0" + " " * 22 + "PAM" + " " * 23 + "October 1995"
    )


def test_one_wrapped_line_starting_with_a_number_is_no_section() -> None:
    """CPython's ``_thread`` docs (``library/_thread.rst`` as python3-doc ships it) have one title, and a
    wrapped sentence whose line starts "0 is used.". ``numbered`` made that line section "0" (its only
    numbered line, so the "a number and a word in lower case is a sentence" rule was waived), and ``auto``
    chose it over the one honest section: a quote's section cut mid-sentence."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one section holding the whole text is what this document is
        source = Source.from_file(DATA / "python-thread-excerpt.rst.txt")
    assert source.format != "numbered"
    assert len(source.sections) == 1
    assert "\n   0 is used.  If changing the thread stack size is\n" in next(iter(source.sections.values()))


@pytest.mark.parametrize(
    ("document", "title", "body"),
    [
        # python3-pip 23.0.1: numbered read the list items "1. The path to a Python executable." as sections.
        ("pip-python-option.md", "Managing a different Python interpreter", "1. The path to a Python executable.\n"),
        # python3-pip 23.0.1: rst read "pip" over a code fence's backticks as a title underlined with "`".
        ("pip-cli-index.md", "Commands", "\npip\n```\n"),
    ],
)
def test_a_document_that_is_one_section_under_its_title_is_read_so(document: str, title: str, body: str) -> None:
    """Two documents with one heading, at the top, over all of their text. A one-section split scores 0
    in ``auto`` (its one section holds all the text), so any split with a little score won: list items or
    a code fence in the body, which left a third to a half of the text before the first "heading". (A
    ``.md`` file is read as Markdown by its name: ``auto`` reads text without one, as a RAG app's is.)"""
    source = Source.from_text((DATA / document).read_text(), name=document)
    assert source.format == "markdown"
    assert [key for key in source.sections if key != "preamble"] == [title]
    assert body in source.sections[title]


def test_a_formula_in_capitals_after_the_last_numbered_section_is_no_heading() -> None:
    """libpng's manual: the list ``1)`` to ``4)`` of its part III, and later the luminance formulas
    ``Y = 0.2126 * R + 0.7152 * G + 0.0722 * B`` on lines of their own. All their letters are capitals
    (and no word has four letters to break title case), so each formula was a heading after section 4."""
    source = Source.from_text((DATA / "libpng-formula-excerpt.txt").read_text(), format="numbered")
    assert list(source.sections) == ["preamble", "1", "2", "3", "4"]
    assert "    Y = 0.2126 * R + 0.7152 * G + 0.0722 * B\n" in source.sections["4"]
    assert source.sections["4"].endswith("if the image gamma\ncan be determined.")


def test_a_rendered_man_page_splits_at_its_headings_and_subsections() -> None:
    source = load("msgconv.1.txt")
    assert source.format == "man"
    assert {key: len(text) for key, text in source.sections.items()} == {
        "preamble": 78,  # the header line
        "NAME": 66,
        "SYNOPSIS": 44,
        "DESCRIPTION": 176,
        "DESCRIPTION > Input file location": 231,
        "DESCRIPTION > Output file location": 203,
        "DESCRIPTION > Conversion target": 141,
        "DESCRIPTION > Input file syntax": 195,
        "DESCRIPTION > Output details": 1306,
        "DESCRIPTION > Informative output": 150,
        "AUTHOR": 38,
        "REPORTING BUGS": 168,
        "COPYRIGHT": 298,
        "SEE ALSO": 268,
    }
    assert source.sections["DESCRIPTION > Conversion target"].startswith("Conversion target:\n       -t, --to-code")
    # The footer names the page again: layout, in no section.
    assert source.sections["SEE ALSO"].endswith("should give you access to the complete manual.")
    assert all("February 2023" not in text for text in source.sections.values())


def test_a_man_page_whose_title_overprints_its_header_line_is_still_a_man_page() -> None:
    """gcloud's ``gcloud_ai_endpoints_create(1)`` (Debian package google-cloud-cli 528.0.0-0, rendered
    with ``MANWIDTH=80 man -P cat``, man-db 2.11.2; Apache-2.0). A title too long for the line makes
    groff overprint the header: ``GCLOUD_AI_ENDPOINTS_CREATE(1General Commands ManuGCLOUD_AI_ENDPOINTS_CREATE(1)``,
    after a blank line. The header pattern wanted two spaces after the page, so the page was no man
    page and ``auto`` found no sections at all (18 of 50 rendered pages of the package)."""
    source = load("gcloud-ai-endpoints-create.1.txt")
    assert source.format == "man"
    assert list(source.sections) == [
        "preamble",
        "NAME",
        "SYNOPSIS",
        "EXAMPLES",
        "REQUIRED FLAGS",
        "OPTIONAL FLAGS",
        "GCLOUD WIDE FLAGS",
        "NOTES",
    ]
    assert source.sections["preamble"].startswith("GCLOUD_AI_ENDPOINTS_CREATE(1General")
    assert source.sections["NAME"] == "NAME\n       gcloud ai endpoints create - create a new Vertex AI endpoint"
    # The footer names the page again: layout, in no section.
    assert all(
        "GCLOUD_AI_ENDPOINTS_CREATE(1)" not in text for key, text in source.sections.items() if key != "preamble"
    )


def test_markdown_front_matter_is_the_preamble_not_a_heading() -> None:
    source = load("systemd-translators.md")
    assert source.format == "markdown"
    assert list(source.sections) == [
        "preamble",
        "Notes for Translators",
        "Notes for Translators > Creating a New Translation",
        "Notes for Translators > Updating an Existing Translation",
        "Notes for Translators > Recompiling Translations",
    ]
    # The closing "---" of the front matter once made its last line a setext heading.
    assert source.sections["preamble"] == (DATA / "systemd-translators.md").read_text()[:118]
    assert source.sections["preamble"].endswith("SPDX-License-Identifier: LGPL-2.1-or-later\n---")


def test_markdown_html_comments_hold_no_headings() -> None:
    text = (DATA / "node-string-decoder.md").read_text()
    source = load("node-string-decoder.md")
    # 1358: the preamble's two comments (introduced_in, source_link: 70 characters) are cut; YAML ones stay.
    assert [len(part) for part in source.sections.values()] == [1358, 25, 211, 580, 714]
    assert list(source.sections)[2] == "String decoder > Class: StringDecoder > new StringDecoder([encoding])"
    # A heading-like line or a setext underline inside a comment is not a heading.
    commented = text.replace("<!-- YAML\nadded: v0.1.99\n-->", "<!-- YAML\n# Not a heading\nadded\n---\n-->", 1)
    assert list(Source.from_text(commented).sections) == list(source.sections)
    commented = text.replace("<!-- YAML\nadded: v0.1.99\n-->", "<!--\n# Not a heading\nadded\n---\n-->", 1)
    assert list(Source.from_text(commented).sections) == list(source.sections)


def test_a_markdown_heading_id_keeps_the_underscores_of_its_words() -> None:
    """Node.js's ``n-api.md`` heads a section ``### `napi_set_instance_data` ``: its id was
    "... > napisetinstancedata" (every ``_`` taken for an emphasis mark), an id nobody would write in a
    citation, and one two headings could share. Emphasis marks at a word's edge still go."""
    source = load("node-n-api-excerpt.md")
    assert list(source.sections) == [
        "Node-API",
        "Node-API > Environment life cycle APIs",
        "Node-API > Environment life cycle APIs > napi_set_instance_data",
        "Node-API > Environment life cycle APIs > napi_get_instance_data",
    ]
    assert source.sections["Node-API > Environment life cycle APIs > napi_set_instance_data"].startswith(
        "### `napi_set_instance_data`\n"
    )


def test_docbook_html_author_headings_are_no_sections() -> None:
    """base-passwd's users-and-groups.html (DocBook's HTML stylesheet): the title page gives each author an
    ``<H3 CLASS="AUTHOR">``. Each name was a section ("... > Joey Hess", 9 characters), the last one holding
    the copyright and the contents list, and the load warned that the split explains the page badly."""
    source = load("base-passwd-users-and-groups-excerpt.html")
    assert list(source.sections) == [
        "Users and Groups in the Debian System",
        "Chapter 1. Introduction",
        "Chapter 2. Users and Groups",
    ]
    title_page = source.sections["Users and Groups in the Debian System"]
    assert title_page.startswith("Users and Groups in the Debian System\nJoey Hess\nColin Watson\nDavid Mandelberg\n")


def test_the_full_layout_names_are_accepted_by_name() -> None:
    text = (DATA / "debian-policy-excerpt.txt").read_text()
    assert list(Source.from_text(text, format="rst").sections) == list(load("debian-policy-excerpt.txt").sections)
    man = (DATA / "msgconv.1.txt").read_text()
    assert Source.from_text(man, format="man").format == "man"


# --- saying it at load -------------------------------------------------------------------------

# Prose (the GPL-3's words re-wrapped) under one heading: no layout explains it.
PROSE = " ".join((DATA / "gpl-3.0.txt").read_text().split())
WRAPPED = "\n\n".join(PROSE[i : i + 70] for i in range(0, len(PROSE), 70))


def test_one_huge_section_warns_at_load_naming_the_layout_and_the_ways_out() -> None:
    with pytest.warns(SourceWarning) as caught:
        source = Source.from_text("# Terms\n\n" + WRAPPED, name="terms.txt")
    assert source.format == "markdown" and list(source.sections) == ["Terms"]
    [message] = [str(warning.message) for warning in caught]
    assert message.startswith("terms.txt: format 'auto' split the document as 'markdown' (1 section), but ")
    assert "its one heading, 'Terms', makes the whole text one section; no other layout found any sections" in message
    assert "format= (" in message and "pytest_citecheck_split_sections" in message


def test_a_one_section_document_both_rst_and_markdown_read_says_the_runner_up_fits_no_better() -> None:
    # CPython's library/email.policy.rst (27,690 characters, one title underlined with "=") warned that the
    # runner-up 'rst' "fits worse": both read the same one section and score the same.
    with pytest.warns(SourceWarning) as caught:
        source = Source.from_text("Terms\n=====\n\n" + WRAPPED, name="terms.rst.txt")
    assert list(source.sections) == ["Terms"]
    [message] = [str(warning.message) for warning in caught]
    assert "its one heading, 'Terms', makes the whole text one section; the runner-up, " in message
    assert "(1 section), fits no better." in message and "fits worse" not in message


@pytest.mark.parametrize("how", ["from_text", "from_file"])
def test_the_load_warning_names_the_line_that_loaded_the_document(how: str, tmp_path: Path) -> None:
    # Found by hand: from_text's warning named pytest's own rewrite.py:185 (a Source built at module level
    # in a test file), not the test file's line.
    path = tmp_path / "terms.md"
    path.write_text("# Terms\n\n" + WRAPPED)
    with pytest.warns(SourceWarning) as caught:
        Source.from_text(path.read_text(), name="terms.md") if how == "from_text" else Source.from_file(path)
    [warning] = list(caught)
    assert (warning.filename, warning.lineno) == (__file__, sys._getframe().f_lineno - 2)


def test_a_badly_explained_document_names_the_runner_up() -> None:
    with pytest.warns(SourceWarning) as caught:
        source = Source.from_text("1. Terms\n\n" + WRAPPED + "\n\n# Notes\n\nSee above.\n", name="terms.txt")
    [message] = [str(warning.message) for warning in caught]
    assert source.format in message and "the runner-up, " in message and "fits worse" in message


def test_sections_too_large_for_one_jev_request_are_named_once_at_load() -> None:
    chapter = "The licence grants every right it names. " * 2600  # about 106,000 characters
    text = f"# One\n\n{chapter}\n\n# Two\n\nShort.\n\n# Three\n\n{chapter}\n"
    with pytest.warns(SourceWarning) as caught:
        source = Source.from_text(text, format="markdown", name="big.md")
    assert source.oversized == ("One", "Three")
    [message] = [str(warning.message) for warning in caught]
    assert message.startswith("big.md: 2 sections too large for one Jev request judged whole")
    assert "'One' (106,606 characters, about 35,536 tokens), 'Three'" in message and "window=N" in message


def test_auto_scores_every_layout_and_keeps_the_best() -> None:
    detected = detect((DATA / "debian-policy-excerpt.txt").read_text())
    names = [fit.format for fit in detected.fits]
    assert names[0] == "rst" and "markdown" in names
    markdown = next(fit for fit in detected.fits if fit.format == "markdown")
    assert markdown.score < detected.fits[0].score


def test_a_document_split_again_is_split_once_and_warns_each_time() -> None:
    # Every test module of a suite builds the same Source: split once per process (and its finder
    # built once); what splitting it warned is said to each caller.
    text = "# Terms\n\n" + WRAPPED
    with pytest.warns(SourceWarning) as first:
        one = Source.from_text(text, name="again.txt")
    with pytest.warns(SourceWarning) as second:
        other = Source.from_text(text, name="again.txt")
    assert other is one
    assert [str(w.message) for w in second] == [str(w.message) for w in first]
    with pytest.warns(SourceWarning):
        assert Source.from_text(text, name="other-name.txt") is not one  # the name is in what it says


@pytest.mark.parametrize("character", ["a", "é", "€", "😀"])  # 1 to 4 bytes of UTF-8 each
def test_a_section_is_oversized_exactly_when_its_request_would_not_fit(character: str) -> None:
    """Short sections are not encoded to be measured; the edge is where ``fits`` puts it, whatever the text."""
    from pytest_citecheck._limits import fits

    sizes = sorted({size for edge in (10_667, 23_700, 31_600, 94_800) for size in range(edge - 2, edge + 3)})
    sections = {str(size): character * size for size in sizes}
    source = Source(sections=sections)
    assert source.oversized == tuple(key for key, text in sections.items() if not fits("", text))
    assert source.oversized  # each character's edge is among the sizes


def test_a_gnu_info_file_splits_by_node_without_its_header_lines() -> None:
    """GNU Info (the Nettle manual, ``tests/data/nettle-info-excerpt.info``; see tests/data/README.md)
    splits by node: each node begins at a ``\\x1f`` line and its ``File: ..., Node: ...`` header, and is
    a section named by its node. ``auto`` read Info as ``rst`` by chapter: ids ``1``, ``2``..., each
    section ending with the next node's ``\\x1f`` and header line, so a quote of that navigation line
    was ``found`` in the manual. The header is in no section now."""
    source = load("nettle-info-excerpt.info")
    assert source.format == "info" and detect(source.text).fits[1].format == "rst"
    assert tuple(source.sections) == NETTLE_INFO_NODES
    assert source.sections["Introduction"].startswith(
        "1 Introduction\n**************\n\nNettle is a cryptographic library"
    )
    assert source.sections["Copyright"].endswith("is of\ncourse appreciated, but it is not required.")
    assert source.sections["preamble"].startswith("This is nettle.info, produced by makeinfo")
    assert not any("\x1f" in text or "Node: " in text for text in source.sections.values())
    quotes = {  # as a model quotes them: the lines joined
        "Introduction": "In particular, Nettle doesn’t do algorithm selection.",
        "Copyright": "This manual is in the public domain.",
        "Conventions": "The context struct encapsulates all information needed by the algorithm",
        "Index": "* aes128_decrypt:",
        "-": "File: nettle.info,  Node: Copyright,  Next: Conventions,  Prev: Introduction,  Up: Top",
    }
    citations = adapt_citations(
        [{"id": node, "claim": "The manual says so.", "quote": quote} for node, quote in quotes.items()], source=source
    )
    located = locate_all(citations, source, Settings())
    assert [(one.status, getattr(one, "section", None)) for one in located] == [
        *[(Status.FOUND, node) for node in list(quotes)[:-1]],
        (Status.MISSING, None),
    ]
    assert Source.from_text(source.original, format="info").sections == source.sections


def test_gnu_info_node_names_and_tables() -> None:
    """Node names are ids (a DEL-quoted one unquoted; a repeated one made unique, counted per name so
    20,000 repeats stay linear); the file's tables are in no section; a file of tables only, or of
    nodes without text, is an error that says so."""
    node = "\x1f\nFile: x.info,  Node: {},  Up: Top\n\n{}\n"
    text = "x.info\n" + node.format("\x7fa, b: c\x7f", "One.") + node.format("Top", "Two.") * 3
    text += "\x1f\nTag Table:\nNode: Top\x7f12\n\x1f\nEnd Tag Table\n\x1f\nLocal Variables:\ncoding: utf-8\nEnd:\n"
    source = Source.from_text(text)
    assert source.format == "info"
    assert source.sections == {
        "preamble": "x.info",
        "a, b: c": "One.",
        "Top": "Two.",
        "Top (2)": "Two.",
        "Top (3)": "Two.",
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one-line nodes, mostly headers: "badly explained", as it should be
        many = Source.from_text(node.format("n", "Text.") * 20_000, format="info")
    assert list(many.sections)[-2:] == ["n (19999)", "n (20000)"]
    split_manual = "find.info\n\x1f\nIndirect:\nfind.info-1: 1201\nfind.info-2: 312546\n\x1f\nTag Table:\n(Indirect)\n"
    with pytest.raises(SourceError, match=r"split into several files.*the nodes are in find.info-1, find.info-2"):
        Source.from_text(split_manual)
    with pytest.raises(SourceError, match=r"1 node\(s\) hold no text"):
        Source.from_text("\x1f\nFile: a.info,  Node: Top\n", format="info")
    with pytest.raises(SourceError, match="contains NUL bytes"):
        Source.from_text(node.format("Top", "he\x00llo"))


def test_a_markdown_heading_id_leaves_out_inline_html_tags() -> None:
    """Tk 8.6's README.md (Debian package tk8.6) heads its sections ``## <a id="intro">1.</a> Introduction``:
    the anchor's tags were part of the id ("README: Tk > <a id="intro">1.</a> Introduction"), which no
    reader sees and no citation names. A rendered page shows "1. Introduction", whose number is its id.
    An HTML element's tags go (``<kbd>``, ``<br>``), a power is raised, an autolink loses its brackets; a type's
    parameter (``Vec<T>``) stays."""
    source = load("tk-readme-excerpt.md")
    assert list(source.sections) == ["README: Tk", "1", "2"]
    assert source.sections["1"].startswith('## <a id="intro">1.</a> Introduction\n')
    text = (
        "# Keys\n\nintro\n\n## Press <kbd>Ctrl</kbd>+<kbd>C</kbd> to stop<br/>\n\none\n\n"
        "## Vec<T> and Option<T>\n\ntwo\n\n## 2<sup>32</sup> bytes &amp; more <!-- note -->\n\nthree\n\n"
        "## See <https://example.org/a>\n\nfour\n\n## `<kbd>` in a code span\n\nfive\n"
    )
    assert list(Source.from_text(text, "markdown").sections) == [
        "Keys",
        "Keys > Press Ctrl+C to stop",
        "Keys > Vec<T> and Option<T>",
        "Keys > 2³² bytes & more",
        "Keys > See https://example.org/a",
        "Keys > <kbd> in a code span",
    ]
