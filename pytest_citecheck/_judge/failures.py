"""What went wrong while asking Jev, in words: every exception becomes a ``JudgeError`` for one citation.

A cassette miss, a response that could not be decoded, a network failure, and each of the SDK's
error classes has its cause and remedy in one table (``_SDK_FAILURES``): the check fails closed with a
message that says what to do next. typesafe_sdk and httpx2 are imported only when an error is explained.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pytest_citecheck._errors import CassetteMissError, JudgeError
from pytest_citecheck._judge import endpoint
from pytest_citecheck._judge.pacing import LimiterStateError

CHECK_NETWORK = (
    "check TYPESAFE_BASE_URL and the network; to check without network, replay cassettes (--citecheck-record-mode=none)"
)
RAISE_TIMEOUT = "retry later, or raise the client's timeout"

# The SDK's error classes, most specific first (a subclass before its base), each with its cause and
# remedy. Read by ``_sdk_failure``; an error of none of them is the client's own failure.
_Words = Callable[[BaseException], str]
_SDK_FAILURES: tuple[tuple[str, _Words, _Words], ...] = (
    (
        "TypeSafeAuthenticationError",
        lambda e: endpoint.refused_userinfo()[0] or "TypeSafe rejected the API key (HTTP 401)",
        lambda e: (
            endpoint.refused_userinfo()[1] or "set TYPESAFE_API_KEY to a valid key, or replay the committed cassette"
        ),
    ),
    (
        "TypeSafePermissionDeniedError",
        lambda e: "TypeSafe refused access (HTTP 403)",
        lambda e: "check that the key may use this model and endpoint",
    ),
    (
        "TypeSafeUnprocessableEntityError",
        lambda e: f"TypeSafe rejected the request as invalid (HTTP 422: {_detail(e)})",
        lambda e: _unprocessable_remedy(e),
    ),
    (
        # The SDK posts to one fixed endpoint under the base URL, so a 404 means nothing answers it at
        # that address: a wrong TYPESAFE_BASE_URL (its path or host), not something TypeSafe documents.
        "TypeSafeNotFoundError",
        lambda e: "TYPESAFE_BASE_URL answered HTTP 404 (not found): nothing answers Jev's endpoint at that address",
        lambda e: (
            "set TYPESAFE_BASE_URL to the address the API answers at, with no extra path (TypeSafe's is "
            "https://api.typesafe.ai; the client adds the endpoint's path itself), or unset it"
        ),
    ),
    (
        "TypeSafeRateLimitError",
        lambda e: "TypeSafe kept rate-limiting the request (HTTP 429) until retries ran out",
        lambda e: "lower the request rate or retry later",
    ),
    (
        "TypeSafeAPIResponseValidationError",
        lambda e: f"TypeSafe's response is malformed ({_unreadable_body(e) or _detail(e)})",
        lambda e: "this is not an answer pytest-citecheck can trust; retry, and report it to TypeSafe if it persists",
    ),
    (
        "TypeSafeInternalServerError",
        lambda e: f"TypeSafe failed to answer (HTTP {_status(e)}) after retries",
        lambda e: "retry later; nothing was recorded for this citation",
    ),
    ("TypeSafeAPITimeoutError", lambda e: "no answer from TypeSafe before the timeout", lambda e: RAISE_TIMEOUT),
    ("TypeSafeAPIConnectionError", lambda e: "could not connect to TypeSafe", lambda e: CHECK_NETWORK),
    (
        "TypeSafeAPIError",
        lambda e: f"TypeSafe answered HTTP {_status(e)} ({_detail(e)})",
        lambda e: "see TypeSafe's error documentation",
    ),
    (
        "TypeSafeError",
        lambda e: f"the TypeSafe client failed: {e}",
        lambda e: "check the client configuration (citecheck_client fixture)",
    ),
)


class RequestDeadlineExceeded(Exception):
    """A Jev request took longer than option ``request_deadline`` (raised by ``_judge.ask``)."""

    def __init__(self, deadline: float, *, rate_limited: bool = False) -> None:
        super().__init__(f"no complete answer within {deadline:g} s")
        self.deadline = deadline
        self.rate_limited = rate_limited  # the last answer before the deadline was a 429


RATE_LIMITED_REMEDY = (
    "lower max_rpm (--citecheck-max-rpm, ini citecheck_max_rpm) if this run sends faster than your TypeSafe "
    "plan allows, or wait for the limit to reset and retry; raise request_deadline to wait longer for it"
)
CLOSED_CLIENT_REMEDY = (
    "give pytest-citecheck a client that is open while the test checks: a citecheck_client fixture that builds "
    "one in a with block must yield it inside the block (returning it closes it first); likewise a Checker's client"
)
DEADLINE_REMEDY = (
    "raise request_deadline (--citecheck-request-deadline, ini citecheck_request_deadline, or the marker or call "
    "keyword request_deadline=) if Jev is just slow; otherwise check TYPESAFE_BASE_URL and any proxy between "
    "you and TypeSafe, then retry"
)


def translate_error(citation_id: str, error: BaseException, *, record_hint: str) -> JudgeError | None:
    """The ``JudgeError`` for an exception raised while asking Jev, or None if it is not ours to explain."""
    if isinstance(error, RequestDeadlineExceeded):
        cause = f"TypeSafe did not complete its answer within the request deadline ({error.deadline:g} s)"
        if error.rate_limited:
            cause += ": it was rate-limiting the request (HTTP 429, the last answer before the deadline)"
            return JudgeError(citation_id, cause, RATE_LIMITED_REMEDY)
        return JudgeError(citation_id, cause, DEADLINE_REMEDY)
    if isinstance(error, LimiterStateError):  # the run's shared rate limiter (``_judge.pacing``)
        return JudgeError(citation_id, error.cause, error.remedy)
    miss = _cassette_miss(citation_id, error, record_hint)
    if miss is not None:
        return miss
    failure = (
        _closed_client(error)
        or _too_large(error)
        or _duplicate_key(error)
        or _invalid_url(error)
        or _network_blocked(error)
        or _decoding_failure(error)
        or _transport_failure(error)
        or _redirected(error)
        or _sdk_failure(error)
    )
    return None if failure is None else JudgeError(citation_id, *failure)


def _cassette_miss(citation_id: str, error: BaseException, record_hint: str) -> CassetteMissError | None:
    """No recorded answer for this request: from our replay, or from vcrpy while it records."""
    from pytest_citecheck._recording.replay import ReplayMiss
    from pytest_citecheck._recording.vcr_seam import is_vcrpy_miss, vcrpy_stale_cause

    if not isinstance(error, ReplayMiss) and not is_vcrpy_miss(error):
        return None
    stale = error.stale_cause() if isinstance(error, ReplayMiss) else vcrpy_stale_cause(error)
    if stale is not None:  # the citation was recorded, and something in its request changed since
        return CassetteMissError(citation_id, stale, f"re-record just this test: {record_hint}")
    empty = error.empty_cause() if isinstance(error, ReplayMiss) else None
    if empty is not None:
        return CassetteMissError(citation_id, empty, f"record it with a TypeSafe API key: {record_hint}")
    # The file it looked for, when there is none: one recorded elsewhere (another cassette directory, or a
    # shared one under another rootdir, whose folders mirror the test's path from it) misses alike.
    cause = "(the cassette is missing, or the claim, section, question or model changed since it was recorded)"
    if isinstance(error, ReplayMiss) and not error.recorded and not error.path.exists():
        cause = f": its cassette {error.path} does not exist (never recorded, or recorded under another path)"
    remedy = f"record it with a TypeSafe API key: {record_hint}"
    if isinstance(error, ReplayMiss) and error.unmarked:  # format 2: a copy cut after an interaction reads whole
        cause, remedy = error.unmarked_cause(cause, remedy)
    message = f"no recorded answer matches this citation's request{'' if cause.startswith(':') else ' '}{cause}"
    return CassetteMissError(citation_id, message, remedy)


# What to do about a field Jev rejected (HTTP 422), by the field's path in the request: the first
# entry whose path is the field or holds it. A path not listed gets the general advice.
_FIELD_REMEDIES: tuple[tuple[str, str], ...] = (
    ("model", "check the model name (--citecheck-model, ini citecheck_model or the model= keyword)"),
    ("state.section", "check that the section fits Jev's limits, or judge part of it with window=N"),
    ("state.claim", "check the claim the app produced (its length, its characters)"),
    ("questions", "pytest-citecheck sends this part itself: report it to pytest-citecheck with the response"),
)
UNPROCESSABLE_REMEDY = "check the model name and that the section fits Jev's limits"


def _unprocessable_remedy(error: BaseException) -> str:
    """For an HTTP 422: the fields Jev rejected (from the response body) and what to do about the first."""
    rejected = _rejected_fields(getattr(error, "body", None))
    if not rejected:
        return UNPROCESSABLE_REMEDY
    path, message = rejected[0]
    advice = next(
        (words for field, words in _FIELD_REMEDIES if path == field or path.startswith(field + ".")),
        f"check the value of {path!r} in the request",
    )
    fields = ", ".join(repr(field) for field, _ in rejected)
    return f"Jev rejected field{'s' if len(rejected) > 1 else ''} {fields} ({message}): {advice}"


def _rejected_fields(body: object) -> list[tuple[str, str]]:
    """``(path, message)`` of each entry of a validation body, ``{"detail": [{"loc": [...], "msg": ...}]}``
    (or one entry, ``{"detail": {"loc": ...}}``, as some servers send it). Server text, so each is one line,
    cut short, and redacted (at most three fields are named)."""
    detail = body.get("detail") if isinstance(body, dict) else None
    entries = [detail] if isinstance(detail, dict) else detail if isinstance(detail, list) else []
    rejected = []
    for entry in entries[:3]:
        location = entry.get("loc") if isinstance(entry, dict) else None
        if not isinstance(location, list):
            continue
        path = ".".join(str(part) for part in location if part not in ("body", None))
        if path:
            rejected.append((_one_line(path, 60), _one_line(str(entry.get("msg", "")), 120)))
    return rejected


def _one_line(text: str, width: int) -> str:
    """Server or library text for a message: one line, known secrets cut, the base URL shown safely, cut short."""
    from pytest_citecheck._secrets import redact_known

    text = endpoint.scrub(redact_known(" ".join(text.split())))
    return text if len(text) <= width else text[: width - 1] + "…"


def _sdk_failure(error: BaseException) -> tuple[str, str] | None:
    """Cause and remedy for one of the SDK's errors (``_SDK_FAILURES``), or None for any other exception."""
    import typesafe_sdk as ts

    for class_name, cause, remedy in _SDK_FAILURES:
        if isinstance(error, getattr(ts, class_name)):
            return cause(error), remedy(error)
    return None


