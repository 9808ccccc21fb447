"""The ``citecheck`` command (also ``python -m pytest_citecheck``): tools around a test run.

An argparse parser with one subcommand per entry of ``COMMANDS``: adding a subcommand is one line
there, ``name: ("module:function", "one-line description")``. Each subcommand keeps its own
argument parsing in its own module, imported only when it runs: its function takes the arguments
after the subcommand's name (``--help`` included) and returns an exit code. A reader that goes
away (``citecheck sections DOC | head -1``) ends any subcommand quietly, with ``EXIT_BROKEN_PIPE``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

# 128 + SIGPIPE: what a shell reports for a Unix tool whose reader went away (`yes | head`), so
# `set -o pipefail` treats citecheck as it treats them. Not 0: the command stopped before its end
# (its exit code, 1 for `sections --strict` or `calibrate`, was never given); not 1, which those
# commands use for their own answer.
EXIT_BROKEN_PIPE = 141

COMMANDS: dict[str, tuple[str, str]] = {
    "options": (
        "pytest_citecheck._options:main",
        "print the configuration table (every flag, ini key and marker keyword)",
    ),
    "merge": (
        "pytest_citecheck._report.shards:main",
        "merge the JSON reports of CI shards into one and print the run's summary",
    ),
    "review": (
        "pytest_citecheck._review.command:main",
        "review the last run's citations below auto_accept and record human decisions",
    ),
    "calibrate": ("pytest_citecheck._review.calibrate:main", "recommend auto_accept from the human decisions recorded"),
    "serve": (
        "pytest_citecheck.testing.serve:main",
        "run the Jev-compatible rehearsal server on 127.0.0.1 (record without a key)",
    ),
    "sections": ("pytest_citecheck._sources.preview:main", "preview how a document splits into sections, with flags"),
}


def build_parser(prog: str = "citecheck") -> argparse.ArgumentParser:
    from pytest_citecheck import __version__

    parser = argparse.ArgumentParser(
        prog=prog,
        description="Tools around a pytest-citecheck run. `python -m pytest_citecheck` is the same command.",
        epilog=f"`{prog} COMMAND --help` describes a command.",
    )
    parser.add_argument("--version", action="version", version=f"pytest-citecheck {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands", required=True)
    for name, (_, description) in COMMANDS.items():
        # The subcommand parses its own arguments (and its own --help): this parser only picks it.
        commands.add_parser(name, help=description, description=description, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "citecheck") -> int:
    if sys.stdout is None:
        # Started with its standard output closed (`citecheck merge ... >&-`): Python then has no
        # sys.stdout, every print would vanish and the flush below raised AttributeError. Stop before
        # doing anything, as a Unix tool that cannot write its output fails (stderr may be gone too).
        print(
            f"{prog}: standard output is closed; redirect it to a file, or to /dev/null to discard it", file=sys.stderr
        )
        return 2
    try:
        try:
            code = _run(argv, prog)
        except SystemExit:  # a subcommand's --help or usage error: what it printed goes out first
            sys.stdout.flush()
            raise
        # Flushed here, not by the interpreter on the way out: a reader that went away after the
        # command's last print is then a BrokenPipeError below, not "Exception ignored ..." and exit 120.
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # The reader went away (`citecheck sections DOC | head -1`): stop quietly, like any Unix filter.
        # Point stdout at the null device so the interpreter's final flush does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _run(argv: Sequence[str] | None, prog: str) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog)
    # parse_known_args: what follows the subcommand's name is the subcommand's to parse.
    try:
        chosen, rest = parser.parse_known_args(args)
    except SystemExit as done:  # --help, --version and usage errors: an exit code for callers of main()
        return int(done.code or 0) if not isinstance(done.code, str) else 2
    if args[0] != chosen.command:  # anything before the command is unknown here (-h and --version exit)
        parser.print_usage(sys.stderr)
        print(f"{prog}: error: unrecognized arguments: {' '.join(args[: args.index(chosen.command)])}", file=sys.stderr)
        return 2
    for stream in (sys.stdout, sys.stderr):
        # A console that cannot encode a document's text (an ASCII or a Windows code page) gets
        # escapes, as pytest's own output does, not a UnicodeEncodeError halfway through a listing.
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    module_name, function_name = COMMANDS[chosen.command][0].split(":")
    function = getattr(importlib.import_module(module_name), function_name)
    return int(function(rest) or 0)
