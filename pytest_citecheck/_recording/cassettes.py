"""Recording Jev's answers in vcrpy cassettes, one cassette per test, safely.

What this module guarantees about a cassette file:

- **No secret.** Every recorded request keeps only its ``Content-Type`` header (the API key travels
  in ``Authorization`` or whatever extra header a user adds; none is written), and the host is
  replaced by TypeSafe's public one. Known secrets (the environment's key, every dropped header's
  value) are cut out of the request and response bodies too. This scrub is applied by pytest-citecheck itself, after any
  user configuration, so it cannot be switched off by accident.
- **Right answer or none.** Requests match on method, path and the parsed JSON body (state,
  questions, model), never on host, so any base URL replays and a changed claim is a miss, not the
  wrong verdict.
- **Readable, quiet diffs.** Bodies are stored as indented JSON with sorted keys; responses keep
  only ``Content-Type``; re-recording an unchanged answer rewrites the same bytes.
- **Atomic writes.** A cassette is written to a temporary file and renamed over the old one.
- **Versioned.** The file says which cassette format wrote it; a newer one is refused clearly.
- **Checked when read.** Each interaction carries a digest of its canonical request and response
  (format 2); a file that is damaged (cut short, not UTF-8, a response pytest-citecheck never
  records) or an interaction edited by hand is refused with what is wrong, not replayed. The digest
  catches accidents (a hand edit, a merge-conflict resolution), not a forger, who can recompute it.
- **Deterministic.** Interactions are saved sorted by request, so a check that asks Jev
  concurrently (threads or asyncio) writes the same file whatever order the answers came in.
- **Only our traffic, only while we ask.** vcrpy's patches are in place only while a Jev request
  is in flight, not for the whole test, so a cassette of pytest-recording (``@pytest.mark.vcr``)
  for the app's own HTTP keeps seeing the app's requests, and never sees ours.

vcr and yaml are imported lazily: nothing here costs anything until a citation is judged.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import threading
import weakref
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from pytest_citecheck._files import atomic_write_text, interprocess_lock

if TYPE_CHECKING:
    from pytest_citecheck._recording.replay import Recording

# 1: the first format; 2: each interaction carries a digest (format 1 files still replay, unchecked).
CASSETTE_FORMAT = 2
FORMAT_KEY = "citecheck_format"
DIGEST_KEY = "digest"
CANONICAL_HOST = ("https", "api.typesafe.ai")
TYPESAFE_PATH = re.compile(r"/v1/(systemone|models)$")
_KEPT_HEADERS = {"content-type"}
_UNSAFE_NAME = re.compile(r"[^\w.\-\[\]=,+@ ]|\s")


class CassetteFormatError(ValueError):
    """A cassette written by a newer pytest-citecheck, or not a cassette at all, or a damaged one.

    ``remedy`` is what to do about it, when that is not the usual "restore it or re-record it".
    """

    def __init__(self, message: str, remedy: str | None = None) -> None:
        super().__init__(message)
        self.remedy = remedy


class CassetteDigestError(CassetteFormatError):
    """An interaction that no longer matches its digest: edited after it was recorded."""


def cassette_name(test_name: str, *, beside_pytest_recording: bool = False) -> str:
    """A file-system-safe, distinct file name for a test (parametrised ids included).

    pytest-recording names a ``@pytest.mark.vcr`` test's cassette ``cassettes/<module>/<test>.yaml``
    too; such a test's citecheck cassette is ``<test>.citecheck.yaml`` so neither overwrites the other.
    """
    safe = _UNSAFE_NAME.sub("_", test_name)
    if safe != test_name or len(safe) > 120:
        # Two names that differ only in replaced characters must not share a file.
        safe = f"{safe[:100]}-{sha256(test_name.encode()).hexdigest()[:8]}"
    return safe + (".citecheck.yaml" if beside_pytest_recording else ".yaml")


def is_citecheck_cassette(path: Path) -> bool:
    """True for a file this plugin wrote (its first key is the format marker), not pytest-recording's."""
    try:
        with path.open("rb") as handle:
            return handle.read(len(FORMAT_KEY) + 1) == f"{FORMAT_KEY}:".encode()
    except OSError:
        return False


