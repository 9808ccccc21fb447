"""A Jev-compatible HTTP server on 127.0.0.1, for rehearsing the record path without TypeSafe's API.

``JevServer`` speaks the SDK's wire schema for ``POST /v1/systemone``: it checks for a bearer key,
reads the JSON body, and answers each question from a script you give it (a function of the
claim and section, or a fixed table), with latency and faults on demand. It keeps every request it
received, so a test can count them. pytest-citecheck's own suite records through it.

To rehearse recording your own suite, run it as a command and point the SDK at it (docs/cassettes.md,
"Rehearse recording without a key")::

    $ python -m pytest_citecheck.testing --answers answers.json --port 8765 --require-real-key &
    $ TYPESAFE_BASE_URL=http://127.0.0.1:8765 TYPESAFE_API_KEY=rehearsal \\
          pytest --citecheck-record-mode=rewrite --citecheck-cassette-dir=rehearsal-cassettes

In a test of your own, start it in a fixture (``monkeypatch`` is that test's)::

    @pytest.fixture
    def jev(monkeypatch):
        with JevServer(answer=lambda claim, section: ("supports", 0.95)) as server:
            monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
            monkeypatch.setenv("TYPESAFE_API_KEY", "rehearsal")
            yield server

Nothing here is imported by the plugin itself.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pytest_citecheck._errors import docs_url

LABELS = ("supports", "contradicts", "says_nothing")
# The key the plugin gives the SDK when TYPESAFE_API_KEY is not set
# (``_pytest_glue.fixtures.REPLAY_ONLY_KEY``; a test keeps the two equal): enough to replay, and a sign of a forgotten key when recording.
REPLAY_PLACEHOLDER_KEY = "citecheck-replay-only"


@dataclass
class Reply:
    """A scripted HTTP reply: a status, a body (dict as JSON, or raw bytes), headers, a delay."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


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
                payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
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
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> JevServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _handle(self, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        with self._lock:
            self.requests.append(ReceivedRequest(path, headers, body))
        if not path.endswith("/v1/systemone"):
            return Reply(404, {"detail": "Not Found"})
        auth = {k.lower(): v for k, v in headers.items()}.get("authorization", "")
        if self.key_required and not auth.startswith("Bearer ") or auth == "Bearer ":
            return Reply(401, {"detail": "Invalid API key"})
        if _bearer(headers) in self.refused_keys:
            return Reply(401, {"detail": "this key is refused by this server (a placeholder, not a real key)"})
        if not isinstance(body, dict) or not isinstance(body.get("state"), dict) or "questions" not in body:
            return Reply(422, {"detail": [{"loc": ["body"], "msg": "invalid request", "type": "value_error"}]})
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

    def _answer_for(
        self, question: Any, relation_answer: dict[str, Any], state: dict[str, Any], name: str = ""
    ) -> dict[str, Any]:
        """A Choice question gets the scripted answer; a yes/no (noul) question its script in ``questions``, else ``screen``'s."""
        if isinstance(question, dict) and question.get("type") == "noul":
            script = self.questions.get(name, self.screen)
            outcome = script(state.get("claim", ""), state.get("section", ""))
            return outcome if isinstance(outcome, dict) else {"type": "noul", "noul": outcome}
        return relation_answer


class AnswersError(ValueError):
    """An answers table that cannot be used, naming the claim and what is wrong with its entry."""


# The claim of the answers table's catch-all entry, used for every claim the table does not list.
ANY_CLAIM = "*"


def _answer_entry(claim: str, entry: Any) -> dict[str, Any]:
    """One answers-table entry as the ``relation`` answer it scripts (its probabilities as given)."""
    where = f"answers table, claim {claim!r}"
    if isinstance(entry, str):
        entry = {"choice": entry}
    elif isinstance(entry, list):
        if len(entry) != 2:
            raise AnswersError(f"{where}: a list entry is [choice, probability], got {entry!r}")
        entry = {"choice": entry[0], "probability": entry[1]}
    if not isinstance(entry, dict):
        raise AnswersError(f"{where}: expected a choice, [choice, probability] or an object, got {entry!r}")
    unknown = set(entry) - {"choice", "probability", "probabilities"}
    if unknown:
        raise AnswersError(f"{where}: unknown field {sorted(unknown)[0]!r} (choice, probability, probabilities)")
    choice = entry.get("choice")
    if choice not in LABELS:
        raise AnswersError(f"{where}: field 'choice' must be one of {', '.join(LABELS)}; got {choice!r}")
    if "probabilities" in entry:
        probabilities = entry["probabilities"]
        if (
            not isinstance(probabilities, dict)
            or set(probabilities) != set(LABELS)
            or not all(_is_probability(value) for value in probabilities.values())
        ):
            raise AnswersError(
                f"{where}: field 'probabilities' must give each of {', '.join(LABELS)} a number from 0 to 1; "
                f"got {probabilities!r}"
            )
        if max(probabilities, key=probabilities.__getitem__) != choice:
            raise AnswersError(f"{where}: field 'probabilities' puts the most on another label than {choice!r}")
        probabilities = {label: float(probabilities[label]) for label in LABELS}
    else:
        top = entry.get("probability", 0.96)
        if not _is_probability(top) or top <= 1 / len(LABELS):
            raise AnswersError(f"{where}: field 'probability' must be a number above 1/3 and at most 1; got {top!r}")
        probabilities = probabilities_for(choice, float(top))
    return {
        "type": "choice",
        "choice": choice,
        "probabilities": probabilities,
        "confidence": confidence_of(probabilities),
    }


def _is_probability(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and 0 <= value <= 1


def load_answers(path: str) -> dict[str, dict[str, Any]]:
    """Read an answers table: a JSON object mapping each claim (``"*"``: any other) to its answer.

    An answer is a choice (``"supports"``, ``"contradicts"``, ``"says_nothing"``; probability 0.96),
    ``[choice, probability]`` (the probability of that choice, kept exactly), or
    ``{"choice": ..., "probabilities": {label: p, ...}}`` (kept exactly). Raises ``AnswersError``.
    """
    try:
        with open(path, encoding="utf-8") as file:
            table = json.load(file)
    except OSError as error:
        raise AnswersError(f"cannot read the answers table {path}: {error.strerror or error}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise AnswersError(f"the answers table {path} is not JSON ({error})") from None
    if not isinstance(table, dict) or not table:
        raise AnswersError(f"the answers table {path} must be a JSON object mapping claims to answers")
    return {claim.strip(): _answer_entry(claim, entry) for claim, entry in table.items()}


def table_answerer(answers: Mapping[str, dict[str, Any]], log: Callable[[str], None]) -> Answerer:
    """Answers each claim from ``answers``; a claim it does not list gets ``"*"``'s answer, or a 422 naming it."""

    def answer(claim: str, section: str) -> dict[str, Any] | Reply:
        scripted = answers.get(claim.strip(), answers.get(ANY_CLAIM))
        if scripted is None:
            log(f"no answer for claim {claim!r}: answered 422 (add it to the answers table, or a {ANY_CLAIM!r} entry)")
            return Reply(422, {"detail": f"the answers table has no answer for the claim {claim!r}"})
        log(f"{scripted['choice']} {scripted['probabilities'][scripted['choice']]!r} for claim {claim!r}")
        return dict(scripted)

    return answer


def main(argv: list[str] | None = None) -> int:
    """``python -m pytest_citecheck.testing``: a Jev-compatible server on 127.0.0.1, for rehearsing a recording.

    Prints its base URL (the first line of its output), then serves until Ctrl-C or SIGTERM (or until
    its standard input closes, when that is a pipe: a parent process stops it so). Answers come from
    ``--answers`` (a JSON table of claim -> answer), else "supports" with probability 0.96.
    ``--require-real-key`` refuses the placeholder key the plugin uses when TYPESAFE_API_KEY is not
    set, so a rehearsal catches a forgotten key. For benchmarks: ``--latency`` delays every reply,
    ``--limit-first N`` answers the first N requests with 429 and ``--retry-after`` seconds.
    """
    import argparse
    import os
    import signal
    import stat
    import sys

    parser = argparse.ArgumentParser(
        prog="python -m pytest_citecheck.testing",
        description=main.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--answers",
        metavar="FILE",
        help="a JSON object of claim -> answer (see " + docs_url("cassettes", "rehearse-recording-without-a-key") + ")",
    )
    parser.add_argument("--port", type=int, default=0, help="the port to listen on, on 127.0.0.1 (default: a free one)")
    parser.add_argument(
        "--require-real-key",
        action="store_true",
        help=f"answer 401 to the plugin's placeholder key ({REPLAY_PLACEHOLDER_KEY!r}: TYPESAFE_API_KEY not set)",
    )
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every reply")
    parser.add_argument("--model", default=None, help="the model the replies name (default: the one requested)")
    parser.add_argument("--limit-first", type=int, default=0, metavar="N", help="answer the first N requests with 429")
    parser.add_argument("--retry-after", type=float, default=1.0, metavar="S", help="the 429s' Retry-After, in seconds")
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(f"jev-server: {message}", file=sys.stderr, flush=True)

    scripted: Answerer = _default_answer
    if args.answers is not None:
        try:
            scripted = table_answerer(load_answers(args.answers), log)
        except AnswersError as error:
            parser.error(str(error))
    counter = {"n": 0}
    lock = threading.Lock()

    def answer(claim: str, section: str) -> tuple[str, float] | Reply | dict[str, Any]:
        with lock:
            counter["n"] += 1
            limited = counter["n"] <= args.limit_first
        if limited:
            return Reply(429, {"detail": "Too many requests"}, {"retry-after": f"{args.retry_after:g}"})
        return scripted(claim, section)

    refused = {REPLAY_PLACEHOLDER_KEY} if args.require_real_key else set()
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    if stat.S_ISFIFO(os.fstat(sys.stdin.fileno()).st_mode):
        # A parent holding our stdin (benchmarks, tests) stops us by closing it; a terminal or
        # /dev/null (a background job) does not, so Ctrl-C and SIGTERM are what stop us there.
        def until_stdin_closes() -> None:
            sys.stdin.read()
            stop.set()

        threading.Thread(target=until_stdin_closes, daemon=True).start()
    try:
        server = JevServer(answer, model=args.model, latency=args.latency, refused_keys=refused, port=args.port)
        server.start()
    except OSError as error:
        parser.error(f"cannot listen on 127.0.0.1:{args.port}: {error.strerror or error}")
    try:
        print(server.url, flush=True)
        log(f"serving at {server.url}; point the SDK at it with TYPESAFE_BASE_URL={server.url} (Ctrl-C stops it)")
        while not stop.wait(0.5):  # a timeout, so a signal is handled promptly on every platform
            pass
    finally:
        server.stop()
    refusals = sum(1 for request in server.systemone_requests if _bearer(request.headers) in refused)
    if refusals:
        log(
            f"refused {plural_requests(refusals)} made with the placeholder key: "
            "TYPESAFE_API_KEY was not set in the pytest run"
        )
    print(f"served {len(server.systemone_requests)} requests", file=sys.stderr)
    return 0


def plural_requests(count: int) -> str:
    return "one request" if count == 1 else f"{count} requests"


if __name__ == "__main__":
    raise SystemExit(main())
