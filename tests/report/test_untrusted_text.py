"""Text from users and servers is harmless on every channel (issue 25 item 7).

Citation ids, claims and quotes carry GitHub workflow commands (``::stop-commands::``, a line break
then ``::warning``), terminal escape sequences (OSC 52 clipboard writes, clear-screen), Markdown
images and links; a test id carries a shell command. Under ``GITHUB_ACTIONS=true`` no line printed
may be a command the runner would run, except the plugin's own annotations and ``stop-commands``
blocks; no escape sequence reaches the terminal; the step summary renders no image or link; and the
re-record hint pasted into a shell runs nothing but pytest. The JUnit XML stays well-formed: pytest
escapes a property's value, not its name, and an id with an escape sequence once made the whole file
unreadable to CI.
"""

from __future__ import annotations

import json
import re
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_citecheck._cli import main as citecheck
from pytest_citecheck._text import (
    CELL_WIDTH,
    no_command,
    render_table,
    shell_quote,
    stop_commands,
    visible,
    visible_lines,
    xml_safe,
)

HOSTILE_SUITE = """
import pytest
from cookbook import SOURCE, pick
from pytest_citecheck import assert_citations_supported

HOSTILE = [
    {
        "id": "::stop-commands::tok",
        "claim": "x\\n::warning file=a.py::injected\\n  ::add-mask::secret",
        "quote": "this sentence is in no RFC at all",
        "section": "4.1",
    },
    {
        "id": "osc\\x1b]52;c;cHduZWQ=\\x07",
        "claim": "![x](https://evil.example/p.png) [approve](https://evil.example/a) www.evil.example \\x1b[2J",
        "quote": "another sentence that no RFC holds",
        "section": "4.1",
    },
]

def test_hostile():
    assert_citations_supported(HOSTILE, SOURCE)

@pytest.mark.parametrize("n", [1], ids=["'; touch PWNED; echo '"])
def test_hint(n):
    assert_citations_supported(pick("aud_reject"), SOURCE)
"""

# The plugin's own workflow commands: annotations, and stop-commands blocks (opened and closed).
OURS = re.compile(r"^(::error |::stop-commands::[0-9a-f]{32}$|::[0-9a-f]{32}::$)")


def commands_in(text: str) -> list[str]:
    """The lines GitHub's runner would take for workflow commands (it ignores leading white space)."""
    return [line for line in text.splitlines() if line.strip().startswith("::") and not OURS.match(line)]


def test_no_hostile_text_becomes_a_command_an_escape_sequence_a_link_or_a_shell_command(
    suite: pytest.Pytester, jev_server: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = suite.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    suite.makepyfile(test_gh=HOSTILE_SUITE)
    result = suite.runpytest(
        "--citecheck-record-mode=none", "--citecheck-json=report.json", "-rA", "--junitxml=junit.xml"
    )
    result.assert_outcomes(failed=2)
    names = [prop.get("name") for prop in ET.parse(suite.path / "junit.xml").iter("property")]  # well-formed
    assert "citecheck.osc\\x1b]52;c;cHduZWQ=\\x07.verdict" in names
    out = result.stdout.str()
    assert commands_in(out) == []
    assert "\x1b" not in out and "\x07" not in out
    assert "osc\\x1b]52;c;cHduZWQ=\\x07" in out  # shown, visibly
    # In the annotation (its title and message) too, each escape written once: not "osc\\\\x1b".
    [annotation] = [line for line in out.splitlines() if line.startswith("::error ") and "osc" in line]
    assert annotation.count("'osc\\x1b]52;c;cHduZWQ=\\x07'") == 2 and "\\\\" not in annotation
    section = out.split("= citecheck =", 1)[1]
    token = re.search(r"^::stop-commands::([0-9a-f]{32})$", section, re.M)
    assert token is not None and f"\n::{token[1]}::" in section  # the summary is inside one block
    assert "\\x3a:stop-commands::tok" in section
    markdown = summary.read_text()
    assert commands_in(markdown) == []
    assert "![" not in markdown and "](" not in markdown and "https://" not in markdown and "www.e" not in markdown
    assert "\\!\\[x\\]\\(https\\://evil.example/p.png\\)" in markdown
    hint = re.search(r"TYPESAFE_API_KEY=\.\.\. (pytest .*--citecheck-record-mode=once)", out)
    assert hint is not None
    assert shlex.split(hint[1]) == [
        "pytest",
        "test_gh.py::test_hint['; touch PWNED; echo ']",
        "--citecheck-record-mode=once",
    ]


def test_citecheck_review_and_merge_show_hostile_text_harmlessly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    row = {
        "test": "t.py::test",
        "id": "::add-mask::x",
        "status": "found",
        "section": "1\x1b[2J",
        "verdict": "verified",
        "confidence": 0.6,
        "auto": False,
        "claim": "a\n::warning::b \x1b]52;c;cHduZWQ=\x07 \u202eevil",
        "quote": "q",
        "span": [0, 1],
        "auto_accept": 0.8,
        "section_text": "q\n  ::error::c\x1b[31m",
        "review_key": "k",
        "reviews_file": "r.json",
    }
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"version": 1, "results": [row]}))
    for argv in (["review", "--report", str(report), "--list", "--color", "always"], ["merge", str(report)]):
        assert citecheck(argv) == 0
        out = capsys.readouterr().out
        assert commands_in(out) == [], argv
        assert "\x07" not in out and "\x1b]" not in out and "\x1b[2J" not in out and "\u202e" not in out
        assert "\\x3a:add-mask::x" in out
    assert citecheck(["review", "--report", str(report), "--list"]) == 0
    assert "\\x1b]52;c;cHduZWQ=\\x07 \\u202eevil" in capsys.readouterr().out