def request_key(body: Any) -> str:
    """A canonical text of a request body: what identifies an interaction across runs and files."""
    parsed = _parsed(body)
    if isinstance(parsed, (dict, list)):
        return json.dumps(parsed, sort_keys=True, ensure_ascii=False)
    return parsed if isinstance(parsed, str) else ""


# --- what is stored -----------------------------------------------------------------------------


def _canonical_json(text: str | bytes | None) -> str | None:
    """Indented, key-sorted JSON if the body is JSON; None if it is not."""
    if text is None:
        return None
    try:
        return json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    except (ValueError, UnicodeDecodeError, RecursionError):  # nested too deep is not JSON we can use
        return None


def scrub_request(request: Any) -> Any:
    """Keep only TypeSafe API requests, and only what replay needs of them (vcrpy hands us a copy)."""
    parts = urlsplit(request.uri)
    endpoint = TYPESAFE_PATH.search(parts.path)
    if endpoint is None:
        return None  # not ours: pytest-recording or the app's own traffic passes by untouched
    # Host and any base-URL prefix (a proxy's /base/v1/...) go: a cassette replays behind any base URL.
    request.uri = urlunsplit((*CANONICAL_HOST, endpoint.group(0), "", ""))
    # The headers dropped here carry the key: remember their values, so no log line prints them.
    from pytest_citecheck._recording.redaction import redact_body, remember_header_secrets

    remember_header_secrets(request.headers)
    request.headers = {name: value for name, value in request.headers.items() if name.lower() in _KEPT_HEADERS}
    # A key the app put in a claim is not written either. vcrpy scrubs the live request the same way
    # before matching it, so such a recording still replays while the key is known.
    request.body = redact_body(request.body)
    return request


def scrub_response(response: dict[str, Any]) -> dict[str, Any] | None:
    """Drop dates, request ids and every other header that churns or could carry a secret.

    A fault is not an answer: an error status (401, 429, 5xx...) or a body that is not JSON is never
    recorded (None), so a replay cannot repeat an outage forever and the next recording asks again.
    """
    status = response.get("status", {}).get("code")
    if (
        not isinstance(status, int)
        or not 200 <= status < 300
        or _canonical_json(response.get("body", {}).get("string")) is None
    ):
        return None
    response["headers"] = {
        name: values for name, values in response["headers"].items() if name.lower() in _KEPT_HEADERS
    }
    # A server, proxy or debug build may echo the key back in the body (vcrpy hands us a copy).
    from pytest_citecheck._recording.redaction import redact_body

    response["body"]["string"] = redact_body(response["body"]["string"])
    return response


def match_json_body(r1: Any, r2: Any) -> None:
    """vcrpy matcher: the two bodies are the same JSON value (raises AssertionError when not)."""
    first, second = _parsed(r1.body), _parsed(r2.body)
    if first != second:
        raise AssertionError("request bodies differ")


def _parsed(body: Any) -> Any:
    if not isinstance(body, (bytes, str)):
        return body  # None, or already parsed
    return _parsed_text(body)


# vcrpy compares an incoming request with every recorded one, more than once per request: parse
# each distinct body once. The parsed values are only compared, never changed.
@functools.lru_cache(maxsize=128)
def _parsed_text(body: bytes | str) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):  # nested too deep is not JSON we can use
        return body


# --- how it is stored ---------------------------------------------------------------------------


def _yaml() -> Any:
    import yaml

    return yaml


