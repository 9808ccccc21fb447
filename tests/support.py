"""Values the tests need at import time (parametrize lists, module-level suites): paths and constants;
and the set-up several test modules share that a fixture cannot hold (a module-scoped fixture's
inner command line, a suite chosen by a parameter, documents built inside a test).

Fixtures live in ``conftest.py``; a value a test needs before any fixture runs lives here, in a plain
module (``pythonpath = ["tests"]`` in pyproject.toml puts it on ``sys.path`` under every import mode
and in the unpacked sdist). ``from conftest import ...`` is never used: conftest is pytest's to import.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "rfc7519"
RFC7519 = EXAMPLE / "rfc7519.txt"
CITATIONS = EXAMPLE / "citations.json"
CANARY_KEY = "sk-citecheck-canary-7f3a9c2e41b8d6"
DATA = REPO / "tests" / "data"
# The sections of tests/data/nettle-info-excerpt.info (the Nettle manual as GNU Info), in order: the
# text before the first node, then one a node, named by it. tests/sources asserts them in two modules.
NETTLE_INFO_NODES = (
    *("preamble", "Top", "Introduction", "Copyright", "Conventions"),
    *("Nettle soup", "Installation", "Index"),
)
# The ini of the suites that tests run through pytester. In-process runs would otherwise inherit
# this suite's "filterwarnings = error"; pytest-asyncio, when installed, wants its loop scope set.
INNER_INI = "[pytest]\nfilterwarnings = default\nasyncio_default_fixture_loop_scope = function\n"
# Plugins installed for this repository's own tests that a user's suite does not have, and that cost
# every inner pytest run its start-up: Hypothesis's (its entry points make trio register a Random, and
# Hypothesis then walks the whole heap with gc) and LangSmith's (it comes with langchain-core). And
# pytest-randomly, where a developer has it installed: the inner suites' assertions follow the order
# their tests are written in, and it would shuffle them (blocking a plugin that is not there is a no-op).
# And pytest-repeat and pytest-rerunfailures (the test group has them for the tests of
# --citecheck-unused=delete under them): rerunfailures takes part in every run it is loaded in (a
# status server under xdist, its own handling of a crashed worker's test); a test that needs either
# enables it (``-p repeat``, ``-p rerunfailures``), which unblocks it. And pytest-run-parallel (for
# tests/plugin/test_run_parallel.py): it adds a line to every run's header; ``-p run-parallel`` there.
NOT_A_USERS_PLUGINS = (
    *("-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", "-p", "no:randomly"),
    *("-p", "no:repeat", "-p", "no:rerunfailures", "-p", "no:run-parallel"),
)

# What every inner run is given besides (through PYTEST_ADDOPTS, see the ``pytester`` fixture): the
# event-loop scope pytest-asyncio warns about when it is unset. An inner suite written without an ini
# file otherwise gets that PytestDeprecationWarning at configure time, which pytest 8.4 with
# pytest-asyncio 1.0 (the lowest versions pyproject.toml allows) turns into an INTERNALERROR.
# And the rehearsal opt-in: the inner runs record against the loopback ``JevServer``, whose answers
# carry its mark and are refused without it (tests/recording/test_rehearsal_mark.py takes it back
# with ``-o citecheck_rehearsal=false``, the last ``-o`` winning, as a user's run without it is).
LOOP_SCOPE_OPTION = ("-o", "asyncio_default_fixture_loop_scope=function")
REHEARSAL_OPT_IN = ("-o", "citecheck_rehearsal=true")
INNER_RUN_OPTIONS = LOOP_SCOPE_OPTION + REHEARSAL_OPT_IN


# The suites of the report tests (tests/report/), which the shared xdist run (``xdist_run``) runs too.
GITHUB_SUITE = """
import pytest
from cookbook import SOURCE, pick
from pytest_citecheck import assert_citations_supported

HOSTILE = {
    "id": "pipe|id, with: colon",
    "claim": "A <b>bold</b> | claim at 100% for $5\\nand a second line",
    "quote": "this sentence is in no RFC at all",
    "section": "4.1",
}

