"""Step 1 finds a quote of the words a reader sees of a Markdown or reStructuredText source (docs/matching.md, *Markup*).

The documents are real, as Debian ships them (tests/data/README.md): psmisc's README.md (``**psmisc**``,
inline links), librsvg's README.md (reference links, ``***PLEASE DO NOT …***``) and CPython's
``Doc/library/functools.rst`` (Sphinx roles, ``literal``, literal blocks). Found quotes report offsets
into the section as written; what is judged (the section sent to Jev) is the section as written; nothing
but markup is taken out, so a quote that drops a word, a ``not`` inside emphasis above all, is not found.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_citecheck import Corpus, Source, Status
from pytest_citecheck._locate.display import Markup
from pytest_citecheck._locate.locator import QuoteLocator
from pytest_citecheck.testing import JevServer

DATA = Path(__file__).parent.parent / "data"


def source(name: str) -> Source:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # functools.rst's sections are large: not what is tested here
        return Source.from_file(DATA / name)


PSMISC = source("psmisc-README.md")
LIBRSVG = source("librsvg-README.md")
FUNCTOOLS = source("python-functools.rst")


def shown(markup: str, text: str, layout: str = "markdown", labels: frozenset[str] = frozenset()) -> str:
    displayed = Markup(layout, labels).displayed(text)
    return text if displayed is None else displayed[0]


def passage(documents: Source, quote: str) -> tuple[str, str] | None:
    match = QuoteLocator(documents).find(quote)
    return None if match is None else (match.section, documents.sections[match.section][match.start : match.end])


# --- the defect, on the documents it was found on (hunt-docs O1) ---------------------------------


@pytest.mark.parametrize(
    ("quote", "section", "written"),
    [
        (
            "For the latest psmisc source, visit the GitLab psmisc page",
            "psmisc > Getting latest source > GitLab",
            "For the latest **psmisc** source, visit the\n[GitLab psmisc page](https://gitlab.com/psmisc/psmisc)",
        ),
        (
            "there is both an Issue Tracker and Merge Request Tracker.",
            "psmisc > Getting Help",
            "there is both an\n[Issue Tracker](https://gitlab.com/psmisc/psmisc/-/issues) and\n"
            "[Merge Request Tracker](https://gitlab.com/psmisc/psmisc/-/merge_requests).",
        ),
        ("the latest psmisc", "psmisc > Getting latest source > GitLab", "the latest **psmisc**"),
        (
            "fuser - Identifies processes using files or sockets",
            "psmisc",
            "*fuser* - Identifies processes using files or sockets",
        ),
    ],
)
def test_a_quote_of_a_markdown_readme_as_displayed_is_found_where_its_words_are_written(
    quote: str, section: str, written: str
) -> None:
    assert passage(PSMISC, quote) == (section, written)


def test_a_quote_of_a_sphinx_page_as_displayed_is_found_in_its_rst_source() -> None:
    found = passage(FUNCTOOLS, "Transform a function into a single-dispatch generic function.")
    assert found is not None
    assert (
        found[1]
        == "Transform a function into a :term:`single-dispatch <single\n   dispatch>` :term:`generic function`."
    )
    # a role's name, ``literal``, :pep: and a paragraph's "::"
    for quote, written in [
        (
            "partial objects are callable objects created by partial.",
            ":class:`partial` objects are callable objects created by :func:`partial`.",
        ),
        ("decorate it with the @singledispatch decorator.", "decorate it with the ``@singledispatch``\n   decorator."),
        (
            "interferes with the operation of PEP 412 key-sharing dictionaries.",
            "interferes with the operation of :pep:`412`\n   key-sharing dictionaries.",
        ),
    ]:
        found = passage(FUNCTOOLS, quote)
        assert found is not None and found[1] == written, quote


def test_sphinx_s_parentheses_after_a_function_role_may_be_quoted() -> None:
    """Sphinx shows :func:`partial` as ``partial()``: a quote of the page has them, one of the source may not."""
    for quote in ("objects created by partial().", "objects created by partial."):
        assert passage(FUNCTOOLS, quote) is not None, quote


@pytest.mark.parametrize(
    "quote",
    [
        "This is librsvg - A small library to render Scalable Vector Graphics (SVG), associated with the GNOME Project.",
        "You can read the documentation for librsvg's C API or the Rust API.",
        "PLEASE DO NOT SEND PULL REQUESTS TO GITHUB.",
        "We use gitlab.gnome.org instead.",
    ],
)
def test_reference_links_and_nested_emphasis_of_a_real_readme(quote: str) -> None:
    assert passage(LIBRSVG, quote) is not None


# --- nothing but markup is taken out ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("documents", "quote"),
    [
        (LIBRSVG, "PLEASE SEND PULL REQUESTS TO GITHUB."),  # ***PLEASE DO NOT SEND …***: the "NOT" is a word
        (LIBRSVG, "We use instead."),  # the link's text is a word too
        (PSMISC, "For the latest source, visit the GitLab psmisc page"),
        (FUNCTOOLS, "Transform a function into a generic function."),
        (FUNCTOOLS, "Transform a function into a single-dispatch single dispatch generic function."),  # the target
        (PSMISC, "visit the GitLab psmisc page gitlab.com psmisc psmisc"),  # the link's destination is not shown
    ],
)
def test_a_quote_that_drops_or_adds_a_word_is_not_found(documents: Source, quote: str) -> None:
    assert passage(documents, quote) is None


def test_not_inside_emphasis_stays_a_word() -> None:
    markdown = Source.from_text("# Rules\n\nSharing passwords is **not** allowed.\n", format="markdown")
    rst = Source.from_text("Rules\n=====\n\nSharing passwords is *not* allowed.\n", format="rst")
    for documents in (markdown, rst):
        assert passage(documents, "Sharing passwords is not allowed.") is not None
        assert passage(documents, "Sharing passwords is allowed.") is None
        assert passage(documents, "Sharing passwords is ... allowed.") is None  # too short an elision


@pytest.mark.parametrize(
    ("text", "displayed"),
    [
        (
            "Call snake_case_name or __init__ here",
            "Call snake_case_name or init here",
        ),  # CommonMark: __init__ is strong
        ("It is 2*3*4 or 2 * 3 * 4, x**2 + y**2", "It is 2*3*4 or 2 * 3 * 4, x**2 + y**2"),
        ("* a bullet\n* another *one*", "* a bullet\n* another one"),
        ("Say `a *b* c` and \\*literal\\*", "Say a *b* c and *literal*"),
        ("```\nx = *y* + _z_\n```\n\nthen *this*", "```\nx = *y* + _z_\n```\n\nthen this"),
        ("Text\n\n    indented *code*\n", "Text\n\n    indented *code*\n"),
        ("See <https://example.org> &amp; ![a logo](logo.png)", "See https://example.org & a logo"),
        ("A [ref][undefined] stays, [this][x] goes", "A [ref][undefined] stays, this goes"),
        ("> quoted *words*\n> go on", "quoted words\ngo on"),
        ("a ~~struck~~ word and ~/.bashrc", "a struck word and ~/.bashrc"),
        ("*open only and `unclosed", "*open only and `unclosed"),
    ],
)
def test_what_markdown_shows(text: str, displayed: str) -> None:
    assert shown("", text, labels=frozenset({"x"})) == displayed


@pytest.mark.parametrize(
    ("text", "displayed"),
    [
        ("Use :func:`~functools.partial` or :class:`!Foo`.", "Use partial or Foo."),
        ("A :term:`title <target>` and `link <https://x.org>`_ and name_ ok", "A title and link and name ok"),
        ("Keep snake_case and 2*3 and a * b, ``x*y*z``", "Keep snake_case and 2*3 and a * b, x*y*z"),
        ("See :pep:`8`, :abbr:`LIFO (last-in, first-out)`, :file:`~/.bashrc`", "See PEP 8, LIFO, ~/.bashrc"),
        ("For example::\n\n   x = *y*\n\nthen *this*", "For example:\n\n   x = *y*\n\nthen this"),
        ("Example ::\n\n   code\n", "Example\n\n   code\n"),
        (".. note:: A *cte* of ``binary`` works.", ".. note:: A cte of binary works."),
        (".. code-block:: python\n\n   a = *b*\n", ".. code-block:: python\n\n   a = *b*\n"),
        ("400--499 and a --- b", "400\u2013499 and a \u2014 b"),
        ("an escaped\\ space and \\*star\\*", "an escapedspace and *star*"),
    ],
)
def test_what_restructuredtext_shows(text: str, displayed: str) -> None:
    assert shown("", text, layout="rst") == displayed


# --- the contract around it ----------------------------------------------------------------------


def test_a_plain_text_source_keeps_its_markup_characters() -> None:
    """Only a source split as Markdown or reStructuredText is read as markup: an RFC's ``*`` are text."""
    plain = Source.from_text("1.  Intro\n\n   The value is **bold** here and [x](y).\n", format="numbered")
    assert passage(plain, "The value is **bold** here") is not None
    assert passage(plain, "The value is bold here") is None


