"""Each built-in format on real public documents (see tests/data/README.md for their origin):
RFC 6749 for ``rfc``, three licences for ``numbered``, two READMEs for ``markdown`` (ATX and
setext), the rustdoc book for ``html``, a PDF printed from a licence, and ``auto`` detecting each."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from support import NETTLE_INFO_NODES

from pytest_citecheck import Source, SourceError
from pytest_citecheck._locate.locator import QuoteLocator
from pytest_citecheck._sources.formats import detect_format, heading_ids
from pytest_citecheck.testing import JevServer

DATA = Path(__file__).parent.parent / "data"


def passage_of(source: Source, quote: str) -> tuple[str, str]:
    match = QuoteLocator(source).find(quote)
    assert match is not None, quote
    return match.section, source.sections[match.section][match.start : match.end]


# --- rfc --------------------------------------------------------------------------------------


def test_rfc_splits_a_second_rfc_with_form_feeds_and_another_running_header() -> None:
    source = Source.from_text((DATA / "rfc6749.txt").read_text(), format="rfc")
    ids = list(source.sections)
    assert ids[:5] == ["1", "1.1", "1.2", "1.3", "1.3.1"] and ids[-3:] == ["12", "12.1", "12.2"]
    assert len(ids) == 98
    assert source.sections["1.1"].startswith("1.1.  Roles\n\n   OAuth defines four roles:")
    # Page layout is gone: no footer, no running header, no form feed, in any section.
    for text in source.sections.values():
        assert "[Page " not in text and "\f" not in text and "RFC 6749                        OAuth 2.0" not in text
    # The table of contents (indented) did not become sections: 4.1.2 is the body's.
    assert source.sections["4.1.2"].startswith("4.1.2.  Authorization Response")
    # A sentence that runs across a page break is found whole.
    assert passage_of(source, "The authorization server MUST ignore unrecognized request parameters")[0] == "3.1"


# --- numbered ---------------------------------------------------------------------------------


def test_numbered_apache_licence() -> None:
    source = Source.from_file(DATA / "apache-2.0.txt")
    assert source.format == "numbered"
    appendix = "APPENDIX: How to apply the Apache License to your work"  # after the last numbered section
    assert list(source.sections) == ["preamble", *[str(n) for n in range(1, 10)], appendix]
    assert source.sections["3"].startswith("3. Grant of Patent License.")
    assert (
        passage_of(source, "You may reproduce and distribute copies of the Work or Derivative Works thereof")[0] == "4"
    )


def test_numbered_gpl_keeps_a_list_item_inside_its_section() -> None:
    source = Source.from_file(DATA / "gpl-3.0.txt")
    how_to_apply = "How to Apply These Terms to Your New Programs"  # after the last numbered section
    assert list(source.sections) == ["preamble", *[str(n) for n in range(0, 18)], how_to_apply]
    # "    7.  This requirement modifies ..." is item 7 of a list in section 5, not section 7.
    assert "7.  This requirement modifies the requirement in section 4" in source.sections["5"]
    assert source.sections["7"].startswith("7. Additional Terms.")
    assert source.sections["preamble"].startswith("GNU GENERAL PUBLIC LICENSE")


def test_numbered_mpl_two_levels_boxes_and_wrapped_numbers() -> None:
    source = Source.from_file(DATA / "mpl-2.0.txt")
    ids = list(source.sections)
    assert ids[:4] == ["preamble", "1", "1.1", "1.2"] and ids[-7:-2] == ["10", "10.1", "10.2", "10.3", "10.4"]
    # The exhibits after the last numbered section are headings underlined with dashes.
    assert ids[-2:] == [
        "Exhibit A - Source Code Form License Notice",
        'Exhibit B - "Incompatible With Secondary Licenses" Notice',
    ]
    assert {"5.1", "5.2", "5.3", "6", "7", "8", "9"} <= set(ids)
    # "2.1 of this License shall terminate." wraps onto a new line: text of 5.2, not a section.
    assert "2.1 of this License shall terminate." in source.sections["5.2"]
    # Sections 6 and 7 are drawn in boxes of asterisks; the box is layout, and is gone.
    assert source.sections["6"].startswith("6. Disclaimer of Warranty")
    assert "*" not in source.sections["6"]
    section, passage = passage_of(
        source, 'Covered Software is provided under this License on an "as is" basis, without warranty of any kind'
    )
    assert section == "6" and passage.endswith("without warranty of any kind")


def test_numbered_section_and_paragraph_markers() -> None:
    text = (
        "Acceptable Use Policy\n\n"
        "Section 1. Scope\nThis policy applies to every account.\n\n"
        "Section 2. Prohibited uses\nNo account may send unsolicited bulk email.\n\n"
        "§ 3 Enforcement\nAccounts in breach are suspended after one warning.\n"
    )
    source = Source.from_text(text, format="numbered")
    assert list(source.sections) == ["preamble", "1", "2", "3"]
    assert source.sections["3"] == "§ 3 Enforcement\nAccounts in breach are suspended after one warning."


def test_numbered_without_numbers_is_a_clear_error() -> None:
    with pytest.raises(SourceError, match="no numbered sections"):
        Source.from_text("Just a paragraph of prose.\nAnd another one.\n", format="numbered")


# --- markdown ---------------------------------------------------------------------------------


def test_markdown_atx_headings_give_heading_paths_and_numbers() -> None:
    source = Source.from_file(DATA / "pyenv-readme.md")
    assert source.format == "markdown"
    ids = list(source.sections)
    assert ids[0] == "Simple Python Version Management: pyenv"
    assert "Simple Python Version Management: pyenv > Installation > A. Getting Pyenv > Linux/Unix" in ids
    # "##### 1. Automatic installer (Recommended)" is numbered: its number is its id.
    assert source.sections["1"].startswith("##### 1. Automatic installer (Recommended)")
    # "# comment" lines inside fenced code blocks are code, not headings.
    assert not any(key.startswith(("export", "eval", "echo")) or "> export" in key for key in ids)
    section, passage = passage_of(source, "pyenv lets you easily switch between multiple versions of Python")
    assert section == "Simple Python Version Management: pyenv"


def test_markdown_setext_headings() -> None:
    source = Source.from_file(DATA / "oauth2client-contributing.md")
    assert list(source.sections)[:3] == [
        "Contributing",
        "Contributing > Before writing code, file an issue",
        "Contributing > Fork oauth2client",
    ]
    assert source.sections["Contributing > Include tests"].startswith("Include tests\n-------------\n\nBe sure to add")
    assert (
        passage_of(source, "Be sure to add the relevant tests before making the pull request")[0]
        == "Contributing > Include tests"
    )


def test_a_lone_hash_line_is_not_a_section_without_an_id() -> None:
    """bash's ``inputrc.arrows`` (Debian package bash 5.2.15, ``/usr/share/doc/bash/inputrc.arrows``, GPL-3+):
    a readline comment block whose blank comment lines are a lone ``#``. Each was an ATX heading with
    no title, so the markdown split (which ``auto`` tries on every document) made a section with the
    id '' and ``Source.from_file`` failed with "section id '' must be a non-empty string"; so did the
    Bash Reference Manual's PDF, which quotes such a file."""
    source = Source.from_file(DATA / "bash-inputrc.arrows")
    assert source.format == "markdown"
    assert list(source.sections)[2:] == [
        "Arrow keys in keypad mode",
        "Arrow keys in ANSI mode",
        "Arrow keys in 8 bit keypad mode",
        "Arrow keys in 8 bit ANSI mode",
    ]
    # The lone "#" lines stay in the section around them; no text is lost.
    assert source.sections["Arrow keys in ANSI mode"].startswith('# Arrow keys in ANSI mode\n#\n"\\C-[[D"')
    assert "".join(source.sections.values()).count("#") == source.text.count("#")
    assert passage_of(source, '"\\C-[[A"        previous-history')[0] == "Arrow keys in ANSI mode"
    # The same with a title that is only inline markup, and as text split by every layout.
    assert list(Source.from_text("# Usage\n\nRun it.\n\n#\n\nAgain.\n\n**\n--\n", format="markdown").sections) == [
        "Usage"
    ]
    assert list(Source.from_text("# Usage\n\nRun it.\n\n#\n\nAgain.\n").sections) == ["Usage"]


