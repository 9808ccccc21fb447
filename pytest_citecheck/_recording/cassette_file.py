"""The cassette file: its format, its digests, reading and writing it.

What this module guarantees about a cassette file:

- **Readable, quiet diffs.** Bodies are stored as indented JSON with sorted keys; re-recording an
  unchanged answer rewrites the same bytes.
- **Deterministic.** Interactions are saved sorted by request, so a check that asks Jev
  concurrently (threads or asyncio) writes the same file whatever order the answers came in.
- **Atomic writes.** A cassette is written to a temporary file and renamed over the old one
  (``_files.atomic_write_text``).
- **Versioned.** The file says which cassette format wrote it. The current one (3) and the one before
  it (2, pytest-citecheck 0.1: the same interactions, without the end line) are read; format 1 has no
  digests, and a newer one asks for an upgrade.
- **Its end marked.** A file of format 3 ends with one key (``layout.END``: ``written_in_full``), which
  vcrpy ignores: a copy cut short anywhere, at an interaction's end too, lacks it, and is said to end
  early (``damage.cut_short``) rather than read as a whole cassette of fewer interactions.
- **One answer per request.** Two recordings of one request (a union merge of two branches) are
  refused, naming both; a test that asks the same question twice records it once.
- **Checked when read.** Each interaction carries a digest of its canonical request and response
  (format 2); a file that is damaged (cut short, not UTF-8, a response pytest-citecheck never
  records) or an interaction edited by hand is refused with what is wrong, not replayed. The digest
  catches accidents (a hand edit, a merge-conflict resolution), not a forger, who can recompute it.

The file is a vcrpy cassette (``version`` and ``interactions``), so vcrpy reads and writes it
through this module's serializer (``_recording.vcr_seam``), and replay reads it without vcrpy.
"""

from __future__ import annotations

import os
from hashlib import sha256
from pathlib import Path
from typing import Any, NamedTuple

from pytest_citecheck._files import DirectoryError, UnreadableFileError, atomic_write_text, read_regular_file
from pytest_citecheck._recording import yaml_reader
from pytest_citecheck._recording.damage import (
    CassetteDigestError,
    CassetteFormatError,
    cut_short,
    not_a_directory,
    refuse_broken_link,
)
from pytest_citecheck._recording.layout import END_KEY, END_VALUE, read_layout, write_layout
from pytest_citecheck._recording.matching import (
    canonical_json,
    compact_json,
    lookup_key,
    method_and_endpoint,
    parsed_body,
    parsed_fresh,
    request_key,
    state_of,
)
from pytest_citecheck._recording.yaml_reader import ConflictMarkerError, YamlAliasError, safe_load, yaml_module
from pytest_citecheck._text import visible

# 1: the first format; 2: each interaction carries a digest; 3: the file ends with ``layout.END``, its last key.
# Formats 2 and 3 are read (2 without the check of its end); 3 is written.
CASSETTE_FORMAT = 3
_OLDEST_READ = 2
FORMAT_KEY = "citecheck_format"
DIGEST_KEY = "digest"
# vcrpy's own format number (``vcr.serialize.CASSETTE_FORMAT_VERSION``), written beside ours.
VCRPY_FORMAT_VERSION = 1
_REQUEST_KEYS = ("method", "uri", "body", "headers")
_RESPONSE_KEYS = ("status", "headers", "body")
# The same as sets: one comparison tells that every key is there (the usual case).
_REQUEST_KEY_SET, _RESPONSE_KEY_SET = frozenset(_REQUEST_KEYS), frozenset(_RESPONSE_KEYS)
_DAMAGED = "the file was cut short or damaged"
# The only header pytest-citecheck records, of a request or a response (``redaction.scrub_*``).
_RECORDED_HEADERS = {"content-type"}
# The most of a cassette file that is read: far above any real one (5,000 interactions are about
# 15 MB), and a bound on what a file that is not one (a symlink to /dev/zero) can cost.
MAX_CASSETTE_BYTES = 128 * 1024 * 1024


