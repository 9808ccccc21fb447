"""xdist: a suite spread over workers records and replays exactly as a serial run does."""

from __future__ import annotations

import json
import shutil

import pytest

IDS = [
    "epoch_seconds",
    "aud_reject",
    "sig_reporting",
    "clock_skew",
    "exp_required",
    "pii_encryption",
    "iat_future",
    "duplicate_names",
]


def _ids_per_test() -> list[list[str]]:
    return [[IDS[index % 8], IDS[(index * 3 + 1) % 8]][: 1 + index % 2] for index in range(40)]


def write_forty_tests(suite: pytest.Pytester) -> None:
    per_test = _ids_per_test()
    for module in range(4):
        body = "from cookbook import SOURCE, pick\n"
        for number in range(10):
            index = module * 10 + number
            body += f"\ndef test_{index:02d}(citecheck):\n    citecheck.check(pick(*{per_test[index]!r}), SOURCE, model='jev-1.12')\n"
        suite.makepyfile(**{f"test_spread_{module}": body})


def sorted_report(path) -> dict:
    data = json.loads(path.read_text())
    data["results"].sort(key=lambda row: (row["test"], row["id"]))
    return data


def _shared(row: dict) -> bool:
    return row.get("shared", False)


def _without_shared(report: dict) -> dict:
    return {**report, "results": [{k: v for k, v in row.items() if k != "shared"} for row in report["results"]]}


def cassettes(suite: pytest.Pytester) -> dict[str, bytes]:
    return {str(p.relative_to(suite.path)): p.read_bytes() for p in sorted((suite.path / "cassettes").rglob("*.yaml"))}


@pytest.mark.slow
def test_forty_tests_recorded_on_four_workers_and_replayed_on_two_match_a_serial_run(
    suite, jev_server, offline, canary_key, files_containing
):
    write_forty_tests(suite)
    serial = suite.runpytest("--citecheck-record-mode=once", "--citecheck-json=serial-record.json")
    serial.assert_outcomes(passed=40)
    serial_cassettes = cassettes(suite)
    # A test that only cites the fabricated quote asks Jev nothing, so has no cassette.
    only_fabricated = sum(1 for row_ids in _ids_per_test() if set(row_ids) == {"sig_reporting"})
    assert len(serial_cassettes) == 40 - only_fabricated
    expected_record = sorted_report(suite.path / "serial-record.json")
    assert len(expected_record["results"]) == 60

    # Recording on four workers: the most concurrent writers; replay below runs on two.
    shutil.rmtree(suite.path / "cassettes")
    result = suite.runpytest("-n", "4", "--citecheck-record-mode=once", "--citecheck-json=record-4.json")
    result.assert_outcomes(passed=40)
    result.stdout.fnmatch_lines(["60 citations checked in 40 tests:*"])
    # Identical requests are sent once per run and shared, across workers too: which test's row got
    # the copy depends on which worker asked first, so the rows are compared without the mark and
    # the number of copies must be the same (each distinct request sent exactly once in both runs).
    recorded = sorted_report(suite.path / "record-4.json")
    assert sum(map(_shared, recorded["results"])) == sum(map(_shared, expected_record["results"])) > 0
    assert _without_shared(recorded) == _without_shared(expected_record)
    assert cassettes(suite) == serial_cassettes  # same files, same bytes: no two workers wrote one file
    assert not files_containing(suite.path, canary_key)

    offline()
    suite.runpytest("--citecheck-json=serial-replay.json", "--citecheck-unused=fail").assert_outcomes(passed=40)
    expected_replay = sorted_report(suite.path / "serial-replay.json")
    assert all(row["replayed"] for row in expected_replay["results"] if "replayed" in row)
    result = suite.runpytest("-n", "2", "--citecheck-json=replay-2.json", "--citecheck-unused=fail")
    result.assert_outcomes(passed=40)
    assert result.ret == 0
    assert sorted_report(suite.path / "replay-2.json") == expected_replay
    assert cassettes(suite) == serial_cassettes


@pytest.mark.slow
def test_unused_recordings_and_orphans_found_on_workers_reach_the_controller(suite, jev_server, offline):
    write_forty_tests(suite)
    suite.runpytest("-n", "4", "--citecheck-record-mode=once").assert_outcomes(passed=40)
    folder = suite.path / "cassettes" / "test_spread_1"
    (folder / "test_gone.yaml").write_bytes((folder / "test_11.yaml").read_bytes())
    text = (suite.path / "test_spread_2.py").read_text()
    suite.makepyfile(
        test_spread_2=text.replace(
            "def test_21(citecheck):\n    citecheck.check(", "def test_21(citecheck):\n    0 and citecheck.check("
        )
    )
    offline()
    serial = suite.runpytest("--citecheck-json=serial.json")
    spread = suite.runpytest("-n", "4", "--citecheck-json=spread.json", "--citecheck-unused=fail")
    assert spread.ret == pytest.ExitCode.TESTS_FAILED
    spread.stdout.fnmatch_lines(
        [
            "Unused recordings: 2 recorded interactions in 1 cassette not played by tests that ran to the end; 1 cassette of no collected test",
            "*orphan  cassettes/test_spread_1/test_gone.yaml",
        ]
    )
    for report in (suite.path / "serial.json", suite.path / "spread.json"):
        data = json.loads(report.read_text())
        assert [entry["test"] for entry in data["unused"]] == ["test_spread_2.py::test_21"] * 2
        assert data["orphans"] == ["cassettes/test_spread_1/test_gone.yaml"]
    assert serial.ret == 0


BATCH_CONFTEST = """
import pytest_citecheck._pytest_glue.shipping as shipping

shipping.BATCH_ROWS = 4  # small batches: some ship on a test's report, the rest when the worker ends
SEEN = {"rows": 0, "batches": 0}

def pytest_runtest_logreport(report):
    SEEN["rows"] += bool(getattr(report, "citecheck_rows", None))
    SEEN["batches"] += isinstance(getattr(report, "citecheck_batch", None), str)

def pytest_terminal_summary(terminalreporter, config):
    if not hasattr(config, "workerinput"):
        terminalreporter.write_line(f"REPORTS WITH ROWS: {SEEN['rows']}; WITH A BATCH: {SEEN['batches']}")
"""


def test_workers_ship_rows_in_batches_not_on_every_report(suite, jev_server, offline):
    write_forty_tests(suite)
    suite.runpytest("--citecheck-record-mode=once", "test_spread_0.py", "test_spread_1.py").assert_outcomes(passed=20)
    offline()
    suite.runpytest("--citecheck-json=serial.json", "test_spread_0.py", "test_spread_1.py").assert_outcomes(passed=20)
    suite.makeconftest(BATCH_CONFTEST)
    result = suite.runpytest("-n", "2", "--citecheck-json=xdist.json", "test_spread_0.py", "test_spread_1.py")
    result.assert_outcomes(passed=20)
    # 30 rows: no report carries a test's rows; a few carry a batch of them, the rest come at each worker's end.
    [line] = [line for line in result.stdout.lines if line.startswith("REPORTS WITH ROWS:")]
    rows, batches = (int(part.rsplit(" ", 1)[1]) for part in line.split(";"))
    assert rows == 0
    assert 1 <= batches <= 30 // 4
    assert sorted_report(suite.path / "xdist.json") == sorted_report(suite.path / "serial.json")
    result.stdout.fnmatch_lines(["30 citations checked in 20 tests:*"])