LONG_ID_SUITE = """
from cookbook import SOURCE
from pytest_citecheck import assert_citations_supported

def test_long():
    assert_citations_supported(
        [{"id": "long-" + "x" * 100_000, "claim": "c", "quote": "a sentence that no RFC holds", "section": "4.1"}],
        SOURCE,
    )
"""


def test_a_long_id_is_cut_in_the_terminal_summary_and_kept_whole_in_the_report(suite: pytest.Pytester) -> None:
    """A 100 KB citation id once padded every row of the summary table (a column is as wide as its
    widest cell) to 100 KB; the table cuts each cell to 80 characters, the JSON report keeps the id whole."""
    suite.makepyfile(test_long=LONG_ID_SUITE)
    result = suite.runpytest("--citecheck-record-mode=none", "--citecheck-json=report.json", "-v", "-p", "no:xdist")
    result.assert_outcomes(failed=1)
    section = result.stdout.str().split("= citecheck =", 1)[1].split("\n")
    header = next(index for index, line in enumerate(section) if line.startswith("  id "))
    table = section[header : header + 2]  # the header and the one row
    assert table[1].split()[0] == "long-" + "x" * 34 + "…" + "x" * 40
    assert max(len(line) for line in table) < 200
    report = json.loads((suite.path / "report.json").read_text(encoding="utf-8"))
    assert [row["id"] for row in report["results"]] == ["long-" + "x" * 100_000]


def test_the_safe_display_functions() -> None:
    assert visible("a\x1b[2Jb\nc\u202ed") == "a\\x1b[2Jb\\nc\\u202ed"
    assert visible("  ::set-output name=x::y") == "  \\x3a:set-output name=x::y"
    assert visible_lines("ok\n\u00a0::warning::x") == "ok\n\u00a0\\x3a:warning::x"
    assert visible("tests/test_a.py::test_b") == "tests/test_a.py::test_b"  # only a line's start matters
    assert no_command("a\n::b\n c") == "a\n\\x3a:b\n c"
    assert xml_safe("a\x1bb\ufffec\udc80") == "a\\x1bb\\ufffec\\udc80"
    assert shlex.split(shell_quote("x'; touch PWNED; echo '")) == ["x'; touch PWNED; echo '"]
    assert stop_commands(["a"], {}) == ["a"]
    opened, line, closed = stop_commands(["a"], {"GITHUB_ACTIONS": "true"})
    assert opened == f"::stop-commands::{closed[2:-2]}" and line == "a" and len(closed) == 36


# The two paths a request takes to Jev: the sync client on the test's thread, the async client in a task.
PATHS_422 = {
    "sync": """
        from cookbook import SOURCE, pick
        from pytest_citecheck import assert_citations_supported

        def test_rejected():
            assert_citations_supported(pick("aud_reject"), SOURCE)
        """,
    "async": """
        import pytest
        from typesafe_sdk import AsyncTypeSafeClient
        from cookbook import SOURCE, pick

        @pytest.mark.asyncio
        async def test_rejected(citecheck, citecheck_async_client):
            client = citecheck_async_client()
            assert isinstance(client, AsyncTypeSafeClient)  # what acheck asks Jev with
            await client.aclose()
            await citecheck.aassert_supported(pick("aud_reject"), SOURCE)
        """,
}


@pytest.mark.parametrize("path", PATHS_422)
def test_a_server_error_body_becomes_no_command_even_in_a_native_traceback(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    from pytest_citecheck.testing import JevServer, Reply

    body = {"detail": [{"loc": ["body", "model"], "msg": "bad\n::warning file=x.py::injected\n  ::add-mask::k"}]}
    server = JevServer(lambda claim, section: Reply(422, body)).start()
    try:
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.url)
        monkeypatch.setenv("TYPESAFE_API_KEY", "k-rehearsal-0123456789")
        monkeypatch.setenv("GITHUB_ACTIONS", "true")
        suite.makepyfile(test_422=PATHS_422[path])
        for tb in ("native", "short", "long"):
            result = suite.runpytest("--citecheck-record-mode=all", f"--tb={tb}", "-rA")
            result.assert_outcomes(failed=1)
            out = result.stdout.str()
            assert "HTTP 422" in out and "file=x.py" in out, tb  # the body is shown, harmlessly
            assert commands_in(out) == [], tb
        assert len(server.systemone_requests) == 3  # each run asked the server, and got the hostile 422
    finally:
        server.stop()


