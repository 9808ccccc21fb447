"""Properties of the rule for quotes (issue 24; ``docs/matching.md``) on real documents (Hypothesis).

- A quote that elides a word turning the meaning (a negation, ``n't``, RFC 2119's ``MUST NOT``) is
  never found where that word was: there it is ``altered``.
- A quote with any digit of a number changed, added or dropped is never found where the number was.

The third property, that every quote cut at word boundaries and re-wrapped, re-quoted or
dash-swapped is still found, is ``test_matching_properties.py``'s.
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_citecheck import Source
from pytest_citecheck._locate.locator import QuoteLocator
from pytest_citecheck._locate.rules import NEGATIONS

DATA = Path(__file__).parent.parent / "data"
SECTIONS = {
    f"{name}/{key}": text
    for name in ("rfc6749.txt", "gpl-3.0.txt", "apache-2.0.txt")
    for key, text in Source.from_file(DATA / name).sections.items()
}
SOURCE = Source(sections=SECTIONS)
LOCATOR = QuoteLocator(SOURCE)
WORD = re.compile(r"\S+")
PROPERTIES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _paragraph_words(text: str) -> list[list[re.Match[str]]]:
    return [list(WORD.finditer(text, m.start(), m.end())) for m in re.finditer(r"(?:[^\n]|\n(?![^\S\n]*\n))+", text)]


def _sites(is_site: re.Pattern[str]) -> list[tuple[str, list[re.Match[str]], int]]:
    """(section, a paragraph's words, index of the word) for each word ``is_site`` matches with 3
    words or more on either side in its paragraph."""
    sites = []
    for key, text in SECTIONS.items():
        for words in _paragraph_words(text):
            for index in range(3, len(words) - 3):
                if is_site.fullmatch(words[index].group()):
                    sites.append((key, words, index))
    return sites


NEGATION_SITES = _sites(re.compile("(?i)(?:" + "|".join(sorted(NEGATIONS)) + r"|\w+n't)[,.;:]?"))
NUMBER_SITES = _sites(re.compile(r"\(?\d+(?:[.,]\d+)*\)?[,.;:]?"))
assert len(NEGATION_SITES) > 200 and len(NUMBER_SITES) > 100


def _where(key: str, words: list[re.Match[str]], first: int, last: int) -> tuple[int, int]:
    return words[first].start(), words[last].end()


def _is_at(match, key: str, span: tuple[int, int]) -> bool:
    return match is not None and match.section == key and match.start < span[1] and match.end > span[0]


@PROPERTIES
@given(st.sampled_from(NEGATION_SITES), st.integers(3, 8), st.integers(3, 8))
def test_an_elision_that_removes_a_negation_is_never_found_there(site, before: int, after: int) -> None:
    key, words, index = site
    first, last = max(0, index - before), min(len(words) - 1, index + after)
    text = SECTIONS[key]
    quote = (
        text[words[first].start() : words[index - 1].end()]
        + " \u2026 "
        + text[words[index + 1].start() : words[last].end()]
    )
    match = LOCATOR.find(quote)
    if _is_at(match, key, _where(key, words, first, last)):
        assert match.turning_words, (key, quote, match)


def _mutations(number: str) -> st.SearchStrategy[str]:
    digits = [at for at, ch in enumerate(number) if ch.isdigit()]
    changed = (
        st.tuples(st.sampled_from(digits), st.sampled_from("0123456789"))
        .filter(lambda pair: number[pair[0]] != pair[1])
        .map(lambda pair: number[: pair[0]] + pair[1] + number[pair[0] + 1 :])
    )
    added = st.tuples(st.sampled_from([*digits, digits[-1] + 1]), st.sampled_from("0123456789")).map(
        lambda pair: number[: pair[0]] + pair[1] + number[pair[0] :]
    )
    strategies = [changed, added]
    if len(digits) > 1:
        strategies.append(st.sampled_from(digits).map(lambda at: number[:at] + number[at + 1 :]))
    return st.one_of(strategies)


@PROPERTIES
@given(st.sampled_from(NUMBER_SITES), st.integers(3, 8), st.integers(3, 8), st.data())
def test_a_number_with_a_digit_changed_added_or_dropped_is_never_found_there(site, before, after, data) -> None:
    key, words, index = site
    first, last = max(0, index - before), min(len(words) - 1, index + after)
    text = SECTIONS[key]
    number = words[index].group()
    mutated = data.draw(_mutations(number), label="mutated")
    quote = text[words[first].start() : words[index].start()] + mutated + text[words[index].end() : words[last].end()]
    match = LOCATOR.find(quote)
    assert not _is_at(match, key, _where(key, words, first, last)), (key, number, mutated, quote)


def test_the_sites_are_found_as_they_are() -> None:
    # The properties' quotes, unchanged, are found where they were cut (what the properties rule out is the change).
    for key, words, index in NEGATION_SITES[::25] + NUMBER_SITES[::25]:
        first, last = index - 3, index + 3
        quote = SECTIONS[key][words[first].start() : words[last].end()]
        match = LOCATOR.find(quote, prefer_section=key)
        assert match is not None and match.section == key, (key, quote)
