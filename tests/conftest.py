"""Shared fixtures for pytest-citecheck's own tests.

``jev_server`` starts the Jev-compatible loopback server and points ``TYPESAFE_BASE_URL`` at it;
``suite`` writes a small test suite into a pytester directory, with the cookbook's RFC 7519 and
citations next to it, ready to run with the plugin.

Tests take what they share from here as fixtures (``canary_key``, ``inner_ini``, ``example_dir``,
``cookbook_answer``, ``files_containing``, ``browser``), never ``from conftest import ...``: conftest is not an
importable module under every import mode, nor once the sdist is unpacked somewhere else.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Imported here, before any pytester run: in-process runs drop the modules first imported inside
# them, and a re-imported yaml no longer matches its C extension (which Python never reloads).
# The HTTP stack under the SDK's client and trio.testing are imported by every run that records;
# re-imported per run they cost most of the run (trio registers its Random with Hypothesis, which
# then walks the whole heap), and an httpcore2 imported afresh under the httpx2 that was not lets
# a refused connection escape unmapped.
import h11  # noqa: F401
import httpcore2  # noqa: F401
import pytest

# pytest-run-parallel (enabled in tests/plugin/test_run_parallel.py's inner runs) imports numpy when
# it loads: first imported inside an in-process run, numpy would be dropped after it and its C
# extension refuses a second import ("cannot load module more than once per process") in the next
# test of the worker that imports it (LlamaIndex does).
import pytest_run_parallel.plugin  # noqa: F401
import trio.testing  # noqa: F401
import truststore  # noqa: F401
import typesafe_sdk  # noqa: F401
import vcr  # noqa: F401
import yaml  # noqa: F401
from support import (  # noqa: F401  (re-exported for fixtures)
    CANARY_KEY,
    CITATIONS,
    EXAMPLE,
    GITHUB_SUITE,
    INNER_INI,
    INNER_RUN_OPTIONS,
    NOT_A_USERS_PLUGINS,
    REHEARSAL_OPT_IN,
    REPO,
    REVIEW_SUITE,
    RFC7519,
    Offline,
)
from typesafe_sdk import TypeSafeClient

from pytest_citecheck._check.checker import Checker, checker_for
from pytest_citecheck._options import Settings
from pytest_citecheck._pytest_glue import fixtures, session  # noqa: F401  (loaded by every run that checks a citation: see above)
from pytest_citecheck._recording import redaction  # noqa: F401  (one log filter, and its secrets, for every run: see above)

# ModelPinWarning's module: re-imported by a later in-process run, it would be another class than the one
# ``pytest_citecheck`` cached when an earlier run's ``-W error::pytest_citecheck.ModelPinWarning`` named it,
# and that filter would no longer match the warning (as it always does in a run of its own).
from pytest_citecheck._recording.lifecycle import pinning  # noqa: F401
from pytest_citecheck.testing import JevServer


class _ImportedAsInstalled(importlib.abc.MetaPathFinder):
    """Imports these third-party packages as Python does, without pytest's assertion rewriting.

    pytest rewrites the asserts of every package whose distribution ships a pytest plugin, whether
    or not the plugin is used, and with PYTHONDONTWRITEBYTECODE set (as on this project's machines)
    it caches none of it: every xdist worker rewrote and compiled Hypothesis's 75 modules (imported
    by the property tests at collection), LangSmith's 224 (imported by LangChain) and anyio's, about
    2 s each. No test here asserts anything through their internal asserts. pytest-citecheck and the
    test modules are rewritten as before; so is everything in the inner pytester runs, which put
    their own rewriting hook ahead of this finder.
    """

    PACKAGES = frozenset({"hypothesis", "langsmith", "anyio", "platformdirs"})

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        package, dot, _ = fullname.partition(".")
        # Their submodules only: each package itself is still rewritten (a small __init__), as
        # every pytest run that marks it (each inner in-process run does) expects it to be, or it
        # would warn that the package was imported before it could be rewritten.
        if not dot or package not in self.PACKAGES:
            return None
        return importlib.machinery.PathFinder.find_spec(fullname, path, target)


sys.meta_path.insert(0, _ImportedAsInstalled())


def _hypothesis_profile() -> None:
    """In CI (``CI`` set, as ``.ci/run`` sets it), the property tests try the same examples every run and keep
    no example database: a submission passes or fails on its own change, not on what a random draw happened
    to find that day. Elsewhere they explore at random, which is how they find new shapes (one found is
    pinned in ``tests/sources/test_layout_properties.py``)."""
    from hypothesis import settings

    settings.register_profile("ci", derandomize=True, database=None)
    if os.environ.get("CI"):
        settings.load_profile("ci")


_hypothesis_profile()


class _ReadOnce(importlib.metadata.PathDistribution):
    """An installed distribution whose entry points, file list, metadata and other files are read once."""

    @functools.cached_property
    def entry_points(self) -> importlib.metadata.EntryPoints:  # type: ignore[override]
        return super().entry_points

    @functools.cached_property
    def files(self) -> list[importlib.metadata.PackagePath] | None:  # type: ignore[override]
        return super().files

    @functools.cached_property
    def metadata(self) -> Any:  # type: ignore[override]
        return super().metadata

    @functools.cache  # noqa: B019  (one per distribution directory, kept for the session)
    def read_text(self, filename: str) -> str | None:
        return super().read_text(filename)


_read_once: dict[str, _ReadOnce] = {}
_installed_distributions = importlib.metadata.distributions


def _distributions_read_once(**kwargs: Any) -> Iterator[importlib.metadata.Distribution]:
    """``importlib.metadata.distributions()``, each distribution directory's files read once per session.

    Every pytest run reads every installed distribution's entry points (pluggy, to load plugins) and
    the file list of each that has a pytest plugin (pytest, to mark them for rewriting): 155
    distributions here, about 0.12 s of each of the hundreds of inner in-process runs. Which
    distributions there are is still looked up on every call (a directory made during the session is
    found, as before); only the contents of one already read are kept, and no test changes those.
    """
    for dist in _installed_distributions(**kwargs):
        path = getattr(dist, "_path", None)
        if type(dist) is not importlib.metadata.PathDistribution or path is None:
            yield dist
            continue
        key = str(path)
        if key not in _read_once:
            _read_once[key] = _ReadOnce(path)
        yield _read_once[key]


importlib.metadata.distributions = _distributions_read_once  # type: ignore[assignment]


def _cookbook_answer(claim: str, section: str) -> tuple[str, float]:
    """Scripted answers shaped like the cookbook's run: what each planted citation should get."""
    if "expiration time" in claim:
        return ("contradicts", 0.98)
    if "personal data" in claim:
        return ("says_nothing", 0.52)
    if '"iat"' in claim:
        return ("says_nothing", 0.7)
    return ("supports", 0.96)


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytest's ``pytester``, its runs (in-process and subprocess alike) without ``NOT_A_USERS_PLUGINS``.

    Set after pytester's own set-up, which clears ``PYTEST_ADDOPTS`` to isolate its runs. Each run
    also gets ``INNER_RUN_OPTIONS``, so an inner suite needs no ini file to run at the lowest versions.

    Inner runs write no bytecode. A test that rewrites a module of its inner suite within the same second
    and to the same size ("can name" made "may name") had its next run import the old code: Python's and
    pytest's assertion-rewriting caches both tell a stale file by its mtime in whole seconds and its size
    (pytest 8.4 did; on a machine without ``PYTHONDONTWRITEBYTECODE`` four to six tests failed, by timing)."""
    monkeypatch.setenv("PYTEST_ADDOPTS", " ".join(NOT_A_USERS_PLUGINS + INNER_RUN_OPTIONS))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # in-process runs
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # subprocess runs
    _one_gc_pass_per_inner_run(monkeypatch)
    return pytester


def _one_gc_pass_per_inner_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest 8.4.0 (the lowest version CI runs) ends every session with five full ``gc.collect()``
    passes (``_pytest.unraisableexception.gc_collect_harder``); an in-process inner run in a process
    holding the whole suite pays some 0.5 s for them, which made the lowest-versions run take ~22
    minutes against ~8. pytest 8.4.1 stopped it for pytester's runs (pytest-dev/pytest#13525) and
    pytest 9 makes one pass on CPython (#14441): an inner run here gets that one pass on 8.4.0 too."""
    import gc
    import inspect

    from _pytest import unraisableexception

    if not inspect.signature(unraisableexception.gc_collect_harder).parameters:  # 8.4.0's, with no knob
        monkeypatch.setattr(unraisableexception, "gc_collect_harder", gc.collect)


