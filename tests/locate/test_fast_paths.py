"""Step 1's shortcuts give what the long way gives (issue 27: replay's cost per citation).

``split_elisions`` skips the elision expression for a text with no "...": the pieces must be
``ELISION.split``'s, whatever the text (brackets, ellipses folded or not, whitespace of every kind).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_citecheck._locate.normalize import ELISION, normalize_marked, split_elisions
from pytest_citecheck._locate.rules import quote_pieces, short_pieces

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
