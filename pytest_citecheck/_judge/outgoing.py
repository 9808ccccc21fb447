"""Where a request really leaves the process: shared when identical (``sharing``), and paced (``pacing``).

The recording seam (``_recording.vcr_seam``) puts ``limited`` and ``alimited`` around the HTTP
transport's own send, underneath vcrpy: a request the cassette answers never comes here, so replay
takes no lock and waits for nothing. ``sending`` tells them, for the citation being asked (a context
variable: each thread or task its own), which limits hold and which run's answers it may share; a
request made without it (not one of ours) goes straight through. A citation whose answer was a copy
of one the run already received (nothing sent for it) is marked ``shared`` (``copied``): the cost
line prices only what was sent. The answer's body is read here, and refused (``AnswerTooLarge``) once
it is over ``MAX_ANSWER_BYTES``, as sent or decompressed, before vcrpy or the SDK sees any of it; a 2xx
JSON answer with a key twice in one object (``DuplicateKey``) is refused too, so it is never recorded.

A script's ``Checker`` has no cassette and so no recording seam: ``script_sends`` puts the same
limits, sharing and reading around the HTTP transports' send while one of its citations is asked
(``_recording.checking.asking``). Its limits are the run's: the same state on disk, so a script and
the pytest runs of this user on this machine asking the same server keep to one budget; its sharing
is the checker's own (``Wiring.shared_answers``), across its calls.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_citecheck._in_flight import WhileInFlight
from pytest_citecheck._judge.pacing import Pacing, apaced, paced, server_key
from pytest_citecheck._judge.sharing import SharedAnswers, request_key

if TYPE_CHECKING:
    from pytest_citecheck._judge.judgement import Judgement
    from pytest_citecheck._options import Settings


@dataclass
class Outgoing:
    """What a citation's live request is held to: the limits, and the run's shared answers (if any).

    One per citation asked; ``answered_with_copy`` is set as its answer comes: True when the answer
    was a copy of one this run already received (this process's, or another xdist worker's), so
    nothing was sent for it.
    """

    pacing: Pacing
    shared: SharedAnswers | None = None
    # ``request_deadline``: the longest a request waits for an identical one another worker is asking.
    deadline: float | None = None
    answered_with_copy: bool = False

    @classmethod
    def under(cls, settings: Settings, shared: SharedAnswers | None) -> Outgoing:
        """A citation's requests under its check's settings (``max_rpm``, ``max_tokens_per_second``,
        ``concurrency``, ``request_deadline``)."""
        pacing = _pacing(settings.max_rpm, settings.max_tokens_per_second, settings.concurrency)
        return cls(pacing, shared, settings.request_deadline)


@functools.lru_cache(maxsize=16)
def _pacing(max_rpm: int | None, max_tokens_per_second: int | None, concurrency: int) -> Pacing:
    """The limits, made once for each set of them (a frozen value, read by every request held to it)."""
    return Pacing(max_rpm, max_tokens_per_second, concurrency)


_OUTGOING: ContextVar[Outgoing | None] = ContextVar("citecheck_outgoing", default=None)


class sending:  # a context manager, named as the function it was
    """Around asking Jev about one citation: its requests that leave the process are held to ``outgoing``.

    A class rather than a generator: entered once per citation, and a generator's context manager
    costs several times as much to make, enter and leave.
    """

    __slots__ = ("_outgoing", "_token")

    def __init__(self, outgoing: Outgoing) -> None:
        self._outgoing = outgoing

    def __enter__(self) -> None:
        self._token = _OUTGOING.set(self._outgoing)

    def __exit__(self, *exc_info: object) -> None:
        _OUTGOING.reset(self._token)


Send = Callable[[Any, Any], Any]
AsyncSend = Callable[[Any, Any], Awaitable[Any]]


def limited(real: Send) -> Send:
    """``real`` (a sync transport's ``handle_request``), shared when identical and paced."""

    def handle_request(transport: Any, request: Any) -> Any:
        outgoing = _OUTGOING.get()
        if outgoing is None:
            return real(transport, request)
        body = request.read()

        def send() -> Any:
            with paced(server_key(request.url), outgoing.pacing, len(body)):
                return _read_through(real(transport, request))

        if outgoing.shared is None:
            return send()
        sent = _Sent(send)
        response = outgoing.shared.send(request_key(request, body), sent, outgoing.deadline)
        outgoing.answered_with_copy = not sent.called
        return response

    return handle_request


def alimited(real: AsyncSend) -> AsyncSend:
    """``real`` (an async transport's ``handle_async_request``), shared when identical and paced."""

    async def handle_async_request(transport: Any, request: Any) -> Any:
        outgoing = _OUTGOING.get()
        if outgoing is None:
            return await real(transport, request)
        body = await request.aread()

        async def send() -> Any:
            async with apaced(server_key(request.url), outgoing.pacing, len(body)):
                return await _aread_through(await real(transport, request))

        if outgoing.shared is None:
            return await send()
        sent = _Sent(send)
        response = await outgoing.shared.asend(request_key(request, body), sent, outgoing.deadline)
        outgoing.answered_with_copy = not sent.called
        return response

    return handle_async_request


class _Sent:
    """A request's ``send``, noting whether sharing called it (sent the request) or answered with a copy."""

    __slots__ = ("called", "_send")

    def __init__(self, send: Callable[[], Any]) -> None:
        self._send = send
        self.called = False

    def __call__(self) -> Any:
        self.called = True
        return self._send()


def copied(judgement: Judgement, outgoing: Outgoing) -> Judgement:
    """The judgement, marked ``shared`` when its answer was a copy of one the run already received.

    ``judgement`` was just read from this request's answer and nothing else holds it yet: marked in
    place, as ``_recording.checking.replayed`` marks a replayed one.
    """
    if outgoing.answered_with_copy:
        object.__setattr__(judgement, "shared", True)  # frozen: set once, before anyone sees it
    return judgement


# The most an answer's body may hold, as sent and once decompressed. A Jev answer is under a few KB
# (the model's name, one small object per question, the token usage), and an error's body is a line of
# JSON; a megabyte is hundreds of times that. Anything larger is not an answer to trust: a server or proxy
# adding to it (it would be recorded whole into the cassette: 50 MB took 30 s to write) or a compression
# bomb (200 MB from 200 KB of gzip). It is refused before it is read further, decompressed or parsed.
MAX_ANSWER_BYTES = 1 << 20


class AnswerTooLarge(Exception):
    """A response whose body is over ``MAX_ANSWER_BYTES`` (as sent, or decompressed): nothing of it is kept.

    Not one of httpx2's errors, so the SDK neither retries it nor calls it a failure to connect;
    ``_judge.failures`` names it for the citation.
    """

    def __init__(self, status: int, what: str) -> None:
        super().__init__(f"HTTP {status} response too large: {what}")
        self.status = status
        self.what = what  # "its body is over 1,048,576 bytes", and how that was seen


def _over(status: int, what: str, *, verb: str = "is") -> AnswerTooLarge:
    return AnswerTooLarge(status, f"its body {verb} over {MAX_ANSWER_BYTES:,} bytes ({what})")


def _declared_size(response: Any) -> None:
    """Refuse a body whose Content-Length is over the bound before a byte of it is read."""
    declared = response.headers.get("content-length", "")
    if declared.strip().isdigit() and int(declared) > MAX_ANSWER_BYTES:
        raise _over(response.status_code, f"Content-Length {int(declared):,}")


def _kept(size: int, part: bytes, status: int) -> int:
    """The body's size with one more piece of it; refused once it is over the bound."""
    size += len(part)
    if size > MAX_ANSWER_BYTES:
        raise _over(status, f"{size:,} bytes received, the rest not read")
    return size


def _read_through(response: Any) -> Any:
    """The response with its body read, so that the request holds its slot until the last byte.

    Read at most ``MAX_ANSWER_BYTES`` of it, and its decompressed size checked the same way.
    """
    parts: list[bytes] = []
    size = 0
    try:
        _declared_size(response)
        for part in response.stream:
            size = _kept(size, part, response.status_code)
            parts.append(part)
    except AnswerTooLarge as error:
        return _status_only(response, error)
    finally:
        response.stream.close()
    return _with_body(response, b"".join(parts))


async def _aread_through(response: Any) -> Any:
    parts: list[bytes] = []
    size = 0
    try:
        _declared_size(response)
        async for part in response.stream:
            size = _kept(size, part, response.status_code)
            parts.append(part)
    except AnswerTooLarge as error:
        return _status_only(response, error)
    finally:
        await response.stream.aclose()
    return _with_body(response, b"".join(parts))


def _decoded_size(response: Any, content: bytes) -> None:
    """Refuse a compressed body that decompresses to more than the bound, decompressing no further.

    httpx2's decoders yield at most a MiB at a time, so counting them as they come keeps the bound;
    a body they cannot decode is left to the reading that follows, which says so.
    """
    import httpx2

    if response.headers.get("content-encoding", "identity").strip().lower() == "identity":
        return
    probe = httpx2.Response(response.status_code, headers=response.headers, stream=httpx2.ByteStream(content))
    size = 0
    try:
        for piece in probe.iter_bytes():
            size += len(piece)
            if size > MAX_ANSWER_BYTES:
                encoding = response.headers.get("content-encoding")
                raise _over(
                    response.status_code,
                    f"from {len(content):,} bytes of {encoding}; decompressed no further",
                    verb="decompresses to",
                )
    except httpx2.DecodingError:
        return


def _status_only(response: Any, error: AnswerTooLarge) -> Any:
    """An error response (4xx, 5xx) whose body is over the bound, as its status and headers with a line in
    the body's place; any other is refused (``AnswerTooLarge``: never an answer to trust).

    An outage's page from a proxy can be large, and the status is what counts: the SDK retries a 429 or
    a 5xx and names any other error's status, as it would with the body. None of the body is kept (an
    error is never recorded): the headers that described it go with it, and a line saying so takes its place.
    """
    import httpx2

    if response.status_code < 400:
        raise error
    headers = [(name, value) for name, value in response.headers.multi_items() if name.lower() not in _BODY_HEADERS]
    # In the body's place, a line that says it is ours: the SDK's error shows the body, and "(no body)" would not be true.
    said = f"[pytest-citecheck: {error.what}; not read]".encode()
    shown = httpx2.Response(
        response.status_code,
        headers=[*headers, ("Content-Type", "text/plain; charset=utf-8")],
        stream=httpx2.ByteStream(said),
        extensions=response.extensions,
    )
    shown.read()
    return shown


# What describes a body a response no longer carries once ``_status_only`` leaves it out.
_BODY_HEADERS = frozenset({"content-length", "content-encoding", "transfer-encoding", "content-type"})


def _with_body(response: Any, content: bytes) -> Any:
    import httpx2

    try:
        _decoded_size(response, content)
    except AnswerTooLarge as error:
        return _status_only(response, error)
    read = httpx2.Response(
        response.status_code,
        headers=response.headers,
        stream=httpx2.ByteStream(content),
        extensions=response.extensions,
    )
    read.read()
    _unique_keys(read)
    return read


class DuplicateKey(Exception):
    """A 2xx answer whose JSON has a key twice in one object: which one counts is up to the reader.

    Python's ``json`` (and the SDK's reading) keeps the last, another reader may keep the first: two
    ``choice`` keys, or two ``answers``, are two answers, and neither is one to trust or record.
    ``_judge.failures`` names it for the citation; not an httpx2 error, so the SDK does not retry it.
    """

    def __init__(self, status: int, key: str) -> None:
        super().__init__(f"HTTP {status} response has the key {key!r} twice in one object")
        self.status = status
        self.key = key


def _refusing_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json``'s ``object_pairs_hook``: the object, or ``DuplicateKey`` for its first repeated key."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(0, key)
            seen.add(key)
    return found


def _unique_keys(response: Any) -> None:
    """Refuse a 2xx JSON answer with a repeated key (``DuplicateKey``), in any object of it.

    Only answers that were sent (a few KB, at most ``MAX_ANSWER_BYTES``) are read here, once more than
    the SDK reads them; replayed answers were refused here before they could be recorded. A body that
    is not JSON is left to the SDK's reading, which says so.
    """
    if not 200 <= response.status_code < 300:
        return
    try:
        json.loads(response.content, object_pairs_hook=_refusing_duplicates)
    except DuplicateKey as error:
        raise DuplicateKey(response.status_code, error.key) from None
    except (ValueError, RecursionError):
        return


# --- a script's checker: no cassette, so no recording seam ---------------------------------------


class _ScriptSends(WhileInFlight):
    """``limited`` and ``alimited`` around httpx2's HTTP transports while at least one request of a
    script's checker is in flight (its threads, or its tasks: ``WhileInFlight``), and what was there
    before put back after the last. What was there is kept only if nothing replaced the patch meanwhile."""

    def __init__(self) -> None:
        super().__init__()
        self._patched: list[tuple[type, str, Any, Any]] = []

    def _patch(self) -> None:
        import httpx2

        for cls, name, wrap in (
            (httpx2.HTTPTransport, "handle_request", limited),
            (httpx2.AsyncHTTPTransport, "handle_async_request", alimited),
        ):
            previous = cls.__dict__[name]
            patch = wrap(previous)
            setattr(cls, name, patch)
            self._patched.append((cls, name, previous, patch))

    def _unpatch(self) -> None:
        patched, self._patched = self._patched, []
        for cls, name, previous, patch in patched:
            if cls.__dict__.get(name) is patch:
                setattr(cls, name, previous)


_SCRIPT_SENDS = _ScriptSends()


def script_sends() -> contextlib.AbstractContextManager[None]:
    """Around one citation's request with no cassette (a script's checker): paced, shared when identical,
    and its answer read at most ``MAX_ANSWER_BYTES``, as the recording seam does in a pytest run."""
    return _SCRIPT_SENDS
