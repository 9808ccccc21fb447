"""Recording Jev's answers in vcrpy cassettes, one cassette per test, safely.

What this module guarantees about a cassette file:

- **No secret.** Every recorded request keeps only its ``Content-Type`` header (the API key travels
  in ``Authorization`` or whatever extra header a user adds; none is written), and the host is
  replaced by TypeSafe's public one. This scrub is applied by pytest-citecheck itself, after any
  user configuration, so it cannot be switched off by accident.
- **Right answer or none.** Requests match on method, path and the parsed JSON body (state,
  questions, model), never on host, so any base URL replays and a changed claim is a miss, not the
  wrong verdict.
- **Readable, quiet diffs.** Bodies are stored as indented JSON with sorted keys; responses keep
  only ``Content-Type``; re-recording an unchanged answer rewrites the same bytes.
- **Atomic writes.** A cassette is written to a temporary file and renamed over the old one.
- **Versioned.** The file says which cassette format wrote it; a newer one is refused clearly.

vcr and yaml are imported lazily: nothing here costs anything until a citation is judged.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from hashlib import sha256
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

CASSETTE_FORMAT = 1
FORMAT_KEY = "citecheck_format"
CANONICAL_HOST = ("https", "api.typesafe.ai")
TYPESAFE_PATH = re.compile(r"/v1/(systemone|models)$")
_KEPT_HEADERS = {"content-type"}
_UNSAFE_NAME = re.compile(r'[^\w.\-\[\]=,+@ ]|\s')


class CassetteFormatError(ValueError):
    """A cassette written by a newer pytest-citecheck, or not a cassette at all."""


def cassette_name(test_name: str) -> str:
    """A file-system-safe, distinct file name for a test (parametrised ids included)."""
    safe = _UNSAFE_NAME.sub("_", test_name)
    if safe != test_name or len(safe) > 120:
        # Two names that differ only in replaced characters must not share a file.
        safe = f"{safe[:100]}-{sha256(test_name.encode()).hexdigest()[:8]}"
    return safe + ".yaml"


# --- what is stored -----------------------------------------------------------------------------


def _canonical_json(text: str | bytes | None) -> str | None:
    """Indented, key-sorted JSON if the body is JSON; None if it is not."""
    if text is None:
        return None
    try:
        return json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    except (ValueError, UnicodeDecodeError):
        return None


def scrub_request(request: Any) -> Any:
    """Keep only TypeSafe API requests, and only what replay needs of them (vcrpy hands us a copy)."""
    parts = urlsplit(request.uri)
    if not TYPESAFE_PATH.search(parts.path):
        return None  # not ours: pytest-recording or the app's own traffic passes by untouched
    request.uri = urlunsplit((*CANONICAL_HOST, parts.path, "", ""))
    request.headers = {name: value for name, value in request.headers.items() if name.lower() in _KEPT_HEADERS}
    return request


def scrub_response(response: dict[str, Any]) -> dict[str, Any] | None:
    """Drop dates, request ids and every other header that churns or could carry a secret.

    A fault is not an answer: an error status (401, 429, 5xx...) or a body that is not JSON is never
    recorded (None), so a replay cannot repeat an outage forever and the next recording asks again.
    """
    status = response.get("status", {}).get("code")
    if not isinstance(status, int) or not 200 <= status < 300 or _canonical_json(response.get("body", {}).get("string")) is None:
        return None
    response["headers"] = {name: values for name, values in response["headers"].items() if name.lower() in _KEPT_HEADERS}
    return response


def match_json_body(r1: Any, r2: Any) -> None:
    """vcrpy matcher: the two bodies are the same JSON value (raises AssertionError when not)."""
    first, second = _parsed(r1.body), _parsed(r2.body)
    if first != second:
        raise AssertionError("request bodies differ")


def _parsed(body: bytes | str | None) -> Any:
    if body is None:
        return None
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return body


# --- how it is stored ---------------------------------------------------------------------------


def _yaml() -> Any:
    import yaml

    return yaml


class CassetteSerializer:
    """vcrpy serializer: safe YAML, JSON bodies as readable blocks, a format marker."""

    @staticmethod
    def serialize(cassette_dict: dict[str, Any]) -> str:
        yaml = _yaml()
        for interaction in cassette_dict.get("interactions", []):
            for side in ("request", "response"):
                body = interaction[side]["body"]
                if side == "request":
                    pretty = _canonical_json(body)
                    if pretty is not None:
                        interaction[side]["body"] = pretty
                elif isinstance(body, dict):
                    pretty = _canonical_json(body.get("string"))
                    if pretty is not None:
                        body["string"] = pretty
        data = {FORMAT_KEY: CASSETTE_FORMAT, **cassette_dict}
        return yaml.dump(data, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=120)

    @staticmethod
    def deserialize(cassette_string: str) -> dict[str, Any]:
        yaml = _yaml()
        data = yaml.load(cassette_string, Loader=yaml.CSafeLoader if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader)
        if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
            raise CassetteFormatError("the file is not a vcrpy cassette (no 'interactions' list)")
        found = data.get(FORMAT_KEY, CASSETTE_FORMAT)
        if not isinstance(found, int) or found > CASSETTE_FORMAT:
            raise CassetteFormatError(
                f"written in cassette format {found!r}, newer than this pytest-citecheck understands ({CASSETTE_FORMAT}); "
                "upgrade pytest-citecheck"
            )
        return data


_DUMPER: Any = None


def _dumper() -> Any:
    global _DUMPER
    if _DUMPER is None:
        yaml = _yaml()

        class Dumper(yaml.SafeDumper):
            pass

        def represent_str(dumper: Any, value: str) -> Any:
            # Multi-line text (JSON bodies) as a literal block, so a cassette reads like the request.
            style = "|" if "\n" in value and not any(line != line.rstrip() for line in value.split("\n")) else None
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

        Dumper.add_representer(str, represent_str)
        _DUMPER = Dumper
    return _DUMPER


class AtomicPersister:
    """vcrpy persister that never leaves a half-written cassette: write a temp file, then rename."""

    @classmethod
    def load_cassette(cls, cassette_path: str | Path, serializer: Any) -> Any:
        from vcr.persisters.filesystem import FilesystemPersister

        return FilesystemPersister.load_cassette(cassette_path, serializer)

    @staticmethod
    def save_cassette(cassette_path: str | Path, cassette_dict: dict[str, Any], serializer: Any) -> None:
        from vcr.serialize import serialize

        atomic_write_text(Path(cassette_path), serialize(cassette_dict, serializer))


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that readers see the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def make_vcr(record_mode: str) -> Any:
    """The vcrpy configuration every citecheck cassette uses."""
    import vcr

    mode = "all" if record_mode == "rewrite" else record_mode
    recorder = vcr.VCR(
        serializer="citecheck",
        record_mode=mode,
        match_on=("method", "path", "citecheck_json_body"),
        before_record_request=scrub_request,
        before_record_response=scrub_response,
        decode_compressed_response=True,
    )
    recorder.register_serializer("citecheck", CassetteSerializer)
    recorder.register_matcher("citecheck_json_body", match_json_body)
    recorder.register_persister(AtomicPersister)
    return recorder


class TestCassette:
    """The cassette of one test: opened at its first Jev call, saved when the test ends.

    Opening once per test matters twice over: vcrpy write-protects a ``once`` cassette that is
    opened a second time, and loading a cassette is then paid once per test, not per citation.
    """

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self, path: Path, record_mode: str) -> None:
        self.path = path
        self.record_mode = record_mode
        self._context: Any = None
        self.cassette: Any = None

    @property
    def is_open(self) -> bool:
        return self.cassette is not None

    def open(self) -> Any:
        if self.cassette is None:
            if self.record_mode == "rewrite" and self.path.exists():
                self.path.unlink()
            self._context = make_vcr(self.record_mode).use_cassette(str(self.path))
            self.cassette = self._context.__enter__()
        return self.cassette

    @property
    def play_count(self) -> int:
        return self.cassette.play_count if self.cassette is not None else 0

    def close(self) -> None:
        if self._context is not None:
            context, self._context = self._context, None
            context.__exit__(None, None, None)
