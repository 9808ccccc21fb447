"""Known secrets: the values no file or message of pytest-citecheck may ever contain.

A value becomes known when the plugin sees it where a credential travels (the environment's
``TYPESAFE_API_KEY``, a request header that is not a harmless one: see ``_recording.redaction``).
``redact_known`` cuts every known secret out of a text; ``_files.atomic_write_text`` applies it to
everything written, so a claim that carries the app's key reaches no cassette, report or reviews
file. This is ground floor because every stage writes or prints. Known secrets live only in this
process's memory.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import Sequence

MASK = "***"
# Shorter values are not cut out of text. A short key is also a word: "rehearsal", the docs' own
# key for the rehearsal server, cut out of claims and answers garbled cassettes and reports, and made
# their replay miss once the key was gone. Headers never reach a file or a log line, whatever their
# length (``_recording.redaction``); only bodies and messages are cut, and only of secrets this long.
MIN_SECRET_LENGTH = 16
ENV_KEY = "TYPESAFE_API_KEY"

_known: set[str] = set()
_lock = threading.Lock()
# ``_known`` as it was last asked for, and longest first: sorted again only once it has changed. Replay
# asks for it several times per citation (each body it matches, each JUnit property, each answer's
# model name), and sorted it each time (a small cost: some 0.1% of a replayed run's instructions).
# Compared, not reset by ``remember_secret``, so a test that swaps ``_known`` for a set of its own gets
# that set's secrets.
_asked: tuple[frozenset[str], tuple[str, ...]] = (frozenset(), ())


def remember_secret(value: str | None) -> None:
    """Treat ``value`` as a secret from now on: ``redact_known`` cuts it out of any text."""
    if not value:
        return
    value = value.strip()
    if len(value) >= MIN_SECRET_LENGTH and value not in _known:  # most calls: one already known
        with _lock:
            _known.add(value)


def known_secrets() -> tuple[str, ...]:
    """Every known secret (the environment's API key included), longest first."""
    global _asked
    remember_secret(os.environ.get(ENV_KEY))
    with _lock:
        if _asked[0] != _known:
            _asked = (frozenset(_known), tuple(sorted(_known, key=len, reverse=True)))
        return _asked[1]


@functools.lru_cache(maxsize=256)
def json_forms(secret: str) -> tuple[str, ...]:
    """A secret as it may stand in a body: as written, and inside a JSON string, with ``json.dumps``'s escapes
    and with every ``/`` written ``\\/`` as well (PHP's ``json_encode`` and other encoders do: a proxy that
    echoes a ``Bearer`` key with a ``/`` in it writes it so). Worked out once per secret."""
    escaped = json.dumps(secret)[1:-1]
    return tuple(dict.fromkeys((secret, escaped, escaped.replace("/", "\\/"))))


@functools.lru_cache(maxsize=256)
def _text_forms(secret: str) -> tuple[str, ...]:
    """``json_forms``, and each inside a Python repr (a log line of a body ``b'...'``: backslashes doubled),
    longest first."""
    forms = json_forms(secret)
    doubled = (form.replace("\\", "\\\\") for form in forms)
    return tuple(sorted(dict.fromkeys((*forms, *doubled)), key=len, reverse=True))


def cut_secrets(text: str, secrets: Sequence[str]) -> str:
    """``text`` with each of ``secrets`` replaced by ``***``, as written or escaped in a JSON string or a repr."""
    for secret in secrets:
        for form in _text_forms(secret):
            if form in text:
                text = text.replace(form, MASK)
    return text


def redact_known(text: str) -> str:
    """``text`` with every known secret (and the environment's API key) replaced by ``***``."""
    return cut_secrets(text, known_secrets())


def short_key_notice() -> str | None:
    """What to say, once per run, when the environment's key is too short to be cut out of bodies."""
    key = (os.environ.get(ENV_KEY) or "").strip()
    if not key or len(key) >= MIN_SECRET_LENGTH:
        return None
    return (
        f"citecheck: {ENV_KEY} is {len(key)} characters, too short to tell apart from ordinary words: it is kept "
        f"out of every header, but not cut out of claims, answers, reports or logs (a real key has "
        f"{MIN_SECRET_LENGTH} or more)"
    )