def safe_load(text: str) -> Any:
    """``yaml.safe_load(text)``, built from PyYAML's parser events when the file is plain data.

    Replay reads every recording a test uses, and PyYAML builds its objects node by node in Python:
    for a cassette of 2,000 interactions that was a third of what replay added per citation. The files
    we write are mappings, lists and scalars, with no anchors, tags or merge keys, so this builds
    them straight from the C parser's events, resolving and constructing each plain scalar with
    PyYAML's own safe resolver and constructors. Anything else (an anchor, an alias, a tag, a
    ``<<`` merge key, several documents, a syntax error) is handed to ``yaml.load`` with the safe
    loader, which gives the same result or its own error.
    """
    yaml = _yaml()
    safe_loader = getattr(yaml, "CSafeLoader", None)
    if safe_loader is not None:
        try:
            return _from_events(safe_loader(text), yaml)
        except (_NotPlainData, yaml.YAMLError, TypeError):
            pass
    return yaml.load(text, Loader=safe_loader or yaml.SafeLoader)


class _NotPlainData(Exception):
    """The file holds YAML that only PyYAML's full constructor builds the same way."""


_STR_TAG = "tag:yaml.org,2002:str"


def _from_events(loader: Any, yaml: Any) -> Any:
    events = yaml.events
    scalar_event, mapping_start, sequence_start = (
        events.ScalarEvent,
        events.MappingStartEvent,
        events.SequenceStartEvent,
    )
    collection_end = (events.MappingEndEvent, events.SequenceEndEvent)
    scalar_node, constructors = yaml.ScalarNode, loader.yaml_constructors
    # One entry per open collection: [the container, the pending key, whether a key is pending].
    stack: list[list[Any]] = []
    documents, root = 0, None
    try:
        while True:
            event = loader.get_event()
            kind = type(event)
            if kind is scalar_event:
                if event.anchor is not None:
                    raise _NotPlainData
                value = event.value
                if event.style == "" and event.implicit[0]:  # plain: may be an int, a bool, null...
                    tag = loader.resolve(scalar_node, value, (True, False))
                    if tag != _STR_TAG:
                        if tag not in constructors:
                            raise _NotPlainData  # a ``<<`` merge key
                        value = constructors[tag](loader, scalar_node(tag, value))
                elif not (event.implicit[1] or event.tag in (None, "!", _STR_TAG)):
                    raise _NotPlainData  # an explicit tag: !!binary, !!python/..., a custom one
            elif kind is mapping_start or kind is sequence_start:
                if event.anchor is not None or not event.implicit:
                    raise _NotPlainData
                stack.append([{} if kind is mapping_start else [], None, False])
                continue
            elif kind in collection_end:
                value = stack.pop()[0]
            elif kind is events.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise _NotPlainData  # several documents: PyYAML's own error says so
                continue
            elif kind is events.StreamEndEvent:
                return root
            elif kind is events.AliasEvent:
                raise _NotPlainData
            else:  # stream start, document end
                continue
            if not stack:
                root = value
                continue
            top = stack[-1]
            container = top[0]
            if type(container) is list:
                container.append(value)
            elif top[2]:
                container[top[1]] = value
                top[1], top[2] = None, False
            else:
                top[1], top[2] = value, True
    finally:
        loader.dispose()


class CassetteSerializer:
    """vcrpy serializer: safe YAML, JSON bodies as readable blocks, a format marker."""

    @staticmethod
    def serialize(cassette_dict: dict[str, Any]) -> str:
        yaml = _yaml()
        interactions = cassette_dict.get("interactions", [])
        # Concurrent checks append in the order answers arrive; sorting by request (a stable sort,
        # so repeated identical requests keep their order) makes the file independent of timing.
        interactions.sort(key=_interaction_sort_key)
        for interaction in interactions:
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
            interaction[DIGEST_KEY] = interaction_digest(interaction)
        data = {FORMAT_KEY: CASSETTE_FORMAT, **cassette_dict}
        text: str = yaml.dump(data, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=120)
        return text

    @staticmethod
    def deserialize(cassette_string: str) -> dict[str, Any]:
        data = safe_load(cassette_string)
        if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
            raise CassetteFormatError("the file is not a vcrpy cassette (no 'interactions' list)")
        found = data.get(FORMAT_KEY, CASSETTE_FORMAT)
        if not isinstance(found, int) or found > CASSETTE_FORMAT:
            raise CassetteFormatError(
                f"written in cassette format {found!r}, newer than this pytest-citecheck understands ({CASSETTE_FORMAT})",
                "upgrade pytest-citecheck",
            )
        for number, interaction in enumerate(data["interactions"], start=1):
            _check_interaction(number, interaction, digest_required=found >= 2)
        return data


