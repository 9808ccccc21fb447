"""A long quote's closest passage (hostile-inputs-3): aligned with windows of its own length past ``LONG_QUOTE``.

rapidfuzz's partial ratio also tries every shorter window at a passage's two ends, cubic in the quote's length: a
fabricated quote of 3,000 characters took 1.5 s to get its closest passage, one of 11,000 34 s, one of 100,000 did not
end. How the cost grows is ``bench``'s row (a ratio measured in one run); these tests hold what the answers are.
"""

from __future__ import annotations

import random

from support import DATA, assert_quotes_fabricated

from pytest_citecheck import Source, Status, Verdict
from pytest_citecheck._locate.locator import LONG_QUOTE, QuoteLocator

APACHE = (DATA / "apache-2.0.txt").read_text()
WORDS = APACHE.split()


def _quote(first: int, words: int) -> list[str]:
    return WORDS[first : first + words]


def test_a_long_near_quote_is_found_approximately_at_its_place() -> None:
    words = _quote(200, 340)  # some 2,000 characters, past LONG_QUOTE
    changed = [("sic" if index % 60 == 30 else word) for index, word in enumerate(words)]
    quote = " ".join(changed)
    assert len(quote) > LONG_QUOTE
    locator = QuoteLocator(Source(sections={"licence": APACHE}))
    assert locator.find(quote) is None
    match = locator.find_approx(quote, 0.9)
    assert match is not None and match.similarity >= 0.97
    passage = APACHE[match.start : match.end]
    # From its first word to within a few of its last (a window of the quote's length: "sic" is shorter than the words
    # it stands for, as rapidfuzz's own alignment was).
    assert passage.split()[:3] == words[:3] and passage.split()[-1] in words[-5:]
    # Words dropped at its start, or added there: the same passage, a little less alike.
    for variant in (words[12:], ["Notably", "the", "following", "holds:", *words]):
        near = locator.find_approx(" ".join(variant), 0.9)
        assert near is not None and near.similarity >= 0.95
        overlap = min(near.end, match.end) - max(near.start, match.start)
        assert overlap >= 0.95 * (match.end - match.start)


def test_a_long_near_quote_that_drops_a_not_is_fabricated(pytester, jev_server) -> None:
    at = next(index for index, word in enumerate(WORDS) if word == "not" and index > 250)
    words = WORDS[at - 170 : at + 170]
    dropped = " ".join(word for index, word in enumerate(words) if index != 170)
    assert len(dropped) > LONG_QUOTE
    assert_quotes_fabricated(pytester, jev_server, {"licence": APACHE}, [("drops-not", "licence", dropped)], fuzzy=0.9)


def test_a_long_fabricated_quote_is_fabricated_with_its_closest_passage(direct_checker) -> None:
    shuffled = list(WORDS)
    random.Random(3).shuffle(shuffled)
    quote = " ".join(shuffled)[:9_000]
    source = Source(sections={"licence": APACHE})
    [result] = direct_checker().check([{"id": "c", "claim": "X", "quote": quote, "section": "licence"}], source)
    assert result.status is Status.MISSING and result.verdict is Verdict.FABRICATED
    closest = result.closest
    assert closest is not None and closest.similarity < 0.9
    assert APACHE[closest.start : closest.end] == closest.text