def test_fails():
    assert_citations_supported(pick("sig_reporting", "exp_required", "epoch_seconds"), SOURCE)

def test_review():
    assert_citations_supported(pick("pii_encryption"), SOURCE)

def test_bad_input():
    assert_citations_supported([{**pick("aud_reject")[0], "section": "9.9"}], SOURCE)

def test_hostile():
    assert_citations_supported([HOSTILE], SOURCE)
"""

REVIEW_SUITE = """
from pytest_citecheck import check_citations
from cookbook import SOURCE, pick

def test_one():
    check_citations(pick("aud_reject"), SOURCE)

def test_three_checked_twice():
    check_citations(pick("aud_reject", "pii_encryption", "sig_reporting"), SOURCE)
    check_citations(pick("aud_reject", "pii_encryption", "sig_reporting"), SOURCE)
"""


class Offline:
    """Replay as CI does: no TypeSafe key, and a base URL where nothing listens (the discard port).

    ``offline()`` takes this process's environment offline until the test ends (pytester's in-process
    and subprocess runs both see it); ``Offline.env(base)`` is ``base``, a subprocess's environment,
    offline. A request that escaped the cassette fails to connect instead of reaching a server.
    """

    URL = "http://127.0.0.1:9"

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._monkeypatch = monkeypatch

    def __call__(self) -> None:
        self._monkeypatch.delenv("TYPESAFE_API_KEY", raising=False)
        self._monkeypatch.setenv("TYPESAFE_BASE_URL", self.URL)

    @classmethod
    def env(cls, base: Mapping[str, str]) -> dict[str, str]:
        env = {name: value for name, value in base.items() if name != "TYPESAFE_API_KEY"}
        env["TYPESAFE_BASE_URL"] = cls.URL
        return env


def failures_section(output: str) -> str:
    """The FAILURES section of a pytest run's ``output``: each failed test's report, once.

    The short test summary after it repeats each failure's message in full where pytest sees CI set
    (``CI`` or ``BUILD_NUMBER``) and cut to the line's width elsewhere, so a test that counts how
    often a message is printed counts here, the same on a laptop as on CI."""
    start = output.index("= FAILURES =")
    # Up to the next section: the short test summary, or the citecheck summary before it (whose line of
    # errored citations names each one's cause again).
    ends = [output.find(marker, start) for marker in (" citecheck =", "short test summary info")]
    return output[start : min((end for end in ends if end != -1), default=len(output))]


# One claim with no quote, checked through the sync API and through the async client: the same test
# (and so the same cassette, cassettes/test_app/test_claims.yaml) on either path.
# One test checking the cookbook's aud_reject citation (the suite fixture's cookbook module), recorded
# once and replayed: for tests about where its cassette or report lands.
AUD_REJECT_TEST = """
from pytest_citecheck import assert_citations_supported
from cookbook import SOURCE, pick

def test_answer():
    assert_citations_supported(pick("aud_reject"), SOURCE)
"""


ONE_CLAIM_PATHS = {
    "sync": """
from cookbook import SOURCE
from pytest_citecheck import assert_citations_supported

def test_claims():
    assert_citations_supported([{"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"}], SOURCE)
""",
    "async": """
import pytest
from cookbook import SOURCE

@pytest.mark.asyncio
async def test_claims(citecheck):
    await citecheck.aassert_supported([{"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"}], SOURCE)
""",
}


def inner_pytest_command(*args: str) -> list[str]:
    """``python -m pytest`` as an inner run in its own process: quiet, judging with jev-1.12, without
    the cache provider or the plugins a user's suite does not have (``NOT_A_USERS_PLUGINS``), and
    taking the loopback server's marked answers (``REHEARSAL_OPT_IN``) as every inner run does."""
    return [
        sys.executable,
        *("-m", "pytest", "-p", "no:cacheprovider", *NOT_A_USERS_PLUGINS, *REHEARSAL_OPT_IN),
        *("-q", "--citecheck-model=jev-1.12", *args),
    ]