def is_citecheck_cassette(path: Path) -> bool:
    """True for a regular file this plugin wrote (its first key is the format marker), not pytest-recording's."""
    marker = f"{FORMAT_KEY}:".encode()
    try:
        return read_regular_file(path, len(marker), head_only=True) == marker
    except (OSError, UnreadableFileError):
        return False


# --- digests ------------------------------------------------------------------------------------


def interaction_digest(interaction: dict[str, Any]) -> str:
    """A digest of an interaction's canonical request and response: what replay depends on, nothing else.

    Bodies are compared as parsed JSON, so the file's layout (indentation, key order, YAML style)
    does not count; the method, path, the bodies and the status do.
    """
    request, response = interaction.get("request") or {}, interaction.get("response") or {}
    status = response.get("status")
    body = response.get("body")
    return _digest(
        (request.get("method"), request.get("uri"), _canonical_body(request.get("body"))),
        (
            status.get("code") if isinstance(status, dict) else None,
            _canonical_body(body.get("string") if isinstance(body, dict) else None),
        ),
    )


def _digest(request: tuple[Any, Any, Any], response: tuple[Any, Any], sent: str | None = None) -> str:
    """The digest of (method, uri, parsed body) and (status, parsed body): the canonical JSON's SHA-256.

    The canonical JSON is key-sorted and compact, so it is written part by part (``sent``: the request
    body's part, when the caller has it) exactly as one ``compact_json`` of the whole would be.
    """
    (method, uri, body), (status, answer) = request, response
    text = (
        f'{{"request":{{"body":{compact_json(body) if sent is None else sent},"method":{compact_json(method)},'
        f'"uri":{compact_json(uri)}}},"response":{{"body":{compact_json(answer)},"status":{compact_json(status)}}}}}'
    )
    return "sha256:" + sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _canonical_body(body: Any) -> Any:
    parsed = parsed_body(body)
    if isinstance(parsed, bytes):
        return {"bytes": parsed.hex()}
    return parsed


# --- checking what was read ---------------------------------------------------------------------


class Checked(NamedTuple):
    """An interaction that passed every check, with what reading it needed anyway."""

    interaction: dict[str, Any]
    request: dict[str, Any]  # its request body, parsed
    answer: dict[str, Any]  # its response body, parsed
    key: tuple[str, str, str]  # what replay matches a request on: method, endpoint, ``matching.replay_key``


def check_interaction(number: int, interaction: Any) -> Checked:
    """Refuse an interaction that pytest-citecheck could not have written, saying what is wrong with it.

    What vcrpy would otherwise do with such a file reads like something else: a response cut short
    or not JSON becomes "TypeSafe's response is malformed", a stored 500 is retried into a cassette
    miss, a request without headers is ``Request.__init__() missing ... 'headers'``. Each body is
    parsed once, here (not through ``parsed_body``'s small cache: a cassette holds thousands).
    """
    _check_shape(number, interaction)
    request, response = interaction["request"], interaction["response"]
    status, sent, answer = _check_contents(number, response, request)
    key = compact_json(sent)  # the digest's part for the request body, and what replay indexes it by
    recorded = interaction.get(DIGEST_KEY)
    if recorded != _digest((request["method"], request["uri"], sent), (status, answer), key):
        missing = "has no digest" if recorded is None else "does not match its digest"
        raise CassetteDigestError(f"the recording of {_where(number, request)} {missing}: edited by hand?")
    method, endpoint = method_and_endpoint(str(request["method"]), str(request["uri"]))
    return Checked(interaction, sent, answer, (method, endpoint, key))


def _where(number: int, request: dict[str, Any]) -> str:
    """The interaction's name for messages."""
    return f"interaction {number} ({claim_label(request)})"