_REQUEST_KEYS = ("method", "uri", "body", "headers")
_RESPONSE_KEYS = ("status", "headers", "body")


def _check_interaction(number: int, interaction: Any, *, digest_required: bool) -> None:
    """Refuse an interaction that pytest-citecheck could not have written, saying what is wrong with it.

    What vcrpy would otherwise do with such a file reads like something else: a response cut short
    or not JSON becomes "TypeSafe's response is malformed", a stored 500 is retried into a cassette
    miss, a request without headers is ``Request.__init__() missing ... 'headers'``.
    """
    damaged = "the file was cut short or damaged"
    if not isinstance(interaction, dict):
        raise CassetteFormatError(f"interaction {number} is not a request and a response ({damaged})")
    request, response = interaction.get("request"), interaction.get("response")
    if not isinstance(request, dict):
        raise CassetteFormatError(f"interaction {number} has no request ({damaged})")
    where = f"interaction {number} ({_claim_of(request)})"
    for key in _REQUEST_KEYS:
        if key not in request:
            raise CassetteFormatError(f"{where} is incomplete: its request has no {key!r} ({damaged})")
    if not isinstance(response, dict):
        raise CassetteFormatError(f"{where} is incomplete: it has no response ({damaged})")
    for key in _RESPONSE_KEYS:
        if key not in response:
            raise CassetteFormatError(f"{where} is incomplete: its response has no {key!r} ({damaged})")
    status = response["status"].get("code") if isinstance(response["status"], dict) else None
    if not isinstance(status, int) or not 200 <= status < 300:
        raise CassetteFormatError(
            f"{where} holds an HTTP {status} response, which pytest-citecheck never records (the file was edited or damaged)"
        )
    body = response["body"].get("string") if isinstance(response["body"], dict) else None
    if not isinstance(_parsed(body), dict):
        raise CassetteFormatError(f"{where}: its response body is not JSON ({damaged})")
    if not isinstance(_parsed(request["body"]), dict):
        raise CassetteFormatError(f"{where}: its request body is not JSON ({damaged})")
    recorded = interaction.get(DIGEST_KEY)
    if recorded is None and not digest_required:
        return  # written before digests existed (format 1)
    if recorded != interaction_digest(interaction):
        missing = "has no digest" if recorded is None else "does not match its digest"
        raise CassetteDigestError(f"the recording of {where} {missing}: edited by hand?")


def _claim_of(request: dict[str, Any]) -> str:
    body = _parsed(request.get("body"))
    state = body.get("state") if isinstance(body, dict) else None
    claim = state.get("claim") if isinstance(state, dict) else None
    if not isinstance(claim, str):
        return "no claim"
    flat = " ".join(claim.split())
    return "claim " + repr(flat if len(flat) <= 50 else flat[:49] + "…")


