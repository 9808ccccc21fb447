"""The per-test keywords a call takes (``CheckOptions``) and the choices as types: for type checkers, loaded when named."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, TypedDict

from pytest_citecheck._verdicts import Verdict

# The choices of the choice-valued knobs as types, for the public signatures; as tuples (what the
# parsers accept) in ``parsing``. tests/project/test_typing.py keeps each pair equal.
RecordMode = Literal["none", "once", "new_episodes", "all", "rewrite"]
UnusedPolicy = Literal["warn", "fail", "delete"]
ReviewPolicy = Literal["warn", "fail", "xfail", "skip"]
MisattributedPolicy = Literal["fail", "warn", "ignore"]
OffWord = Literal[False, "none", "off"]
# The verdicts' names, for signatures that take them as text (``fail_on=["fabricated"]``).
VerdictName = Literal["verified", "unsupported", "contradicted", "fabricated"]


class CheckOptions(TypedDict, total=False):
    """The per-test settings a call takes as keyword arguments (and ``@pytest.mark.citecheck`` too).

    ``assert_citations_supported(citations, source, **options: Unpack[CheckOptions])``: a type
    checker reports a misspelt keyword or a value of the wrong type. ``None`` leaves a setting to
    the marker, the command line or the ini file (for ``model`` it means the SDK's default). Each
    key is a per-test ``Option`` of ``table.OPTIONS``, with its meaning; ``tests/project/test_typing.py`` keeps the two in step.
    """

    auto_accept: float | None
    model: str | None
    fail_on: str | Iterable[Verdict | VerdictName] | None
    review: ReviewPolicy | None
    concurrency: int | None
    request_deadline: float | OffWord | None
    max_rpm: int | OffWord | None
    max_tokens_per_second: int | OffWord | None
    screen: bool | None
    fuzzy: float | OffWord | None
    casefold: bool | None
    min_quote_length: int | None
    window: int | OffWord | None
    misattributed: MisattributedPolicy | None
    questions: str | Iterable[str] | None
    min_citations: int | None
    require_cited_sentences: bool | None