def _status(error: BaseException) -> object:
    return getattr(error, "status", None)


def _unreadable_body(error: BaseException) -> str | None:
    """Why a 2xx body could not be read at all (the SDK says only "invalid response data at ''")."""
    body = getattr(error, "body", None)
    if getattr(error, "field_path", None) != "" or not isinstance(body, (str, bytes)):
        return None
    import json

    try:
        json.loads(body)
    except RecursionError:
        return f"its JSON is nested too deeply to read, {len(body):,} characters"
    except ValueError:
        return f"its body is not JSON, {len(body):,} characters"
    return None


def _redirected(error: BaseException) -> tuple[str, str] | None:
    """Cause and remedy when the base URL answered with a redirect (HTTP 3xx): the SDK does not follow it.
    Where it points is shown as scheme, host and port only (the rest may hold a credential)."""
    status = _status(error)
    if not isinstance(status, int) or not 300 <= status < 400:
        return None
    from urllib.parse import urlsplit

    from pytest_citecheck._text import visible

    headers = getattr(error, "headers", None)
    location = str(headers.get("location") or "") if headers is not None else ""
    try:
        parts = urlsplit(location)
        target = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}" if parts.scheme and parts.netloc else ""
    except ValueError:
        target = ""
    shown = f" to {visible(_one_line(target, 80))}" if target else ""
    return (
        f"TYPESAFE_BASE_URL answered HTTP {status}, a redirect{shown}, which "
        "pytest-citecheck does not follow (the API key would go with it)",
        "set TYPESAFE_BASE_URL to the address the API answers at, if you trust it (TypeSafe's is "
        "https://api.typesafe.ai; an http:// address or a gateway's old path redirects)",
    )