def test_a_quote_as_written_is_still_found_and_a_quote_may_keep_some_markup() -> None:
    for quote in ("For the latest **psmisc** source", "visit the `GitLab psmisc page`", "created by :func:`partial`"):
        assert passage(PSMISC if "psmisc" in quote else FUNCTOOLS, quote) is not None, quote


def test_a_corpus_finds_displayed_words_in_its_markdown_and_rst_documents_only() -> None:
    corpus = Corpus(
        {"readme": PSMISC, "functools": FUNCTOOLS, "plain": Source(sections={"1": "Say **hi** now please ok"})}
    )
    from pytest_citecheck._locate.finders import finder_for

    finder = finder_for(corpus)
    for quote, document in [
        ("For the latest psmisc source, visit the GitLab psmisc page", "readme"),
        ("Transform a method into a single-dispatch generic function.", "functools"),
    ]:
        found = finder.find(quote, document=None, section=None, location=None, casefold=False)
        assert found is not None and found.document == document
    assert finder.find("Say hi now please ok", document=None, section=None, location=None, casefold=False) is None
    closest = finder.closest("For the latest psmisc source, visit the GitLab pages", document="readme", casefold=False)
    assert closest is not None and closest.match.section == "psmisc > Getting latest source > GitLab"


def test_the_section_judged_is_the_section_as_written(direct_checker, jev_server: JevServer) -> None:
    """The request Jev gets (and a cassette records) is the section as written: recordings stay valid."""
    quote = "For the latest psmisc source, visit the GitLab psmisc page"
    citation = {"id": "gitlab", "claim": "psmisc's source is on GitLab.", "quote": quote}
    [result] = direct_checker(jev_server).check([citation], PSMISC)
    section = "psmisc > Getting latest source > GitLab"
    assert result.status is Status.FOUND and result.section == section
    assert result.section_text == PSMISC.sections[section]
    assert PSMISC.sections[section][result.span[0] : result.span[1]].startswith("For the latest **psmisc**")
    [request] = jev_server.systemone_requests
    assert request.body["state"]["section"] == PSMISC.sections[section]