@pytest.fixture
def jev_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[JevServer]:
    """A running Jev-compatible server on 127.0.0.1; the SDK is pointed at it with a canary key."""
    server = JevServer(_cookbook_answer).start()
    monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
    monkeypatch.setenv("TYPESAFE_API_KEY", CANARY_KEY)
    yield server
    server.stop()


@pytest.fixture
def direct_checker() -> Iterator[Callable[..., Checker]]:
    """Builds ``Checker``s that ask a loopback Jev directly (no cassette, no pytest run); closes their clients.

    ``direct_checker(server, **settings)``; with no server the check must not ask Jev at all.
    """
    clients: list[TypeSafeClient] = []

    def make(server: JevServer | None = None, **settings: Any) -> Checker:
        def client() -> TypeSafeClient:
            assert server is not None, "this check must not ask Jev"
            clients.append(TypeSafeClient(api_key="sk-test", base_url=server.url, compression=False))
            return clients[-1]

        # The loopback Jev marks its answers (``"rehearsal"``): a script's checker takes them only opted in.
        return checker_for(settings=Settings(**{"rehearsal": True, **settings}), client_factory=client)

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> Offline:
    """``offline()``: from here on, replay as CI does (no key, nothing listening); see ``Offline``."""
    return Offline(monkeypatch)


