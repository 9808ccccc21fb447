"""Step 1's shortcuts give what the long way gives (issue 27: replay's cost per citation, a ``Corpus``'s).

``split_elisions`` skips the elision expression for a text with no "...": the pieces must be
``ELISION.split``'s, whatever the text (brackets, ellipses folded or not, whitespace of every kind).
A cited document's locator made from a corpus's normalised texts must be the document's own.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_citecheck import Corpus, Source
from pytest_citecheck._locate.finders import CorpusFinder
from pytest_citecheck._locate.locator import QuoteLocator
from pytest_citecheck._locate.normalize import (
    ELISION,
    normalize,
    normalize_marked,
    quote_length,
    split_elisions,
    trim_cut_hyphens,
)
from pytest_citecheck._locate.offsets import _SPACE_RUN, normalize_with_map
from pytest_citecheck._locate.rules import MIN_PIECE_WORDS, Piece, piece_of, quote_pieces, short_pieces

PROPERTIES = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PARTS = st.sampled_from([*"ab .[]\n\t\u2026\u00a0-", "...", "word", " [...] "])
TEXTS = st.lists(PARTS, max_size=30).map("".join)


@PROPERTIES
@given(TEXTS)
def test_split_elisions_is_the_expression_split(text: str) -> None:
    assert split_elisions(text) == ELISION.split(text)
    marked = normalize_marked(text, quote=True)
    assert split_elisions(marked) == ELISION.split(marked)


def test_quotes_with_and_without_elisions() -> None:
    quote = "the token MUST be rejected ... unless the issuer is trusted by the recipient"
    assert len(quote_pieces(quote)) == 2  # whole, then its two pieces
    assert quote_pieces("the token MUST be rejected by the recipient") == [
        quote_pieces("the token MUST be rejected by the recipient")[0]
    ]
    assert short_pieces("the token ... is") == ["the token", "is"]
    assert short_pieces("the token is rejected") == []


# ``Offsets.original_span`` places a passage by word position when the normalised text is the
# spaced text's words one space apart; it must give what the walk through the spaced text gives.
SPACED = st.sampled_from(
    [*"ab .-\n\t", "\u00a0", "\u2028", "\u00ad", "\u2014", "\ufb01", "word", "The", "  \n  ", "- ", "\x1c"]
)


@PROPERTIES
@given(st.lists(SPACED, max_size=40).map("".join), st.data())
def test_a_passage_placed_by_words_is_where_the_walk_places_it(text: str, data: st.DataObject) -> None:
    normalized, offsets = normalize_with_map(text)
    if not normalized:
        return
    for _ in range(8):
        start = data.draw(st.integers(0, len(normalized) - 1))
        end = data.draw(st.integers(start + 1, len(normalized)))
        fast = offsets.original_span(start, end)
        words = offsets._starts
        offsets._starts = ()  # the walk
        walk = offsets.original_span(start, end)
        offsets._starts = words
        if fast != walk:
            # The walk counts the passage's earlier occurrences in the normalised text, where the hyphens trimmed at
            # its start are not: it may place a passage of hyphens on them. Without them, the walk agrees.
            first = offsets.original_span(0, 1)[0]
            rest, without = normalize_with_map(text[first:])
            without._starts = ()
            assert rest == normalized and words, (normalized, start, end, words, fast, walk)
            assert fast == tuple(at + first for at in without.original_span(start, end)), (normalized, start, end)


def test_whitespace_runs_are_what_split_splits_at() -> None:
    # ``Offsets._word_starts`` places words by the lengths of ``str.split``'s words and of the ``\s+``
    # runs between them: the two must agree on every character (one that only one of them took for
    # whitespace would be a piece of the text for the other).
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    assert [piece for piece in _SPACE_RUN.split(every) if piece] == every.split()


def test_the_word_map_is_held_compactly() -> None:
    _, offsets = normalize_with_map(" The token\n   MUST\tbe  rejected. ")
    normalized, spaced = offsets._word_starts()
    assert (list(normalized), list(spaced)) == ([0, 4, 10, 15, 18], [1, 5, 14, 19, 23])
    assert normalized.itemsize == spaced.itemsize == 4


def test_the_word_map_is_used_for_plain_text_and_where_hyphens_were_trimmed() -> None:
    _, plain = normalize_with_map("The token\n   MUST be  rejected.")
    assert plain.original_span(4, 9) == (4, 9) and plain._word_starts()
    _, trimmed = normalize_with_map("- The token -")  # the hyphens at the ends go: the words start 2 later
    assert trimmed.original_span(0, 3) == (2, 5) and trimmed._word_starts()
    assert normalize_with_map("--user -40 rate-")[1].original_span(0, 4) == (2, 6)
    # A list's first bullet goes too; the dash of "- 5 %" is the second one, where the walk placed it on the first,
    # and each lookup was a walk through the text (quadratic over a section's candidates: step1-edges-10).
    _, bullet = normalize_with_map("- a - 5 %")
    assert bullet.original_span(2, 5) == (4, 7) and bullet._word_starts()


QUOTES = st.lists(
    st.sampled_from(
        [*"ab .-`\n\t\r\x0b\x0c\x1c\x1f\x7f", "...", "\u2026", "word", "-40", "A", "\u00e9", " [...] ", "  ", "\u00a0"]
    ),
    max_size=30,
).map("".join)


@PROPERTIES
@given(QUOTES, st.booleans())
def test_the_ascii_shortcuts_count_as_the_long_way(quote: str, casefold: bool) -> None:
    """``quote_length`` and ``short_pieces`` skip normalising an ASCII quote with no hyphen or "..."."""
    from pytest_citecheck._locate.rules import _MARKS

    needle = normalize(quote, casefold=casefold)
    fragments = [trim_cut_hyphens(f) for f in ELISION.split(needle) if trim_cut_hyphens(f)]
    assert quote_length(quote, casefold=casefold) == sum(len(fragment) for fragment in fragments)
    parts = [trim_cut_hyphens(p) for p in ELISION.split(normalize_marked(quote, casefold=casefold, quote=True))]
    parts = [_MARKS.sub("", part) for part in parts if part]
    short = [] if len(parts) < 2 else [part for part in parts if part.count(" ") + 1 < MIN_PIECE_WORDS]
    assert short_pieces(quote, casefold=casefold) == short


def test_a_reviews_file_without_decisions_has_nothing_for_any_citation() -> None:
    from pathlib import Path

    from pytest_citecheck._review.decisions import Lookup, Reviews

    assert Reviews(Path("none.json")).lookup("k", "test_x", "c1") == Lookup()


# A ``Corpus``'s closest passage in a cited document comes from a locator of that document made from
# the corpus's normalised texts (``QuoteLocator(..., part_of=...)``) rather than normalising them
# again: everything it holds and finds must be what a locator of the document alone holds and finds.
DATA = Path(__file__).parent.parent / "data"
DOCUMENTS = ("gfdl-1.3.txt", "apache-2.0.txt", "maint-guide-excerpt.txt", "mpl-2.0.txt", "rfc6749.txt")


def _misquotes(source: Source) -> list[str]:
    """A passage of every few sections with a word changed (no longer there), and one as it is."""
    quotes = []
    for section_id in list(source.order)[::3]:
        words = source.sections[section_id].split()
        if len(words) >= 24:
            quotes.append(" ".join(words[5:20]))
            words[12] = "zebra"
            quotes.append(" ".join(words[5:20]))
    return quotes


@pytest.mark.parametrize("casefold", [False, True])
def test_a_documents_locator_made_from_the_corpus_is_the_documents_own(casefold: bool) -> None:
    documents = {name: Source.from_file(DATA / name) for name in DOCUMENTS}
    # Hyphens broken at a line, inside words and soft, so that the hyphen joins are asked for.
    documents["hyphens"] = Source(
        sections={
            "1": "The author-\nization server MUST re-sign the to\u00adken; a self-\n  contained ﬁle.",
            "2": "",
            "3": "Ein Straße – the ‘quoted’ WORDS … end-\nuser agreement, — see 4.2.",
        }
    )
    finder = CorpusFinder(Corpus(documents))
    checked = 0
    for name, source in documents.items():
        made = QuoteLocator(source, part_of=(finder.locator, finder._first[name]))
        own = QuoteLocator(source)
        index, own_index = made.word_index(casefold), own.word_index(casefold)
        for field in ("ids", "blocks", "section_block", "section_start", "section_end", "block_first_section"):
            assert getattr(index, field) == getattr(own_index, field), (name, field)
        assert index.hyphenated == own_index.hyphenated
        assert (index.word_blocks is None) == (own_index.word_blocks is None)
        if index.word_blocks is not None and own_index.word_blocks is not None:
            assert index.word_blocks.exact_table == own_index.word_blocks.exact_table
        for quote in _misquotes(source) + ["the authorization server MUST resign the token", "end-user agreement"]:
            assert made.closest(quote, casefold=casefold) == own.closest(quote, casefold=casefold), quote
            assert made.find(quote, casefold=casefold) == own.find(quote, casefold=casefold), quote
            checked += 1
    assert checked >= 100


def test_a_corpus_reports_the_closest_passage_of_the_cited_document_unless_one_elsewhere_is_more_alike() -> None:
    documents = {name: Source.from_file(DATA / name) for name in DOCUMENTS}
    finder = CorpusFinder(Corpus(documents))
    every = {
        f"{name}/{section}": source.sections[section] for name, source in documents.items() for section in source.order
    }
    anywhere = QuoteLocator(Source(sections=every))
    kinds = set()
    for cited in documents:
        for quote in _misquotes(documents["apache-2.0.txt"])[1::8]:
            found = finder.closest(quote, document=cited, casefold=False)
            # The long way: the closest passage anywhere, and the cited document's own, each mapped.
            elsewhere = anywhere.closest(quote)
            own = QuoteLocator(documents[cited]).closest(quote)
            assert elsewhere is not None
            if own is None or elsewhere.similarity > own.similarity:
                kinds.add("elsewhere")
                document, section = elsewhere.section.split("/", 1)
                assert found == (document, dataclasses.replace(elsewhere, section=section)), quote
            else:
                kinds.add("cited")
                assert found == (cited, own), quote
    assert kinds == {"elsewhere", "cited"}


def _quote_pieces_the_long_way(quote: str, casefold: bool, literal: bool) -> list[list[Piece]]:
    """``quote_pieces`` as it was before it skipped trimming a quote with no "..." (issue 27)."""
    marked = normalize_marked(quote, casefold=casefold, quote=True)
    parts = [part for part in map(trim_cut_hyphens, split_elisions(marked)) if part]
    if not parts:
        return []
    whole = [piece_of(marked)]
    if literal or parts == [marked]:
        return [whole]
    pieces = [piece_of(part) for part in parts]
    if len(pieces) > 1 and any(piece.words < MIN_PIECE_WORDS for piece in pieces):
        return [whole]
    return [whole, pieces]


@PROPERTIES
@given(st.one_of(QUOTES, TEXTS, st.lists(SPACED, max_size=30).map("".join)), st.booleans(), st.booleans())
def test_a_quote_that_elides_nothing_is_searched_whole_as_the_long_way_does(
    quote: str, casefold: bool, literal: bool
) -> None:
    assert quote_pieces(quote, casefold=casefold, literal=literal) == _quote_pieces_the_long_way(
        quote, casefold, literal
    )