def test_a_lone_equals_sign_under_a_pdf_formula_is_not_a_setext_heading() -> None:
    """ "Everything we know about CRC but afraid to forget" (Kadatch and Jenkins), the PDF zlib ships
    (Debian package zlib1g-dev 1:1.2.13.dfsg-1, ``/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz``; zlib
    licence, the package's ``copyright``, ``Files: *``): its text as pypdf reads it puts each "=" of a
    chain of equations on a line of its own, under a line of the formula. Each was a setext heading,
    so ``auto`` split the paper as markdown into 57 sections titled ")", "mod P (x) =", ... with no
    warning. A setext title must start its block (blank line or a block's end above it): a formula
    line inside a paragraph is not one."""
    text = (DATA / "zlib-crc-doc-excerpt.txt").read_text()
    assert text.split("\n").count("=") == 6  # lone "=" lines, each under a line of a formula
    with pytest.raises(SourceError, match="no Markdown headings"):
        Source.from_text(text, format="markdown")
    with pytest.raises(SourceError, match="format 'auto' found no sections"):  # it was 6 markdown sections
        Source.from_text(text)
    # A setext heading at the start of a block is one: after a blank line, a heading, front matter, a comment.
    for markdown in [
        "Intro.\n\nUsage\n=\n\nRun it.\n",
        "# Guide\nUsage\n-----\nRun it.\n",
        "---\ntitle: Guide\n---\nUsage\n=====\nRun it.\n",
        "<!-- generated -->\nUsage\n=====\nRun it.\n",
    ]:
        assert list(Source.from_text(markdown, format="markdown").sections)[-1].endswith("Usage"), markdown


def test_heading_ids_are_unique() -> None:
    assert heading_ids(
        [(1, "Usage"), (2, "Linux"), (1, "Install"), (2, "Linux"), (2, "Linux"), (2, "4.1 Tokens"), (2, "4.1 Again")]
    ) == [
        "Usage",
        "Usage > Linux",
        "Install",
        "Install > Linux",
        "Install > Linux (2)",
        "4.1",
        "Install > 4.1 Again",
    ]


# --- html -------------------------------------------------------------------------------------


def test_a_sphinx_permalink_is_not_part_of_a_heading_title() -> None:
    """Python's ``bisect`` page (Debian package python3-doc 3.11.2-1,
    ``/usr/share/doc/python3-doc/html/library/bisect.html``, PSF License Version 2): Sphinx ends every
    heading with ``<a class="headerlink">¶</a>``, which shows on hover. The "¶" was in every section id
    ("bisect — Array bisection algorithm¶ > Performance Notes¶"), so a citation naming the section by
    its heading named none."""
    source = Source.from_file(DATA / "python-bisect.html")
    assert source.format == "html"
    assert list(source.sections) == [
        "bisect — Array bisection algorithm",
        "bisect — Array bisection algorithm > Performance Notes",
        "bisect — Array bisection algorithm > Searching Sorted Lists",
        "bisect — Array bisection algorithm > Examples",
    ]
    assert not any("¶" in key for key in source.sections)
    # The permalink is still in the page's text: only the title leaves it out.
    assert source.sections["bisect — Array bisection algorithm > Performance Notes"].startswith("Performance Notes¶\n")
    section, _ = passage_of(
        source, "When writing time sensitive code using bisect() and insort(), keep these thoughts in mind"
    )
    assert section == "bisect — Array bisection algorithm > Performance Notes"


