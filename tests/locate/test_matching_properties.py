"""Properties of step 1 on real documents (Hypothesis).

Any passage cut from a section at word boundaries, then perturbed the way LLMs and copy-paste
perturb quotes (whitespace and line breaks, curly quotes, ligatures, a word hyphenated across a
line, invisible characters), is found, in that section or an earlier one with the same text, with
offsets whose text normalises to the passage's. A passage that is not in the document is never
found. RFC 6749 is large enough (about 150,000 characters) that lookups go through the block index.

The contract of ``docs/matching.md`` on a corpus with non-ASCII text (the bench's generated
documents: curly quotes, dashes, ligatures, non-breaking spaces, soft hyphens, seven scripts, RFC
lines broken at hyphens): *any* substring of a section, cut at any character, re-wrapped, its
spaces changed, its quotes curled and its dashes swapped, is found in the section it came from, so long
as the cut is not inside a number (a quote that cuts a number short is another number).
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bench.corpus import build_corpus
from pytest_citecheck import Source
from pytest_citecheck._locate.locator import QuoteLocator
from pytest_citecheck._locate.normalize import DASHES, normalize
from pytest_citecheck._locate.number_edges import SIGNS, UNITS
from pytest_citecheck._locate.rules import turns_a_word

DATA = Path(__file__).parent.parent / "data"
SOURCE = Source.from_text((DATA / "rfc6749.txt").read_text(), format="rfc")
LOCATOR = QuoteLocator(SOURCE)
assert LOCATOR.word_index().word_blocks is not None, "the property tests must exercise the block index"
SECTION_IDS = [key for key in SOURCE.order if len(SOURCE.sections[key].split()) >= 12]
WORD = re.compile(r"\S+")
PROPERTIES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def passages(draw: st.DrawFn) -> tuple[str, str]:
    """(section id, passage): 6 to 40 whole words of one section, cut from its original text."""
    section_id = draw(st.sampled_from(SECTION_IDS))
    words = list(WORD.finditer(SOURCE.sections[section_id]))
    length = draw(st.integers(min_value=6, max_value=min(40, len(words))))
    first = draw(st.integers(min_value=0, max_value=len(words) - length))
    last = first + length - 1
    # A cut right after "case-" (a compound broken at its hyphen) is not a quote anyone makes.
    if words[last].group().endswith("-"):
        last -= 1
    return section_id, SOURCE.sections[section_id][words[first].start() : words[last].end()]


def perturb(passage: str, data: st.DataObject) -> str:
    """The passage as an LLM (or a copy from a PDF or a web page) might hand it back."""
    tokens = passage.split()
    spaces = st.sampled_from([" ", "  ", "\n", "\n   ", "\t", "\u00a0", " \u200b"])
    out = []
    for index, token in enumerate(tokens):
        if data.draw(st.booleans(), label="curly quotes"):
            token = re.sub(r'"(\w)', "\u201c\\1", token)
            token = re.sub(r'(\w)"', "\\1\u201d", token)
            token = token.replace("'", "\u2019")
        if "fi" in token and data.draw(st.booleans(), label="ligature"):
            token = token.replace("fi", "\ufb01")
        if len(token) >= 8 and token.isalpha() and data.draw(st.booleans(), label="hyphenate"):
            cut = data.draw(st.integers(min_value=3, max_value=len(token) - 3), label="cut")
            token = token[:cut] + data.draw(st.sampled_from(["-\n", "-\n    ", "\u00ad"]), label="break") + token[cut:]
        out.append(token)
        if index < len(tokens) - 1:
            out.append(data.draw(spaces, label="space"))
    return "".join(out)


@PROPERTIES
@given(passages(), st.data())
def test_a_perturbed_passage_is_found_with_offsets_that_map_back(cut: tuple[str, str], data: st.DataObject) -> None:
    section_id, passage = cut
    quote = perturb(passage, data)
    match = LOCATOR.find(quote)
    assert match is not None, (section_id, quote)
    assert SOURCE.order.index(match.section) <= SOURCE.order.index(section_id)
    found = SOURCE.sections[match.section][match.start : match.end]
    assert normalize(found) == normalize(passage)
    if match.section == section_id:
        assert normalize(passage) in normalize(SOURCE.sections[section_id])


@PROPERTIES
@given(passages(), st.data())
def test_a_passage_that_is_not_in_the_document_is_never_found(cut: tuple[str, str], data: st.DataObject) -> None:
    _, passage = cut
    words = passage.split()
    position = data.draw(st.integers(min_value=0, max_value=len(words) - 1), label="word to replace")
    invented = data.draw(st.from_regex(r"[a-z]{3,10}", fullmatch=True), label="invented word")
    words[position] = invented
    quote = " ".join(words)
    needle = normalize(quote)
    if any(needle in normalize(text) for text in SOURCE.sections.values()):
        return  # the invented word happens to make real text: not a case for this property
    assert LOCATOR.find(quote) is None


# Combining marks (Mn, Mc, Me) and spacing accents (Sk, which NFKC turns into a space and a mark)
# are left out: a mark cut off from its letter by a soft hyphen ("U\u00ad\u00a8") composes with it
# on a second pass. docs/matching.md states this limit; real quotes do not detach accents.
@PROPERTIES
@given(
    st.text(
        alphabet=st.characters(codec="utf-8", exclude_categories=["Cs", "Mn", "Mc", "Me", "Sk"]),
        min_size=1,
        max_size=80,
    )
)
def test_normalising_twice_changes_nothing(text: str) -> None:
    once = normalize(text)
    assert normalize(once) == once


def test_a_grave_accent_folds_to_an_apostrophe_wherever_it_stands() -> None:
    # Found by the property above: the ASCII "`" folded only next to non-ASCII text.
    assert normalize("`\u00ad\u00bf") == normalize(normalize("`\u00ad\u00bf")) == "'\u00bf"
    assert normalize("a `b` c") == "a 'b' c"


# --- any substring of a corpus with non-ASCII text ------------------------------------------------

MIXED = Source(sections=build_corpus(400_000, seed=21).sections)
MIXED_LOCATOR = QuoteLocator(MIXED)
assert MIXED_LOCATOR.word_index().word_blocks is not None
MIXED_IDS = list(MIXED.order)
# The corpus is what the property is about: non-ASCII sections, and lines broken at hyphens.
assert sum(not MIXED.sections[key].isascii() for key in MIXED_IDS) >= len(MIXED_IDS) // 3
assert any(re.search(r"[a-z]-\n", MIXED.sections[key]) for key in MIXED_IDS)
SWAPPABLE_DASHES = ["-", *DASHES[:8]]
CURLED = {'"': ["\u201c", "\u201d", '"'], "'": ["\u2018", "\u2019", "'"]}
STRAIGHTENED = {"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"}


@st.composite
def substrings(draw: st.DrawFn) -> tuple[str, str]:
    """(section id, substring): cut at any two characters of a section (not inside an accent's sequence)."""
    section_id = draw(st.sampled_from(MIXED_IDS))
    text = MIXED.sections[section_id]
    start = draw(st.integers(min_value=0, max_value=len(text) - 1))
    end = draw(st.integers(min_value=start + 1, max_value=min(len(text), start + 600)))
    if sum(ch.isalnum() for ch in text[start:end]) < 10:
        # Something to find: a cut of punctuation and spaces alone normalises to (almost) nothing.
        end = min(len(text), start + 600)
    start, end = outside_numbers(text, start, end)
    return section_id, text[start:end]


NUMBER_CHARACTERS = set(".,+-/:\u2044" + DASHES + SIGNS + UNITS)


def outside_numbers(text: str, start: int, end: int) -> tuple[int, int]:
    """The cut widened so that it neither starts nor ends inside a number (its digits, separators, sign
    and the cased letters written with it, "32k", "x86"): a quote that does is another number
    (docs/matching.md, "Numbers")."""

    def inside(at: int) -> bool:
        if at <= 0 or at >= len(text):
            return False
        before, after = text[at - 1], text[at]
        return (before.isdigit() or after.isdigit()) and all(
            ch.isdigit() or ch in NUMBER_CHARACTERS or (ch.isalpha() and ch.lower() != ch.upper())
            for ch in (before, after)
        )

    while inside(start):
        start -= 1
    while inside(end):
        end += 1
    return start, end


def occurrences(text: str, needle: str) -> list[int]:
    found, at = [], text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def turned_at_an_edge(text: str, at: int, needle: str) -> bool:
    return turns_a_word(text, at, start=True) or turns_a_word(text, at + len(needle), start=False)


def rewrite(cut: str, data: st.DataObject) -> str:
    """The cut as an LLM hands it back: re-wrapped, spaces changed, quotes curled, dashes swapped."""
    out = []
    for index, ch in enumerate(cut):
        if ch.isspace():
            out.append(data.draw(st.sampled_from([" ", "  ", "\n", "\n   ", "\t", "\u00a0", "\r\n", "\u2009"])))
        elif ch in CURLED:
            out.append(data.draw(st.sampled_from(CURLED[ch])))
        elif ch in STRAIGHTENED and data.draw(st.booleans()):
            out.append(STRAIGHTENED[ch])
        elif ch == "-" or ch in DASHES:
            dash = data.draw(st.sampled_from(SWAPPABLE_DASHES))
            # Re-wrapped at a hyphen attached to the text before it, as a word processor breaks a compound.
            attached = index == 0 or not cut[index - 1].isspace()
            wrap = attached and index + 1 < len(cut) and not cut[index + 1].isspace() and data.draw(st.booleans())
            out.append(dash + ("\n   " if wrap else ""))
        else:
            out.append(ch)
    return "".join(out)


@PROPERTIES
@given(substrings(), st.data())
def test_any_substring_of_a_section_rewritten_is_found_in_that_section(
    cut: tuple[str, str], data: st.DataObject
) -> None:
    section_id, passage = cut
    quote = rewrite(passage, data)
    normalized, section = normalize(quote), MIXED_LOCATOR.normalized_text(section_id)
    assert normalized in section, (section_id, passage, quote)
    # A cut that turns a word at an edge ("annot be" of "cannot be", "not" of "notify") reads another
    # word: not a quote of the section (docs/matching.md, "Words"), so not one this property is about.
    assume(not all(turned_at_an_edge(section, at, normalized) for at in occurrences(section, normalized)))
    match = MIXED_LOCATOR.find(quote, prefer_section=section_id)
    assert match is not None and match.section == section_id, (section_id, passage, quote)
    found = MIXED.sections[section_id][match.start : match.end]
    assert normalize(found) == normalize(quote), (passage, quote, found)
    # Without the hint, the first section holding it (this one, or an earlier one with the same text).
    first = MIXED_LOCATOR.find(quote)
    assert first is not None and MIXED_IDS.index(first.section) <= MIXED_IDS.index(section_id)
