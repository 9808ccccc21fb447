"""The ``citecheck`` command (also ``python -m pytest_citecheck``): tools around a test run.

Each subcommand lives in its own module and is imported only when it is run; ``COMMANDS`` maps
its name to ``module:function`` and a one-line description. A subcommand's function takes the
remaining arguments and returns an exit code.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

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
}


def usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = ["usage: citecheck COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name.ljust(width)}  {description}" for name, (_, description) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help"}:
        print(usage())
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"citecheck: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module_name, function_name = COMMANDS[name][0].split(":")
    function = getattr(importlib.import_module(module_name), function_name)
    try:
        return int(function(rest) or 0)
    except BrokenPipeError:
        # The reader went away (`citecheck review --list | head`): stop quietly, like any Unix filter.
        # Point stdout at /dev/null so the interpreter's final flush does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
