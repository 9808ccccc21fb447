"""Keeping credentials out of what a run prints: the filter on the SDK's (and vcrpy's) loggers, and known secrets.

Cassettes keep only ``Content-Type`` (``scrub_request``, ``scrub_response``); this module covers
the other way a key can escape too, the log. The SDK redacts the headers it knows to be secret
(``Authorization``, ``x-api-key``, names with "token" or "secret"), but a user can send a key in a
header of any name (``TypeSafeClient(headers=...)``), and a careless server or proxy can echo a key
back in an error body, which the SDK logs at debug level unredacted (and vcrpy at INFO, when it
records the response). So the plugin puts a filter in front of the SDK's own, on the
``typesafe_sdk`` logger and on vcrpy's and the HTTP stack's (``REDACTED_LOGGERS``):

- every header value is replaced by ``***`` unless the header is on a short list of harmless ones;
- the values it hid, the request headers vcrpy is about to drop (``scrub_request``), and
  the ``TYPESAFE_API_KEY`` in the environment become *known secrets*, and every known secret is cut
  out of the whole formatted message (bodies included);
- ``redact_known`` applies the same cut to any text we print ourselves (error details), and
  ``redact_body`` to the request and response bodies a cassette records.

Records are formatted here once and passed on as plain text, so no handler formats the raw values
again. Known secrets live only in this process's memory.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pytest_citecheck._judge.endpoint import scrub
from pytest_citecheck._recording.matching import CANONICAL_HOST, TYPESAFE_PATH, canonical_json
from pytest_citecheck._secrets import MASK, cut_secrets, json_forms, known_secrets, redact_known, remember_secret

__all__ = [
    "MASK",
    "HeaderValueRedactor",
    "header_pairs",
    "install_log_redaction",
    "redact_body",
    "redact_known",
    "remember_header_pairs",
    "remember_header_secrets",
    "remember_secret",
    "scrub_request",
    "scrub_response",
    "scrubbed_for_matching",
]

SDK_LOGGER = "typesafe_sdk"
# The SDK's logger, and vcrpy's and the HTTP stack's, which print requests and recorded responses
# (vcrpy logs every recorded response body at INFO).
REDACTED_LOGGERS = (
    SDK_LOGGER,
    "vcr.cassette",
    "vcr.matchers",
    "vcr.request",
    "vcr.stubs",
    "vcr.stubs.httpx_stubs",
    "httpx2",
    "httpcore2.connection",
    "httpcore2.http11",
)
# The only header a cassette keeps, of a request or a response.
_KEPT_HEADERS = {"content-type"}
# Headers that describe the request, never authenticate it.
HARMLESS_HEADERS = frozenset(
    {
        "accept",
        "accept-encoding",
        "connection",
        "content-encoding",
        "content-length",
        "content-type",
        "date",
        "host",
        "retry-after",
        "retry-after-ms",
        "server",
        "user-agent",
        "x-typesafe-request-id",
        "x-typesafe-retry-count",
        "x-typesafe-runtime",
        "x-typesafe-sdk",
    }
)


def redact_body(body: Any) -> Any:
    """A request or response body (bytes or text) with every known secret replaced by ``***``.

    For cassettes: a server, proxy or debug build can echo a key back in a 2xx body, and an app can
    put its own key in a claim. A JSON body is redacted value by value (a key written with JSON
    escapes is still found) and stays JSON; any other text is cut like a log line. A body that
    holds no known secret is returned as it was, the same object, so replay pays a substring search.
    """
    if not isinstance(body, (bytes, str)) or not body:
        return body
    secrets = known_secrets()
    if isinstance(body, bytes):
        # Searched as bytes (the body is not decoded unless it holds one): replay asks for every request.
        if not any(form in body for secret in secrets for form in _encoded_forms(secret)):
            return body
        text = body.decode("utf-8", "surrogateescape")
    else:
        text = body
        if not any(form in text for secret in secrets for form in json_forms(secret)):
            return body
    try:
        redacted = json.dumps(_redact_value(json.loads(text), secrets), ensure_ascii=False)
    except (ValueError, RecursionError):  # not JSON: cut it as text
        redacted = cut_secrets(text, secrets)
    return redacted.encode("utf-8", "surrogateescape") if isinstance(body, bytes) else redacted


@functools.lru_cache(maxsize=64)
def _encoded_forms(secret: str) -> tuple[bytes, ...]:
    """A secret as its UTF-8 bytes stand in a body: as written and inside a JSON string (``json_forms``)."""
    return tuple(form.encode("utf-8", "surrogateescape") for form in json_forms(secret))


def _redact_value(value: Any, secrets: Sequence[str]) -> Any:
    if isinstance(value, str):
        return cut_secrets(value, secrets)
    if isinstance(value, list):
        return [_redact_value(item, secrets) for item in value]
    if isinstance(value, dict):
        return {cut_secrets(str(key), secrets): _redact_value(item, secrets) for key, item in value.items()}
    return value


def scrub_request(request: Any) -> Any:
    """Keep only TypeSafe API requests, and only what replay needs of them (vcrpy hands us a copy).

    Every recorded request keeps only its ``Content-Type`` header (the API key travels in
    ``Authorization`` or whatever extra header a user adds; none is written), and the host is
    replaced by TypeSafe's public one. This scrub is applied by pytest-citecheck itself, after any
    user configuration, so it cannot be switched off by accident.
    """
    scrubbed = scrubbed_for_matching(
        request.method, urlsplit(request.uri).path, header_pairs(request.headers), request.body
    )
    if scrubbed is None:
        return None  # not ours: pytest-recording or the app's own traffic passes by untouched
    _, endpoint, request.body = scrubbed
    # Host and any base-URL prefix (a proxy's /base/v1/...) go: a cassette replays behind any base URL.
    request.uri = urlunsplit((*CANONICAL_HOST, endpoint, "", ""))
    request.headers = {name: value for name, value in request.headers.items() if name.lower() in _KEPT_HEADERS}
    return request


def scrubbed_for_matching(
    method: str, path: str, headers: Iterable[tuple[Any, Any]], body: Any
) -> tuple[str, str, Any] | None:
    """What ``scrub_request`` leaves of a request that a match depends on, without building the request:
    the method, the TypeSafe endpoint (host and any base-URL prefix gone), the body with every known
    secret cut; None for a request that is not a TypeSafe API request. Replay matches on this alone.

    ``headers``: (name, value) pairs. The values of those the scrub drops carry the key: they are
    remembered, so no log line prints them. A key the app put in a claim is not written either; vcrpy
    scrubs the live request the same way before matching it, so such a recording still replays while
    the key is known.
    """
    endpoint = TYPESAFE_PATH.search(path)
    if endpoint is None:
        return None
    remember_header_pairs(headers)
    return method, endpoint.group(0), redact_body(body)


def scrub_response(response: dict[str, Any]) -> dict[str, Any] | None:
    """Drop dates, request ids and every other header that churns or could carry a secret.

    A fault is not an answer: an error status (401, 429, 5xx...) or a body that is not JSON is never
    recorded (None), so a replay cannot repeat an outage forever and the next recording asks again.
    """
    status = response.get("status", {}).get("code")
    if (
        not isinstance(status, int)
        or not 200 <= status < 300
        or canonical_json(response.get("body", {}).get("string")) is None
    ):
        return None
    response["headers"] = {
        name: values for name, values in response["headers"].items() if name.lower() in _KEPT_HEADERS
    }
    # A server, proxy or debug build may echo the key back in the body (vcrpy hands us a copy).
    response["body"]["string"] = redact_body(response["body"]["string"])
    return response


def remember_header_secrets(headers: Mapping[Any, Any]) -> None:
    """Remember the value of every header that is not a harmless one (called before a request is scrubbed)."""
    remember_header_pairs(header_pairs(headers))


def header_pairs(headers: Mapping[Any, Any]) -> Iterator[tuple[Any, Any]]:
    """(name, value) for each value of a header mapping whose values may be lists (vcrpy's requests)."""
    for name, value in headers.items():
        for item in value if isinstance(value, (list, tuple)) else [value]:
            yield name, item


def remember_header_pairs(pairs: Iterable[tuple[Any, Any]]) -> None:
    """``remember_header_secrets`` over (name, value) pairs, a name repeated for each of its values."""
    for name, item in pairs:
        if str(name).lower() in HARMLESS_HEADERS:
            continue
        text = item.decode("latin-1") if isinstance(item, bytes) else str(item)
        remember_secret(text)
        scheme, _, credential = text.partition(" ")
        if credential:  # "Bearer <key>": the key is the secret, whatever the scheme
            remember_secret(credential)


def _redact_headers(headers: Mapping[Any, Any]) -> dict[Any, Any]:
    remember_header_secrets(headers)
    return {name: value if str(name).lower() in HARMLESS_HEADERS else MASK for name, value in headers.items()}


class HeaderValueRedactor(logging.Filter):
    """Hides every non-harmless header value in a record and cuts known secrets out of its text."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        headers = args.get("headers") if isinstance(args, Mapping) else None
        if isinstance(args, Mapping) and isinstance(headers, Mapping):
            record.args = {**args, "headers": _redact_headers(headers)}
        try:
            message = record.getMessage()
        except Exception:  # a malformed log call: keep the template only, never the raw arguments
            message = str(record.msg)
        record.msg = scrub(redact_known(message))  # a base URL only as scheme, host and port
        record.args = None
        return True


def install_log_redaction() -> None:
    """Put the redactor first on the SDK's logger and on the loggers that print what it sends (once per process)."""
    remember_secret(os.environ.get("TYPESAFE_API_KEY"))
    for name in REDACTED_LOGGERS:
        # A logger's filters see only records logged on it, not its children's: each is named.
        logger = logging.getLogger(name)
        if any(isinstance(existing, HeaderValueRedactor) for existing in logger.filters):
            continue
        # First, so it sees the headers before the SDK's own filter masks some of them: the values
        # it masks must still be learnt as secrets, to be cut out of echoed bodies later.
        logger.filters.insert(0, HeaderValueRedactor())
