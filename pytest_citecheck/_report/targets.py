"""Where a run's reports may be written: checked before any test runs.

A report is written only over nothing, an empty file or an earlier report of its kind. A path
that names a file the user wrote (the reviews file, ``pytest.ini``: one mistyped flag) or another
report of the same run (the HTML page over the JSON report, either over ``--junitxml``) would lose
that file without a word, so it is a usage error naming both. So is a directory, and a path that is
not a regular file (``/dev/null``, a FIFO), over which the atomic write would rename a file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pytest_citecheck._files import kind_of

# How each kind of report begins (``Report.json_chunks``, ``html.page_start`` with the report's
# title): enough to tell an earlier report from a file someone wrote, read from the first bytes only.
_JSON_START = b'{\n  "version": '
_HTML_START = b"<!doctype html>"
_HTML_TITLE = b"<title>Citation check: "
_HEAD = 1024


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
    path = Path(value)
    try:
        mode = path.stat().st_mode
    except OSError:
        return  # nothing there yet (or a dangling link): the write makes the file
    if not stat.S_ISREG(mode):
        # A report is written beside its path and renamed over it: run as root (a CI container),
        # --citecheck-json=/dev/null turned the machine's null device into a regular file.
        raise ReportPathError(f"{flag}={value}: it is {kind_of(mode)}, not a regular file; give the path of a file")
    try:
        with path.open("rb") as file:
            head = file.read(_HEAD)
    except OSError:
        return  # the write will fail and say why, in one line
    if not head.strip() or _is_report(flag, head):
        return
    kind = "JSON" if flag.endswith("json") else "HTML"
    raise ReportPathError(
        f"{flag}={value}: {value} exists and is not a pytest-citecheck {kind} report, so it is not "
        "replaced; give another path, or remove the file if it is yours to lose"
    )


def _is_report(flag: str, head: bytes) -> bool:
    if flag.endswith("json"):
        return head.startswith(_JSON_START)
    return head.startswith(_HTML_START) and _HTML_TITLE in head