def run_review_in(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``citecheck review`` with ``args``, run as a user runs it (``python -m pytest_citecheck review``, its own
    process) in ``directory``: its exit code and its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "pytest_citecheck", "review", *args],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def review(pytester: pytest.Pytester, *args: str) -> subprocess.CompletedProcess[str]:
    """``citecheck review`` with ``args`` in the suite ``pytester`` wrote (``run_review_in`` its directory)."""
    return run_review_in(pytester.path, *args)


def run_example(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``examples/rfc7519`` (the cookbook's case: RFC 7519 and its recorded answers) copied to
    ``directory`` and run there as its README says, replayed offline, with ``args`` (report paths)."""
    if not directory.exists():
        shutil.copytree(EXAMPLE, directory, ignore=shutil.ignore_patterns("__pycache__", "*.tmp"))
    return subprocess.run(
        [sys.executable, "-m", "pytest", *NOT_A_USERS_PLUGINS, "-p", "no:cacheprovider", "-q", *args],
        cwd=directory,
        env=Offline.env(os.environ),
        capture_output=True,
        text=True,
        timeout=300,
    )


def pdf_pages(source: str, labels: Sequence[str] | None = None) -> list[Any]:
    """What LangChain's PyPDFLoader returns for ``tests/data/apache-2.0.pdf`` (4 pages, read with pypdf):
    a Document a page, its metadata ``source``, ``page`` (0-based) and ``page_label`` (as printed:
    ``labels``, or 1, 2, 3, 4). LangChain and pypdf are imported when it is first called."""
    from langchain_core.documents import Document
    from pypdf import PdfReader

    texts = [page.extract_text() for page in PdfReader(DATA / "apache-2.0.pdf").pages]
    labels = [str(number + 1) for number in range(len(texts))] if labels is None else labels
    assert len(texts) == len(labels)
    return [
        Document(page_content=text, metadata={"source": source, "page": number, "page_label": label})
        for number, (text, label) in enumerate(zip(texts, labels))
    ]


class RawServer:
    """A loopback HTTP server on a raw socket, for answers ``JevServer`` cannot give: a body cut short,
    one sent a byte at a time. For each request, on a thread of its own, the request is read whole
    (head and ``Content-Length`` body) and ``respond(connection, stopped)`` writes what it likes;
    ``stopped`` is set by ``stop()``. ``requests`` counts the requests read."""

    def __init__(self, respond: Callable[[socket.socket, threading.Event], None]) -> None:
        self.respond = respond
        self.stopped = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.requests = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        with connection:
            try:
                if not _read_request(connection):
                    return
                self.requests += 1
                self.respond(connection, self.stopped)
            except OSError:
                return

    def stop(self) -> None:
        self.stopped.set()
        self.listener.close()


def _read_request(connection: socket.socket) -> bool:
    """Read one request whole (head, then as many body bytes as its Content-Length); False if it closed first."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            return False
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lengths = [int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")]
    while len(rest) < (lengths[0] if lengths else 0):
        chunk = connection.recv(65536)
        if not chunk:
            return False
        rest += chunk
    return True


# --- the HTML report: its data, and the cards a real browser draws from it ---------------------

_HTML_DATA = r'<script type="application/json" id="citecheck-{}">(.*?)</script>'


def html_report_data(page: Path) -> tuple[list[Any], list[dict[str, Any]]]:
    """The HTML report's two JSON blocks: the texts its cards share (each once), and one object per citation."""
    import json
    import re

    text = page.read_text(encoding="utf-8")
    blocks = [re.search(_HTML_DATA.format(name), text, re.DOTALL) for name in ("texts", "cards")]
    assert all(blocks), f"{page} has no citation data"
    texts, cards = (json.loads(block.group(1)) for block in blocks if block)
    return texts, cards


def html_report_cards(browser: Any, page: Path) -> dict[str, str]:
    """The cards a real Chromium draws on the first page of the HTML report ``page``: citation id ->
    the card's markup (``outerHTML``; the cards of an id that several tests use, one after the other).
    Fails on anything the page logged to the console."""
    browser.get(page.as_uri())
    logged = [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
    assert logged == [], logged
    drawn = browser.execute_script(
        "return Array.from(document.querySelectorAll('#cards article.citation'), function (card) {"
        " return [card.querySelector('h3').firstChild.textContent, card.outerHTML]; });"
    )
    cards: dict[str, str] = {}
    for heading, markup in drawn:
        citation = heading.removeprefix("Citation ")[:-1]
        cards[citation] = f"{cards[citation]}\n{markup}" if citation in cards else markup
    return cards


def recorded_interaction(claim: str, section: str, confidence: float = 0.9) -> dict[str, Any]:
    """A Jev request and its 200 answer as vcrpy hands them to a cassette serializer, bodies as JSON text."""
    body = {"model": "jev-1.13.0", "state": {"claim": claim, "section": section}}
    answer = {"answers": {"relation": {"choice": "supports", "confidence": confidence}}, "model": "jev-1.13.0"}
    return {
        "request": {
            "method": "POST",
            "uri": "https://api.typesafe.ai/v1/systemone",
            "body": json.dumps(body),
            "headers": {"content-type": ["application/json"]},
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {"content-type": ["application/json"]},
            "body": {"string": json.dumps(answer)},
        },
    }


def recorded_claude_stream_client(payload: str) -> Any:
    """anthropic's own client whose every request is answered with the recorded event stream ``payload``
    (a file of tests/data/payloads): what ``messages.create(stream=True)`` and ``messages.stream`` read."""
    import anthropic
    import httpx2

    body = (Path(__file__).resolve().parent / "data" / "payloads" / payload).read_bytes()

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})

    return anthropic.Anthropic(
        api_key="sk-placeholder", http_client=httpx2.Client(transport=httpx2.MockTransport(answer))
    )


def converse_pdf_pages() -> Any:
    """The PDF of ``tests/data/payloads/bedrock_converse_pdf_page.json`` (a recorded Converse answer) as a
    ``Source`` of its pages: its first page holds the cited passage, its second other text."""
    from pytest_citecheck import Source

    first = (
        "A sample PDF file\nHistory and standardization\nFormat (PDF) Adobe Systems made the PDF specification "
        "available free of\ncharge in 1993."
    )
    return Source(sections={"page 1": first, "page 2": "PDF was standardized as ISO 32000 in 2008."})


def located_places(answer: Any, source: Any) -> list[tuple[Any, str | None]]:
    """Step 1 over an answer every citation of which can be read: each citation's status and section."""
    from pytest_citecheck._citations.adapt import adapt_answer
    from pytest_citecheck._locate.citations import Located, locate_all
    from pytest_citecheck._options import Settings

    adapted = adapt_answer(answer, source=source)
    assert adapted.invalid == {}
    results = locate_all(adapted.citations, source, Settings())
    assert all(isinstance(result, Located) for result in results)
    return [(result.status, result.section) for result in results]  # type: ignore[union-attr]


# A page's quotes, each cited in a test of its own (``quotes_of_a_page``).
_PAGE_QUOTES_SUITE = """
import pathlib
import pytest
from pytest_citecheck import Source, assert_citations_supported

PAGE = Source.from_file(pathlib.Path(__file__).parent / {name!r}, format={format!r})
QUOTES = {quotes!r}

@pytest.mark.parametrize("kind", list(QUOTES))
def test_quote(kind):
    citation = {{"id": kind, "claim": "The policy says so.", "quote": QUOTES[kind]}}
    assert_citations_supported([citation], PAGE)
"""


def quotes_of_a_page(
    pytester: pytest.Pytester,
    page: str | bytes,
    quotes: dict[str, str],
    outcome: str,
    name: str = "refunds.html",
    format: str | None = None,
) -> list[dict[str, Any]]:
    """Each of ``quotes`` (kind -> quote) cited from the document ``page`` (the file ``name``, read by
    ``Source.from_file``: HTML by default) in a test of its own, recorded against the loopback Jev (the
    caller's ``jev_server``): every test must end ``outcome``; the JSON report's rows."""
    pytester.makeini(INNER_INI + "citecheck_model = jev-1.12\n")
    if isinstance(page, bytes):
        (pytester.path / name).write_bytes(page)  # a PDF
    else:
        (pytester.path / name).write_text(page)
    pytester.makepyfile(test_refunds=_PAGE_QUOTES_SUITE.format(quotes=quotes, name=name, format=format))
    result = pytester.runpytest("--citecheck-record-mode=once", "--citecheck-json=report.json", *NOT_A_USERS_PLUGINS)
    result.assert_outcomes(**{outcome: len(quotes)})
    rows: list[dict[str, Any]] = json.loads((pytester.path / "report.json").read_text())["results"]
    return rows


def assert_each_quote_ends(
    pytester: pytest.Pytester,
    page: str | bytes,
    quotes: dict[str, str],
    outcome: str,
    name: str = "refunds.html",
    format: str | None = None,
) -> list[dict[str, Any]]:
    """``quotes_of_a_page``, then each row as its outcome says: missing and fabricated for "failed" (a quote
    of text a reader never sees), found and verified for "passed"; the rows."""
    rows = quotes_of_a_page(pytester, page, quotes, outcome, name=name, format=format)
    expected = ("missing", "fabricated") if outcome == "failed" else ("found", "verified")
    assert {row["id"]: (row["status"], row["verdict"]) for row in rows} == dict.fromkeys(quotes, expected)
    return rows


POLICY_SUITE = """
import pytest
from pytest_citecheck import Source, assert_citations_supported

POLICY = Source(sections=SECTIONS)
CASES = CASES_HERE


@pytest.mark.parametrize(("section", "quote"), CASES, ids=IDS)
def test_case(section, quote):
    citation = {"id": "c", "claim": "The policy says what the quote says.", "quote": quote, "section": section}
    assert_citations_supported([citation], POLICY)
"""


def policy_suite(pytester: pytest.Pytester, sections: dict[str, str], cases: list[tuple[str, str, str]]) -> str:
    """A test module checking one quote per case (case id, section, quote) against ``sections``, as a user's suite."""
    pytester.makeini("[pytest]\nfilterwarnings = default\n")
    return (
        POLICY_SUITE.replace("SECTIONS", repr(sections))
        .replace("CASES_HERE", repr([(section, quote) for _, section, quote in cases]))
        .replace("IDS", repr([case_id for case_id, _, _ in cases]))
    )


def run_policy_suite(
    pytester: pytest.Pytester,
    sections: dict[str, str],
    cases: list[tuple[str, str, str]],
    *,
    failed: int = 0,
    passed: int = 0,
    fuzzy: float | None = None,
    casefold: bool = False,
) -> tuple[pytest.RunResult, list[dict[str, Any]]]:
    """``policy_suite`` (with ``fuzzy``, if given, and ``--citecheck-casefold``) recorded against the loopback Jev,
    ending as told; its result and the JSON report's rows."""
    suite = policy_suite(pytester, sections, cases)
    if fuzzy is not None:
        plain = "assert_citations_supported([citation], POLICY)"
        assert plain in suite
        suite = suite.replace(plain, f"assert_citations_supported([citation], POLICY, fuzzy={fuzzy})")
    pytester.makepyfile(test_policy=suite)
    options = ["--citecheck-casefold"] if casefold else []
    result = pytester.runpytest(
        "-p", "no:randomly", "--citecheck-record-mode=once", "--citecheck-json=report.json", *options
    )
    result.assert_outcomes(failed=failed, passed=passed)
    return result, json.loads((pytester.path / "report.json").read_text())["results"]


def assert_quotes_fabricated(
    pytester: pytest.Pytester,
    jev_server: Any,
    sections: dict[str, str],
    cases: list[tuple[str, str, str]],
    *,
    fuzzy: float | None = None,
    casefold: bool = False,
) -> None:
    """Each case's quote is not found (``missing``, ``fabricated``): its test fails, and nothing is sent to Jev."""
    _, rows = run_policy_suite(pytester, sections, cases, failed=len(cases), fuzzy=fuzzy, casefold=casefold)
    assert jev_server.requests == []
    assert {(row["status"], row["verdict"]) for row in rows} == {("missing", "fabricated")}
    assert len(rows) == len(cases)


def assert_elisions_altered(
    pytester: pytest.Pytester, jev_server: Any, sections: dict[str, str], cases: list[tuple[str, str, str, str]]
) -> None:
    """A user's suite quoting each case (case id, section, quote, the words its elision removes, as a
    pattern) fails every test as altered, decided in code: nothing sent to Jev, each test's message names
    the words removed, every JSON row altered and fabricated."""
    pytester.makepyfile(test_policy=policy_suite(pytester, sections, [case[:3] for case in cases]))
    result = pytester.runpytest("-p", "no:randomly", "--citecheck-record-mode=once", "--citecheck-json=report.json")
    result.assert_outcomes(failed=len(cases))
    assert jev_server.requests == [], "an altered quote is decided in code: nothing is sent to Jev"
    for case_id, _, _, words in cases:
        result.stdout.fnmatch_lines(
            [f"*test_case?{case_id}?*", f"*c: the quote is altered: its elision removes '{words}', which turns*"]
        )
    rows = json.loads((pytester.path / "report.json").read_text())["results"]
    assert {(row["status"], row["verdict"]) for row in rows} == {("altered", "fabricated")}


# A Claude text block citing a plain-text document (``char_location``), as langchain-anthropic keeps it in
# an ``AIMessage``'s content.
CLAUDE_CHAR_LOCATION_BLOCK = {
    "type": "text",
    "text": "The grass is green.",
    "citations": [
        {
            "type": "char_location",
            "cited_text": "The grass is green.",
            "document_index": 0,
            "document_title": None,
            "start_char_index": 0,
            "end_char_index": 19,
        }
    ],
}


def judged_check(direct_checker: Any, answer: Any, source: Any) -> tuple[list[Any], list[str]]:
    """Check ``answer`` against a loopback Jev: the checker's results, and the claims Jev was asked about."""
    from pytest_citecheck.testing import JevServer

    server = JevServer().start()
    try:
        checker = direct_checker(server)
        checker.check(answer, source)
    finally:
        server.stop()
    return checker.results, [request.body["state"]["claim"] for request in server.systemone_requests]


def refused_check(direct_checker: Any, answer: Any, source: Any, message: str) -> tuple[list[Any], list[str]]:
    """Check ``answer`` against a loopback Jev: the check raises ``CitationInputError`` matching ``message``.
    The checker's results, and the claims Jev was asked about."""
    import pytest

    from pytest_citecheck import CitationInputError
    from pytest_citecheck.testing import JevServer

    server = JevServer().start()
    try:
        checker = direct_checker(server)
        with pytest.raises(CitationInputError, match=message):
            checker.check(answer, source)
    finally:
        server.stop()
    return checker.results, [request.body["state"]["claim"] for request in server.systemone_requests]


def checked_or_refused(direct_checker: Any, answer: Any, source: Any) -> tuple[list[Any], Any]:
    """Check ``answer`` against a loopback Jev: the checker's results, and the ``CitationInputError`` the check
    raised (None when it raised none)."""
    from pytest_citecheck import CitationInputError
    from pytest_citecheck.testing import JevServer

    server = JevServer().start()
    checker = direct_checker(server)
    try:
        checker.check(answer, source)
    except CitationInputError as error:
        return checker.results, error
    finally:
        server.stop()
    return checker.results, None


def refused_with_one_invalid(direct_checker: Any, answer: Any, source: Any, message: str) -> list[str]:
    """``refused_check``, its citation '#2' invalid and the citation '#1.1' before it still located on page 1;
    the claims Jev was asked about."""
    from pytest_citecheck import Status

    results, claims = refused_check(direct_checker, answer, source, message)
    assert [(r.id, r.status, r.section) for r in results] == [
        ("#1.1", Status.FOUND, "page 1"),
        ("#2", Status.INVALID, None),
    ]
    return claims