def _check_shape(number: int, interaction: Any) -> None:
    """The interaction has a request and a response with every key."""
    if not isinstance(interaction, dict):
        raise CassetteFormatError(f"interaction {number} is not a request and a response ({_DAMAGED})")
    request, response = interaction.get("request"), interaction.get("response")
    if not isinstance(request, dict):
        raise CassetteFormatError(f"interaction {number} has no request ({_DAMAGED})")
    missing = None if request.keys() >= _REQUEST_KEY_SET else next(key for key in _REQUEST_KEYS if key not in request)
    if missing is not None:
        raise CassetteFormatError(
            f"{_where(number, request)} is incomplete: its request has no {missing!r} ({_DAMAGED})"
        )
    if not isinstance(response, dict):
        raise CassetteFormatError(f"{_where(number, request)} is incomplete: it has no response ({_DAMAGED})")
    missing = (
        None if response.keys() >= _RESPONSE_KEY_SET else next(key for key in _RESPONSE_KEYS if key not in response)
    )
    if missing is not None:
        raise CassetteFormatError(
            f"{_where(number, request)} is incomplete: its response has no {missing!r} ({_DAMAGED})"
        )


def _status_shown(status: object) -> str:
    """A status code that is not a number, as a message shows it: text is named as text."""
    if status is None:
        return "nothing"
    shown = visible(status if isinstance(status, str) else repr(status))
    shown = shown if len(shown) <= 40 else shown[:39] + "…"
    return f"the text '{shown}'" if isinstance(status, str) else f"{type(status).__name__} {shown}"


def _check_contents(number: int, response: dict[str, Any], request: dict[str, Any]) -> tuple[int, Any, Any]:
    """The status, the parsed request body and the parsed answer, once each is one pytest-citecheck records."""
    status = response["status"].get("code") if isinstance(response["status"], dict) else None
    if type(status) is not int:  # a bool is an int to isinstance; "200" would read as if 200 were refused
        raise CassetteFormatError(
            f"{_where(number, request)}: its response's status code must be a whole number, got "
            f"{_status_shown(status)} (the file was edited or damaged)"
        )
    if not 200 <= status < 300:
        raise CassetteFormatError(
            f"{_where(number, request)} holds an HTTP {status} response, which pytest-citecheck never records "
            "(the file was edited or damaged)"
        )
    _check_headers(number, request, "request", request["headers"])
    _check_headers(number, request, "response", response["headers"])
    answer = parsed_fresh(response["body"].get("string") if isinstance(response["body"], dict) else None)
    if not isinstance(answer, dict):
        raise CassetteFormatError(f"{_where(number, request)}: its response body is not JSON ({_DAMAGED})")
    sent = parsed_fresh(request["body"])
    if not isinstance(sent, dict):
        raise CassetteFormatError(f"{_where(number, request)}: its request body is not JSON ({_DAMAGED})")
    return status, sent, answer


def _check_headers(number: int, request: dict[str, Any], side: str, headers: Any) -> None:
    """Only ``Content-Type`` is ever recorded: another header (``content-encoding: gzip``) was written by hand."""
    if type(headers) is dict and len(headers) == 1 and "content-type" in headers:
        return  # what every recording holds: its one name is the recorded one, checked without the loop
    names = [str(name) for name in headers] if isinstance(headers, dict) else []
    extra = next((name for name in names if name.lower() not in _RECORDED_HEADERS), None)
    if extra is not None:
        raise CassetteFormatError(
            f"{_where(number, request)}: its {side} has the header {extra!r}, which pytest-citecheck never records "
            "(the file was edited)",
            "remove that header from the file, or delete the file and re-record the test",
        )


def claim_label(request: dict[str, Any]) -> str:
    """``claim 'The fee is…'`` for a recorded request, to name an interaction in a message."""
    claim = state_of(parsed_body(request.get("body"))).get("claim")
    if not isinstance(claim, str):
        return "no claim"
    flat = " ".join(claim.split())
    return "claim " + repr(flat if len(flat) <= 50 else flat[:49] + "…")


# --- the serializer -----------------------------------------------------------------------------


