"""Within Jev's limits for the whole run: a token bucket and a bound on requests in flight, shared by every process.

Jev allows 1,200 requests a minute and 250,000 tokens a second (429 beyond). Every request that
really leaves the process (never a replayed one: ``_judge.outgoing`` sits below the cassette) first
takes one of ``concurrency`` slots, then reserves its place in the bucket, sleeps until then, and
holds its slot until the whole answer is read. What the processes of a run share is on disk, in this
user's lock directory (``_files.locks_directory``: ``$TMPDIR/pytest-citecheck-locks-<uid>``), keyed
by the server (scheme, host and port), so every xdist worker and every pytest process of this user on
this machine that asks the same server shares one budget:

- ``rate-<key>.json``, the bucket, read and rewritten under a file lock (``_files.interprocess_lock``'s file,
  taken by ``_judge.slots``):
  for requests and for tokens, the time at which the bucket would be full again (the "theoretical
  arrival time" of the generic cell rate algorithm), and the rate that time was reckoned at: a
  process held to another rate reckons the same debt (requests, tokens) at its own;
- ``inflight-<key>-<n>.lock``, ``n`` below ``concurrency``: one file lock per request in flight. The
  system releases a lock whose process dies, so a crashed worker never keeps a slot.

A state file that is not JSON (a process died while writing it) is started afresh: the worst that
costs is one burst. One that cannot be used at all (a directory, a device, not writable) fails the
citation naming the file and what to do (``LimiterStateError``), never a hang.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import stat
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from hashlib import sha256
from pathlib import Path
from typing import Any

from pytest_citecheck._files import (
    LockUnavailableError,
    UnreadableFileError,
    checked_locks_directory,
    lock_path_for,
    locks_directory,
    read_regular_file,
)
from pytest_citecheck._judge.slots import Slot, locked, try_slot
from pytest_citecheck._judge.sweeping import sweep_if_due
from pytest_citecheck._limits import BYTES_PER_TOKEN

STATE_VERSION = 1
# A bucket whose next free time is more than this far ahead of the clock was written before the clock
# was set back (or before a reboot): no legitimate reservation waits that long, so it starts afresh.
STALE_AHEAD_SECONDS = 3600.0
# Beside each bucket's time, the rate (per second) it was written at: ``requests_rate``, ``tokens_rate``.
RATE_SUFFIX = "_rate"
# How often a request waiting for a free slot looks again: from the first, doubling, up to the last.
SLOT_POLL_SECONDS = (0.002, 0.05)


@dataclass(frozen=True)
class Pacing:
    """The limits one request is held to (options ``max_rpm``, ``max_tokens_per_second``, ``concurrency``).

    None switches a rate off. A burst is at most ``concurrency`` requests, and at most the tokens of
    the same span of time (``burst_seconds``) at ``max_tokens_per_second``.
    """

    max_rpm: int | None
    max_tokens_per_second: int | None
    concurrency: int

    @property
    def rated(self) -> bool:
        """Whether a rate applies at all (with both off, only the bound on requests in flight does)."""
        return bool(self.max_rpm or self.max_tokens_per_second)

    @property
    def burst_seconds(self) -> float:
        """The bucket's depth, in seconds of its rate: ``concurrency`` requests at ``max_rpm`` (1 s without one)."""
        return self.concurrency * 60.0 / self.max_rpm if self.max_rpm else 1.0

    def rates(self) -> dict[str, float]:
        """Each rate switched on, per second, by the name of its bucket."""
        rates: dict[str, float] = {}
        if self.max_rpm:
            rates["requests"] = self.max_rpm / 60.0
        if self.max_tokens_per_second:
            rates["tokens"] = float(self.max_tokens_per_second)
        return rates

    def costs(self, tokens: int) -> dict[str, float]:
        """Seconds of each rate this request uses up, by the name of its bucket (none for a rate switched off)."""
        costs: dict[str, float] = {}
        if self.max_rpm:
            costs["requests"] = 60.0 / self.max_rpm
        if self.max_tokens_per_second:
            costs["tokens"] = tokens / self.max_tokens_per_second
        return costs


