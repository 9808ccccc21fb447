"""Nothing lost: files are replaced atomically, an interrupted run and two runs at once corrupt nothing.

``atomic_write_text`` writes a temporary file beside the target, fsyncs it and renames it over the
target; cassettes, the JSON and HTML reports and the reviews file all go through it. The tests break
a write half-way (an unencodable character, a KeyboardInterrupt at the rename), interrupt a real
recording run with SIGINT while a request to ``JevServer`` is in flight, and run two recording
sessions into one cassette directory at the same time; after each, every file that existed is
intact and readable, and no temporary file is left behind.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from support import Offline, inner_pytest_command

from pytest_citecheck import _files
from pytest_citecheck._files import atomic_write_text
from pytest_citecheck._recording.cassette_file import CassetteSerializer
from pytest_citecheck._report.run_report import Report
from pytest_citecheck.testing import JevServer

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "rfc7519"
KEY = "sk-atomic-test-77aa"
# One citation per test, except the second test's two: its second citation is the one interrupted.
CASES = (("epoch_seconds",), ("aud_reject", "exp_required"), ("clock_skew",), ("duplicate_names",))

INNER = """
import json, pathlib, pytest
from pytest_citecheck import Source, assert_citations_supported

HERE = pathlib.Path(__file__).parent
SOURCE = Source.from_file(HERE / "rfc7519.txt")
CITATIONS = {c["id"]: c for c in json.loads((HERE / "citations.json").read_text())}

@pytest.mark.parametrize("ids", %r, ids="+".join)
def test_cite(ids):
    assert_citations_supported([CITATIONS[i] for i in ids], SOURCE)
""" % (CASES,)  # noqa: UP031 - the template is full of braces


def leftovers(root: Path) -> list[Path]:
    return [path for path in root.rglob("*.tmp")]


# --- atomic_write_text itself ------------------------------------------------------------------


def test_a_write_that_fails_half_way_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "cassette.yaml"
    target.write_text("old: content\n", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(target, "new: " + "x" * 100_000 + "\ud800")  # a lone surrogate cannot be encoded
    assert target.read_text(encoding="utf-8") == "old: content\n"
    assert leftovers(tmp_path) == [] and len(list(tmp_path.iterdir())) == 1


def test_a_fifo_or_a_socket_in_place_of_the_file_is_not_replaced(tmp_path: Path) -> None:
    """The write renames a new file over the path: run as root, ``citecheck merge -o /dev/null`` (or
    any writer given a device) turned the machine's null device into a regular file. A path that is
    neither a regular file nor a symbolic link (a device, a FIFO, a socket) is refused, an OSError
    naming what it is, and stays; no temporary file is left. (A FIFO and a socket stand for
    ``/dev/null`` here: a failing test must not replace the real one.)"""
    import socket

    fifo = tmp_path / "report.json"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match=r"it is a FIFO \(named pipe\), not a regular file"):
        atomic_write_text(fifo, "{}")
    assert fifo.is_fifo()
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(tmp_path / "s"))
    try:
        with pytest.raises(OSError, match="it is a socket, not a regular file"):
            atomic_write_text(tmp_path / "s", "{}")
        assert (tmp_path / "s").is_socket()
    finally:
        listening.close()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report.json", "s"]


def test_a_keyboard_interrupt_at_the_rename_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.json"
    Report([{"id": "old", "verdict": "verified", "auto": True}]).write(target)
    before = target.read_bytes()

    def interrupted(*args: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(_files.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        Report([{"id": "new", "verdict": "verified", "auto": True}]).write(target)
    assert target.read_bytes() == before
    assert leftovers(tmp_path) == []


def test_readers_see_the_old_file_or_the_new_one_never_half(tmp_path: Path) -> None:
    """A reader polling while a writer replaces a large file 50 times only ever reads whole files."""
    target = tmp_path / "big.json"
    versions = [json.dumps({"version": n, "rows": ["x" * 200] * 2000}) for n in range(2)]
    atomic_write_text(target, versions[0])
    seen: set[int] = set()
    problems: list[str] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            text = target.read_text(encoding="utf-8")
            try:
                seen.add(json.loads(text)["version"])
            except ValueError:
                problems.append(f"read {len(text)} characters of a half-written file")

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for n in range(50):
            atomic_write_text(target, versions[n % 2])
    finally:
        done.set()
        reader.join()
    assert problems == []
    assert seen <= {0, 1}


def test_reports_and_reviews_are_written_through_atomic_write_text(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Every writer of a user-visible file goes through the one atomic writer (so the tests above cover it)."""
    from pytest_citecheck._report import html as html_report
    from pytest_citecheck._report import run_report as report
    from pytest_citecheck._review import decisions as reviews

    calls: list[Path] = []

    def recording(path: Path, text: object, *, follow_links: bool = False) -> None:
        assert follow_links, "a report or reviews file written through a link replaces the link's target"
        calls.append(Path(path))

    # The reports are written as a stream, through the atomic writer's chunked form.
    for module, name in (
        (report, "atomic_write_chunks"),
        (html_report, "atomic_write_chunks"),
        (reviews, "atomic_write_text"),
    ):
        monkeypatch.setattr(module, name, recording)
    Report([]).write(tmp_path / "r.json")
    html_report.write_html(Report([]), tmp_path / "r.html")
    reviews_file = reviews.Reviews.load(tmp_path / "reviews.json")
    reviews_file.save()
    assert [path.name for path in calls] == ["r.json", "r.html", "reviews.json"]
    assert not any(tmp_path.iterdir()), "something was written around the atomic writer"


