"""``citecheck sections PATH`` (issue 22 item 4), run as a user runs it: the real command in a subprocess."""

from __future__ import annotations

import json
import math
import os
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
    assert row.split()[:2] == ["1.1", "1.1."] and row.startswith("  1.1 ") and row.split()[-2:] == ["2,931", "987"]


def test_a_document_of_one_section_is_one_section_in_the_tree() -> None:
    # python3-pip 23.0.1's docs/html/cli/index.md, one "# Commands" over a toctree: "1 sections" before.
    done = citecheck(DATA / "pip-cli-index.md")
    lines = done.stdout.splitlines() or [done.stderr]
    assert lines[0].endswith("pip-cli-index.md: 1 section as 'markdown', 613 characters"), lines[0]


def test_a_damaged_pdf_is_our_error_alone_with_nothing_of_the_pdf_library_on_stderr(tmp_path: Path) -> None:
    # pypdf logged "EOF marker not found" to stderr (Python's last-resort handler: the CLI configures no
    # logging) before the error; PDFium reads the text now and says nothing of its own.
    damaged = tmp_path / "cut.pdf"
    damaged.write_bytes((DATA / "apache-2.0.pdf").read_bytes()[:12_000])
    done = citecheck(damaged)
    assert done.returncode != 0 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("citecheck sections: field 'source': ") and "cut.pdf: cannot read this PDF (" in line


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
    assert "its one heading, 'Terms', makes the whole text one section" in done.stdout


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


def test_headings_and_file_names_with_escape_sequences_are_shown_visibly(tmp_path: Path) -> None:
    """A document's headings and its file name are untrusted text (a README pasted from a terminal, a
    page saved from the web): the preview shows their escape sequences as ``\\x1b``, as the summary
    does, instead of letting one set the window title, clear the screen or reverse the line.

    The body is Debian's ``/usr/share/common-licenses/Apache-2.0`` (``tests/data/apache-2.0.txt``),
    under Markdown headings that carry an OSC title, a clear-screen and a right-to-left override."""
    licence = (DATA / "apache-2.0.txt").read_text()
    document = tmp_path / "licence\x1b[2J\u202e.md"
    document.write_text(
        "# Terms \x1b]0;pwned\x07\x1b[2J of use\n\n"
        + licence[:600]
        + "\n\n# Grant \u202e reversed\n\n"
        + licence[600:1200]
    )
    done = citecheck(document, "--strict")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout and "\u202e" not in done.stdout
    lines = done.stdout.splitlines()
    assert lines[0].endswith("licence\\x1b[2J\\u202e.md: 2 sections as 'markdown', 1,253 characters"), lines[0]
    assert lines[2].startswith("Terms \\x1b]0;pwned\\x07\\x1b[2J of use  ")
    assert lines[3].startswith("Grant \\u202e reversed  ")


def test_a_file_name_that_is_not_utf_8_is_shown_not_a_traceback(tmp_path: Path) -> None:
    """A file name of Latin-1 bytes (``\\xe9``) reaches Python as a lone surrogate, which a UTF-8
    stdout cannot encode: the preview names it visibly instead of ending in a UnicodeEncodeError."""
    document = Path(os.fsdecode(bytes(tmp_path) + b"/licence-\xe9.txt"))
    document.write_text((DATA / "apache-2.0.txt").read_text())
    done = subprocess.run(
        [sys.executable, "-m", "pytest_citecheck", "sections", document],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].endswith("licence-\\udce9.txt: 11 sections as 'numbered', 11,358 characters")


def test_encoding_reads_a_text_file_that_is_not_utf_8(tmp_path: Path) -> None:
    page = tmp_path / "msgconv.1.txt"
    page.write_text((DATA / "msgconv.1.txt").read_text(encoding="utf-8"), encoding="utf-16")
    refused = citecheck(page)
    assert refused.returncode == 2 and "pass encoding='utf-16'" in refused.stderr
    done = citecheck(page, "--encoding", "utf-16")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].endswith("msgconv.1.txt: 14 sections as 'man', 3,487 characters")


def test_each_sections_id_has_a_column_of_its_own_apart_from_its_title() -> None:
    """Debian's GPL-3 (``/usr/share/common-licenses/GPL-3``): a section's title starts with its number
    ("0. Definitions."), and the preview showed only the title, so the id a citation names (``0``) was
    nowhere to be read apart from it (hunt-journey N4). The id now has its own column."""
    done = citecheck(DATA / "gpl-3.0.txt")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].split() == ["SECTION", "TITLE", "CHARS", "TOKENS", "FLAGS"]
    title_at = lines[1].index("TITLE")
    rows = {line[:title_at].strip(): line[title_at:] for line in lines[2:]}
    assert rows["0"].startswith("0. Definitions.  ") and rows["0"].split()[-2:] == ["1,881", "627"]
    assert rows["preamble"].startswith("(before the first heading)  ")
    assert rows["13"].startswith("13. Use with the GNU Affero General Public")
    # The JSON keeps its fields: the id and the title apart, as before.
    preview = json.loads(citecheck(DATA / "gpl-3.0.txt", "--json").stdout)
    assert preview["sections"][1] == {
        "id": "0",
        "title": "0. Definitions.",
        "depth": 0,
        "characters": 1881,
        "tokens": 627,
        "flags": [],
    }


def test_wide_headings_keep_the_columns_in_line(tmp_path: Path) -> None:
    """Microsoft's C++ docs in Chinese head sections ``## <a name="syntax"></a>语法``: a Chinese character
    takes two columns on a terminal, and the columns after such a heading were out of line (each was
    padded as if it took one). The TITLE and CHARS columns start at the same column on every line."""
    from pytest_citecheck._text import display_width

    document = tmp_path / "class.md"
    document.write_text(
        '# <a name="class-c"></a>class (C++)\n\nThe class keyword.\n\n## <a name="syntax"></a>语法\n\nclass tag\n\n'
        '#### <a name="parameters"></a>参数\n\n可选模板规范。\n\n## <a name="see-also"></a>请参阅\n\nkeywords\n',
        encoding="utf-8",
    )
    done = citecheck(document)
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()[1:6]
    assert [row.split()[0] for row in rows] == ["class", "语法", "参数", "请参阅"]
    # Where each row's title starts, and where its CHARS figure ends, in terminal columns.
    assert {display_width(row[: row.index("#")]) for row in rows} == {header.index("TITLE")}
    chars_end = header.index("CHARS") + len("CHARS")
    for row in rows:
        chars = row.split()[-2]  # the CHARS figure, then TOKENS (no flags here)
        assert display_width(row[: row.rindex(chars) + len(chars)]) == chars_end, done.stdout

    # A heading a whole line long is cut to the column's width in one pass (found re-reading: a cut that
    # measured the rest again for each character it took off ran for hours on a line of 200,000).
    document.write_text("# " + "语" * 200_000 + "\n\ntext\n", encoding="utf-8")
    done = citecheck(document)
    assert done.returncode == 0, done.stderr
    shown = done.stdout.splitlines()[2]
    assert shown.startswith("语" * 19 + "…  ") and display_width(shown.split("  ")[0]) == 39
