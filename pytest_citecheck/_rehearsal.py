"""The mark of the rehearsal server's answers: what ``testing.JevServer`` (and ``citecheck serve``) adds to each, and how an answer is read for it.

The rehearsal server answers from a script or a table someone wrote, not from Jev. Its answers are
the SDK's wire schema plus one top-level field, ``"rehearsal"``: the SDK reads past it (its response
models ignore unknown fields), the cassette keeps it in the response body, and that body is what
the interaction's digest covers, so the mark cannot be taken out of a cassette by hand without the
file being refused. A marked answer is refused by the check (``_judge.request``) unless the run
opts in with option ``rehearsal``: a cassette recorded against the rehearsal server by mistake
never replays as Jev's verdict.
"""

from __future__ import annotations

import json
from typing import Any

REHEARSAL_KEY = "rehearsal"
REHEARSAL_MARK = "pytest-citecheck JevServer: answers from a table, not Jev"
# The key as every writer of these bodies spells it (the server's ``json.dumps``, the cassette's
# canonical JSON): a body without these bytes holds no mark, and is not parsed again.
_NEEDLE = b'"' + REHEARSAL_KEY.encode() + b'"'

REHEARSAL_CAUSE = (
    "this answer came from the rehearsal server (pytest-citecheck's JevServer or `citecheck serve`, which answers "
    "from a script or a table someone wrote), not from TypeSafe's Jev: its response carries the field "
    f"{REHEARSAL_KEY!r}"
)
REHEARSAL_REMEDY = (
    "record this test against TypeSafe (unset TYPESAFE_BASE_URL, set TYPESAFE_API_KEY and run with "
    "--citecheck-record-mode=rewrite); or, for a rehearsal that is meant to use these answers, opt in with "
    "--citecheck-rehearsal (ini: citecheck_rehearsal = true)"
)

# A script's checker (``Checker(...)``, no cassette) opts in by its constructor's keyword.
SCRIPT_REHEARSAL_REMEDY = (
    "point the script's client at TypeSafe (unset TYPESAFE_BASE_URL and set TYPESAFE_API_KEY, or pass a client "
    "built for TypeSafe); or, for a rehearsal that is meant to use these answers, build the checker with "
    "Checker(..., rehearsal=True)"
)


def marked(body: Any) -> dict[str, Any]:
    """``body`` (an answer about to be sent) with the rehearsal mark, when it is a JSON object; else as given."""
    if isinstance(body, dict) and REHEARSAL_KEY not in body:
        return {**body, REHEARSAL_KEY: REHEARSAL_MARK}
    return body  # type: ignore[no-any-return]


def is_marked(content: bytes) -> bool:
    """Whether an answer's body carries the rehearsal mark at its top level (whatever its value).

    Read from the bytes the SDK already holds: most bodies are ruled out by two substring searches,
    and only a body that names the key is parsed (a marked one, or a model's text that quotes it), or
    one with a ``\\u`` escape, which could spell the key (``"\\u0072ehearsal"`` is the same key).
    """
    if _NEEDLE not in content and b"\\u" not in content:
        return False
    try:
        body = json.loads(content)
    except (ValueError, RecursionError):
        return False
    return isinstance(body, dict) and REHEARSAL_KEY in body


# The extension of an httpx2 response replayed from a cassette that says whether its body is marked:
# reading the file parsed every answer, so replay tells the check rather than have it parse the body
# again (for a marked answer, some 6% of what replay adds per citation over answers from a dict).
MARK_EXTENSION = "citecheck_rehearsal"


def response_is_marked(response: Any) -> bool:
    """``is_marked`` for an SDK response, read from the HTTP response it was made of (none: unmarked), or
    from its ``MARK_EXTENSION`` when replay built that response from a cassette's parsed answer."""
    try:
        raw = response.raw_http_response
        extensions = getattr(raw, "extensions", None)  # a stand-in without them is read from its body
        known = extensions.get(MARK_EXTENSION) if isinstance(extensions, dict) else None
        content = raw.content if known is None else None
    except Exception:  # not made from an HTTP response (a test's own stand-in), or its body was not read
        return False
    if known is not None:
        return known is True
    return isinstance(content, bytes) and is_marked(content)
