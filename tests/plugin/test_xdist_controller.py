"""The xdist controller runs no test: it loads neither the SDK nor any step of checking (behaviour, not
timing: ``bench/replay.py`` times ``-n 2``). Every CPU second it spends is taken from its workers."""

from __future__ import annotations

import json
from typing import Any

import pytest

# Loaded by a process that checks citations; none of them by an xdist controller, which only takes in
# its workers' rows and writes the report: the SDK and its HTTP client, vcrpy and YAML, and our steps
# (the checker, step 1, sources, the gate, the judgement, reading cassettes, looking for orphans).
NOT_ON_THE_CONTROLLER = (
    "typesafe_sdk",
    "httpx2",
    "vcr",
    "yaml",
    "pytest_citecheck._check",
    "pytest_citecheck._locate",
    "pytest_citecheck._sources",
    "pytest_citecheck._gate",
    "pytest_citecheck._judge.judgement",
    "pytest_citecheck._recording.cassette_file",
    "pytest_citecheck._recording.lifecycle.orphans",
)

# Each process of the run writes which of them it has loaded, as it ends.
PROBE = """
import json, sys

def pytest_unconfigure(config):
    role = config.workerinput["workerid"] if hasattr(config, "workerinput") else "controller"
    loaded = sorted(name for name in WATCHED if name in sys.modules)
    (config.rootpath / f"loaded-{role}.json").write_text(json.dumps(loaded))
""".replace("WATCHED", repr(NOT_ON_THE_CONTROLLER))


def test_the_xdist_controller_loads_no_sdk_and_no_step_of_checking(
    suite: pytest.Pytester, jev_server: Any, offline: Any
) -> None:
    body = "from cookbook import SOURCE, pick\n"
    for index in range(6):
        body += f"\ndef test_{index}(citecheck):\n    citecheck.check(pick('epoch_seconds', 'aud_reject'), SOURCE)\n"
    suite.makepyfile(test_rows=body)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=6)
    offline()
    suite.makeconftest(PROBE)
    # A fresh interpreter for the controller: in this process everything is loaded already.
    # pytest-recording is blocked: at its lowest allowed version its plugin imports vcrpy (and so YAML and
    # httpx2) when it loads, in every process; this test is about what our plugin loads.
    result = suite.runpytest_subprocess("-p", "xdist", "-p", "no:recording", "-n", "2", "--citecheck-json=r.json")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["12 citations checked in 6 tests:*"])
    assert len(json.loads((suite.path / "r.json").read_text())["results"]) == 12
    loaded = {path.stem.split("-", 1)[1]: json.loads(path.read_text()) for path in suite.path.glob("loaded-*.json")}
    assert sorted(loaded) == ["controller", "gw0", "gw1"]
    assert loaded["controller"] == []
    # The probe sees what a worker that checks citations loads (it is not blind).
    checking = [set(names) for role, names in loaded.items() if role != "controller"]
    assert any({"typesafe_sdk", "pytest_citecheck._locate", "pytest_citecheck._check"} <= names for names in checking)
