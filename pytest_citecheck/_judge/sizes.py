"""Before anything is sent: does each located citation's text fit one Jev request?

Step 1 (``_locate.citations``) says what each citation would have Jev read; this checks it against
Jev's request limits (``limits``) and fails with the citation, the size and the remedy (a window,
a smaller section, a shorter claim) rather than with an HTTP 422 after a round trip.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_citecheck._citations.model import Citation
from pytest_citecheck._errors import CitationInputError, docs_url
from pytest_citecheck._judge.limits import (
    BYTES_PER_TOKEN,
    QUESTION_ALLOWANCE,
    REQUEST_TOKEN_LIMIT,
    STATE_AND_QUESTION_TOKEN_LIMIT,
    estimate_tokens,
    fits,
    max_section_characters,
    request_tokens,
)
from pytest_citecheck._locate.citations import Assembly, Located, Unfound, source_of
from pytest_citecheck._locate.finders import Documents
from pytest_citecheck._sources.source import Source


def check_sizes(
    citations: Sequence[Citation], located: Sequence[Located | Assembly | Unfound], documents: Documents
) -> None:
    """Fail before sending, for the first citation whose text to judge is too large for one Jev request."""
    for citation, item in zip(citations, located):
        if isinstance(item, Located):
            if item.section is None:
                check_document_size(citation, documents, item)
            else:
                check_size(citation, documents, item)
        elif isinstance(item, Assembly):
            check_assembly_size(citation, source_of(documents, item.document), item)


# Below this many characters of section beside the claim, no window or split would leave Jev enough to judge.
SMALLEST_USEFUL_SECTION = 500


# No claim and text of this many characters in all can be over either limit, whatever their characters
# (each at most 4 bytes of UTF-8; each of the two rounded up to a whole token): no need to encode them to know.
_SURELY_FIT_CHARACTERS = (
    (min(STATE_AND_QUESTION_TOKEN_LIMIT, REQUEST_TOKEN_LIMIT) - QUESTION_ALLOWANCE - 2) * BYTES_PER_TOKEN // 4
)


def _size_problem(claim: str, text: str, allowed: str = "allowed") -> str | None:
    """None when the claim and ``text`` fit one Jev request; else by how much not, in the words every size error uses."""
    if len(claim) + len(text) <= _SURELY_FIT_CHARACTERS or fits(claim, text):
        return None
    return (
        f"about {request_tokens(claim, text):,} tokens with the claim and question, over the "
        f"{STATE_AND_QUESTION_TOKEN_LIMIT:,} {allowed} for state plus question"
    )


def check_size(citation: Citation, source: Documents, located: Located) -> None:
    """Fail before sending when the text to judge is too large for one Jev request."""
    problem = _size_problem(citation.claim, located.judged_text(source))
    if problem is None:
        return
    room = max_section_characters(citation.claim)
    if room < max(len(citation.quote or ""), SMALLEST_USEFUL_SECTION):
        # No window and no smaller section can help: the claim itself leaves no room to judge anything.
        raise CitationInputError(
            f"the claim is {len(citation.claim):,} characters (about {estimate_tokens(citation.claim):,} tokens), too "
            f"large for one Jev request: state plus question may hold {STATE_AND_QUESTION_TOKEN_LIMIT:,} tokens, and "
            f"this claim leaves room for {room:,} characters of section; shorten the claim to the sentence or two "
            "the quote supports (did the app pass its whole answer as the claim?)",
            citation=citation.id,
            field="claim",
        )
    if located.window is not None:
        remedy = "use a smaller window"
    elif citation.quote is not None:
        remedy = f"set window=N (at most about {room:,} characters) to judge the text around the quote"
    else:
        remedy = "split the document into smaller sections, or quote the passage so a window around it can be judged"
    raise CitationInputError(
        f"section {located.section!r} is too large for one Jev request: {problem}; {remedy}",
        citation=citation.id,
        field="section",
    )


def check_document_size(citation: Citation, documents: Documents, located: Located) -> None:
    """A claim-only citation of a whole document: fail before sending when the document does not fit one request."""
    problem = _size_problem(citation.claim, located.judged_text(documents), allowed="Jev allows")
    if problem is None:
        return
    raise CitationInputError(
        f"document {located.document!r} is too large to judge whole: {problem} (of {REQUEST_TOKEN_LIMIT:,} per "
        "request); cite a section of it, or quote the passage the claim rests on",
        citation=citation.id,
        field="document",
    )


def check_assembly_size(citation: Citation, source: Source, assembly: Assembly) -> None:
    """Fail before sending when the assembled sections are too large for one Jev request, naming each one's size."""
    problem = _size_problem(citation.claim, assembly.text)
    if problem is None:
        return
    sizes = ", ".join(
        f"{section} ({len(source.sections[section]):,} characters, about "
        f"{estimate_tokens(source.sections[section]):,} tokens)"
        for section in assembly.sections
    )
    raise CitationInputError(
        f"sections {assembly.section} are too large to judge together: {problem}; the sections: {sizes}. Split the "
        "check: one citation per section, each with the part of the claim that section settles "
        "(see " + docs_url("usage", "claims-that-need-several-sections") + ")",
        citation=citation.id,
        field="section",
    )
