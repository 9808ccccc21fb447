"""The statuses of step 1: what the string match found for a citation's quote.

Apart from ``_verdicts`` so that a pytest run that checks no citation does not build this enum
(``_options`` names verdicts in every run, never statuses); ``_results`` re-exports it.
"""

from __future__ import annotations

from pytest_citecheck._verdicts import _Named


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