# --- a property: marked-up words are found as shown, and never with a word left out ------------------

WORDS = [f"w{index}x" for index in range(12)]  # distinct words: a sentence without one of them is nowhere
MARKDOWN_WRAPS = [
    "{}",
    "*{}*",
    "**{}**",
    "_{}_",
    "__{}__",
    "`{}`",
    "[{}](https://e.org/a_b*c)",
    "[{}][x]",
    # Not "~~{}~~": struck-out text is not the document's text (tests/sources/test_struck_text.py).
    "<b>{}</b>",
    "***{}***",
]
RST_WRAPS = [
    "{}",
    "*{}*",
    "**{}**",
    "``{}``",
    ":func:`{}`",
    ":term:`{} <t_a*b>`",
    "`{} <https://e.org>`_",
    "`{}`",
    "{}_",
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["markdown", "rst"]), st.data())
def test_marked_up_words_are_found_as_shown_and_never_with_a_word_dropped(layout: str, data: st.DataObject) -> None:
    wraps = MARKDOWN_WRAPS if layout == "markdown" else RST_WRAPS
    count = data.draw(st.integers(4, 12))
    chosen = [data.draw(st.sampled_from(wraps)).format(word) for word in WORDS[:count]]
    breaks = data.draw(st.lists(st.sampled_from([" ", "\n"]), min_size=count - 1, max_size=count - 1))
    body = chosen[0] + "".join(gap + word for gap, word in zip(breaks, chosen[1:]))
    heading = "# Title\n\n" if layout == "markdown" else "Title\n=====\n\n"
    documents = Source.from_text(heading + body + "\n\n[x]: https://e.org\n", format=layout)
    locator = QuoteLocator(documents)
    match = locator.find(" ".join(WORDS[:count]))
    assert match is not None
    written = documents.sections[match.section][match.start : match.end]
    assert WORDS[0] in written and WORDS[count - 1] in written
    dropped = data.draw(st.integers(1, count - 2))
    assert locator.find(" ".join(WORDS[:dropped] + WORDS[dropped + 1 : count])) is None


