"""Jev's request limits: they live on the ground floor (``pytest_citecheck._limits``), where a ``Source``
can read them to say at load which sections are too large; step 2 uses them from here."""

from pytest_citecheck._limits import (
    BYTES_PER_TOKEN,
    QUESTION_ALLOWANCE,
    REQUEST_TOKEN_LIMIT,
    STATE_AND_QUESTION_TOKEN_LIMIT,
    estimate_tokens,
    fits,
    max_section_characters,
    request_tokens,
)

__all__ = [
    "BYTES_PER_TOKEN",
    "QUESTION_ALLOWANCE",
    "REQUEST_TOKEN_LIMIT",
    "STATE_AND_QUESTION_TOKEN_LIMIT",
    "estimate_tokens",
    "fits",
    "max_section_characters",
    "request_tokens",
]
