"""Where a run's reports, and the ``citecheck`` commands' outputs, may be written: checked before
any test runs, or before a command reads its input.

A report is written only over nothing, an empty file or an earlier report of its kind (or a
symbolic link to one: the file it points to is replaced, ``_files.write_target``). A path that
names a file the user wrote (the reviews file, ``pytest.ini``: one mistyped flag) or another report
of the same run (the HTML page over the JSON report, either over ``--junitxml``) would lose that
file without a word, so it is a usage error naming both. So is a directory, and a path that is not
a regular file (``/dev/null``, a FIFO, a link to one), over which the atomic write would rename a
file. ``output_problem`` is the same check for ``citecheck merge -o`` and ``citecheck calibrate --html``.
"""

from __future__ import annotations

import os
from pathlib import Path

from pytest_citecheck._files import MissingDirectoryError, write_target

# How each kind of report begins (``Report.json_chunks``, ``html.page_start`` with the report's
# title): enough to tell an earlier report from a file someone wrote, read from the first bytes only.
_JSON_START = b'{\n  "version": '
_HTML_START = b"<!doctype html>"
_HTML_TITLE = b"<title>Citation check: "
_HEAD = 1024
# What each kind of output is called, and how a file of that kind begins (``calibration_page``'s title).
KINDS: dict[str, tuple[str, tuple[bytes, ...]]] = {
    "json": ("JSON report", (_JSON_START,)),
    "html": ("HTML report", (_HTML_START, _HTML_TITLE)),
    "calibration": ("calibration page", (_HTML_START, b"<title>auto_accept calibration: ")),
}


class ReportPathError(ValueError):
    """A report path that would overwrite something other than an earlier report of its kind."""


def check_report_paths(json_path: str | None, html_path: str | None, junit_path: str | None) -> None:
    """Raise ``ReportPathError`` for a report path that is a directory, names another report of this
    run, or names an existing file that is not a report of its kind."""
    reports = [
        (flag, value) for flag, value in (("--citecheck-json", json_path), ("--citecheck-html", html_path)) if value
    ]
    for flag, value in reports:
        if Path(value).is_dir():
            example = Path(value) / ("citecheck.json" if flag.endswith("json") else "citecheck.html")
            raise ReportPathError(
                f"{flag}={value}: {str(value)!r} is a directory; give a file path, e.g. {flag}={example}"
            )
    others = [*reports, *([("--junitxml", junit_path)] if junit_path else [])]
    for index, (flag, value) in enumerate(others):
        for other_flag, other in others[index + 1 :]:
            if _same_file(value, other):
                raise ReportPathError(
                    f"{flag}={value} and {other_flag}={other} name one file ({os.path.realpath(value)}): "
                    "give each report its own path"
                )
    for flag, value in reports:
        _check_overwritable(flag, value)


def _same_file(one: str, other: str) -> bool:
    return os.path.realpath(one) == os.path.realpath(other)


def _check_overwritable(flag: str, value: str) -> None:
    problem = output_problem(value, "json" if flag.endswith("json") else "html")
    if problem is not None:
        raise ReportPathError(f"{flag}={value}: {problem}")


def output_problem(value: str | Path, kind: str, *, shown: str | None = None) -> str | None:
    """Why an output of ``kind`` (a key of ``KINDS``) must not be written to ``value``, or None.

    Nothing there yet, an empty file, or a file of the same kind (through a symbolic link or not)
    may be replaced; anything else is named: what it is, and, for a file, what it is not (named
    ``shown``, the path as the user gave it, if given)."""
    path = Path(value)
    name, starts = KINDS[kind]
    if path.is_dir():
        return "it is a directory; give a file path"
    try:
        # Run as root (a CI container), --citecheck-json=/dev/null turned the machine's null device
        # into a regular file: the write renames a new file over the path, or over a link's target.
        target = write_target(path, follow_links=True)
    except MissingDirectoryError as error:
        return str(error.strerror)  # it says what to do: make the directory
    except OSError as error:
        return f"{error.strerror or error}; give the path of a file"
    try:
        with target.open("rb") as file:
            head = file.read(_HEAD)
    except OSError:
        return None  # nothing there yet, or the write will fail and say why, in one line
    if not head.strip() or (head.startswith(starts[0]) and all(mark in head for mark in starts[1:])):
        return None
    return (
        f"{shown or value} exists and is not a pytest-citecheck {name}, so it is not replaced; give another path, "
        "or remove the file if it is yours to lose"
    )