def test_a_table_cell_is_cut_in_the_middle_past_its_width() -> None:
    long_test = "tests/" + "deep/" * 20 + "test_app.py::test_claims[case-7]"
    lines = render_table([["test", "n"], [long_test, "1"], ["short", "2"]])
    cell = lines[1].split()[0]
    assert len(cell) == CELL_WIDTH and cell.startswith("tests/deep/") and cell.endswith("::test_claims[case-7]")
    assert cell.count("…") == 1 and lines[2].split() == ["short", "2"]
    assert render_table([["id"], ["x" * CELL_WIDTH]])[1] == "  " + "x" * CELL_WIDTH  # at the width: whole


LONG_IDS_SUITE = """
from cookbook import SOURCE, pick
from pytest_citecheck import assert_citations_supported

LONG = "A" * 50_000 + "-middle-" + "Z" * 50_000

def renamed(name, suffix):
    citation = dict(pick(name)[0])
    citation["id"] = LONG + suffix
    return citation

def test_fabricated():
    assert_citations_supported(
        [{"id": LONG + "f", "claim": "c", "quote": "a sentence that no RFC holds", "section": "4.1"}], SOURCE
    )

def test_invalid():
    assert_citations_supported([{"id": LONG + "i", "claim": "c", "quote": 5}], SOURCE)

def test_needs_review():
    assert_citations_supported([renamed("pii_encryption", "r")], SOURCE, review="fail")
"""


def test_a_long_id_is_cut_in_every_line_that_names_it(suite: pytest.Pytester, jev_server, capsys) -> None:
    """A 100 KB citation id was printed whole in a failing test's detail lines (the closest passage of a
    fabricated quote), in an error naming the citation (CitationInputError, JudgeError) and by
    ``citecheck review --list``: one line of 100 KB each. Every line that names it now cuts it in the
    middle at "…" and says where the whole id is (the JSON report; an error's ``.citation``)."""
    suite.makepyfile(test_long=LONG_IDS_SUITE)
    result = suite.runpytest("--citecheck-record-mode=once", "--citecheck-json=report.json", "-p", "no:xdist")
    result.assert_outcomes(failed=3)
    lines = result.stdout.lines
    # A whole id makes a line of 100,000 characters; a cut one leaves the message and the warning's path
    # (pytester's temporary directory, of any length) around 80 characters of it.
    assert max(len(line) for line in lines) < 1_000, max(lines, key=len)[:300]
    out = result.stdout.str()
    result.stdout.fnmatch_lines(["*AAAA…ZZZ*Zf: the quote is not in the source; closest passage*"])
    result.stdout.fnmatch_lines(
        [
            "*CitationInputError: citation 'AAA*A…ZZZ*Zi' (100,009 characters, cut: the error's .citation holds it whole)*"
        ]
    )
    assert (
        out.count("(ids longer than 80 characters are cut in the middle at …; the JSON report holds them whole)") >= 2
    )
    report = json.loads((suite.path / "report.json").read_text(encoding="utf-8"))
    # The invalid citation's row too (verdict errored), its id whole.
    assert sorted(len(row["id"]) for row in report["results"]) == [100_009, 100_009, 100_009]

    capsys.readouterr()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(suite.path)
        assert citecheck(["review", "--report", "report.json", "--list"]) == 0
    listed = capsys.readouterr().out
    assert max(len(line) for line in listed.splitlines()) < 400
    assert "…" + "Z" * 39 + "r (100,009 characters, cut: the JSON report holds it whole): Jev says" in listed


def test_line_separators_and_tabs_in_an_id_stay_on_its_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Found by hunt-reports: U+2028/U+2029 (a line break to some terminals and log viewers) and a tab
    (which pushes the rest of the row out of its columns) reached the terminal's table raw."""
    assert visible("line\u2028sep\u2029para") == "line\\u2028sep\\u2029para"
    rows = [
        {
            "test": "t.py::test",
            "id": name,
            "status": "found",
            "section": "1",
            "verdict": "verified",
            "confidence": 0.6,
            "auto": False,
            "claim": "c",
            "quote": "q",
            "span": [0, 1],
            "auto_accept": 0.8,
            "section_text": "q",
            "review_key": f"k{number}",
            "reviews_file": "r.json",
        }
        for number, name in enumerate(["tab\tid", "line\u2028sep\u2029para"])
    ]
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"version": 1, "results": rows}))
    assert citecheck(["review", "--report", str(report), "--list"]) == 0
    out = capsys.readouterr().out
    assert "\u2028" not in out and "\u2029" not in out and "line\\u2028sep\\u2029para" in out
    # A table's cell shows a tab as the escape, so the row keeps its columns (a message line keeps it).
    lines = render_table([["id", "verdict"], ["tab\tid", "verified"], ["other", "verified"]])
    assert lines[1] == "  tab\\tid  verified" and lines[1].index("verified") == lines[2].index("verified")