def estimated_tokens(body_bytes: int) -> int:
    """A request's tokens, from the size of its JSON body: one per ``BYTES_PER_TOKEN`` (3) bytes, rounded up.

    The body holds the claim, the section, the questions and their JSON framing. Jev counts about one
    token per four characters of English, so this over-counts by about a third: the bucket errs on the
    slow side. Jev's answer is a few dozen tokens and is not counted.
    """
    return math.ceil(body_bytes / BYTES_PER_TOKEN)


class LimiterStateError(Exception):
    """The shared state of the rate limiter cannot be used: it names the file, the cause and the remedy."""

    def __init__(self, path: Path, reason: str, remedy: str | None = None, *, cause: str | None = None) -> None:
        self.path = path
        self.cause = cause or f"the rate limiter's shared state {path} cannot be used ({reason})"
        self.remedy = remedy or (
            f"remove {path} (pytest-citecheck makes it again), or set TMPDIR to a directory of your own; "
            "it is shared by every pytest process of this user that asks the same server"
        )
        super().__init__(f"{self.cause}; {self.remedy}")

    @classmethod
    def of_directory(cls, error: LockUnavailableError) -> LimiterStateError:
        """The lock directory, where the shared state lives, cannot be used (``_files``)."""
        cause = f"{error}, where the run's rate limiter keeps its shared state"
        return cls(error.directory, error.reason, error.remedy, cause=cause)


def server_key(url: Any) -> str:
    """The shared files' key for a request's server: its scheme, host and port, digested (the rest may hold a credential)."""
    return origin_key(url.scheme, url.host, url.port)


def origin_key(scheme: str, host: str, port: int | None) -> str:
    """``server_key`` of the server at ``scheme://host:port``."""
    return sha256(f"{scheme}://{host}:{port}".encode()).hexdigest()[:20]


def forget_server(key: str) -> None:
    """Remove the shared files of the server of ``key``: its bucket, the bucket's lock and its slots.

    For a server that is gone for good: the loopback rehearsal server (``testing.JevServer``) when it
    stops, whose port is not asked again; a suite starting one per test would otherwise leave ten
    files a test in the lock directory. Only regular files, and quietly: what cannot go stays.
    """
    directory = locks_directory()
    state = directory / f"rate-{key}.json"
    try:
        found = [state, lock_path_for(state), *directory.glob(f"inflight-{key}-*.lock")]
    except (OSError, RuntimeError):  # no such directory, or a loop of links where it should be
        return
    for path in found:
        with contextlib.suppress(OSError):
            if stat.S_ISREG(os.lstat(path).st_mode):
                path.unlink()


def state_path(key: str) -> Path:
    """The bucket's file for the server of ``key``."""
    return _directory() / f"rate-{key}.json"


def slot_path(key: str, slot: int) -> Path:
    return _directory() / f"inflight-{key}-{slot}.lock"


def _directory() -> Path:
    try:
        directory = checked_locks_directory()
    except LockUnavailableError as error:
        raise LimiterStateError.of_directory(error) from None
    sweep_if_due(directory)  # once a process, and once a day: what no one touched for a day goes
    return directory


# --- the bucket -----------------------------------------------------------------------------------


def schedule(state: dict[str, float], now: float, pacing: Pacing, tokens: int) -> tuple[float, dict[str, float]]:
    """When a request of ``tokens`` may be sent, and the bucket after it (the generic cell rate algorithm).

    ``state`` holds, for each rate, the time at which its bucket is full again. A request costing
    ``cost`` seconds of a rate may go once at most ``burst_seconds - cost`` of debt remain ahead of it;
    one costing more than the whole bucket goes once the bucket is full. It goes when every rate allows.
    """
    depth = pacing.burst_seconds
    costs = pacing.costs(tokens)
    state = at_these_rates(state, now, pacing.rates())
    send_at = now
    for name, cost in costs.items():
        full_at = state.get(name, now)
        send_at = max(send_at, full_at - max(0.0, depth - cost))
    after = {name: max(state.get(name, now), send_at) + cost for name, cost in costs.items()}
    return send_at, {**state, **after, **{f"{name}{RATE_SUFFIX}": rate for name, rate in pacing.rates().items()}}


