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


def test_the_xdist_row_times_the_no_op_as_xdists_floor_and_says_what_is_reachable(tmp_path: Path) -> None:
    suite = replay.Suite("tiny", tests=4, per_test=2, base=tmp_path, ways=("replay", "noop", "floor"))
    with JevServer() as server:
        replay._record(suite, server)
    walls = replay._time_xdist(suite, runs=1)
    assert suite.ok  # every run passed, serial and -n 2, replay and the no-op
    assert min(walls.serial, walls.spread, walls.noop_serial, walls.noop_spread) > 0
    row = replay._xdist_row(suite, walls)
    assert row.guard_ok is None  # wall time: information in --quick
    assert f"-n 2 {replay.secs(walls.noop_spread)} vs serial {replay.secs(walls.noop_serial)}" in row.note
    # xdist's own cost plus replay's work halved, over the serial replay.
    done = replay.XdistWalls(serial=3.0, spread=3.1, noop_serial=0.6, noop_spread=1.7)
    assert done.best == pytest.approx((1.7 + 1.2) / 3.0)
    assert replay._xdist_row(suite, done).note.endswith("(that floor plus replay's own work halved): 0.97x")
