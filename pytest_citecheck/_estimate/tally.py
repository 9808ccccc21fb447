"""What an estimate run counts: per test (``TestTally``), then per module and in total (``RunEstimate``).

Tokens are estimated from the request body the SDK would send (built by the real typesafe-sdk and
caught at its HTTP transport): one token per ``BYTES_PER_TOKEN`` UTF-8 bytes of the body, plus
``FRAMING_TOKENS`` per request for what Jev adds around it. On the cookbook's seven recorded
requests (``examples/rfc7519``) this over-counts Jev's reported input tokens by 6 to 28%: an upper
estimate, like ``_limits``' check of the request limits. Output tokens are ``OUTPUT_TOKENS_PER_QUESTION``
per question asked (Jev answered the cookbook's relation question in 39 to 42).

Identical requests (same method, endpoint and body: the same model, claim, section and questions; and
the same URL, key and headers, as a record run shares answers: ``_judge.sharing``) are counted once per run, in the first module (by name) that asks them, wherever they
were asked (another xdist worker included): a record run sends each once.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_citecheck._limits import BYTES_PER_TOKEN
from pytest_citecheck._text import plural, render_table

FRAMING_TOKENS = 200
OUTPUT_TOKENS_PER_QUESTION = 50
TOKEN_RULE = (
    f"one token per {BYTES_PER_TOKEN} bytes of each request body as the SDK builds it, plus {FRAMING_TOKENS} per "
    f"request; {OUTPUT_TOKENS_PER_QUESTION} output tokens per question"
)


def input_tokens(body: bytes) -> int:
    """The estimated input tokens of one request with this body."""
    return math.ceil(len(body) / BYTES_PER_TOKEN) + FRAMING_TOKENS


def output_tokens(parsed: Any) -> int:
    """The estimated output tokens of the answer to a request (``parsed``: its JSON body)."""
    questions = parsed.get("questions") if isinstance(parsed, dict) else None
    return OUTPUT_TOKENS_PER_QUESTION * max(1, len(questions) if isinstance(questions, dict) else 1)


def request_digest(method: str, endpoint: str, key: str) -> str:
    """A short digest of a request as the cassettes match it (``matching.request_key``): equal for identical requests."""
    return hashlib.sha256(f"{method}\0{endpoint}\0{key}".encode()).hexdigest()[:20]


@dataclass
class TestTally:
    """What one test's checks would have sent, replayed, or missed (sent to the controller on its report)."""

    __test__ = False  # not a pytest test class, whatever its name

    module: str
    sent: list[list[Any]] = field(default_factory=list)  # [digest, input tokens, output tokens] each
    replayed: int = 0
    unrecorded: int = 0  # misses a record run would not send either (record mode none, or once on a file)
    not_judged: int = 0  # checks skipped because they would have sent a request
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def would_send(self, digest: str, tokens_in: int, tokens_out: int) -> None:
        with self._lock:
            self.sent.append([digest, tokens_in, tokens_out])

    def add(self, name: str) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + 1)

    def take(self) -> dict[str, Any] | None:
        """What was counted since the last ``take``, as plain data (None when nothing was)."""
        with self._lock:
            if not (self.sent or self.replayed or self.unrecorded or self.not_judged):
                return None
            taken = {
                "module": self.module,
                "sent": self.sent,
                "replayed": self.replayed,
                "unrecorded": self.unrecorded,
                "not_judged": self.not_judged,
            }
            self.sent, self.replayed, self.unrecorded, self.not_judged = [], 0, 0, 0
            return taken


@dataclass
class ModuleCounts:
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    replayed: int = 0
    unrecorded: int = 0
    not_judged: int = 0

    def plus(self, other: ModuleCounts) -> ModuleCounts:
        return ModuleCounts(*(a + b for a, b in zip(self.astuple(), other.astuple())))

    def astuple(self) -> tuple[int, ...]:
        return (
            self.requests,
            self.input_tokens,
            self.output_tokens,
            self.replayed,
            self.unrecorded,
            self.not_judged,
        )


