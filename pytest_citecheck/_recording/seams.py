"""Where replay answers a TypeSafe request: the seams in the SDK and in httpx2 (``replay.Recording._patch``).

From the most direct to the most general: the SDK's own send (``SDK_SENDS``, inside its one attempt,
outside its retry loop), httpx2's ``Client.request`` as the SDK calls it (``CLIENT_METHODS``), and
httpx2's transports (``TRANSPORT_METHODS``, the ones vcrpy patches), with a client's routing to its
transport (``Answering``) for a request httpx2 builds itself. Which calls each may answer
(``answerable_path``), and how a request is put in the form a recording is matched in (``scrubbed``,
``header_pairs``). The recording's handlers, which these seams are patched with, are ``replay``'s.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from pytest_citecheck._recording.matching import TYPESAFE_PATH
from pytest_citecheck._recording.redaction import scrubbed_for_matching
from pytest_citecheck._recording.responses import httpx2_module

# The httpx2 transport methods vcrpy patches, and whether each is a coroutine function.
TRANSPORT_METHODS = (
    ("HTTPTransport", "handle_request", False),
    ("AsyncHTTPTransport", "handle_async_request", True),
    ("WSGITransport", "handle_request", False),
    ("ASGITransport", "handle_async_request", True),
    ("MockTransport", "handle_request", False),
    ("MockTransport", "handle_async_request", True),
)
# The client methods the SDK sends through (``typesafe_sdk._core.transport.send``), answered before
# httpx2 builds a request; and the options such a call may carry that change nothing about its answer.
CLIENT_METHODS = (("Client", False), ("AsyncClient", True))
ANSWERED_OPTIONS = frozenset({"content", "headers", "timeout", "auth", "extensions"})
# The SDK's own send, as each of its clients' modules imports it (``typesafe_sdk._core.transport.send``
# and ``send_async``, an internal seam of the 0.7 series): a replayed request is answered inside it,
# within the SDK's attempt (its headers, its wire log, its parse), but outside its retry loop. A
# recorded answer is a 2xx (``cassette_file`` refuses any other), and a miss or an answer the SDK cannot
# read is the same on every attempt (a user's policy that retries any error would only wait to raise it
# again): the loop decides nothing on replay, and entering it was some 6% of a replayed citation's instructions.
SDK_SENDS = (
    ("typesafe_sdk._core.client.sync.client", "send", False),
    ("typesafe_sdk._core.client.aio.client", "send_async", True),
)


class Answering:
    """The transport a TypeSafe request is sent through while a recording serves (``Recording._routing``):
    the recording's handler answers it, whatever transport the client was built with."""

    __slots__ = ("_handler",)

    def __init__(self, handler: Any) -> None:
        self._handler = handler

    def handle_request(self, request: Any) -> Any:
        return self._handler(self, request)

    async def handle_async_request(self, request: Any) -> Any:
        return await self._handler(self, request)


def not_ours(transport: Any, request: Any) -> Any:
    """What ``Answering``'s handler passes a request on to: never called, it is given TypeSafe requests only."""
    raise AssertionError(f"not a TypeSafe request: {request.url.path}")


def scrubbed(request: Any, body: bytes, path: str | None = None) -> tuple[str, str, bytes]:
    """(method, path, body) of an outgoing request after the same scrub a recording got
    (``redaction.scrub_request``, as ``redaction.scrubbed_for_matching`` applies it): vcrpy matched
    requests only after it, so replay does too. ``path``: the URL's path, when the caller has it."""
    headers = request.headers
    pairs = header_pairs(headers)
    matched_on = scrubbed_for_matching(request.method, request.url.path if path is None else path, pairs, body)
    assert matched_on is not None  # the handlers pass on every request that is not a TypeSafe one
    return matched_on


# The encodings httpx2 picks for headers (or a caller may set) that read ASCII bytes as ASCII.
_ASCII_COMPATIBLE = frozenset((None, "ascii", "utf-8", "iso-8859-1"))


def header_pairs(headers: Any) -> list[tuple[str, str]]:
    """Each (name, value) as ``headers.multi_items()`` decodes it (the values alike; a name as sent, not
    lower-cased, which the scrub lower-cases itself).

    Headers an SDK sends are ASCII, which every encoding httpx2 would pick (ascii, then utf-8, then
    latin-1) decodes alike: they are decoded as ASCII at once, without ``headers.encoding``'s own pass
    over every header to pick one. Headers with any other byte, or given another encoding, are
    decoded with ``headers.encoding``, as ``multi_items`` decodes them.
    """
    raw = headers.raw
    if getattr(headers, "_encoding", "") in _ASCII_COMPATIBLE:
        try:
            return [(name.decode("ascii"), value.decode("ascii")) for name, value in raw]
        except UnicodeDecodeError:
            pass
    encoding = headers.encoding
    return [(name.decode(encoding), value.decode(encoding)) for name, value in raw]


@functools.cache
def transport_methods() -> tuple[tuple[type, str, bool], ...]:
    """``TRANSPORT_METHODS`` with each class looked up, once."""
    httpx2 = httpx2_module()
    return tuple((getattr(httpx2, name), method, is_async) for name, method, is_async in TRANSPORT_METHODS)


@functools.cache
def client_classes() -> tuple[tuple[Any, bool], ...]:
    """``CLIENT_METHODS`` with each class looked up, once."""
    httpx2 = httpx2_module()
    return tuple((getattr(httpx2, name), is_async) for name, is_async in CLIENT_METHODS)


def answerable_path(client: Any, url: Any, content: Any, *, exact_client: bool = False) -> str | None:
    """The path of a TypeSafe request that replay answers before httpx2 sends it; None for any other.

    Answered: a URL given as text and a body as bytes (what the SDK sends), through an open client with
    no event hooks (a user's hooks run as they would on a sent request). ``exact_client``: at the SDK's
    send, httpx2's own client classes only, as a subclass may do more in its own ``request``.
    """
    if (
        type(url) is not str
        or type(content) is not bytes
        or (exact_client and type(client) not in client_types())
        or client.is_closed
        or any(client.event_hooks.values())
    ):
        return None
    path = path_of(url)
    return None if TYPESAFE_PATH.search(path) is None else path


@functools.cache
def client_types() -> frozenset[type]:
    """httpx2's ``Client`` and ``AsyncClient``."""
    return frozenset(client_class for client_class, _ in client_classes())


@functools.cache
def sdk_sends() -> tuple[Any, tuple[tuple[Any, str, bool], ...]]:
    """The SDK's ``RequestState`` and each of ``SDK_SENDS`` with its module; none if this SDK has other
    internals (replay then answers at httpx2's ``Client.request``, as the fallback it always has)."""
    try:
        from typesafe_sdk._core.transport import RequestState

        sends = tuple((importlib.import_module(module), name, is_async) for module, name, is_async in SDK_SENDS)
    except ImportError:
        return None, ()
    if not all(callable(module.__dict__.get(name)) for module, name, _ in sends):
        return None, ()
    return RequestState, sends


@functools.lru_cache(maxsize=64)
def path_of(url: str) -> str:
    """A URL's path (a run asks one or two URLs, again and again)."""
    path: str = httpx2_module().URL(url).path
    return path