def test_html_page_chrome_outside_the_main_content_and_navigation_is_not_the_pages_text() -> None:
    """Sphinx marks the body ``role="main"`` and puts its sidebar ("Table of Contents", "Previous topic",
    "This Page", "Navigation", each an ``<h3>``/``<h4>``) before and after it: those were sections,
    those after the body nested under its last heading ("... > Examples > Navigation"), and the last
    section's text ran on into the footer. Node.js's API docs (Debian package nodejs 20.20.2,
    ``/usr/share/doc/nodejs/api/synopsis.html``, MIT licence) put the site's ``<h1>`` and a table of
    contents outside ``role="main"``, and end each heading with ``<a class="mark" href="#...">#</a>``:
    every id was "Node.js v20.20.2 documentation > Usage and example# > Usage#"."""
    bisect = Source.from_file(DATA / "python-bisect.html")
    everything = "\n".join(bisect.sections.values())
    assert "Previous topic" not in everything and "Report a Bug" not in everything
    assert bisect.sections["bisect — Array bisection algorithm > Examples"].endswith("('yellow', 8)")
    node = Source.from_file(DATA / "nodejs-synopsis.html")
    assert node.format == "html"
    assert list(node.sections) == ["Usage and example", "Usage and example > Usage", "Usage and example > Example"]
    assert "Node.js v20.20.2 documentation" not in "\n".join(node.sections.values())
    section, _ = passage_of(node, "An example of a web server written with Node.js which responds with")
    assert section == "Usage and example > Example"
    assert QuoteLocator(node).find("Node.js v20.20.2 documentation") is None  # the site's header: chrome


def test_html_chrome_is_read_whole_when_nothing_else_has_a_heading() -> None:
    """Dropping chrome never leaves a page with no sections: a page whose only headings are in its
    navigation, or whose "main" is only mentioned in a script, is read whole, as before."""
    only_nav = "<html><body><nav><h2>Contents</h2><p>Install, then run.</p></nav><p>Body text.</p></body></html>"
    assert list(Source.from_text(only_nav, format="html").sections) == ["Contents"]
    scripted = "<html><body><script>panel.innerHTML = '<div role=\"main\">'</script><h1>Title</h1><p>Body text.</p></body></html>"
    assert Source.from_text(scripted, format="html").sections["Title"] == "Title\nBody text."
    # Inside the main content, navigation is still dropped and nested elements of main's own tag close right.
    page = (
        '<div><h1>Site</h1></div><div role="main"><div><h1>Page</h1><p>Kept <b>text</b>.</p></div>'
        "<nav><h2>On this page</h2></nav><h2>Next</h2><p>Also kept.</p></div><div><h2>Footer</h2></div>"
    )
    source = Source.from_text(page, format="html")
    assert list(source.sections) == ["Page", "Page > Next"]
    assert source.sections["Page > Next"] == "Next\nAlso kept."


def test_html_headings_through_a_real_parser_without_script_or_style() -> None:
    source = Source.from_file(DATA / "rustdoc-what-is-rustdoc.html")
    assert source.format == "html"
    assert "What is rustdoc? > Basic usage" in source.sections
    everything = "\n".join(source.sections.values())
    assert "localStorage" not in everything and "default_dark_theme" not in everything  # <script>
    assert "<" not in source.sections["What is rustdoc? > Basic usage"].replace("<path>", "")
    # Character references are decoded (&lt;path&gt; -> <path>); a quote spanning markup is found.
    assert "-o <path>/docs/target/doc" in everything
    section, passage = passage_of(source, "Let's give it a try! Create a new project with Cargo")
    assert section == "What is rustdoc? > Basic usage" and passage.startswith("Let\u2019s give it a try!")


# --- auto, files, pdf -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("rfc6749.txt", "rfc"),
        ("apache-2.0.txt", "numbered"),
        ("gpl-3.0.txt", "numbered"),
        ("mpl-2.0.txt", "numbered"),
        ("pyenv-readme.md", "markdown"),
        ("oauth2client-contributing.md", "markdown"),
        ("rustdoc-what-is-rustdoc.html", "html"),
    ],
)
def test_auto_detects_each_real_document(name: str, expected: str) -> None:
    text = (DATA / name).read_text()
    assert detect_format(text) == expected
    assert Source.from_text(text, format="auto").format == expected


def test_from_file_picks_by_extension_and_an_explicit_format_wins(tmp_path: Path) -> None:
    copy = tmp_path / "licence.md"
    copy.write_text((DATA / "apache-2.0.txt").read_text())
    with pytest.raises(SourceError, match="no Markdown headings"):
        Source.from_file(copy)
    assert Source.from_file(copy, format="numbered").format == "numbered"
    with pytest.raises(SourceError, match="no such file"):
        Source.from_file(tmp_path / "missing.txt")


def test_pdf_through_pypdf() -> None:
    source = Source.from_file(DATA / "apache-2.0.pdf")
    assert source.format == "numbered" and source.name == "apache-2.0.pdf"
    # pypdf's text has no blank lines, so no line stands on its own: the appendix stays in section 9.
    assert list(source.sections) == ["preamble", *[str(n) for n in range(1, 10)]]
    section, passage = passage_of(
        source, "You may reproduce and distribute copies of the Work or Derivative Works thereof"
    )
    assert section == "4"


def test_a_tex_pdf_accent_is_joined_to_its_letter() -> None:
    """Two pages of the Nettle manual's PDF (Debian package nettle-dev 3.8.1-2,
    ``/usr/share/doc/nettle-dev/nettle.pdf.gz``, made by texinfo/TeX; pages 2 and 6 copied with pypdf
    7.1: "This manual is placed in the public domain"). TeX draws "ö" as "o" under an accent, and pypdf
    gives "M¨oller": a quote of what the page shows, "Niels Möller", was not found."""
    source = Source.from_file(DATA / "nettle-manual-title.pdf")
    assert list(source.sections) == ["preamble", "1"]
    assert "Originally written 2001 by Niels Möller, updated 2017." in source.sections["preamble"]
    assert "¨" not in source.text
    section, _ = passage_of(source, "Originally written 2001 by Niels Möller, updated 2017.")
    assert section == "preamble"
    assert QuoteLocator(source).find("Originally written 2001 by Niels Moller, updated 2017.") is None


