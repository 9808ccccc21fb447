"""One bad citation never hides the others (issue 23, item 5), and no citation that errored is left out.

A citation that cannot be checked as given (a bad field: read when it is adapted, or found by step 1,
such as a section the source lacks) becomes a result with status ``invalid``. The others are located
and judged as usual; then the check raises the first invalid citation's ``CitationInputError``, which
names the citation, the field and the remedy, so the test fails on it.

Such a result, and the result of a citation whose step 2 raised (a cassette miss, an API error, a
malformed answer, a time-out) or never ran because an earlier one raised, has verdict ``errored`` and
carries its cause (``errored_result``): the reports list it as errored, never leave it out (a report
that listed only the others would read as all verified).
"""

from __future__ import annotations

from collections.abc import Mapping

from pytest_citecheck._citations.model import Citation
from pytest_citecheck._errors import CitationInputError
from pytest_citecheck._gate import fabricated_result
from pytest_citecheck._judge.sizes import check_sizes
from pytest_citecheck._locate.citations import Assembly, Located, Unfound, locate_all
from pytest_citecheck._locate.finders import Documents
from pytest_citecheck._options import Settings
from pytest_citecheck._results import CitationResult, Status, Verdict
from pytest_citecheck._secrets import redact_known

Step1 = CitationResult | Located | Assembly


def locate_valid(
    citations: list[Citation], invalid: Mapping[str, CitationInputError], documents: Documents, settings: Settings
) -> tuple[list[Step1], CitationInputError | None]:
    """Step 1 for every citation, in order, with an ``invalid`` result for each bad one; and the first error."""
    errors = dict(invalid)
    valid = [citation for citation in citations if citation.id not in errors] if errors else citations
    found = _locate(valid, documents, settings, errors)
    if not errors:  # every citation was read and located: step 1's results are the check's, in order
        return found, None
    each = iter(found)
    located: list[Step1] = []
    for citation in citations:
        error = errors.get(citation.id)
        located.append(invalid_result(citation, error) if error is not None else next(each))
    first = next((errors[citation.id] for citation in citations if citation.id in errors), None)
    return located, first


def _locate(
    citations: list[Citation], documents: Documents, settings: Settings, errors: dict[str, CitationInputError]
) -> list[Step1]:
    """Step 1 for all at once; when one is bad, one at a time, adding each bad one to ``errors``."""
    try:
        return _step1(citations, documents, settings)
    except CitationInputError:
        pass
    located: list[Step1] = []
    for citation in citations:
        try:
            located.extend(_step1([citation], documents, settings))
        except CitationInputError as error:
            errors[citation.id] = error
    return located


def _step1(citations: list[Citation], documents: Documents, settings: Settings) -> list[Step1]:
    """Step 1 and the size limits; a quote not found is a fabricated result."""
    located = locate_all(citations, documents, settings)
    check_sizes(citations, located, documents)
    return [fabricated_result(item, settings.auto_accept) if isinstance(item, Unfound) else item for item in located]


def invalid_result(citation: Citation, error: BaseException) -> CitationResult:
    """The result of a citation that could not be checked as given: never judged, verdict ``errored``."""
    return errored_result(citation, None, error)


def errored_result(
    citation: Citation, located: Located | Assembly | None, error: BaseException, *, stopped_at: str | None = None
) -> CitationResult:
    """The result of a citation whose check raised ``error`` (status ``invalid`` when step 1 had not
    placed it, else step 1's); ``stopped_at``: the citation whose error ended the check before this one
    was asked. Never judged: no confidence, and nothing for a human to review (``auto``)."""
    cause = (
        f"not checked: the check stopped at citation {stopped_at!r}, whose check raised first"
        if stopped_at is not None
        else str(error)
    )
    return CitationResult(
        id=citation.id,
        claim=citation.claim,
        quote=citation.quote,
        status=Status.INVALID if located is None else located.status,
        section=citation.section if located is None else located.section,
        verdict=Verdict.ERRORED,
        confidence=None,
        auto=True,
        document=citation.document if located is None else located.document,
        cited_section=citation.section,
        cited_document=citation.document,
        # The message of an API error may carry what the server echoed: known secrets are cut out here,
        # not only when a report is written, since a row also becomes a JUnit property.
        error=(type(error).__name__, redact_known(cause)),
    )