def interaction_digest(interaction: dict[str, Any]) -> str:
    """A digest of an interaction's canonical request and response: what replay depends on, nothing else.

    Bodies are compared as parsed JSON, so the file's layout (indentation, key order, YAML style)
    does not count; the method, path, the bodies and the status do.
    """
    request, response = interaction.get("request") or {}, interaction.get("response") or {}
    status = response.get("status")
    body = response.get("body")
    canonical = {
        "request": {
            "method": request.get("method"),
            "uri": request.get("uri"),
            "body": _canonical_body(request.get("body")),
        },
        "response": {
            "status": status.get("code") if isinstance(status, dict) else None,
            "body": _canonical_body(body.get("string") if isinstance(body, dict) else None),
        },
    }
    text = json.dumps(canonical, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _canonical_body(body: Any) -> Any:
    parsed = _parsed(body)
    if isinstance(parsed, bytes):
        return {"bytes": parsed.hex()}
    return parsed


def _interaction_sort_key(interaction: dict[str, Any]) -> tuple[str, str, str]:
    request = interaction.get("request", {})
    return (str(request.get("uri", "")), str(request.get("method", "")), request_key(request.get("body")))


def read_cassette_text(path: Path) -> str | None:
    """A cassette file's text; None when there is none yet (no file, or an empty one: recorded again).

    vcrpy's own loader treats a directory as a missing cassette and a file that is not UTF-8 as an
    empty one (and records over it): both are refused here, saying what the file is. Recording
    (``AtomicPersister``) and replay (``replay.Recording``) both read through this.
    """
    if path.is_dir():
        raise CassetteFormatError("it is a directory, not a cassette file", "remove or rename that directory")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise CassetteFormatError(f"the file is not UTF-8 text (byte {error.start}, line {line})") from None
    return text if text.strip() else None


def read_interactions(path: Path) -> list[dict[str, Any]]:
    """The interactions of a citecheck cassette file, as plain dicts (request and response)."""
    data = CassetteSerializer.deserialize(path.read_text(encoding="utf-8"))
    return list(data["interactions"])


def write_interactions(path: Path, interactions: list[dict[str, Any]]) -> None:
    """Rewrite a cassette with these interactions (atomically); delete it when none remain."""
    if not interactions:
        path.unlink(missing_ok=True)
        return
    from vcr.serialize import CASSETTE_FORMAT_VERSION

    atomic_write_text(
        path, CassetteSerializer.serialize({"version": CASSETTE_FORMAT_VERSION, "interactions": list(interactions)})
    )


_DUMPER: Any = None


def _dumper() -> Any:
    global _DUMPER
    if _DUMPER is None:
        yaml = _yaml()

        class Dumper(yaml.SafeDumper):  # type: ignore[name-defined,misc]  # yaml comes untyped, lazily
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
        from vcr.persisters.filesystem import CassetteNotFoundError
        from vcr.serialize import deserialize

        text = read_cassette_text(Path(cassette_path))
        if text is None:
            raise CassetteNotFoundError()
        return deserialize(text, serializer)

    @staticmethod
    def save_cassette(cassette_path: str | Path, cassette_dict: dict[str, Any], serializer: Any) -> None:
        from vcr.serialize import serialize

        atomic_write_text(Path(cassette_path), serialize(cassette_dict, serializer))


def _vcr_patcher_names() -> tuple[str, ...]:
    from vcr.patch import PATCHER_NAMES

    return tuple(PATCHER_NAMES)


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
        # typesafe-sdk speaks httpx2 only. Leaving every other HTTP library unpatched keeps the app's
        # own requests, urllib3 or aiohttp traffic out of our hands entirely, and makes the per-request
        # patching cheap.
        skip_patchers=[name for name in _vcr_patcher_names() if name != "httpx2"],
    )
    recorder.register_serializer("citecheck", CassetteSerializer)
    recorder.register_matcher("citecheck_json_body", match_json_body)
    recorder.register_persister(AtomicPersister)
    return recorder


@dataclass
class PlayCount:
    count: int = 0
    # The requests recorded in this block: saved only once the checker accepted their answer (``accept``).
    recorded: list[Any] = field(default_factory=list)


_PLAYS_HERE: ContextVar[PlayCount | None] = ContextVar("citecheck_plays_here", default=None)


@contextlib.contextmanager
def counting_plays() -> Iterator[PlayCount]:
    """Counts the recorded answers replayed for requests made in this block, in this thread or task only."""
    counter = PlayCount()
    token = _PLAYS_HERE.set(counter)
    try:
        yield counter
    finally:
        _PLAYS_HERE.reset(token)