# --- real runs ----------------------------------------------------------------------------------


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    shutil.copy(EXAMPLE / "rfc7519.txt", tmp_path / "rfc7519.txt")
    shutil.copy(EXAMPLE / "citations.json", tmp_path / "citations.json")
    (tmp_path / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (tmp_path / "test_inner.py").write_text(INNER)
    return tmp_path


def _env(server: JevServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TYPESAFE_")}
    env.update(TYPESAFE_API_KEY=KEY, TYPESAFE_BASE_URL=server.url)
    return env


def _command(*args: str) -> list[str]:
    return inner_pytest_command("--citecheck-json=report.json", *args)


def _ctrl_c_reaches_python() -> None:
    # A shell that runs a job in the background (CI may) makes it ignore SIGINT, and Python then
    # installs no KeyboardInterrupt handler in the children: give the inner run Python's default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cassettes(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted((root / "cassettes").rglob("*.yaml"))}


def _assert_readable(root: Path) -> None:
    for path in (root / "cassettes").rglob("*.yaml"):
        data = CassetteSerializer.deserialize(path.read_text(encoding="utf-8"))
        assert data["interactions"], f"{path} holds no interaction"
    Report.load(root / "report.json")


@pytest.mark.slow
@pytest.mark.parametrize("concurrency", ["1", "8"], ids=["sequential", "concurrent"])
def test_an_interrupted_recording_leaves_every_existing_file_intact(suite_dir: Path, concurrency: str) -> None:
    with JevServer() as server:
        first = subprocess.run(
            _command("--citecheck-record-mode=once"),
            cwd=suite_dir,
            env=_env(server),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert first.returncode == 0, first.stdout + first.stderr
    before = _cassettes(suite_dir)
    report_before = (suite_dir / "report.json").read_bytes()
    assert len(before) == len(CASES)

    # Re-record everything; Ctrl-C (SIGINT) arrives while the request for the second test's second
    # citation is in flight, after its first citation was answered.
    in_flight = threading.Event()

    def slow_exp(claim: str, section: str) -> tuple[str, float]:
        if "expiration time" in claim:
            in_flight.set()
            threading.Event().wait(3)
        return ("supports", 0.95)

    with JevServer(slow_exp) as server:
        run = subprocess.Popen(
            _command("--citecheck-record-mode=rewrite", f"--citecheck-concurrency={concurrency}"),
            cwd=suite_dir,
            env=_env(server),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            preexec_fn=_ctrl_c_reaches_python,
        )
        assert in_flight.wait(60), "the interrupted request never arrived"
        run.send_signal(signal.SIGINT)
        output, _ = run.communicate(timeout=60)
    assert run.returncode == pytest.ExitCode.INTERRUPTED, output
    assert "KeyboardInterrupt" in output and "INTERNALERROR" not in output, output

    after = _cassettes(suite_dir)
    assert set(after) == set(before), "a cassette was lost"
    _assert_readable(suite_dir)
    for name in before:
        if "epoch_seconds" in name:
            continue  # re-recorded before the interrupt: a whole new recording (checked readable above)
        # The interrupted test keeps its old recording, whole: half a rewrite never replaces it; the
        # tests after it were not touched.
        assert after[name] == before[name], name
    report_after = (suite_dir / "report.json").read_bytes()
    assert report_after == report_before or isinstance(json.loads(report_after)["results"], list)
    assert leftovers(suite_dir) == []


@pytest.mark.slow
def test_two_runs_recording_into_one_directory_at_once_do_not_corrupt_each_other(suite_dir: Path) -> None:
    answered: list[str] = []

    def slow(claim: str, section: str) -> tuple[str, float]:
        answered.append(claim)
        threading.Event().wait(0.05)  # long enough for the two runs' writes to interleave
        return ("supports", 0.95)

    with JevServer(slow) as server:
        env = _env(server)
        runs = [
            subprocess.Popen(
                _command("--citecheck-record-mode=rewrite", "-p", "xdist", "-n", "2"),
                cwd=suite_dir,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for _ in range(2)
        ]
        outputs = [run.communicate(timeout=180)[0] for run in runs]
    for run, output in zip(runs, outputs):
        assert run.returncode == 0, output
    assert len(answered) == 2 * sum(map(len, CASES)), "both runs really recorded every citation"
    recorded = _cassettes(suite_dir)
    assert len(recorded) == len(CASES)
    _assert_readable(suite_dir)
    for name, content in recorded.items():
        interactions = CassetteSerializer.deserialize(content.decode())["interactions"]
        expected = len(next(ids for ids in CASES if "+".join(ids) in name))
        assert len(interactions) == expected, (
            f"{name}: {len(interactions)} interactions, expected exactly one run's {expected}"
        )
    assert leftovers(suite_dir) == []
    # And the result replays offline.
    replay = subprocess.run(
        _command("--citecheck-record-mode=none"),
        cwd=suite_dir,
        env=Offline.env(env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert replay.returncode == 0, replay.stdout + replay.stderr


# --- file modes: the umask for a new file, the old mode for a replaced one ------------------------


@pytest.fixture
def umask_027() -> Any:
    """A umask other than the usual 022, so "respects the umask" is not "happens to be 0644"."""
    previous = os.umask(0o027)
    yield 0o027
    os.umask(previous)


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_a_new_file_gets_the_umask_and_a_replaced_one_keeps_its_mode(tmp_path: Path, umask_027: int) -> None:
    fresh = tmp_path / "fresh.yaml"
    atomic_write_text(fresh, "new\n")
    assert mode(fresh) == 0o640  # 0666 less the umask, as open() would give
    kept = tmp_path / "kept.yaml"
    kept.write_text("old\n")
    for existing in (0o644, 0o600, 0o664):
        kept.chmod(existing)
        atomic_write_text(kept, "replaced\n")
        assert mode(kept) == existing and kept.read_text() == "replaced\n"


def test_a_recording_run_writes_cassettes_and_reports_with_the_umask_and_keeps_modes(
    suite: pytest.Pytester, jev_server: Any, umask_027: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(
        test_app="from cookbook import SOURCE, pick\ndef test_one(citecheck):\n    citecheck.check(pick('clock_skew'), SOURCE)\n"
    )
    args = ("--citecheck-json=report.json", "--citecheck-html=report.html")
    suite.runpytest("--citecheck-record-mode=once", *args).assert_outcomes(passed=1)
    cassette = suite.path / "cassettes" / "test_app" / "test_one.yaml"
    assert {
        name: mode(path)
        for name, path in (
            ("cassette", cassette),
            ("json", suite.path / "report.json"),
            ("html", suite.path / "report.html"),
        )
    } == {
        "cassette": 0o640,
        "json": 0o640,
        "html": 0o640,
    }
    # A committed 0644 cassette (and reports someone made readable) stay as they were when rewritten.
    for path in (cassette, suite.path / "report.json", suite.path / "report.html"):
        path.chmod(0o644)
    suite.runpytest("--citecheck-record-mode=rewrite", *args).assert_outcomes(passed=1)
    assert [mode(p) for p in (cassette, suite.path / "report.json", suite.path / "report.html")] == [0o644] * 3


def test_the_reviews_file_gets_the_umask(tmp_path: Path, umask_027: int) -> None:
    from pytest_citecheck._review.decisions import Reviews

    reviews = Reviews.load(tmp_path / "citecheck-reviews.json")
    reviews.save()
    assert mode(tmp_path / "citecheck-reviews.json") == 0o640