class CassetteSerializer:
    """vcrpy serializer: safe YAML, JSON bodies as readable blocks, a format marker."""

    @staticmethod
    def serialize(cassette_dict: dict[str, Any]) -> str:
        interactions = _keep_last_of_each_request(cassette_dict.get("interactions", []))
        # Concurrent checks append in the order answers arrive; sorting by request makes the file
        # independent of timing.
        interactions.sort(key=_interaction_sort_key)
        for interaction in interactions:
            _prettify(interaction)
            interaction[DIGEST_KEY] = interaction_digest(interaction)
        data = {FORMAT_KEY: CASSETTE_FORMAT, **cassette_dict, "interactions": interactions, END_KEY: END_VALUE}
        text = write_layout(data)  # the layout PyYAML writes, without its emitter; anything else, PyYAML
        if text is None:
            text = yaml_module().dump(data, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=120)
        return text

    @staticmethod
    def deserialize(cassette_string: str) -> dict[str, Any]:
        return read_checked(cassette_string)[0]


def read_checked(text: str) -> tuple[dict[str, Any], list[Checked]]:
    """A cassette file's data (as ``yaml.safe_load`` gives it) and each of its interactions, checked.

    A file in the layout this plugin writes is read without a YAML parser (``layout.read_layout``);
    any other goes through the safe YAML reader. Either way every check below is made.
    """
    try:
        data = read_layout(text)
        if data is None:
            try:
                data = safe_load(text)
            except (YamlAliasError, ConflictMarkerError) as error:
                raise CassetteFormatError(str(error), getattr(error, "remedy", None)) from None
        if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
            raise CassetteFormatError("the file is not a vcrpy cassette (no 'interactions' list)")
        _check_format(data.get(FORMAT_KEY, _MISSING))
        checked = [check_interaction(number, interaction) for number, interaction in enumerate(data["interactions"], 1)]
    except Exception as error:  # a check failed, or YAML's parser: said as the file ending early, if it does
        short = cut_short(text, error) or yaml_reader.yaml_error(error)  # else YAML's error, on one line
        if short is None:
            raise
        raise short from error
    if data[FORMAT_KEY] != _OLDEST_READ and not (data.get(END_KEY) == END_VALUE and text.endswith("\n")):
        # Whole but for its end: cut at an interaction's end, or in its end line.
        short = cut_short(text, None)
        if short is not None:
            raise short
    _refuse_repeated_requests(checked)
    return data, checked


_MISSING = object()


def _check_format(found: Any) -> None:
    """Only the current format is read: an older one carries no digests, so nothing in it could be checked."""
    if type(found) is int and _OLDEST_READ <= found <= CASSETTE_FORMAT:
        return
    if type(found) is int and found > CASSETTE_FORMAT:
        raise CassetteFormatError(
            f"written in cassette format {found}, newer than this pytest-citecheck understands ({CASSETTE_FORMAT})",
            "upgrade pytest-citecheck",
        )
    said = f"has no {FORMAT_KEY!r} line" if found is _MISSING else f"says {FORMAT_KEY}: {found!r}"
    raise CassetteDigestError(
        f"the file {said}; pytest-citecheck reads only formats {_OLDEST_READ} and {CASSETTE_FORMAT}, whose "
        "interactions carry the digests that show they were not edited"
    )


def _refuse_repeated_requests(checked: list[Checked]) -> None:
    """Two recordings of one request (what a union merge of two branches leaves): which answer is meant?"""
    first: dict[tuple[str, str, str], int] = {}
    for number, (interaction, _, _, key) in enumerate(checked, start=1):
        if key not in first:
            first[key] = number
            continue
        earlier = first[key]
        raise CassetteFormatError(
            f"interactions {earlier} and {number} both record the request of {claim_label(interaction['request'])}, "
            "each with its own answer (a union merge of two branches leaves this)",
            f"keep one of them: delete interaction {earlier} or {number} from the file, "
            "or delete the file and re-record the test with --citecheck-record-mode=rewrite",
        )