def _too_large(error: BaseException) -> tuple[str, str] | None:
    """Cause and remedy for a response over the size bound (``outgoing.AnswerTooLarge``): not read whole."""
    from pytest_citecheck._judge.outgoing import MAX_ANSWER_BYTES, AnswerTooLarge

    if not isinstance(error, AnswerTooLarge):
        return None
    return (
        f"TypeSafe's response is malformed (HTTP {error.status}: {error.what}; a Jev answer is a few KB, and "
        f"pytest-citecheck reads at most {MAX_ANSWER_BYTES:,} bytes of one)",
        "this is not an answer pytest-citecheck can trust, and nothing was recorded; check that TYPESAFE_BASE_URL "
        "points at TypeSafe's API and that no proxy between adds to its answers, then retry; report it to TypeSafe "
        "if it persists",
    )


def _duplicate_key(error: BaseException) -> tuple[str, str] | None:
    """Cause and remedy for a 2xx answer with a key twice in one object (``outgoing.DuplicateKey``)."""
    from pytest_citecheck._judge.outgoing import DuplicateKey
    from pytest_citecheck._text import visible

    if not isinstance(error, DuplicateKey):
        return None
    return (
        f"TypeSafe's response is malformed (HTTP {error.status}: its JSON has the key "
        f"{visible(repr(_one_line(error.key, 60)))} twice in one object, and JSON readers differ on which one counts)",
        "this is not an answer pytest-citecheck can trust, and nothing was recorded; check that TYPESAFE_BASE_URL "
        "points at TypeSafe's API and that no proxy between rewrites its answers, then retry; report it to TypeSafe "
        "if it persists",
    )


