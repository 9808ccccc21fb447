"""``JevServer``: a Jev-compatible HTTP server on 127.0.0.1, and the answers it scripts.

It speaks the SDK's wire schema for ``POST /v1/systemone``: it checks for a bearer key, reads the
JSON body, and answers each question from a script (a function of the claim and section), with
latency and faults on demand. It keeps every request it received, so a test can count them.

Every 2xx answer whose body is a JSON object carries the rehearsal mark (``"rehearsal"``, see
``pytest_citecheck._rehearsal``): recorded into a cassette, it is refused when replayed unless the
run opts in (``--citecheck-rehearsal``), so a script's answers never pass for Jev's.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pytest_citecheck._rehearsal import marked

LABELS = ("supports", "contradicts", "says_nothing")
# The key the plugin gives the SDK when TYPESAFE_API_KEY is not set
# (``_pytest_glue.fixtures.REPLAY_ONLY_KEY``; a test keeps the two equal): enough to replay, and a sign of a forgotten key when recording.
REPLAY_PLACEHOLDER_KEY = "citecheck-replay-only"


@dataclass
class Reply:
    """A scripted HTTP reply: a status, a body (dict as JSON, or raw bytes), headers, a delay.

    A 2xx reply whose body is a dict is sent with the rehearsal mark added (``"rehearsal"``): a
    cassette recorded from it is refused when replayed unless the run opts in (``--citecheck-rehearsal``).
    ``rehearsal=False`` sends it unmarked: only for re-serving answers TypeSafe's Jev really gave
    (``examples/rfc7519/build_cassettes.py`` re-serves the cookbook's recorded answers), never for
    answers a script made up. Raw bytes are sent as given, unmarked: the whole body is the script's.
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    rehearsal: bool = True


@dataclass
class ReceivedRequest:
    path: str
    headers: dict[str, str]
    body: Any


def confidence_of(probabilities: dict[str, float]) -> float:
    """TypeSafe's Choice confidence: how far the top probability is above uniform, scaled to 0..1."""
    k = len(probabilities)
    top = max(probabilities.values())
    return round(max(0.0, (top - 1 / k) / (1 - 1 / k)), 2)


def probabilities_for(choice: str, top: float) -> dict[str, float]:
    """A distribution over the three labels with exactly ``top`` on ``choice`` and the rest shared.

    The other two get hundredths, as TypeSafe's are, when ``top`` has at most two decimals
    (0.93 -> 0.03 and 0.04); ``top`` itself is never rounded.
    """
    first, second = (label for label in LABELS if label != choice)
    share = round((1 - top) / 2, 2)
    values = {choice: top, first: share, second: round(1 - top - share, 10)}
    return {label: values[label] for label in LABELS}


def choice_answer(choice: str, top: float = 0.96) -> dict[str, Any]:
    probabilities = probabilities_for(choice, top)
    return {
        "type": "choice",
        "choice": choice,
        "probabilities": probabilities,
        "confidence": confidence_of(probabilities),
    }


Answerer = Callable[[str, str], "tuple[str, float] | Reply | dict[str, Any]"]


def _default_answer(claim: str, section: str) -> tuple[str, float]:
    return ("supports", 0.96)


# A yes/no (noul) question, such as pytest-citecheck's screen, gets ``screen(claim, section)``: the
# probability of "yes" as a float, or a full answer dict (to script a malformed one).
Screener = Callable[[str, str], "float | dict[str, Any]"]


def _default_screen(claim: str, section: str) -> float:
    return 0.02


# pytest-citecheck's yes/no questions whose "yes" is the benign answer (the flag is "no"): their default.
_BENIGN_QUESTIONS: dict[str, Screener] = {"best_section": lambda claim, section: 0.98}


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (a timeout under test) closes the socket before the late reply is
        # written: that is the scenario, not a server error worth a traceback.
        import sys

        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def _bearer(headers: Mapping[str, str]) -> str:
    """The key of a request's ``Authorization: Bearer <key>`` header ("" without one)."""
    auth = {name.lower(): value for name, value in headers.items()}.get("authorization", "")
    return auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else ""


class JevServer:
    """A threaded loopback server answering ``POST /v1/systemone``.

    ``answer(claim, section)`` returns ``(choice, top_probability)``, a full answer dict for the
    ``relation`` question, or a ``Reply`` (any status, body, headers, delay). ``model`` is what the
    response says answered (by default the requested model). ``latency`` delays every reply.
    ``screen(claim, section)`` answers any yes/no (noul) question in the same request, such as
    pytest-citecheck's screen: a probability of "yes" (default 0.02), or a full answer dict.
    A request whose bearer key is one of ``refused_keys`` gets a 401. ``port`` 0 picks a free one.
    ``questions`` scripts yes/no questions by name, the same way: ``questions={"out_of_context":
    lambda claim, section: 0.93}`` answers pytest-citecheck's ``out_of_context`` question, and
    ``screen`` answers the yes/no questions it does not name. Unscripted, every answer flags
    nothing: ``best_section``, whose "no" is the flag, gets 0.98 by default, the others ``screen``'s.
    """

    def __init__(
        self,
        answer: Answerer | None = None,
        *,
        model: str | None = None,
        latency: float = 0.0,
        key_required: bool = True,
        screen: Screener | None = None,
        questions: Mapping[str, Screener] | None = None,
        refused_keys: Collection[str] = (),
        port: int = 0,
    ) -> None:
        self.answer = answer or _default_answer
        self.model = model
        self.latency = latency
        self.key_required = key_required
        self.refused_keys = frozenset(refused_keys)
        self.port = port
        self.screen = screen or _default_screen
        self.questions = {**_BENIGN_QUESTIONS, **(questions or {})}
        self.requests: list[ReceivedRequest] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "start the server first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def systemone_requests(self) -> list[ReceivedRequest]:
        return [r for r in self.requests if r.path.endswith("/v1/systemone")]

    def start(self) -> JevServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # One buffered write per reply, sent at once: headers and body written separately meet
            # Nagle's algorithm and delayed ACKs, which add ~40 ms to every request on loopback.
            wbufsize = -1
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                reply = server._handle(self.path, dict(self.headers.items()), raw)
                if reply.delay:
                    time.sleep(reply.delay)
                body = marked(reply.body) if reply.rehearsal and 200 <= reply.status < 300 else reply.body
                payload = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(reply.status)
                self.send_header("content-type", reply.headers.pop("content-type", "application/json"))
                self.send_header("x-typesafe-request-id", f"req-{len(server.requests)}")
                self.send_header("content-length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

        self._server = _QuietServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        # Polled every 50 ms, not every 500 (socketserver's default): stop() waits for the next poll,
        # and a suite starts and stops a server for many of its tests.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="jev-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            host, port = self._server.server_address[:2]
            self._server.shutdown()
            self._server.server_close()
            self._server = None
            # Its port is not asked again: the run limiter's files for it go (``_judge.pacing.forget_server``).
            from pytest_citecheck._judge.pacing import forget_server, origin_key

            forget_server(origin_key("http", str(host), int(port)))

    def __enter__(self) -> JevServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _handle(self, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        with self._lock:
            self.requests.append(ReceivedRequest(path, headers, body))
        refusal = self._refusal(path, headers, body)
        if refusal is not None:
            return refusal
        state = body["state"]
        outcome = self.answer(state.get("claim", ""), state.get("section", ""))
        if isinstance(outcome, Reply):
            outcome.delay += self.latency
            return outcome
        answer = choice_answer(*outcome) if isinstance(outcome, tuple) else outcome
        tokens = (len(json.dumps(state)) + len(json.dumps(body["questions"]))) // 4
        return Reply(
            200,
            {
                "model": self.model or body.get("model") or "jev-1.13.0",
                "answers": {
                    name: self._answer_for(question, answer, state, name)
                    for name, question in body["questions"].items()
                },
                "usage": {"input_tokens": tokens, "output_tokens": 40},
            },
            delay=self.latency,
        )

    def _refusal(self, path: str, headers: dict[str, str], body: Any) -> Reply | None:
        """The error a request gets before any question is answered: its path, key or body; None if none."""
        if not path.endswith("/v1/systemone"):
            return Reply(404, {"detail": "Not Found"})
        auth = {k.lower(): v for k, v in headers.items()}.get("authorization", "")
        if self.key_required and not auth.startswith("Bearer ") or auth == "Bearer ":
            return Reply(401, {"detail": "Invalid API key"})
        if _bearer(headers) in self.refused_keys:
            return Reply(401, {"detail": "this key is refused by this server (a placeholder, not a real key)"})
        if not isinstance(body, dict) or not isinstance(body.get("state"), dict) or "questions" not in body:
            return Reply(422, {"detail": [{"loc": ["body"], "msg": "invalid request", "type": "value_error"}]})
        return None

    def _answer_for(
        self, question: Any, relation_answer: dict[str, Any], state: dict[str, Any], name: str = ""
    ) -> dict[str, Any]:
        """A Choice question gets the scripted answer; a yes/no (noul) question its script in ``questions``, else ``screen``'s."""
        if isinstance(question, dict) and question.get("type") == "noul":
            script = self.questions.get(name, self.screen)
            outcome = script(state.get("claim", ""), state.get("section", ""))
            return outcome if isinstance(outcome, dict) else {"type": "noul", "noul": outcome}
        return relation_answer
