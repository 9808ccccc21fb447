"""Known secrets: the values no file or message of pytest-citecheck may ever contain.

A value becomes known when the plugin sees it where a credential travels (the environment's
``TYPESAFE_API_KEY``, a request header that is not a harmless one: see ``_recording.redaction``).
``redact_known`` cuts every known secret out of a text; ``_files.atomic_write_text`` applies it to
everything written, so a claim that carries the app's key reaches no cassette, report or reviews
file. This is ground floor because every stage writes or prints. Known secrets live only in this
process's memory.
"""

from __future__ import annotations

import os
import threading

MASK = "***"
# Shorter values are not remembered as secrets: cutting "1" or "true" out of every message would
# garble the log without protecting anything.
MIN_SECRET_LENGTH = 8

_known: set[str] = set()
_lock = threading.Lock()


def remember_secret(value: str | None) -> None:
    """Treat ``value`` as a secret from now on: ``redact_known`` cuts it out of any text."""
    if value and len(value.strip()) >= MIN_SECRET_LENGTH:
        with _lock:
            _known.add(value.strip())


def known_secrets() -> list[str]:
    """Every known secret (the environment's API key included), longest first."""
    remember_secret(os.environ.get("TYPESAFE_API_KEY"))
    with _lock:
        return sorted(_known, key=len, reverse=True)


def cut_secrets(text: str, secrets: list[str]) -> str:
    """``text`` with each of ``secrets`` replaced by ``***``."""
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def redact_known(text: str) -> str:
    """``text`` with every known secret (and the environment's API key) replaced by ``***``."""
    return cut_secrets(text, known_secrets())