def _invalid_url(error: BaseException) -> tuple[str, str] | None:
    """Cause and remedy when the base URL cannot be sent to (``http://[::1``): the HTTP library refused it.

    Only the kind of problem is quoted (the library's message may hold part of the URL, and a URL may
    hold a credential).
    """
    import httpx2

    if not isinstance(error, httpx2.InvalidURL):
        return None
    kind = str(error).split(":", 1)[0].strip() or "invalid"
    return (
        f"TYPESAFE_BASE_URL (or the base_url the client was built with) is not a valid URL: {kind}",
        "set TYPESAFE_BASE_URL to TypeSafe's address (https://api.typesafe.ai), or unset it; to check without "
        "network, replay cassettes (--citecheck-record-mode=none), which need no URL",
    )


CUT_SHORT_REMEDY = (
    "retry; if it persists, a proxy or load balancer between you and TypeSafe is cutting responses "
    "short: check TYPESAFE_BASE_URL and any proxy"
)


def _cut_short(error: BaseException) -> tuple[str, str] | None:
    """Cause and remedy when the answer arrived shorter than its Content-Length said, or the connection
    was reset while it was awaited or arriving (the HTTP library's ``ReadError``: it was made).

    The SDK reports both as a connection error, which says "could not connect" about a server that did.
    """
    current: BaseException | None = error
    for _ in range(10):  # the cause chain, bounded
        if current is None:
            return None
        name = type(current).__name__
        if name == "RemoteProtocolError" and "complete message body" in str(current):
            cause = "TypeSafe's response was cut short: the connection closed before the whole body arrived"
            return f"{cause} ({_detail(current)})", CUT_SHORT_REMEDY
        if name == "ReadError":
            cause = "the connection to TypeSafe was reset after it was made, before the whole answer arrived"
            return f"{cause} ({name}: {_detail(current) or 'no detail'})", CUT_SHORT_REMEDY
        current = current.__cause__ or current.__context__
    return None


