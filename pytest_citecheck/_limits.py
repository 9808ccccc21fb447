"""Jev's request limits, and the token estimate checked against them before a request is sent.

Jev accepts 64k tokens per request, of which at most 32k may be state plus the longest question.
A section too large for that would come back as an HTTP 422 after a round trip (or, worse, be
recorded as one); checking first lets the failure name the citation and the section, and point at
the ``window`` option. The estimate is deliberately pessimistic: one token per three UTF-8 bytes,
which over-counts the cookbook's recorded usage (about one token per four characters of English)
by a quarter, plus a fixed allowance for the question and the request's framing.
"""

from __future__ import annotations

import math

REQUEST_TOKEN_LIMIT = 64_000
STATE_AND_QUESTION_TOKEN_LIMIT = 32_000
BYTES_PER_TOKEN = 3
# The relation question (instructions and three criteria) and the request's framing: the cookbook's
# smallest request (a 357-character claim and section) used 434 input tokens in all.
QUESTION_ALLOWANCE = 400


def estimate_tokens(text: str) -> int:
    """A pessimistic token count for ``text``."""
    return math.ceil(len(text.encode("utf-8")) / BYTES_PER_TOKEN)


def request_tokens(claim: str, section_text: str) -> int:
    """The estimated tokens of state plus question for one citation's request."""
    return estimate_tokens(claim) + estimate_tokens(section_text) + QUESTION_ALLOWANCE


# No text of this many characters or fewer can be over either limit, whatever its characters (each is
# at most 4 bytes of UTF-8): ``fits`` need not encode it to know.
SURELY_FITS_CHARACTERS = (
    (min(STATE_AND_QUESTION_TOKEN_LIMIT, REQUEST_TOKEN_LIMIT) - QUESTION_ALLOWANCE) * BYTES_PER_TOKEN // 4
)


def fits(claim: str, section_text: str) -> bool:
    """Whether one citation's request stays within both of Jev's limits."""
    tokens = request_tokens(claim, section_text)
    return tokens <= STATE_AND_QUESTION_TOKEN_LIMIT and tokens <= REQUEST_TOKEN_LIMIT


def max_section_characters(claim: str) -> int:
    """Roughly how many ASCII characters of section fit beside ``claim`` (for the error message)."""
    room = STATE_AND_QUESTION_TOKEN_LIMIT - QUESTION_ALLOWANCE - estimate_tokens(claim)
    return max(0, room * BYTES_PER_TOKEN)