def test_a_justified_line_of_a_xetex_pdf_keeps_the_spaces_between_its_words() -> None:
    """Pages 15 and 16 of the Debian Policy Manual's PDF (Debian package debian-policy 4.6.2.0, Sphinx,
    LaTeX and xdvipdfmx). XeTeX draws no space glyph: a word gap is a displacement in a TJ array. pypdf
    (7.1.1, its open issue #3978) takes the width of the font's glyph 32 for the space's and adds no
    space, so its text read "Whiletheauthorsofthisdocumenthavetriedhardtoavoidtyposandothererrors": a
    quote of what the page shows was not found. A word TeX hyphenated at a line end reads as on the
    page: the hyphen, then the line break."""
    source = Source.from_file(DATA / "debian-policy-pages.pdf")
    assert list(source.sections) == ["preamble", "1.4"]
    section, _ = passage_of(
        source,
        "While the authors of this document have tried hard to avoid typos and other errors, these do still occur.",
    )
    assert section == "preamble" and "Whiletheauthors" not in source.text
    section, _ = passage_of(
        source, "The transformation format (sometimes called encoding) of Unicode defined by RFC 3629."
    )
    assert section == "1.4"
    assert "referred to in MIME as US-\nASCII, and corresponding" in source.text
    assert "\ufffe" not in source.text and "\r" not in source.text
    # The words are the page's, not a looser match: "maybe" is not "may be".
    assert QuoteLocator(source).find("The packager and upstream developer maybe the same person.") is None
    assert passage_of(source, "The packager and upstream developer may be the same person.")[0] == "1.4"


def test_pdf_without_pypdfium2_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pypdfium2", None)  # import pypdfium2 now raises ImportError
    with pytest.raises(
        SourceError, match=r"reading PDF needs pypdfium2; install it with: pip install 'pytest-citecheck\[pdf\]'"
    ):
        Source.from_file(DATA / "apache-2.0.pdf")


def test_a_file_that_is_not_a_pdf_is_a_clear_error(tmp_path: Path) -> None:
    fake = tmp_path / "report.pdf"
    fake.write_bytes(b"this is not a PDF at all")
    with pytest.raises(SourceError, match="cannot read this PDF"):
        Source.from_file(fake)


def test_unknown_format_without_a_hook_names_the_known_ones() -> None:
    with pytest.raises(
        SourceError,
        match=r"unknown format 'docx'; known formats: auto, docbook, html, info, man, markdown, numbered, rfc, rst",
    ):
        Source.from_text("text", format="docx")


def test_section_at_maps_document_offsets_to_sections() -> None:
    text = (DATA / "apache-2.0.txt").read_text()
    source = Source.from_text(text, format="numbered")
    offset = source.text.index("Grant of Patent License")
    assert source.section_at(offset) == "3"
    assert source.section_at(source.text.index("Apache License")) == "preamble"
    assert source.section_at(0) is None  # the blank margin before the title is in no section


# --- auto by default, and no header taken from running text ---------------------------------

# The GFDL's section 9 wraps a sentence so that a line starts "60 days after the cessation.": a
# number followed by a sentence, out of sequence. Split as an RFC it used to become section "60".
GFDL_SECTION_9_HALVES = ("You may not copy, modify, sublicense", "60 days after the cessation.\n\nMoreover")


def test_text_is_split_as_auto_by_default_and_the_gfdl_keeps_its_section_9_whole() -> None:
    source = Source.from_text((DATA / "gfdl-1.3.txt").read_text())
    assert source.format == "numbered"
    addendum = "ADDENDUM: How to use this License for your documents"  # after the last numbered section
    assert list(source.sections) == ["preamble", *[str(n) for n in range(0, 12)], addendum]
    assert all(half in source.sections["9"] for half in GFDL_SECTION_9_HALVES)
    assert source.sections["9"].endswith("not give you any rights to use it.")


def test_rfc_does_not_take_a_number_in_running_text_for_a_section_header() -> None:
    source = Source.from_text((DATA / "gfdl-1.3.txt").read_text(), format="rfc")
    assert "60" not in source.sections
    assert list(source.sections) == [str(n) for n in range(0, 12)]
    assert all(half in source.sections["9"] for half in GFDL_SECTION_9_HALVES)


def test_rfc_text_is_still_detected_as_rfc_by_default() -> None:
    from support import RFC7519

    for text in (RFC7519.read_text(), (DATA / "rfc6749.txt").read_text()):
        assert Source.from_text(text).format == "rfc"
    assert Source.from_text(RFC7519.read_text()).sections == Source.from_file(RFC7519, format="rfc").sections


GFDL_SUITE = """
import pathlib
from pytest_citecheck import assert_citations_supported

GFDL = (pathlib.Path(__file__).parent / "gfdl-1.3.txt").read_text()

def test_cure():
    [result] = assert_citations_supported([{
        "id": "cure",
        "claim": "A first violation cured within 30 days of notice restores the licence for good.",
        "quote": "you cure the violation prior to 30 days after your receipt of the notice",
        "section": "9",
    }], GFDL)
    assert result.section == "9", result.section
"""


def test_a_check_against_document_text_judges_the_whole_cited_section(
    pytester: pytest.Pytester, jev_server: JevServer
) -> None:
    from support import INNER_INI

    pytester.makeini(INNER_INI + "citecheck_model = jev-1.12\n")
    (pytester.path / "gfdl-1.3.txt").write_text((DATA / "gfdl-1.3.txt").read_text())
    pytester.makepyfile(test_gfdl=GFDL_SUITE)
    result = pytester.runpytest("--citecheck-record-mode=once")
    result.assert_outcomes(passed=1)
    [request] = jev_server.systemone_requests
    judged = request.body["state"]["section"]
    assert judged.startswith("9. TERMINATION") and all(half in judged for half in GFDL_SECTION_9_HALVES)


# --- what a failure to split says ---------------------------------------------------------------

# The head of ls(1) as roff source (GNU coreutils' man page, as `zcat /usr/share/man/man1/ls.1.gz` shows it).
ROFF = """.\\" DO NOT MODIFY THIS FILE!  It was generated by help2man 1.49.3.
.TH LS "1" "September 2022" "GNU coreutils 9.1" "User Commands"
.SH NAME
ls \\- list directory contents
.SH SYNOPSIS
.B ls
[\\fI\\,OPTION\\/\\fR]... [\\fI\\,FILE\\/\\fR]...
.SH DESCRIPTION
.\\" Add any additional description here
.PP
List information about the FILEs (the current directory by default).
"""