class RunEstimate:
    """The run's estimate, from every test's tally (this process's, or an xdist worker's on its report)."""

    def __init__(self, record_mode: str, input_price: float, output_price: float) -> None:
        self.record_mode = record_mode
        self.prices = (input_price, output_price)
        # digest -> (input tokens, output tokens, the modules that asked it)
        self._requests: dict[str, tuple[int, int, set[str]]] = {}
        self._asked = 0
        self._other: dict[str, ModuleCounts] = {}

    def extend(self, taken: Mapping[str, Any]) -> None:
        """Add one test's ``TestTally.take()``."""
        module = str(taken.get("module", "?"))
        counts = self._other.setdefault(module, ModuleCounts())
        counts.replayed += int(taken.get("replayed", 0))
        counts.unrecorded += int(taken.get("unrecorded", 0))
        counts.not_judged += int(taken.get("not_judged", 0))
        for digest, tokens_in, tokens_out in taken.get("sent", ()):
            self._asked += 1
            entry = self._requests.setdefault(str(digest), (int(tokens_in), int(tokens_out), set()))
            entry[2].add(module)

    @property
    def not_judged(self) -> int:
        return sum(counts.not_judged for counts in self._other.values())

    @property
    def duplicates(self) -> int:
        """Requests asked again (in the same or another test) that a record run sends once."""
        return self._asked - len(self._requests)

    def by_module(self) -> dict[str, ModuleCounts]:
        """The counts of each module, sorted by name; each distinct request in the first module that asked it."""
        modules = {name: ModuleCounts(*counts.astuple()) for name, counts in self._other.items()}
        for tokens_in, tokens_out, asked_by in self._requests.values():
            counts = modules.setdefault(min(asked_by), ModuleCounts())
            counts.requests += 1
            counts.input_tokens += tokens_in
            counts.output_tokens += tokens_out
        return dict(sorted(modules.items()))

    def dollars(self, counts: ModuleCounts) -> float:
        input_price, output_price = self.prices
        return (counts.input_tokens * input_price + counts.output_tokens * output_price) / 1_000_000

    def total(self, modules: Iterable[ModuleCounts]) -> ModuleCounts:
        total = ModuleCounts()
        for counts in modules:
            total = total.plus(counts)
        return total

    def to_json(self) -> dict[str, Any]:
        """The ``estimate`` section of the JSON report."""
        modules = self.by_module()

        def entry(counts: ModuleCounts) -> dict[str, Any]:
            return {
                "requests": counts.requests,
                "input_tokens": counts.input_tokens,
                "output_tokens": counts.output_tokens,
                "dollars": round(self.dollars(counts), 6),
                "replayed": counts.replayed,
                "unrecorded": counts.unrecorded,
                "checks_not_judged": counts.not_judged,
            }

        return {
            "sent": 0,  # an estimate run sends nothing
            "record_mode": self.record_mode,
            "price_per_million_tokens": {"input": self.prices[0], "output": self.prices[1]},
            "tokens": TOKEN_RULE,
            "identical_requests_counted_once": self.duplicates,
            "modules": [{"module": name, **entry(counts)} for name, counts in modules.items()],
            "total": entry(self.total(modules.values())),
        }

    def lines(self) -> list[str]:
        """The terminal summary: a table per test module and the total, then what the figures mean."""
        modules = self.by_module()
        total = self.total(modules.values())
        header = ["module", "requests", "input tokens", "output tokens", "dollars", "replayed", "unrecorded"]
        rows = [header] + [[name, *self._cells(counts)] for name, counts in modules.items()]
        rows.append(["total", *self._cells(total)])
        lines = [
            f"Nothing was sent. A record run (record mode {self.record_mode}) would send "
            f"{plural(total.requests, 'Jev request')}: "
            f"{total.input_tokens:,} input and {total.output_tokens:,} output tokens, {_dollars(self.dollars(total))}.",
            *render_table(rows, right=range(1, 7)),
        ]
        return lines + self._notes(total)

    def _cells(self, counts: ModuleCounts) -> list[str]:
        return [
            f"{counts.requests:,}",
            f"{counts.input_tokens:,}",
            f"{counts.output_tokens:,}",
            _dollars(self.dollars(counts)),
            f"{counts.replayed:,}",
            f"{counts.unrecorded:,}",
        ]

    def _notes(self, total: ModuleCounts) -> list[str]:
        input_price, output_price = self.prices
        notes = [
            f"Price: ${input_price:g} per million input tokens, ${output_price:g} per million output tokens "
            "(--citecheck-estimate-input-price, --citecheck-estimate-output-price).",
            f"Tokens are an upper estimate: {TOKEN_RULE}.",
        ]
        if self.duplicates:
            notes.append(f"{plural(self.duplicates, 'identical request')} counted once (a record run sends each once).")
        if total.replayed:
            notes.append(f"Replayed: answered from cassettes, free; {plural(total.replayed, 'request')}.")
        if total.unrecorded:
            notes.append(
                f"Unrecorded: {plural(total.unrecorded, 'request')} with no recording that record mode "
                f"{self.record_mode} would not send either (their tests fail as cassette misses); "
                "estimate with --citecheck-record-mode=once, new_episodes or rewrite."
            )
        if total.not_judged:
            notes.append(
                f"{plural(total.not_judged, 'check')} would have sent a request: skipped with no verdict, and the run exits 1."
            )
        return notes


def _dollars(amount: float) -> str:
    return f"${amount:,.6f}"