@pytest.fixture
def no_typesafe_env(offline: Offline) -> None:
    """Offline from the start: no key, and a base URL where nothing listens; replay must not need either."""
    offline()


@pytest.fixture
def cookbook_citations() -> list[dict]:
    return json.loads(CITATIONS.read_text())


COOKBOOK = """
import json, pathlib
from pytest_citecheck import Source
HERE = pathlib.Path(__file__).parent
SOURCE = Source.from_file(HERE / "rfc7519.txt")
CITATIONS = {c["id"]: c for c in json.loads((HERE / "citations.json").read_text())}
def pick(*ids):
    return [CITATIONS[i] for i in ids]
"""


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory holding rfc7519.txt and citations.json, and a module-level helper."""
    shutil.copy(RFC7519, pytester.path / "rfc7519.txt")
    shutil.copy(CITATIONS, pytester.path / "citations.json")
    pytester.makepyfile(cookbook=COOKBOOK)
    pytester.makeini(INNER_INI)
    return pytester


# A conftest of the shared xdist run: when each worker's session has finished (every sessionfinish
# hook of it run, ours included), which of the run's report files exist. Only the controller writes
# them, and it does so after every worker is done: a worker that wrote one would leave it seen here.
WORKER_END_PROBE = """
import json, pathlib
import pytest

REPORTS = ("r.json", "report.html", "junit.xml")

@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session):
    result = yield
    worker = getattr(session.config, "workerinput", {}).get("workerid")
    if worker:
        root = pathlib.Path(__file__).parent
        seen = {name: (root / name).exists() for name in REPORTS}
        (root / "worker-ends").mkdir(exist_ok=True)
        (root / "worker-ends" / f"{worker}.json").write_text(json.dumps(seen))
    return result