def test_auto_that_finds_no_sections_names_what_it_tried_and_the_remedies(tmp_path: Path) -> None:
    page = tmp_path / "ls.1"
    page.write_text(ROFF)
    with pytest.raises(SourceError) as caught:
        Source.from_file(page)
    message = str(caught.value)
    assert message.startswith("field 'format': ls.1: format 'auto' found no sections"), message
    for tried in ("html", "rfc", "markdown", "numbered"):
        assert tried in message
    assert "pass the layout it is in as format= (docbook, html, info, man, markdown, numbered, rfc, rst); " in message
    assert "ls.1" in message
    # The ways out past the layouts are a named layout's words exactly (one text, built in one place):
    # Source(sections=...) and the split hook; they were two wordings of one remedy.
    with pytest.raises(SourceError) as named:
        Source.from_file(page, format="markdown")
    rest = "; a document with no sections at all can be one: Source(sections={'<id>': text}); or split it yourself "
    assert rest in message and rest in str(named.value)
    assert message.split(rest, 1)[1] == str(named.value).split(rest, 1)[1]
    assert "pytest_citecheck_split_sections hook, for a format name of your own (see https://" in message


def test_a_compressed_document_says_so(tmp_path: Path) -> None:
    import gzip

    page = tmp_path / "ls.1.gz"
    page.write_bytes(gzip.compress(ROFF.encode()))
    with pytest.raises(SourceError, match=r"ls.1.gz is gzip-compressed: decompress it first"):
        Source.from_file(page)


def test_a_document_in_another_encoding_names_where_and_the_encoding_to_pass() -> None:
    """GNU ed's AUTHORS as Debian ships it (``ed-AUTHORS.latin1``) is Latin-1 ("François", byte 238):
    the error said only "is not utf-8 text (invalid continuation byte)", naming neither the place nor the
    way out. Read with the encoding it names, it is text (with no headings to split at)."""
    with pytest.raises(
        SourceError,
        match=r"not utf-8 text: invalid continuation byte at byte 238 \(line 7\); "
        r"if it is text in another encoding, pass it: encoding='latin-1'",
    ) as raised:
        Source.from_file(DATA / "ed-AUTHORS.latin1")
    assert raised.value.field == "source"
    with pytest.raises(SourceError, match=r"format 'auto' found no sections"):  # read as text: it has no headings
        Source.from_file(DATA / "ed-AUTHORS.latin1", encoding="latin-1")


def test_a_utf_16_document_is_told_to_pass_utf_16_and_an_unknown_encoding_is_named(tmp_path: Path) -> None:
    page = tmp_path / "msgconv.1.txt"
    page.write_text((DATA / "msgconv.1.txt").read_text(encoding="utf-8"), encoding="utf-16")  # with its BOM
    with pytest.raises(
        SourceError,
        match=r"at byte 0 \(line 1\); it starts with a UTF-16 byte order mark: "
        r"pass encoding='utf-16'",
    ):
        Source.from_file(page)
    assert Source.from_file(page, encoding="utf-16").format == "man"
    with pytest.raises(SourceError, match=r"unknown encoding 'utf-9'; pass a Python codec name") as raised:
        Source.from_file(page, encoding="utf-9")  # was a LookupError and a traceback
    assert raised.value.field == "encoding"


def test_a_directory_is_not_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r"is a directory, not a file"):
        Source.from_file(tmp_path)


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and symbolic links to devices are POSIX")
def test_a_path_that_is_not_a_regular_file_says_what_it_is(tmp_path: Path) -> None:
    """A FIFO, a link to /dev/zero or a loop of links is there: "no such file" sent the user looking
    for a typo (and a FIFO must not be opened, or the read waits for a writer)."""
    import os

    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "zero.md").symlink_to("/dev/zero")
    (tmp_path / "a.md").symlink_to(tmp_path / "b.md")
    (tmp_path / "b.md").symlink_to(tmp_path / "a.md")
    (tmp_path / "dangling.md").symlink_to(tmp_path / "gone.md")
    for name, said in [
        ("pipe.md", r"pipe.md: it is a FIFO \(named pipe\), not a regular file"),
        ("zero.md", r"zero.md: it is a character device, not a regular file"),
        ("a.md", r"a.md: cannot be read \(Too many levels of symbolic links\)"),
        ("dangling.md", r"dangling.md: a symbolic link to a file that does not exist"),
    ]:
        with pytest.raises(SourceError, match=said):
            Source.from_file(tmp_path / name)


def test_a_gnu_info_file_with_an_index_is_text() -> None:
    """The Nettle manual as GNU Info (Debian package nettle-dev 3.8.1-2, ``/usr/share/info/nettle.info.gz``;
    public domain: "This manual is placed in the public domain."): lines 1-221 (header, Top, chapters
    1-3) and 6018-6110 (the last chapters and the head of the Index node). An index node starts with
    Info's own tag ``\\0\\b[index\\0\\b]``, which Info readers never show: the file was refused as
    binary ("contains NUL bytes"), as were coreutils', grep's, bash's, find's and sed's manuals."""
    source = Source.from_file(DATA / "nettle-info-excerpt.info")
    tag = "\x00\x08[index\x00\x08]"
    assert source.original.count(tag) == 1 and source.original.count("\x00") == 2
    assert source.format == "info"
    assert tuple(source.sections) == NETTLE_INFO_NODES
    assert not any("\x00" in text or "\x08" in text for text in source.sections.values())
    index = source.sections["Index"]
    assert index.startswith(
        "Function and Concept Index\n**************************\n\n\n* Menu:\n\n* 3DES:"
    )  # the tag line is blank
    # Offsets into the file as read (the tag counted) still find the same characters, after the tag too.
    start = index.index("* aes128_decrypt:")
    given = source.original_offset("Index", start)
    assert given > source.original.index(tag)
    assert source.original[given : given + 17] == "* aes128_decrypt:"
    placed = source.place(given, given + 17)
    assert placed is not None and (placed.section, placed.start) == ("Index", start)
    # Any other NUL is still a binary file's.
    with pytest.raises(SourceError, match="contains NUL bytes"):
        Source.from_text(source.original.replace(tag, "\x00\x08[index]"))


