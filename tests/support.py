"""Values the tests need at import time (parametrize lists, module-level suites): paths and constants.

Fixtures live in ``conftest.py``; a value a test needs before any fixture runs lives here, in a plain
module (``pythonpath = ["tests"]`` in pyproject.toml puts it on ``sys.path`` under every import mode
and in the unpacked sdist). ``from conftest import ...`` is never used: conftest is pytest's to import.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "rfc7519"
RFC7519 = EXAMPLE / "rfc7519.txt"
CITATIONS = EXAMPLE / "citations.json"
CANARY_KEY = "sk-citecheck-canary-7f3a9c2e41b8d6"
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
# enables it (``-p repeat``, ``-p rerunfailures``), which unblocks it.
NOT_A_USERS_PLUGINS = (
    *("-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", "-p", "no:randomly"),
    *("-p", "no:repeat", "-p", "no:rerunfailures"),
)


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
    end = output.find("short test summary info", start)
    return output[start : end if end != -1 else len(output)]