"""


@dataclass(frozen=True)
class XdistRun:
    """What the shared xdist run wrote: its directory (reports, cassettes), its output, the step summary."""

    path: Path
    stdout: str
    summary: str


@pytest.fixture(scope="session")
def xdist_run(tmp_path_factory: pytest.TempPathFactory) -> XdistRun:
    """One real xdist run (two workers) shared by the report tests that read what such a run wrote.

    The report tests' two suites (``GITHUB_SUITE`` and ``REVIEW_SUITE``) recorded through the loopback
    Jev as a GitHub Actions step, with the JUnit XML, HTML and JSON reports (and ``worker-ends/gwN.json``:
    which of them existed when each worker finished, ``WORKER_END_PROBE``): once per session (per
    xdist worker of the outer run), since starting the workers is most of an xdist run's cost. Read
    it, never change it (copy ``path`` first).
    """
    root = tmp_path_factory.mktemp("xdist_run")
    shutil.copy(RFC7519, root / "rfc7519.txt")
    shutil.copy(CITATIONS, root / "citations.json")
    (root / "cookbook.py").write_text(COOKBOOK)
    (root / "pytest.ini").write_text(INNER_INI + "citecheck_model = jev-1.12\n")
    (root / "test_gh.py").write_text(GITHUB_SUITE)
    (root / "test_it.py").write_text(REVIEW_SUITE)
    (root / "conftest.py").write_text(WORKER_END_PROBE)
    summary = root / "step-summary.md"
    summary.write_text("# Build\n\nAn earlier step wrote this.\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TYPESAFE_", "GITHUB_", "PYTEST_"))}
    reports = ("--junitxml=junit.xml", "--citecheck-html=report.html", "--citecheck-json=r.json")
    with JevServer(_cookbook_answer) as server:
        env.update(TYPESAFE_BASE_URL=server.url, TYPESAFE_API_KEY=CANARY_KEY, GITHUB_ACTIONS="true")
        env.update(GITHUB_STEP_SUMMARY=str(summary), GITHUB_WORKSPACE=str(root))
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *NOT_A_USERS_PLUGINS, "-n", "2"]
        command += REHEARSAL_OPT_IN  # the loopback server's answers are marked: this run opts in, as every inner run
        done = subprocess.run(
            [*command, "--citecheck-record-mode=once", *reports], cwd=root, env=env, capture_output=True, text=True
        )
    return XdistRun(root, done.stdout + done.stderr, summary.read_text())


@pytest.fixture(scope="module")
def _module_recording() -> list[Path]:
    # The module's one kept recording, once made (a list: the fixture's value is shared, its content set later).
    return []


@pytest.fixture
def recorded_once(_module_recording: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Callable[..., None]:
    """``recorded_once(pytester, record)``: a recording made once per module, copied into later tests.

    The first test of the module (of each xdist worker) that asks runs ``record()`` in its own pytester
    directory: the real recording, asserting what ``record`` asserts. That directory is then kept, and
    each later test that asks gets a copy of it (cassettes, reports, ``.pytest_cache``, mtimes kept) in
    its own directory instead of recording the same answers again. For tests whose subject is what is
    done with a recording, not the recording itself nor the requests Jev saw while it was made.
    """

    def recorded(pytester: pytest.Pytester, record: Callable[[], object]) -> None:
        # Bytecode is left behind: a later test may rewrite a module within the mtime's resolution.
        ignore = shutil.ignore_patterns("__pycache__")
        if _module_recording:
            shutil.copytree(_module_recording[0], pytester.path, dirs_exist_ok=True, ignore=ignore)
            return
        record()
        kept = tmp_path_factory.mktemp("recorded") / "tree"
        shutil.copytree(pytester.path, kept, ignore=ignore)
        _module_recording.append(kept)

    return recorded


def _files_containing(root: Path, needle: str) -> list[Path]:
    """Every file under ``root`` whose bytes contain ``needle``."""
    hits = []
    for path in root.rglob("*"):
        if path.is_file() and needle.encode() in path.read_bytes():
            hits.append(path)
    return hits


@pytest.fixture
def canary_key() -> str:
    """The key ``jev_server`` sets: a test that finds it in a file or in output has found a leak."""
    return CANARY_KEY


@pytest.fixture
def inner_ini() -> str:
    """The ini of a suite run through pytester (``suite`` writes it already); append keys to it."""
    return INNER_INI


@pytest.fixture
def example_dir() -> Path:
    """``examples/rfc7519``: the cookbook's RFC 7519 example, its citations and recorded answers."""
    return EXAMPLE


