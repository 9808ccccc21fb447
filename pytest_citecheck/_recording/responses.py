"""httpx2 responses built from a cassette's recordings, as replay hands them back.

``Recorded`` is one recording as replay needs it (status, reason, headers, body). At a transport the
answer is a response with a stream (``transport_response``: the client reads and closes it as it would a
real one); at the SDK's own call (``_recording.replay``'s answer at ``Client.request``) it is a response
already read and tied to its request (``read_response``), as ``Client.request`` returns one.
"""

from __future__ import annotations

import functools
from typing import Any

from pytest_citecheck._recording.damage import CassetteFormatError
from pytest_citecheck._rehearsal import MARK_EXTENSION, REHEARSAL_KEY


class Recorded:
    """One recorded interaction, as replay needs it."""

    __slots__ = ("status", "reason", "headers", "content", "read_headers", "extensions")

    def __init__(self, index: int, interaction: Any, answer: Any = None) -> None:
        """``answer``: the response body, parsed (``cassette_file.Checked.answer``); it says whether the
        answer carries the rehearsal mark, which the response built from it tells the check."""
        try:
            response = interaction["response"]
            status = response["status"]
            self.status = int(status["code"])
            message = status.get("message")
            self.reason = message.encode("ascii") if isinstance(message, str) and message else None
            self.headers = [(str(name), str(value)) for name, values in response["headers"].items() for value in values]
            content = response["body"]["string"]
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            raise CassetteFormatError(
                f"interaction {index} is not a recorded request and response ({error!r})"
            ) from None
        self.content = content.encode("utf-8") if isinstance(content, str) else bytes(content or b"")
        self.extensions: dict[str, Any] = {"reason_phrase": self.reason} if self.reason else {}
        if isinstance(answer, dict):  # the body's top-level keys, as ``_rehearsal.is_marked`` reads them
            self.extensions[MARK_EXTENSION] = REHEARSAL_KEY in answer
        # The headers of a response built from its content (``read_response``): httpx2 adds the length.
        self.read_headers = self.headers
        if self.content and not any(name.lower() == "content-length" for name, _ in self.headers):
            self.read_headers = [*self.headers, ("Content-Length", str(len(self.content)))]


@functools.cache
def httpx2_module() -> Any:
    """The httpx2 module, imported on first use (a run may replay nothing); then one cached call."""
    import httpx2

    return httpx2


@functools.lru_cache(maxsize=64)
def request_for(method: str, url: str) -> Any:
    """The request a response answered, as the SDK reads it (its method and URL, in an error's message):
    one per method and URL, never changed (a client with event hooks, which might, is not answered here)."""
    return httpx2_module().Request(method, url)


def read_response(recorded: Recorded, request: Any) -> Any:
    """A recording as the response ``Client.request`` returns: read, and tied to its request (the SDK's
    error messages name the request's endpoint)."""
    httpx2 = httpx2_module()
    extensions = dict(recorded.extensions)  # a response's own: httpx2 may add to it
    if not _reads_as_given():
        return httpx2.Response(
            recorded.status, headers=recorded.headers, content=recorded.content, request=request, extensions=extensions
        )
    response = httpx2.Response(
        recorded.status,
        headers=recorded.read_headers,
        stream=httpx2.ByteStream(recorded.content),
        request=request,
        extensions=extensions,
    )
    _mark_read(response, recorded.content)
    return response


def _mark_read(response: Any, content: bytes) -> None:
    """The state ``Response(content=...)`` leaves once it has read its body: replay's bodies carry no
    ``Content-Encoding`` (``cassette_file`` refuses any recorded header but ``Content-Type``), so reading
    would pass them through httpx2's identity decoder and chunker unchanged, at a cost several times
    building the response. Used only while ``_reads_as_given`` finds the state the same."""
    response._content = content
    response.is_stream_consumed = True
    response.is_closed = True


@functools.cache
def _reads_as_given() -> bool:
    """Whether ``_mark_read`` leaves a response as ``Response(content=...)`` does with this httpx2: the
    same headers, body, state and attributes (the decoder aside, which only reading uses). A release that
    keeps more state makes this False, and replay reads each response through httpx2 as before."""
    httpx2 = httpx2_module()
    request = httpx2.Request("POST", "http://127.0.0.1/v1/check")
    body = '{"answer": "é"}'.encode()
    headers = [("content-type", "application/json")]
    given = httpx2.Response(200, headers=headers, content=body, request=request)
    marked = httpx2.Response(
        200, headers=[*headers, ("Content-Length", str(len(body)))], stream=httpx2.ByteStream(body), request=request
    )
    _mark_read(marked, body)
    try:
        return (
            set(vars(given)) - {"_decoder"} == set(vars(marked))
            and given.headers.multi_items() == marked.headers.multi_items()
            and all(
                getattr(given, name) == getattr(marked, name)
                for name in ("status_code", "content", "text", "is_closed", "is_stream_consumed")
            )
            and given.json() == marked.json()
            and marked.read() == body
            and list(marked.iter_bytes()) == list(given.iter_bytes())
        )
    except Exception:  # an attribute gone, a read refused: not the same
        return False


def transport_response(recorded: Recorded) -> Any:
    httpx2 = httpx2_module()
    return httpx2.Response(
        recorded.status,
        headers=recorded.headers,
        # A stream, not content=: the client reads and closes it as it would a real response.
        stream=httpx2.ByteStream(recorded.content),
        extensions=dict(recorded.extensions),
    )