def test_an_empty_or_binary_file_is_named_in_the_error(tmp_path: Path) -> None:
    (tmp_path / "empty.md").write_text("\n \n")
    (tmp_path / "nul.md").write_text("# Title\n\nhello\x00world\n")
    with pytest.raises(SourceError, match=r"empty.md: the document is empty"):
        Source.from_file(tmp_path / "empty.md")
    with pytest.raises(SourceError, match=r"nul.md: the document contains NUL bytes"):
        Source.from_file(tmp_path / "nul.md")


@pytest.mark.parametrize(
    "name",
    [
        "pyenv-readme.md",
        "oauth2client-contributing.md",
        "systemd-translators.md",
        "msgconv.1.txt",
        "debian-policy-excerpt.txt",
        "rustdoc-what-is-rustdoc.html",
        "apache-2.0.txt",
    ],
)
def test_a_byte_order_mark_changes_no_section(tmp_path: Path, name: str) -> None:
    """The same real documents saved with a UTF-8 byte order mark (as Windows editors save them, and
    ``read_text(encoding="utf-8")`` keeps it as U+FEFF). The mark hid the first line's heading: pyenv's
    README lost its top heading (every id changed), the setext ids of oauth2client's began with an
    invisible U+FEFF, systemd's front matter became a section, and msgconv(1) was no man page at all."""
    text = (DATA / name).read_text()
    copy = tmp_path / name
    copy.write_bytes(b"\xef\xbb\xbf" + (DATA / name).read_bytes())
    plain, marked = Source.from_text(text, name=name), Source.from_file(copy, format="auto")
    assert marked.original == "\ufeff" + text
    assert (marked.format, marked.sections) == (plain.format, plain.sections)
    # Offsets into the file as read (the mark counts one character) still find their sections.
    for section in list(plain.sections)[:5]:
        start = plain.original_offset(section, 0)
        assert marked.original_offset(section, 0) == start + 1
        placed = marked.place(start + 1, start + 10)
        assert placed is not None and placed.section == section
    assert marked.place(0, 1) is None


def test_a_pdf_contents_list_with_dot_leaders_is_not_sections() -> None:
    """The Nettle manual's PDF (Debian package nettle-dev 3.8.1-2, ``/usr/share/doc/nettle-dev/nettle.pdf.gz``,
    text read with pypdf: lines 1-189, the title page, the whole table of contents and chapters 1-3;
    "This manual is in the public domain"). Each contents entry ("1 Introduction . . . . 1",
    "7.1 Hash functions . . . . . . .") was a numbered section, so chapter 1 of the body could not
    follow section 9 of the contents, and the whole manual (96% of it) was section '9'."""
    source = Source.from_file(DATA / "nettle-manual-excerpt.txt")
    assert source.format == "numbered"
    assert list(source.sections) == ["preamble", "1", "2", "3"]
    assert "Table of Contents\n1 Introduction . . ." in source.sections["preamble"]
    assert source.sections["2"].startswith("2 Copyright\nNettle is dual licenced")
    section, _ = passage_of(source, "Nettle tries to avoid this problem by doing one thing, the low-level crypto stuff")
    assert section == "1"
    assert passage_of(source, "This manual is in the public domain.")[0] == "2"


