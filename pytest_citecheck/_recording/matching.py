"""Which recorded interaction answers a request: the rule vcrpy was given, and replay keeps.

Requests match on method, TypeSafe endpoint and the parsed JSON body (state, questions, model),
never on host, so any base URL replays and a changed claim is a miss, not the wrong verdict.
``request_key`` is the canonical text of a body that identifies an interaction across runs and
files; ``lookup_key`` adds the method and endpoint.
"""

from __future__ import annotations

import functools
import json
import re
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any
from urllib.parse import urlsplit

CANONICAL_HOST = ("https", "api.typesafe.ai")
TYPESAFE_PATH = re.compile(r"/v1/(systemone|models)$")


def parsed_body(body: Any) -> Any:
    """A body as JSON when it is JSON text; otherwise the body itself (None, bytes, text)."""
    if not isinstance(body, (bytes, str)):
        return body  # None, or already parsed
    return _parsed_text(body)


def parsed_fresh(body: Any) -> Any:
    """``parsed_body`` without its cache, for a body parsed once (a cassette's thousands, a request replay
    is asked about): hashing it for the cache and keeping it there would only cost."""
    if not isinstance(body, (bytes, str)):
        return body
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):  # nested too deep is not JSON we can use
        return body


# vcrpy compares an incoming request with every recorded one, more than once per request: parse
# each distinct body once. The parsed values are only compared, never changed.
_parsed_text = functools.lru_cache(maxsize=128)(parsed_fresh)


def canonical_json(text: str | bytes | None) -> str | None:
    """Indented, key-sorted JSON if the body is JSON; None if it is not (how a cassette stores a body)."""
    if text is None:
        return None
    try:
        return json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    except (ValueError, UnicodeDecodeError, RecursionError):  # nested too deep is not JSON we can use
        return None


def request_key(body: Any) -> str:
    """A canonical text of a request body: what identifies an interaction across runs and files."""
    parsed = parsed_body(body)
    if isinstance(parsed, (dict, list)):
        return json.dumps(parsed, sort_keys=True, ensure_ascii=False)
    return parsed if isinstance(parsed, str) else ""


# A section's text is most of a request body, and the same section is asked about again and again
# (each citation of it, and the cassette's copy of each request): its JSON form is kept for the
# last few long texts. Encoding one costs some 40 instructions a character; looking it up, a hash.
_encoded_long_text = functools.lru_cache(maxsize=64)(encode_basestring)
# Short texts kept at most: a request's keys and questions are the same texts in every body, a claim
# is new in each; the table starts again when full (at most some hundreds of kilobytes).
_MOST_SHORT_TEXTS = 1024


class _EncodedTexts(dict[str, str]):
    """``json.encoder.encode_basestring(text)`` (what ``ensure_ascii=False`` writes) for each text asked.

    The encoder asks it for every key and text of a body (twenty or so in a request), so a text seen
    before is answered by the dict lookup alone, with no Python call; a new one is encoded here, and a
    long one (a section) is looked up in ``_encoded_long_text`` instead of kept.
    """

    def __missing__(self, text: str) -> str:
        if len(text) >= 256:
            return _encoded_long_text(text)
        if len(self) >= _MOST_SHORT_TEXTS:
            self.clear()
        encoded = self[text] = encode_basestring(text)
        return encoded


_encoded_text = _EncodedTexts().__getitem__


# One encoder for every call (``json.dumps`` with options builds one per call): what
# ``json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))`` writes.
_PLAIN = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
_COMPACT = (
    None
    if c_make_encoder is None  # a Python without json's C accelerator
    else c_make_encoder(None, _PLAIN.default, _encoded_text, None, ":", ",", True, False, True)
)


def compact_json(value: Any) -> str:
    """Key-sorted JSON without spaces (the C encoder's fastest form): a cassette's digest is taken over it.

    A text or an integer (a digest's method, URI and status) is written as the encoder writes it, without it."""
    kind = type(value)
    if kind is str:
        return _encoded_text(value)
    if kind is int:
        return int.__repr__(value)
    return _PLAIN.encode(value) if _COMPACT is None else "".join(_COMPACT(value, 0))


def replay_key(body: Any) -> str:
    """What replay indexes a request body by: ``compact_json`` of the parsed body (equal exactly when
    ``request_key`` is equal; cheaper to write, and reading a cassette writes it for the digest anyway).

    Each body replay is asked about is a new one: parsed once here (``parsed_fresh``)."""
    parsed = parsed_fresh(body)
    if isinstance(parsed, (dict, list)):
        return compact_json(parsed)
    return parsed if isinstance(parsed, str) else ""


# A run asks with one or two methods and endpoints, and each cassette records the same one or two
# URIs again and again: each pair is worked out once (a URI's ``urlsplit`` is most of the cost).
@functools.lru_cache(maxsize=64)
def method_and_endpoint(method: str, uri_or_path: str) -> tuple[str, str]:
    """The method and the TypeSafe endpoint (``/v1/systemone``) of a request, whatever its base URL."""
    path = urlsplit(uri_or_path).path if "://" in uri_or_path else uri_or_path
    endpoint = TYPESAFE_PATH.search(path)
    return method.upper(), endpoint.group(0) if endpoint else path


def lookup_key(method: str, uri_or_path: str, body: Any) -> tuple[str, str, str]:
    """What a request is matched on: method, endpoint, canonical JSON body."""
    return (*method_and_endpoint(method, uri_or_path), request_key(body))


def match_json_body(r1: Any, r2: Any) -> None:
    """vcrpy matcher: the two bodies are the same JSON value (raises AssertionError when not)."""
    if parsed_body(r1.body) != parsed_body(r2.body):
        raise AssertionError("request bodies differ")


def state_of(body: Any) -> dict[str, Any]:
    """The ``state`` (claim, section) of a parsed request body; empty when it has none."""
    state = body.get("state") if isinstance(body, dict) else None
    return state if isinstance(state, dict) else {}


def citation_of(body: Any) -> tuple[str, str] | None:
    """The (claim, section) a parsed request body asks about, or None."""
    state = state_of(body)
    claim, section = state.get("claim"), state.get("section")
    return (claim, section) if isinstance(claim, str) and isinstance(section, str) else None
