"""The ``citecheck`` command and its fallback ``python -m pytest_citecheck``: one argparse command line.

The subcommands' own behaviour is tested where it lives (test_review_workflow, test_shards,
test_config); here: the command line around them, run as the installed console script and as the
module, as a user runs them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import DATA, REPO, run_example

import pytest_citecheck
from pytest_citecheck import _cli

CONSOLE_SCRIPT = shutil.which("citecheck", path=str(Path(sys.executable).parent))


def run(command: list[str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.fixture(params=["console script", "python -m"])
def citecheck(request: pytest.FixtureRequest) -> list[str]:
    """The command, both ways a user can run it."""
    if request.param == "console script":
        assert CONSOLE_SCRIPT is not None, "the citecheck console script is installed with the package"
        return [CONSOLE_SCRIPT]
    return [sys.executable, "-m", "pytest_citecheck"]


def test_version(citecheck):
    result = run(citecheck, "--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"pytest-citecheck {pytest_citecheck.__version__}"


def test_help_lists_every_command_with_its_description(citecheck):
    result = run(citecheck, "--help")
    assert result.returncode == 0
    for name, (_, description) in _cli.COMMANDS.items():
        assert name in result.stdout
        assert description.split()[0] in result.stdout
    assert "--version" in result.stdout


def test_options_help_is_help_not_the_table(citecheck):
    result = run(citecheck, "options", "--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: citecheck options")
    assert "| setting |" not in result.stdout
    table = run(citecheck, "options")
    assert table.returncode == 0
    assert table.stdout.startswith("| setting | flag | ini key |")


def test_each_command_has_its_own_help(citecheck):
    for name in _cli.COMMANDS:
        result = run(citecheck, name, "-h")
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith(f"usage: citecheck {name}")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "the following arguments are required: COMMAND"),
        (["nope"], "invalid choice: 'nope'"),
        (["--bogus", "options"], "unrecognized arguments: --bogus"),
        (["options", "extra"], "unrecognized arguments: extra"),
        (["merge"], "the following arguments are required: reports"),
    ],
)
def test_usage_errors_exit_2_with_a_message(citecheck, args, message):
    result = run(citecheck, *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_the_module_does_what_the_console_script_does(tmp_path):
    """Same output and exit code, byte for byte, apart from the program's name in usage lines."""
    assert CONSOLE_SCRIPT is not None
    bad = tmp_path / "shard.json"
    bad.write_text("not json")
    for args in (["options"], ["merge", str(bad)], ["review", "--report", str(tmp_path / "none.json"), "--list"]):
        script = run([CONSOLE_SCRIPT], *args, cwd=tmp_path)
        module = run([sys.executable, "-m", "pytest_citecheck"], *args, cwd=tmp_path)
        assert (module.returncode, module.stdout, module.stderr) == (script.returncode, script.stdout, script.stderr)
    module_usage = run([sys.executable, "-m", "pytest_citecheck"], "--help")
    assert module_usage.stdout.startswith("usage: python -m pytest_citecheck [-h] [--version] COMMAND")


def test_a_subcommand_is_one_line_of_registration(tmp_path, monkeypatch, capsys):
    (tmp_path / "citecheck_hello.py").write_text(
        "def main(argv):\n    print('hello', argv)\n    return 3 if '--fail' in argv else 0\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(_cli.COMMANDS, "hello", ("citecheck_hello:main", "say hello"))
    assert _cli.main(["hello", "--fail", "x", "--", "-y"]) == 3
    assert capsys.readouterr().out == "hello ['--fail', 'x', '--', '-y']\n"
    assert _cli.main(["hello"]) == 0
    assert _cli.main(["--help"]) == 0  # main() returns exit codes, --help included
    assert "say hello" in capsys.readouterr().out


# --- a reader that goes away: `citecheck sections DOC | head -1` ---------------------------------


@pytest.fixture(scope="module")
def example_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cookbook example's JSON report (``examples/rfc7519`` run as its README says)."""
    directory = tmp_path_factory.mktemp("pipe") / "rfc7519"
    result = run_example(directory, "--citecheck-json=report.json")
    assert result.returncode == 0, result.stdout + result.stderr
    return directory / "report.json"


def into_a_closed_pipe(command: list[str], *args: str, unbuffered: bool) -> subprocess.CompletedProcess[str]:
    """``citecheck ... | head -1`` made certain: stdout is a pipe whose reading end is closed before the
    command starts, so a write to it fails as it does once ``head`` has its line and exits (a real
    ``head`` races the command: a short output may be written whole before it exits)."""
    read, write = os.pipe()
    os.close(read)
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    try:
        return subprocess.run([*command, *args], stdout=write, stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    finally:
        os.close(write)


# Every subcommand that prints more than a line, on real documents (Debian's common licences,
# tests/data/README.md) and the example's report; the calibration example's decisions.
PRINTING = {
    "sections": ["sections", str(DATA / "gpl-3.0.txt")],
    "sections --json": ["sections", "--json", str(DATA / "mpl-2.0.txt")],
    "merge -v": ["merge", "-v", "{report}"],
    "review --list --all": ["review", "--report", "{report}", "--list", "--all"],
    "options": ["options"],
    "calibrate": [
        *("calibrate", "--model", "jev-1.12"),
        *("--reviews", str(REPO / "examples" / "calibration" / "citecheck-reviews.json")),
    ],
    "help": ["calibrate", "--help"],
}


@pytest.mark.parametrize("buffering", ["buffered", "unbuffered"])
@pytest.mark.parametrize("command", sorted(PRINTING))
def test_a_reader_that_goes_away_ends_the_command_quietly_with_141(
    citecheck: list[str], command: str, buffering: str, example_report: Path
) -> None:
    """141 (128 + SIGPIPE) is what a shell reports for a Unix tool whose reader went away, so
    ``set -o pipefail`` treats citecheck as it treats ``grep``. Before: exit 1 (what ``sections
    --strict`` and ``calibrate`` say for their own reasons), and with Python's default buffered
    output "Exception ignored ... BrokenPipeError" and exit 120 for a short output."""
    args = [argument.format(report=example_report) for argument in PRINTING[command]]
    result = into_a_closed_pipe(citecheck, *args, unbuffered=buffering == "unbuffered")
    if command == "help" and buffering == "unbuffered":
        # argparse writes its help at once and ignores a failed write (and so exits 0): nothing was lost.
        assert (result.returncode, result.stderr) == (0, "")
    else:
        assert (result.returncode, result.stderr) == (_cli.EXIT_BROKEN_PIPE, "")


@pytest.mark.parametrize("command", sorted(PRINTING))
def test_a_closed_standard_output_is_named_not_a_traceback(
    citecheck: list[str], command: str, example_report: Path, tmp_path: Path
) -> None:
    """hunt-links: ``citecheck merge -v report.json >&-`` (stdout closed, not a pipe) ended in
    ``AttributeError: 'NoneType' object has no attribute 'flush'`` and exit 1, for every command.
    Now one line naming the closed output and the remedy, exit 2, before anything is read or written."""
    args = [argument.format(report=example_report) for argument in PRINTING[command]]
    merged = tmp_path / "merged.json"
    result = subprocess.run(
        [*citecheck, *args, *(["-o", str(merged)] if command == "merge -v" else [])],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        preexec_fn=lambda: os.close(1),  # the shell's >&-
    )
    assert result.returncode == 2
    prog, _, said = result.stderr.partition(": ")
    assert prog in ("citecheck", "python -m pytest_citecheck") and said == (
        "standard output is closed; redirect it to a file, or to /dev/null to discard it\n"
    )
    assert not merged.exists()