@pytest.mark.parametrize(
    "name",
    [
        "oauth2client-contributing.md",
        "msgconv.1.txt",
        "debian-policy-excerpt.txt",
        "rfc6749.txt",
        "python-bisect.html",
        "mpl-2.0.txt",
        "pyenv-readme.md",
    ],
)
@pytest.mark.parametrize("mark", ["", "\ufeff"])
def test_crlf_line_ends_change_no_section(name: str, mark: str) -> None:
    """The same real documents with Windows line ends, as ``Source.from_text`` gets them from an HTTP
    response or ``read_bytes().decode()`` (``read_text`` turns CRLF into LF). Only ``numbered`` read
    CRLF: oauth2client's setext headings were not headings (it split as 'numbered', 2 sections),
    msgconv(1) was no man page, the Policy excerpt split as 'docbook' and RFC 6749 lost its layout."""
    text = (DATA / name).read_text()
    plain, windows = Source.from_text(text, name=name), Source.from_text(mark + text.replace("\n", "\r\n"), name=name)
    assert (windows.format, windows.sections) == (plain.format, plain.sections)
    # Offsets into the text as given (its CRs and mark counted) still find the same characters.
    for section, (start, end) in list(plain.spans.items())[:12]:
        for offset in range(0, end - start, max(1, (end - start) // 7)):
            given = windows.original_offset(section, offset)
            assert windows.original[given] == plain.original[plain.original_offset(section, offset)]
            placed = windows.place(given, given + 1)
            assert placed is not None and (placed.section, placed.start, placed.end) == (section, offset, offset + 1)


# --- numbered: sections after the last numbered one (issue 12, item 6) --------------------------


def test_gfdl_addendum_is_its_own_section_not_part_of_section_11() -> None:
    source = Source.from_file(DATA / "gfdl-1.3.txt")
    addendum = "ADDENDUM: How to use this License for your documents"
    assert list(source.sections) == ["preamble", *[str(n) for n in range(0, 12)], addendum]
    assert source.sections["11"].endswith("provided the MMC is eligible for relicensing.")
    assert "ADDENDUM" not in source.sections["11"]
    assert source.sections[addendum].startswith(addendum + "\n\nTo use this License in a document you have written")
    assert passage_of(source, "If you have Invariant Sections without Cover Texts")[0] == addendum


def test_gpl2_how_to_apply_is_its_own_section_and_the_end_marker_opens_it() -> None:
    source = Source.from_file(DATA / "gpl-2.0.txt")
    how_to_apply = "How to Apply These Terms to Your New Programs"
    assert list(source.sections) == ["preamble", *[str(n) for n in range(0, 13)], how_to_apply]
    assert source.sections["12"].endswith("POSSIBILITY OF SUCH DAMAGES.")
    # "END OF TERMS AND CONDITIONS" has no text of its own: it opens the section that follows it.
    assert source.sections[how_to_apply].startswith("END OF TERMS AND CONDITIONS\n\n            How to Apply")
    assert passage_of(source, "Gnomovision comes with ABSOLUTELY NO WARRANTY")[0] == how_to_apply
    # "NO WARRANTY" stands between sections 10 and 11, before the last numbered one: it stays text.
    assert source.sections["10"].endswith("NO WARRANTY")


def test_a_claim_on_gfdl_section_11_sends_section_11_alone(direct_checker, jev_server) -> None:
    source = Source.from_file(DATA / "gfdl-1.3.txt")
    citation = {
        "id": "relicensing",
        "claim": "An eligible MMC may be republished under CC-BY-SA until August 2009.",
        "quote": "may republish an MMC contained in the site under CC-BY-SA on the same site at any time before August 1, 2009",
    }
    [result] = direct_checker(jev_server).check([citation], source)
    assert result.section == "11"
    [request] = jev_server.systemone_requests
    assert request.body["state"]["section"] == source.sections["11"]
    assert "ADDENDUM" not in request.body["state"]["section"]


@pytest.mark.parametrize(
    ("trailer", "expected"),
    [
        ("SCHEDULE A\n\nThe fees are listed here.\n", ["1", "2", "SCHEDULE A"]),
        ("Annex: Contact Details\n-----------------------\n\nWrite to us.\n", ["1", "2", "Annex: Contact Details"]),
        ("CONTACT: How to reach the legal team.\n\nWrite to us.\n", ["1", "2", "CONTACT: How to reach the legal team"]),
        # A sentence on its own line is text, however short; so is a line in capitals inside a paragraph.
        ("See the website for more information.\n\nWrite to us.\n", ["1", "2"]),
        ("Contact the legal team\nWRITE TO US\nfor anything else.\n", ["1", "2"]),
        ("for anything else\n\nWrite to us.\n", ["1", "2"]),
    ],
    ids=["capitals", "underlined-title-case", "capital-label", "sentence", "not-alone", "lower-case"],
)
def test_which_trailing_lines_start_a_section(trailer: str, expected: list[str]) -> None:
    text = "1. Scope\n\nThis policy covers every account.\n\n2. Fees\n\nFees are due monthly.\n\n" + trailer
    assert list(Source.from_text(text, format="numbered").sections) == expected


def test_a_heading_right_under_the_last_numbered_one_does_not_empty_it() -> None:
    text = "1. Scope\n\nEvery account.\n\n2. Liability\n\nLIMITATION OF LIABILITY\n\nWe are liable for nothing.\n"
    source = Source.from_text(text, format="numbered")
    assert list(source.sections) == ["1", "2"]
    assert source.sections["2"].endswith("We are liable for nothing.")


def test_a_texinfo_pdf_cross_reference_or_list_item_is_no_numbered_section() -> None:
    """The Bash Reference Manual's PDF (Debian package bash-doc 5.2.15, ``/usr/share/doc/bash/bashref.pdf``,
    text read with pypdf; GFDL 1.3, see tests/data/README.md): an excerpt of chapters 1, 3 and 4. A
    cross-reference that wrapped to a line's start ("Section 3.1.2 [Quoting], page 6.") was section
    3.1.2; then the items "4." to "7." of the list under 3.1.1 were chapters 4 to 7, so the real 3.1.2
    to 4.2 could not follow and the manual was 45% section '7' and 43% section '61'. "5 or more
    arguments" (under 4.1, the test builtin) would have been chapter 5, losing 4.2 to 4.4. The
    appendices (A to D, with B.1 and D.1) were in the last chapter's section."""
    source = Source.from_file(DATA / "bashref-pdf-excerpt.txt")
    assert source.format == "numbered"
    assert list(source.sections) == [
        "preamble",
        "1",
        "1.1",
        "3",
        "3.1",
        "3.1.1",
        "3.1.2",
        "3.1.2.1",
        "3.1.2.2",
        "3.1.2.3",
        "4",
        "4.1",
        "4.2",
        "A",
        "B",
        "B.1",
        "C",
        "D",
        "D.1",
    ]
    assert source.sections["3.1.2"].startswith("3.1.2 Quoting\nQuoting is used to remove")
    assert passage_of(source, "Performs the various shell expansions")[0] == "3.1.1"
    assert passage_of(source, "Optionally waits for the command to complete and collects its exit status")[0] == "3.1.1"
    assert passage_of(source, "The expression is parsed and evaluated according to precedence")[0] == "4.1"
    assert source.sections["4.2"].startswith("4.2 Bash Builtin Commands")
    # Appendices as texinfo prints them, their running headers ("Appendix B: Major ... 169") kept as text.
    assert source.sections["B"].startswith("Appendix B Major Differences From The Bourne\nShell\n")
    assert "Appendix B: Major Differences From The Bourne Shell 169" in source.sections["B"]
    assert source.sections["B.1"].startswith("B.1 Implementation Differences From The SVR4.2 Shell")
    assert passage_of(source, "Everyone is permitted to copy and distribute verbatim copies")[0] == "C"
    # A title that is a bracket and nothing after it is still a heading ("[Reserved]" in a contract).
    reserved = Source.from_text("1. Scope\nThis applies.\n2. [Reserved]\n3. Fees\nFees are due.\n", format="numbered")
    assert list(reserved.sections) == ["1", "2", "3"]
    # A changelog's "1 file changed" lines are all its numbered lines: they stay sections, as before.
    log = Source.from_text(
        "commit 1\n\n1 file changed, 2 insertions(+)\n\ncommit 2\n\n2 files changed\n", format="numbered"
    )
    assert list(log.sections) == ["preamble", "1", "2"]


def test_a_third_trailing_heading_of_one_title_keeps_its_text() -> None:
    """After the last numbered section, a third heading of a title already taken twice was given the
    second one's id ("Notes (2)") again, and its text was dropped from the document: a quote of it
    was 'missing'. Found comparing Debian changelogs before and after a splitter change."""
    text = (
        "1. Terms\nSome terms apply.\n\n2. More Terms\nMore terms apply.\n\n"
        "Notes\n\nThe first note.\n\nNotes\n\nThe second note.\n\nNotes\n\nThe third note.\n"
    )
    source = Source.from_text(text, format="numbered")
    assert list(source.sections) == ["1", "2", "Notes", "Notes (2)", "Notes (3)"]
    assert passage_of(source, "The third note.")[0] == "Notes (3)"


def test_every_licence_of_a_real_copyright_file_keeps_its_text() -> None:
    """Debian's copyright file of libx11-6 2:1.8.4-2+deb12u2 (``/usr/share/doc/libx11-6/copyright``; each
    licence in it permits copying with its notice, which the file is): five of its licences open with
    "All Rights Reserved" after the last numbered section. The third to fifth got the second one's id,
    so their text was dropped: a sentence of IBM's licence was 'missing', read as fabricated."""
    source = Source.from_file(DATA / "libx11-copyright.txt")
    assert source.format == "numbered"
    assert [key for key in source.sections if key.startswith("All Rights Reserved")] == [
        "All Rights Reserved",
        *(f"All Rights Reserved ({count})" for count in range(2, 6)),
    ]
    ibm = "License to use, copy, modify, and distribute this software and its documentation for"
    assert passage_of(source, ibm)[0] == "All Rights Reserved (5)"
    covered = bytearray(len(source.text))
    for start, end in source.spans.values():
        covered[start:end] = b"\1" * (end - start)
    assert all(covered[index] or char.isspace() for index, char in enumerate(source.text))  # no text left out


def test_ids_of_a_heading_repeated_many_times_are_made_in_one_pass() -> None:
    """Each repeat of a title counted up from " (2)" over every id taken before it: 20,000 "# a"
    headings (120 kB of Markdown or HTML) took 28 s to split. The ids are the same, made in one pass."""
    from pytest_citecheck._sources.formats.headings import UniqueIds

    unique = UniqueIds()
    assert [unique(name) for name in ["a", "a (2)", "a", "a", "preamble", "b", "a"]] == [
        "a",
        "a (2)",
        "a (3)",
        "a (4)",
        "preamble (2)",
        "b",
        "a (5)",
    ]
    tries = []

    class Counted(set):  # type: ignore[type-arg]
        def __contains__(self, item: object) -> bool:
            tries.append(item)
            return super().__contains__(item)

    unique = UniqueIds()
    unique._used = Counted(unique._used)
    for _ in range(2_000):
        unique("a")
    assert len(tries) < 3 * 2_000
    source = Source.from_text("# a\n\ntext\n\n" * 2_000, format="markdown")
    assert list(source.sections)[-1] == "a (2000)"


@pytest.mark.parametrize("format", ["markdown", "rst", "rfc", "man", "html", "docbook", "info"])
def test_a_format_the_user_named_that_finds_no_sections_names_the_file(format: str) -> None:
    # Found by hand: Source.from_file(path, format="markdown") on a file with no headings said only "field
    # 'source': no Markdown headings ... were found", not which file; auto's error names it. The input is
    # Debian's Apache-2.0 licence text (tests/data/README.md), a numbered document with none of these layouts.
    with pytest.raises(SourceError) as caught:
        Source.from_file(DATA / "apache-2.0.txt", format=format)
    assert str(caught.value).startswith("field 'source': apache-2.0.txt: no "), str(caught.value)
    assert caught.value.field == "source" and caught.value.message.startswith("apache-2.0.txt: no ")


def test_a_format_the_user_named_names_the_document_given_to_from_text() -> None:
    with pytest.raises(SourceError, match=r"^field 'source': LICENSE: no Markdown headings"):
        Source.from_text((DATA / "apache-2.0.txt").read_text(), format="markdown", name="LICENSE")


def test_a_layout_the_file_name_chose_that_finds_no_sections_says_why_and_what_to_do(tmp_path: Path) -> None:
    # Found reading Sphinx's _sources (a .rst.txt with no titles is read as rst by its name) and a licence kept as
    # LICENSE.md without a heading: the error said what the layout did not find, but neither that the file's name
    # chose it nor what to do.
    licence = tmp_path / "LICENSE.md"
    licence.write_text((DATA / "apache-2.0.txt").read_text())
    with pytest.raises(SourceError) as caught:
        Source.from_file(licence)
    error = caught.value
    assert type(error) is SourceError  # the layouts' own marker class never reaches the user
    message = str(error)
    assert message.startswith("field 'source': LICENSE.md: no Markdown headings ("), message
    assert "were found (read as 'markdown' because of the file's name); " in message
    assert (
        "pass format='auto' (it tries every layout) or the layout it is in (docbook, html, info, man, numbered"
        in message
    )
    assert "Source(sections={'<id>': text})" in message and "pytest_citecheck_split_sections hook" in message
    assert error.layout == "markdown" and error.found is not None and error.found.startswith("no Markdown headings")
    # The first way out it names works: the licence's numbered sections.
    assert len(Source.from_file(licence, format="auto").order) > 5


@pytest.mark.parametrize("format", ["markdown", "rst", "rfc", "man", "html", "docbook", "info", "numbered"])
def test_a_layout_the_user_named_that_finds_no_sections_says_what_to_do(format: str) -> None:
    with pytest.raises(SourceError) as caught:
        Source.from_text("A note of two lines,\nwith no sections.\n", format=format)
    message = str(caught.value)
    assert message.startswith("field 'source': no "), message
    assert "because of the file's name" not in message  # the user named the layout
    others = message.split("or the layout it is in (", 1)[1].split(")", 1)[0].split(", ")
    assert format not in others and "auto" not in others and len(others) == 7
    assert caught.value.layout == format