def _keep_last_of_each_request(interactions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One interaction per request, the last recorded (a test that asks the same question twice records it once)."""
    last: dict[tuple[str, str, str], dict[str, Any]] = {}
    for interaction in interactions:
        request = interaction.get("request") or {}
        key = lookup_key(str(request.get("method", "")), str(request.get("uri", "")), request.get("body"))
        last.pop(key, None)
        last[key] = interaction
    return list(last.values())


def _prettify(interaction: dict[str, Any]) -> None:
    """JSON bodies as indented, key-sorted text (a literal block in the file)."""
    request, body = interaction["request"], interaction["response"]["body"]
    pretty = canonical_json(request["body"])
    if pretty is not None:
        request["body"] = pretty
    if isinstance(body, dict):
        pretty = canonical_json(body.get("string"))
        if pretty is not None:
            body["string"] = pretty


def _interaction_sort_key(interaction: dict[str, Any]) -> tuple[str, str, str]:
    request = interaction.get("request", {})
    return (str(request.get("uri", "")), str(request.get("method", "")), request_key(request.get("body")))


_DUMPER: Any = None


def _dumper() -> Any:
    global _DUMPER
    if _DUMPER is None:
        yaml = yaml_module()

        class Dumper(yaml.SafeDumper):  # type: ignore[name-defined,misc]  # yaml comes untyped, lazily
            def ignore_aliases(self, data: Any) -> bool:
                return True  # a value used twice is written twice: a cassette with an alias is not read

        def represent_str(dumper: Any, value: str) -> Any:
            # Multi-line text (JSON bodies) as a literal block, so a cassette reads like the request.
            style = "|" if "\n" in value and not any(line != line.rstrip() for line in value.split("\n")) else None
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

        Dumper.add_representer(str, represent_str)
        _DUMPER = Dumper
    return _DUMPER


# --- reading and writing the file ---------------------------------------------------------------


def read_cassette_text(path: Path) -> str | None:
    """A cassette file's text; None when there is none yet (no file, or an empty one: recorded again).

    vcrpy's own loader treats a directory as a missing cassette and a file that is not UTF-8 as an
    empty one (and records over it): both are refused here, saying what the file is. Recording
    (``vcr_seam.AtomicPersister``) and replay (``replay.Recording``) both read through this.
    """
    try:
        raw = read_regular_file(path, MAX_CASSETTE_BYTES)
    except FileNotFoundError:
        refuse_broken_link(path)  # a dangling link is not a cassette never recorded: recording would replace it
        return None
    except DirectoryError:
        raise CassetteFormatError("it is a directory, not a cassette file", "remove or rename that directory") from None
    except NotADirectoryError:
        raise not_a_directory(path) from None
    except UnreadableFileError as error:  # a device, a FIFO, a socket; or far too large
        raise CassetteFormatError(str(error), "replace it with a cassette file, or delete it and re-record") from None
    except OSError:  # a link loop (ELOOP)
        refuse_broken_link(path)
        raise
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise CassetteFormatError(f"the file is not UTF-8 text (byte {error.start}, line {line})") from None
    # Blank when it holds only whitespace (``text.strip()`` would copy a whole file to say so).
    return None if not text or text.isspace() else text


class CassetteChangedError(Exception):
    """Another process wrote a test's cassette file after this run read it: saving would replace its recording."""


def file_signature(path: Path) -> tuple[int, int, int] | None:
    """What tells one version of a file from another (an atomic write is a new inode); None: no file."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise not_a_directory(path) from None
    except OSError:  # a link loop (ELOOP)
        refuse_broken_link(path)
        raise
    return (found.st_ino, found.st_size, found.st_mtime_ns)


def read_interactions(path: Path) -> list[dict[str, Any]]:
    """The interactions of a citecheck cassette file, as plain dicts (request and response)."""
    text = read_cassette_text(path)
    return [] if text is None else [checked.interaction for checked in read_checked(text)[1]]


def write_interactions(path: Path, interactions: list[dict[str, Any]]) -> None:
    """Rewrite a cassette with these interactions (atomically); delete it when none remain."""
    if not interactions:
        path.unlink(missing_ok=True)
        return
    cassette = {"version": VCRPY_FORMAT_VERSION, "interactions": list(interactions)}
    atomic_write_text(path, CassetteSerializer.serialize(cassette))