# --- hostile documents: the scanners stay linear --------------------------------------------------
# A page of unclosed openers made each opener scan to the page's end (quadratic): `[a](` x 40,000 took
# 172 s, `a_a_a_...` of 80 kB in rst 140 s, `a:a:a:...` 28 s, `:a:`b ` x 40,000 minutes. Speed itself is
# not asserted here (bench/ holds speed goals); the limits that make the scans short are.


def test_a_link_destination_nests_at_most_32_parentheses_as_cmark_allows() -> None:
    nested = "(" * 32 + "b" + ")" * 32
    assert shown("markdown", f"see [it]({nested}) now") == "see it now"
    deeper = "(" * 33 + "b" + ")" * 33
    assert shown("markdown", f"see [it]({deeper}) now") == f"see [it]({deeper}) now"


def test_a_link_label_longer_than_999_characters_is_text_as_commonmark_says() -> None:
    label = "x" * 1000
    labels = frozenset({label, "y" * 999})
    assert shown("markdown", f"see [{label}] now", labels=labels) == f"see [{label}] now"
    assert shown("markdown", f"see [{'y' * 999}] now", labels=labels) == f"see {'y' * 999} now"
    # The text of a full reference link is no label: it may be long.
    assert shown("markdown", f"see [{label}][y{'y' * 998}] now", labels=labels) == f"see {label} now"


def test_a_role_name_and_a_reference_name_have_a_bounded_length() -> None:
    assert shown("rst", "call :py:func:`partial` now", "rst") == "call partial now"
    long_role = ":" + "a" * 65 + ":`partial`"
    assert shown("rst", long_role, "rst") == ":" + "a" * 65 + ":partial"  # no role: its name stays as text
    assert shown("rst", "see name_ now", "rst") == "see name now"
    long_name = "n" * 101
    assert shown("rst", f"see {long_name}_ now", "rst") == f"see {long_name}_ now"


def test_an_rst_end_string_is_searched_for_once_however_many_openers_look_for_it(monkeypatch) -> None:
    """Each of 2,000 ``:a:`b`` openers looked for a closing backquote to the end of the paragraph: the first
    search's answer (none) now serves every later opener it covers, so the scan is linear."""
    from pytest_citecheck._locate.display import rst

    searches = []
    original = rst.Inline._search_interpreted_end

    def counted(self, at):  # type: ignore[no-untyped-def]
        searches.append(at)
        return original(self, at)

    monkeypatch.setattr(rst.Inline, "_search_interpreted_end", counted)
    text = ":a:`b " * 2_000
    assert shown("rst", text, "rst") == text
    assert len(searches) <= 2
    # Remembering changes no answer (whether an end-string is valid depends on it alone): the same texts
    # give the same displayed words with every search done afresh.
    texts = [":a:`b " * 50 + "and :func:`partial` here", "*a* and **b `c` ``d`` *e **f** `g`_ :x:`y` z*"]
    remembered = [shown("rst", text, "rst") for text in texts]
    monkeypatch.setattr(rst.Inline, "_remembered", lambda self, marker, at: (False, None))
    assert [shown("rst", text, "rst") for text in texts] == remembered
    assert remembered[1] == "a and b `c` ``d`` *e **f g y z*"  # rst does not nest: strong runs to f**