def _share_between_threads(cassette: Any) -> None:
    """Make one vcrpy cassette safe for citations judged concurrently on worker threads.

    vcrpy's ``Cassette`` keeps its interactions in a list and its play counts in a ``Counter``,
    updated without a lock; two threads replaying at once could both take the same recorded answer.
    Taking and adding an interaction is serialised here; the HTTP request itself is not.
    """
    lock = threading.Lock()
    play_response, append = cassette.play_response, cassette.append

    def locked_play_response(request: Any) -> Any:
        from vcr.errors import CannotOverwriteExistingCassetteException, UnhandledHTTPRequestError

        with lock:
            try:
                response = play_response(request)
            except UnhandledHTTPRequestError:
                # Another thread took the last recording of an identical request between vcrpy's
                # check and this play: to this request, that is a cassette miss.
                raise CannotOverwriteExistingCassetteException(cassette=cassette, failed_request=request) from None
        counter = _PLAYS_HERE.get()
        if counter is not None:
            counter.count += 1
        return response

    def locked_append(request: Any, response: Any) -> None:
        with lock:
            before = len(cassette.data)
            append(request, response)  # vcrpy may drop it (a fault, not ours): only what it kept counts
            added = [recorded for recorded, _ in cassette.data[before:]]
        counter = _PLAYS_HERE.get()
        if counter is not None:
            counter.recorded.extend(added)

    cassette.play_response = locked_play_response
    cassette.append = locked_append


_OPEN_CASSETTES: weakref.WeakSet[TestCassette] = weakref.WeakSet()


def interrupt_open() -> None:
    """Ctrl-C: every cassette still open is saved at teardown, except a rewrite, which keeps its old file."""
    for cassette in list(_OPEN_CASSETTES):
        cassette.interrupted = True


