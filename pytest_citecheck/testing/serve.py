"""``citecheck serve`` (also ``python -m pytest_citecheck.testing``): the rehearsal server as a command."""

from __future__ import annotations

import argparse
import os
import signal
import stat
import sys
import threading
from collections.abc import Sequence
from typing import Any

from pytest_citecheck._errors import docs_url
from pytest_citecheck.testing.answers import AnswersError, AnswersFile
from pytest_citecheck.testing.server import REPLAY_PLACEHOLDER_KEY, Answerer, JevServer, Reply, _bearer

DESCRIPTION = """\
A Jev-compatible server on 127.0.0.1, for rehearsing a recording without a key.

Prints its base URL (the first line of its output), then serves until Ctrl-C or SIGTERM (or until
its standard input closes, when that is a pipe: a parent process stops it so). Answers come from
--answers (a JSON table of claim -> answer, read again whenever the file changes), else "supports"
with probability 0.96. --require-real-key refuses the placeholder key the plugin uses when
TYPESAFE_API_KEY is not set, so a rehearsal catches a forgotten key. --latency delays every reply
(to rehearse concurrency); --limit-first N answers the first N requests with 429 and --retry-after.
Every answer carries the field "rehearsal" (kept in the cassette, under its digest): a run that
records or replays it fails that citation unless it opts in with --citecheck-rehearsal.
"""


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add = parser.add_argument
    add(
        "--answers",
        metavar="FILE",
        help="a JSON object of claim -> answer, read again when it changes (see "
        + docs_url("cassettes", "rehearse-recording-without-a-key")
        + ")",
    )
    add("--port", type=int, default=0, help="the port to listen on, on 127.0.0.1 (default: a free one)")
    add(
        "--require-real-key",
        action="store_true",
        help=f"answer 401 to the plugin's placeholder key ({REPLAY_PLACEHOLDER_KEY!r}: TYPESAFE_API_KEY not set)",
    )
    add("--latency", type=_milliseconds, default=0.0, metavar="MS", help="milliseconds added to every reply")
    add("--model", default=None, help="the model the replies name (default: the one requested)")
    add("--limit-first", type=int, default=0, metavar="N", help="answer the first N requests with 429")
    add("--retry-after", type=float, default=1.0, metavar="S", help="the 429s' Retry-After, in seconds")
    return parser


def _milliseconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of milliseconds, 0 or more; got {text!r}")
    return value


def _log(message: str) -> None:
    print(f"jev-server: {message}", file=sys.stderr, flush=True)


def _answerer(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Answerer:
    """The answers table (if any), behind the first ``--limit-first`` requests' 429s."""
    scripted: Answerer = lambda claim, section: ("supports", 0.96)  # noqa: E731
    if args.answers is not None:
        try:
            scripted = AnswersFile(args.answers, _log).answer
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

    return answer


def _stop_event() -> threading.Event:
    """Set by Ctrl-C, SIGTERM, or the end of standard input when a parent holds it through a pipe."""
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
    return stop


def main(argv: Sequence[str] | None = None, prog: str = "citecheck serve") -> int:
    """Serve until stopped (see ``DESCRIPTION``); 2 for bad arguments, an unusable table or a port in use."""
    parser = _parser(prog)
    args = parser.parse_args(argv)
    answer = _answerer(args, parser)
    refused = {REPLAY_PLACEHOLDER_KEY} if args.require_real_key else set()
    stop = _stop_event()
    server = JevServer(answer, model=args.model, latency=args.latency / 1000, refused_keys=refused, port=args.port)
    try:
        server.start()
    except OSError as error:
        parser.error(f"cannot listen on 127.0.0.1:{args.port}: {error.strerror or error}")
    try:
        print(server.url, flush=True)
        latency = f", replying after {args.latency:g} ms" if args.latency else ""
        _log(
            f"serving at {server.url}{latency}; point the SDK at it with TYPESAFE_BASE_URL={server.url} (Ctrl-C stops it)"
        )
        while not stop.wait(0.5):  # a timeout, so a signal is handled promptly on every platform
            pass
    finally:
        server.stop()
    refusals = sum(1 for request in server.systemone_requests if _bearer(request.headers) in refused)
    if refusals:
        _log(
            f"refused {_requests(refusals)} made with the placeholder key: TYPESAFE_API_KEY was not set in the pytest run"
        )
    print(f"served {len(server.systemone_requests)} requests", file=sys.stderr)
    return 0


def _requests(count: int) -> str:
    return "one request" if count == 1 else f"{count} requests"
