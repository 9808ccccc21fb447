"""The replay benchmark's floors are what they say: the same requests as ours, each answered.

No timing here (speed goals live in ``bench/``): a small suite recorded once through the loopback
server, then run each of the four ways the benchmark times; every way passes, so the dict floor
found an answer for every request it sent (it sends exactly the requests we recorded) and plain
vcrpy replayed its own cassettes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import replay
from pytest_citecheck.testing import JevServer

pytestmark = pytest.mark.slow  # a dozen pytest processes


def test_every_way_of_running_a_replay_suite_passes_and_the_floor_sends_our_requests(tmp_path: Path) -> None:
    suite = replay.Suite("tiny", tests=2, per_test=3, base=tmp_path)
    with JevServer() as server:
        replay._record(suite, server)
    assert suite.citations == 6
    answers = json.loads((suite.root("floor") / "answers.json").read_text())
    sections = json.loads((suite.root("floor") / "sections.json").read_text())
    assert len(answers) == len(sections) == 6
    assert not (suite.root("noop") / "cassettes").exists()  # the no-op has no cassettes in reach
    for way in replay.WAYS:
        done = replay._run_way(suite, way)
        assert replay._passed(done, 2), (way, done.stdout[-3000:])
    # A request the recording never saw is not answered: the floor cannot pass by answering anything.
    (suite.root("floor") / "answers.json").write_text(json.dumps(dict(list(answers.items())[1:])))
    assert not replay._passed(replay._run_way(suite, "floor"), 2)
