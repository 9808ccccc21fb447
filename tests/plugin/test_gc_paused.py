"""The first check loads the plugin with the garbage collector paused, and leaves it as it found it.

Why it is paused is a matter of speed (``bench``: replay against the dict floor); what a user can see is
that the collector is back as it was after the check, on or off, and that the loading ran with it off.
"""

from __future__ import annotations

import gc

import pytest

from pytest_citecheck._gc_paused import gc_paused

# Records, in a fresh interpreter, whether the collector was on when the check's machinery and the SDK
# were looked for (a finder first on sys.meta_path sees every import as it starts), and whether it is on
# after the test's check.
CONFTEST = """
import gc, sys

TURNED_OFF = {turned_off}
if TURNED_OFF:
    gc.disable()
seen = {{}}

class Watch:
    def find_spec(self, name, path=None, target=None):
        if name in ("pytest_citecheck._check.running", "pytest_citecheck._locate.locator", "typesafe_sdk"):
            seen.setdefault(name, gc.isenabled())
        return None

sys.meta_path.insert(0, Watch())

def pytest_sessionfinish(session):
    print("\\nSEEN:", ",".join(f"{{name}}={{on}}" for name, on in sorted(seen.items())))
"""

TEST = """
import gc
from pathlib import Path

from pytest_citecheck import Source, check_citations

def test_check(citecheck_client):
    before = gc.isenabled()
    results = check_citations(
        [{"id": "made-up", "claim": "Refunds take a year.", "quote": "refunds take a year", "section": None}],
        Source.from_text("# Refunds\\n\\nRefunds are issued within 30 days.\\n", format="markdown"),
    )
    assert results[0].verdict.value == "fabricated"
    print("\\nCOLLECTOR:", before, gc.isenabled())
"""


@pytest.mark.parametrize("turned_off", [False, True], ids=["collector-on", "collector-off-by-the-user"])
def test_the_first_check_loads_with_the_collector_paused_and_leaves_it_as_found(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, turned_off: bool
) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(CONFTEST.format(turned_off=turned_off))
    pytester.makepyfile(test_first=TEST)
    # A fresh interpreter with only pytest's own plugins and ours: nothing of the check is loaded before it.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess("-p", "pytest_citecheck.plugin", "-s")
    result.assert_outcomes(passed=1)
    on = not turned_off
    result.stdout.fnmatch_lines([f"*COLLECTOR: {on} {on}*"])
    # Loaded while paused: step 1, the judge's side of the check, and the SDK (the session's client).
    result.stdout.fnmatch_lines(
        ["*SEEN: pytest_citecheck._check.running=False,pytest_citecheck._locate.locator=False,typesafe_sdk=False*"]
    )


def test_paused_inside_and_back_on_after_an_error() -> None:
    assert gc.isenabled()
    with pytest.raises(ZeroDivisionError), gc_paused():
        assert not gc.isenabled()
        1 / 0  # noqa: B018
    assert gc.isenabled()


def test_a_collector_turned_off_stays_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
