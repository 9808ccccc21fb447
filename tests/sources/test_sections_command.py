"""``citecheck sections PATH`` (issue 22 item 4), run as a user runs it: the real command in a subprocess."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).parent.parent / "data"


def citecheck(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_citecheck", "sections", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_tree_of_a_rendered_manual_with_sizes_and_tokens() -> None:
    done = citecheck(DATA / "maint-guide-excerpt.txt", "--strict")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].endswith("maint-guide-excerpt.txt: 7 sections as 'docbook', 13,935 characters")
    row = next(line for line in lines if "Social dynamics of Debian" in line)
    # Indented under chapter 1; 2,931 characters, 2,961 bytes (two no-break spaces and ...), 987 tokens.
    assert row.startswith("  1.1. Social dynamics of Debian") and row.split()[-2:] == ["2,931", "987"]


def test_json_lists_every_section_with_its_id_title_sizes_and_flags() -> None:
    done = citecheck(DATA / "msgconv.1.txt", "--json")
    assert done.returncode == 0, done.stderr
    preview = json.loads(done.stdout)
    assert preview["format"] == "man" and preview["warnings"] == []
    rows = {row["id"]: row for row in preview["sections"]}
    assert list(rows)[:4] == ["preamble", "NAME", "SYNOPSIS", "DESCRIPTION"]
    conversion = rows["DESCRIPTION > Conversion target"]
    assert conversion["depth"] == 1 and conversion["characters"] == 141 and conversion["flags"] == []
    text = (DATA / "msgconv.1.txt").read_text()
    start = text.index("   Conversion target:") + 3
    assert conversion["tokens"] == math.ceil(len(text[start : start + 141].encode()) / 3)


def test_strict_fails_a_badly_explained_document_and_says_why(tmp_path: Path) -> None:
    prose = " ".join((DATA / "gpl-3.0.txt").read_text().split())
    document = tmp_path / "terms.md"
    document.write_text("# Terms\n\n" + "\n\n".join(prose[i : i + 70] for i in range(0, len(prose), 70)))
    assert citecheck(document).returncode == 0  # without --strict, a preview only
    done = citecheck(document, "--strict")
    assert done.returncode == 1
    # A .md file is split as Markdown: the layout its extension names explains it badly, and says so.
    assert "warning: terms.md: format 'markdown' split the document (1 section), but " in done.stdout
    assert "holds 100% of the text" in done.stdout


def test_flags_over_limit_empty_and_out_of_order(tmp_path: Path) -> None:
    huge = "Every right the licence grants. " * 3200
    document = tmp_path / "flags.md"
    document.write_text(f"# 3 Third\n\n{huge}\n\n# 2 Second\n\n# 4 Fourth\n\nText.\n")
    done = citecheck(document, "--format", "markdown", "--json", "--strict")
    assert done.returncode == 1
    flags = {row["id"]: row["flags"] for row in json.loads(done.stdout)["sections"]}
    assert flags == {"3": ["over limit"], "2": ["empty", "out of order"], "4": []}


def test_a_document_that_cannot_be_split_is_an_error_naming_it(tmp_path: Path) -> None:
    document = tmp_path / "notes.txt"
    document.write_text("just a line of text\n")
    done = citecheck(document, "--format", "man")
    assert done.returncode == 2
    assert done.stderr.startswith("citecheck sections: field 'source': notes.txt: no rendered man page")
