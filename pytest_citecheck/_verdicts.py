"""The verdicts of the cookbook and the statuses of step 1, and Jev's labels for each verdict.

Kept apart from ``_results`` (which re-exports them) so that ``_options``, loaded by every pytest
run that has the plugin installed, can name verdicts without loading the result classes.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal


class _Named(str, Enum):
    """An enum whose members print as their value (``str(Verdict.VERIFIED) == "verified"``)."""

    def __str__(self) -> str:
        return str(self.value)


class Status(_Named):
    """Step 1: what the string match found."""

    FOUND = "found"
    # Found only with ``fuzzy`` tolerance: judged like a found quote, listed as approximate.
    FOUND_APPROX = "found-approx"
    # Found, but not in the section (or document) the citation names: a misattributed citation.
    # Jev judges where the quote is; the ``misattributed`` option decides what it does to the test.
    FOUND_ELSEWHERE = "found-elsewhere"
    MISSING = "missing"
    # Found only by an elision that removes a word turning the meaning ("must ... share" for "must not
    # share"): the quote says what the source does not. Fails like a fabricated quote; nothing is sent.
    ALTERED = "altered"
    SECTION_ONLY = "section-only"
    # A claim-only citation that names a document and no section: judged against the whole document.
    DOCUMENT_ONLY = "document-only"
    # A citation that cannot be checked as given (a bad field): never judged; it fails its test with
    # the ``CitationInputError`` that names the field, after the other citations are checked.
    INVALID = "invalid"


class Verdict(_Named):
    """The four verdicts of the cookbook."""

    VERIFIED = "verified"
    UNSUPPORTED = "unsupported"
    CONTRADICTED = "contradicted"
    FABRICATED = "fabricated"


# The verdicts' names, for signatures that take them as text (``fail_on=["fabricated"]``).
VerdictName = Literal["verified", "unsupported", "contradicted", "fabricated"]

# Jev's label for how the section relates to the claim -> the verdict it means.
RELATION_TO_VERDICT = {
    "supports": Verdict.VERIFIED,
    "contradicts": Verdict.CONTRADICTED,
    "says_nothing": Verdict.UNSUPPORTED,
}