def at_these_rates(state: dict[str, float], now: float, rates: dict[str, float]) -> dict[str, float]:
    """``state`` with each bucket's debt, in seconds of the rate that wrote it, in seconds of ``rates``.

    A debt is requests or tokens sent: a request that cost 400 s at 1 token a second costs 0.0016 s
    at 250,000. Without this, a run at the usual rate waited out the seconds an earlier, slower run
    (``--citecheck-max-tokens-per-second=1``) left, and failed at its deadline with nothing sent.
    """
    scaled = dict(state)
    for name, rate in rates.items():
        written = state.get(f"{name}{RATE_SUFFIX}")
        if name in state and written is not None and written != rate:
            scaled[name] = now + max(0.0, state[name] - now) * written / rate
    return scaled


def reserve(key: str, pacing: Pacing, tokens: int) -> float:
    """Reserve this request's place in the shared bucket; the seconds to wait before sending it."""
    path = state_path(key)
    guard = _bucket_lock(path)
    try:
        with locked(guard):
            now = time.time()
            send_at, state = schedule(_read_state(path, now), now, pacing, tokens)
            _write_state(path, state)
    except OSError as error:  # the lock itself (the state file's errors are LimiterStateErrors already)
        raise LimiterStateError(guard, _reason(error)) from None
    return max(0.0, send_at - now)


@functools.lru_cache(maxsize=64)
def _bucket_lock(path: Path) -> Path:
    """The lock file of the bucket at ``path``: ``_files.interprocess_lock``'s for it (so a process of an
    earlier version waits for the same lock), remembered (naming it resolves the path)."""
    return lock_path_for(path)


def _read_state(path: Path, now: float) -> dict[str, float]:
    try:
        data = read_regular_file(path, 4096)
    except FileNotFoundError:
        return {}
    except (UnreadableFileError, OSError) as error:
        raise LimiterStateError(
            path, str(error) if isinstance(error, UnreadableFileError) else _reason(error)
        ) from None
    try:
        state = json.loads(data)
    except (ValueError, RecursionError):
        return {}  # half-written by a process that died while writing it (or not ours): start afresh
    if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
        return {}
    times = {
        name: value
        for name in ("requests", "tokens")
        if (value := _finite(state.get(name))) is not None and value <= now + STALE_AHEAD_SECONDS
    }
    rates = {
        f"{name}{RATE_SUFFIX}": rate
        for name in times
        if (rate := _finite(state.get(f"{name}{RATE_SUFFIX}"))) is not None and rate > 0
    }
    return {**times, **rates}


def _finite(value: object) -> float | None:
    """``value`` as a float when it is a finite number (a bool is not one), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _write_state(path: Path, state: dict[str, float]) -> None:
    text = json.dumps({"version": STATE_VERSION, **state})
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise LimiterStateError(path, _reason(error)) from None


def _reason(error: OSError) -> str:
    return error.strerror or type(error).__name__


# --- the slots: requests in flight ----------------------------------------------------------------


def _try_slot(directory: Path, key: str, count: int) -> Slot | None:
    """One of the ``count`` slots of ``key``'s server, held (``_judge.slots``), or None when every one is taken."""
    return try_slot(directory, key, count, lambda path, error: LimiterStateError(path, _reason(error)))


@contextlib.contextmanager
def paced(key: str, pacing: Pacing, body_bytes: int) -> Iterator[None]:
    """Around one request that leaves the process: a slot held throughout, and the bucket's wait before it."""
    delay, last = SLOT_POLL_SECONDS
    directory = _directory()
    slot = _try_slot(directory, key, pacing.concurrency)
    while slot is None:
        time.sleep(delay)
        delay = min(delay * 2, last)
        slot = _try_slot(directory, key, pacing.concurrency)
    try:
        wait = reserve(key, pacing, estimated_tokens(body_bytes)) if pacing.rated else 0.0
        if wait > 0:
            time.sleep(wait)
        yield
    finally:
        slot.release()


@contextlib.asynccontextmanager
async def apaced(key: str, pacing: Pacing, body_bytes: int) -> AsyncIterator[None]:
    """``paced`` for the async client: the waits are the event loop's (asyncio or trio)."""
    import anyio

    delay, last = SLOT_POLL_SECONDS
    directory = _directory()
    slot = _try_slot(directory, key, pacing.concurrency)
    while slot is None:
        await anyio.sleep(delay)
        delay = min(delay * 2, last)
        slot = _try_slot(directory, key, pacing.concurrency)
    try:
        wait = reserve(key, pacing, estimated_tokens(body_bytes)) if pacing.rated else 0.0
        if wait > 0:
            await anyio.sleep(wait)
        yield
    finally:
        slot.release()