# The module of pytest-recording that refuses connections under --block-network (or a block_network mark).
_BLOCKING_MODULE = "pytest_recording.network"


def _network_blocked(error: BaseException) -> tuple[str, str] | None:
    """Cause and remedy when pytest-recording's ``--block-network`` refused the connection to TypeSafe.

    It raises a bare ``RuntimeError`` from its patched ``socket.connect``, which the HTTP library lets
    through as it is. Only a RuntimeError raised in that module is taken for it (by where it was raised,
    not by its words): any other error, a test's own among them, is left alone.
    """
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if type(current) is RuntimeError and _raised_in(current, _BLOCKING_MODULE):
            named = re.search(r"for host '([\w.:\-\[\]]{1,100})'", str(current))
            host = named.group(1) if named else "HOST"
            return (
                f"the connection to TypeSafe was refused by pytest-recording's --block-network (or a block_network "
                f"mark) while recording: {_detail(current)}",
                "record without --block-network, or allow TypeSafe's host while recording (pytest-recording's "
                f"--allowed-hosts={host}, or the block_network mark's allowed_hosts); to check without network, replay "
                "the committed cassettes (--citecheck-record-mode=none)",
            )
        current = current.__cause__ or current.__context__
    return None


def _closed_client(error: BaseException) -> tuple[str, str] | None:
    """Cause and remedy when the client given to us was closed: httpx2's own refusal, passed on by the SDK."""
    if not (isinstance(error, RuntimeError) and _raised_in(error, "httpx2._client")):
        return None
    return f"the TypeSafe client it was asked through is closed ({_detail(error)})", CLOSED_CLIENT_REMEDY


def _raised_in(error: BaseException, module: str) -> bool:
    """The innermost frame of ``error``'s traceback is code of ``module``."""
    trace = error.__traceback__
    if trace is None:
        return False
    while trace.tb_next is not None:
        trace = trace.tb_next
    return trace.tb_frame.f_globals.get("__name__") == module


def _decoding_failure(error: BaseException) -> tuple[str, str] | None:
    """Cause and remedy when the response arrived but its Content-Encoding (gzip, ...) could not be undone.

    The SDK reports it as a connection error, which sends the reader to check a network that worked.
    """
    import httpx2  # the SDK's HTTP library, always installed with it

    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, httpx2.DecodingError):
            return (
                f"TypeSafe's response could not be decoded (Content-Encoding: {_detail(current)})",
                "a proxy between you and TypeSafe may be altering responses: check TYPESAFE_BASE_URL and any proxy, "
                "then retry; report it to TypeSafe if it persists",
            )
        current = current.__cause__ or current.__context__
    return None


def _transport_failure(error: BaseException) -> tuple[str, str] | None:
    """Cause and remedy for a network failure that reached us as the HTTP library's own exception.

    The SDK turns transport errors into ``TypeSafeAPIConnectionError``/``TimeoutError``, but while
    vcrpy records, a refused connection can escape as httpcore2's own exception instead (seen when
    vcrpy's stubs are imported afresh in one process, as in pytester's in-process runs); it means
    the same thing and must read the same, not as a traceback. A response cut short is not one.
    """
    import importlib

    cut_short = _cut_short(error)
    if cut_short is not None:
        return cut_short

    for module_name in ("httpx2", "httpcore2"):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        if isinstance(error, module.TimeoutException):
            return (
                f"no answer from TypeSafe before the timeout ({type(error).__name__})",
                RAISE_TIMEOUT,
            )
        network = tuple(
            getattr(module, name)
            for name in ("TransportError", "NetworkError", "ProtocolError")
            if hasattr(module, name)
        )
        if isinstance(error, network):
            return (
                f"could not connect to TypeSafe ({type(error).__name__}: {_detail(error)})",
                CHECK_NETWORK,
            )
    return None


def _detail(error: BaseException) -> str:
    # str() of an SDK API error: endpoint, status, server message (never headers; known secrets cut, as a server may
    # echo a key back), on one line (a message over several lines could start one that a CI runner reads).
    return _one_line(str(error), 200)