class TestCassette:
    """The cassette of one test: loaded at its first Jev call, saved when the test ends.

    Loading once per test matters twice over: vcrpy write-protects a ``once`` cassette that is
    opened a second time, and loading a cassette is then paid once per test, not per citation.
    vcrpy's patches, though, are applied only around each Jev request (``active``), counted so that
    requests in flight at the same time (threads, asyncio) share one set of patches.

    What the run needs to know about the recordings is kept here too: the interactions a
    ``rewrite`` replaced (``previous``, for drift) and which loaded ones were never played.
    """

    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self, path: Path, record_mode: str, *, shared: bool = False) -> None:
        self.path = path
        self.record_mode = record_mode
        # Named by @pytest.mark.citecheck(cassette=...): other tests read and write this file too.
        self.shared = shared
        # vcrpy's Cassette, or, for a cassette that can only be replayed, a ``replay.Recording``
        # (indexed lookups, no vcrpy: see that module).
        self.cassette: Any = None
        self.previous: list[dict[str, Any]] = []
        self.loaded_count = 0
        self._lock = threading.Lock()
        self._in_flight = 0
        self._patches: contextlib.ExitStack | None = None
        self._closed = False
        self._save_failed = False
        self.interrupted = False  # Ctrl-C during the run: see ``interrupt_open``
        # (claim, section) -> (request body, response body) of the interactions seen so far (interaction_for)
        self._by_citation: dict[tuple[str, str], tuple[Any, dict[str, Any]]] = {}
        self._indexed = 0
        # Recorded requests whose answer the checker read and accepted; no other recording is saved.
        self._accepted: dict[int, Any] = {}

    @property
    def is_open(self) -> bool:
        return self.cassette is not None

    @property
    def replaying(self) -> Recording | None:
        """The cassette when it can only be replayed, served without vcrpy (``replay.Recording``)."""
        from pytest_citecheck._recording.replay import Recording

        return self.cassette if isinstance(self.cassette, Recording) else None

    def open(self) -> Any:
        if self.cassette is None:
            from pytest_citecheck._recording.replay import Recording, index_requests, replays_only

            if replays_only(self.record_mode, self.path, shared=self.shared):
                # A shared cassette is asked the same question by many tests, each as often as it likes.
                self.cassette = Recording.load(self.path, repeats=self.shared)
                self.loaded_count = len(self.cassette)
                return self.cassette
            from vcr.cassette import Cassette

            rewrite = self.record_mode == "rewrite"
            if rewrite and self.path.exists():
                with contextlib.suppress(Exception):  # a corrupt old file has no answers to compare with
                    self.previous = read_interactions(self.path)
            config = make_vcr(
                shared_record_mode(self.record_mode) if self.shared else self.record_mode
            ).get_merged_config(path=str(self.path))
            for key in ("path_transformer", "func_path_generator", "record_on_exception"):
                config.pop(key, None)
            if self.shared:
                # Many tests may ask the same question of one shared cassette, each as often as it likes.
                config["allow_playback_repeats"] = True
            # A rewrite starts empty without deleting the old file: the new recording replaces it
            # atomically when the test ends, so an interrupted rewrite loses nothing. A shared
            # cassette is loaded even then: what the other tests recorded in it stays.
            self.cassette = Cassette(**config) if rewrite and not self.shared else Cassette.load(**config)
            _OPEN_CASSETTES.add(self)
            index_requests(self.cassette)
            _share_between_threads(self.cassette)
            self.loaded_count = len(self.cassette.data)
        return self.cassette

    @contextlib.contextmanager
    def active(self) -> Iterator[Any]:
        """vcrpy's patches, in place while at least one Jev request of this test is in flight."""
        cassette = self.open()
        recording = self.replaying
        if recording is not None:  # it patches, and counts what is in flight, itself
            with recording.serving():
                yield recording
            return
        with self._lock:
            if self._in_flight == 0:
                from vcr.patch import CassettePatcherBuilder

                stack = contextlib.ExitStack()
                for patcher in CassettePatcherBuilder(cassette).build():
                    stack.enter_context(patcher)
                self._patches = stack
            self._in_flight += 1
        try:
            yield cassette
        except KeyboardInterrupt:
            self.interrupted = True
            raise
        finally:
            with self._lock:
                self._in_flight -= 1
                if self._in_flight == 0 and self._patches is not None:
                    patches, self._patches = self._patches, None
                    patches.close()

    @property
    def play_count(self) -> int:
        return self.cassette.play_count if self.cassette is not None else 0

    def interaction_for(self, claim: str, section: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The (request body, response body) this cassette holds for a claim and section, as JSON."""
        if self.cassette is None:
            return None
        recording = self.replaying
        if recording is not None:
            return recording.interaction_for(claim, section)
        with self._lock:
            # Indexed as interactions arrive (loaded, then recorded by this run; vcrpy only appends),
            # each parsed once: a citation's lookup is one dict access, however many the test checks.
            data = list(self.cassette.data)
            for request, response in data[self._indexed :]:
                body = _parsed(request.body)
                state = body.get("state") if isinstance(body, dict) else None
                if (
                    isinstance(state, dict)
                    and isinstance(state.get("claim"), str)
                    and isinstance(state.get("section"), str)
                ):
                    answer = _parsed((response.get("body") or {}).get("string"))
                    # The last one wins: what a re-record in this run appended, if any.
                    self._by_citation[(state["claim"], state["section"])] = (
                        body,
                        answer if isinstance(answer, dict) else {},
                    )
            self._indexed = len(data)
        return self._by_citation.get((claim, section))

    def unplayed(self) -> list[dict[str, Any]]:
        """Request bodies loaded from the file that this run neither played nor recorded again."""
        if self.cassette is None:
            return []
        recording = self.replaying
        if recording is not None:
            return recording.unplayed()
        data = list(self.cassette.data)
        recorded = {request_key(request.body) for request, _ in data[self.loaded_count :]}
        played = self.cassette.play_counts
        unplayed = []
        for index, (request, _) in enumerate(data[: self.loaded_count]):
            if not played[index] and request_key(request.body) not in recorded:
                unplayed.append(_parsed(request.body))
        return unplayed

    def accept(self, played: PlayCount) -> None:
        """The answers recorded in ``played``'s block were read and accepted: they may be saved."""
        with self._lock:
            self._accepted.update((id(request), request) for request in played.recorded)

    def _drop_unaccepted(self) -> None:
        """Forget what was recorded but never accepted (a malformed 2xx answer): it must not replay forever."""
        data = self.cassette.data
        recorded = data[self.loaded_count :]
        kept = [(request, response) for request, response in recorded if id(request) in self._accepted]
        if len(kept) != len(recorded):
            data[self.loaded_count :] = kept
            self._by_citation, self._indexed = {}, 0  # indexed as appended: start again
            if not kept:
                self.cassette.dirty = False  # nothing new to write: an existing file stays as it is

    def save(self) -> None:
        """Write what was recorded and accepted so far, if anything (the plugin calls it as the test's call ends).

        A file that cannot be written is a ``RecordingNotSavedError`` naming it, raised once: the
        test that lost its recording says so in its own report.
        """
        if self.cassette is None or self._save_failed or self.replaying is not None:
            return  # nothing recorded (a replay-only cassette records nothing), or already reported
        if self.interrupted and self.record_mode == "rewrite":
            return  # half a rewrite would replace a whole recording: keep the old file
        self._drop_unaccepted()
        try:
            if self.shared:
                self._save_shared()
            else:
                self.cassette._save()
        except OSError as error:
            from pytest_citecheck._errors import RecordingNotSavedError

            self._save_failed = True
            reason = error.strerror or type(error).__name__
            raise RecordingNotSavedError(
                self.path,
                f"this test's recording was not saved ({reason})",
                f"make {self.path.parent} writable (or set citecheck_cassette_dir), then record again",
            ) from None

    def close(self) -> None:
        if self.cassette is not None and not self._closed:
            self._closed = True
            self.save()

    def _save_shared(self) -> None:
        """Merge what this test recorded into the shared file, as it is on disk now (other tests may have written it)."""
        from vcr.serializers import compat

        recorded = self.cassette.data[self.loaded_count :]
        if recorded:
            merge_into_shared(
                self.path,
                [
                    {
                        "request": compat.convert_to_unicode(request._to_dict()),
                        "response": compat.convert_to_unicode(response),
                    }
                    for request, response in recorded
                ],
            )


# --- shared cassettes: @pytest.mark.citecheck(cassette="name") ---------------------------------


def shared_record_mode(record_mode: str) -> str:
    """vcrpy's mode for a cassette several tests share.

    One test's recording does not make a shared cassette complete for the others, so ``once`` (like
    ``new_episodes``) records the questions it does not hold yet and replays the rest; ``rewrite``
    (like ``all``) records again everything the test asks, and keeps the other tests' answers.
    """
    if record_mode in ("rewrite", "all"):
        return "all"
    if record_mode in ("once", "new_episodes"):
        return "new_episodes"
    return record_mode


def merge_into_shared(path: Path, interactions: list[dict[str, Any]]) -> None:
    """Add interactions to a shared cassette; each replaces a recorded one with the same request.

    Writers may be several processes at once (pytest-xdist workers): reading the file, merging and
    the atomic write happen under an inter-process lock, so no writer loses another's answers. The
    lock file lives in the temporary directory, not beside the cassettes.
    """
    with interprocess_lock(path):
        incoming = {request_key(i["request"]["body"]): i for i in interactions}  # the last of a request wins
        existing = read_interactions(path) if path.exists() else []
        kept = [i for i in existing if request_key(i.get("request", {}).get("body")) not in incoming]
        write_interactions(path, kept + list(incoming.values()))