@pytest.fixture
def cookbook_answer() -> Callable[[str, str], tuple[str, float]]:
    """The scripted Jev answers shaped like the cookbook's run (what ``jev_server`` answers)."""
    return _cookbook_answer


@pytest.fixture
def files_containing() -> Callable[[Path, str], list[Path]]:
    """``files_containing(root, needle)``: every file under ``root`` whose bytes contain ``needle``."""
    return _files_containing


# --- a real browser: Debian's chromium through chromedriver, driven with Selenium -----------------

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,2000",
)


def _chromium_or_skip() -> None:
    """Skip with the reason where Chromium is not installed, except in CI: there a page's rendering must be tested."""
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not shutil.which(path)]
    if not missing:
        return
    reason = f"{' and '.join(missing)} not installed (apt-get install -y chromium chromium-driver)"
    if os.environ.get("CI"):
        pytest.fail(f"CI is set, so the browser test must run: {reason}")
    pytest.skip(reason)


@pytest.fixture
def chromium_or_skip() -> Callable[[], None]:
    """What ``browser`` does first: skip where Chromium is not installed, fail in CI."""
    return _chromium_or_skip


def _plugin_or_skip(module: str, distribution: str) -> None:
    """Skip where a pytest plugin of the ``test`` group is not installed, except in CI: there its test must run."""
    try:
        importlib.import_module(module)
    except ImportError:
        reason = f"{distribution} is not installed (it is in the test group: pip install -e . --group test)"
        if os.environ.get("CI"):
            pytest.fail(f"CI is set, so this test must run: {reason}")
        pytest.skip(reason)


@pytest.fixture
def plugin_or_skip() -> Callable[[str, str], None]:
    """``plugin_or_skip(module, distribution)``: skip where that pytest plugin is not installed, fail in CI.

    Inner runs leave such plugins out (``NOT_A_USERS_PLUGINS``); a test that needs one enables it (``-p NAME``).
    """
    return _plugin_or_skip


@pytest.fixture(scope="session")
def _chromium() -> Iterator[Any]:
    # One browser for every browser test of the session (of each xdist worker): starting one is
    # the slow part of those tests.
    _chromium_or_skip()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in CHROMIUM_ARGS:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(_chromium: Any) -> Any:
    """A headless Chromium (a Selenium driver) on a blank page, its console log read empty.

    The session's one browser: each test starts from a blank page and a log with nothing from the
    test before it in it, so ``browser.get_log("browser")`` holds only what this test's pages logged.
    """
    _chromium.get("about:blank")
    _chromium.get_log("browser")
    return _chromium


@pytest.fixture(autouse=True)
def _isolated_typesafe_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # A developer's own key or endpoint must never leak into (or steer) the tests.
    for name in ("TYPESAFE_API_KEY", "TYPESAFE_BASE_URL", "TYPESAFE_DEFAULT_MODEL", "TYPESAFE_LOG_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    assert "TYPESAFE_API_KEY" not in os.environ


@pytest.fixture(autouse=True)
def _not_on_github(monkeypatch: pytest.MonkeyPatch) -> None:
    # Run on GitHub Actions, the suite's inner pytest runs must not append to the real step summary
    # or print annotations; tests/report/test_ci_summary.py sets these variables itself.
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)
