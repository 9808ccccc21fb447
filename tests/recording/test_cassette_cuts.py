"""A cassette cut short anywhere, at an interaction's end too, is named as cut short (cassette-cuts).

On main a copy cut just after an interaction's digest line (an interrupted copy, a partial checkout)
read as a whole cassette of fewer interactions: the recordings it lost replayed as plain misses ("no
recorded answer ... record it"), which sends the user to re-record, and pay, instead of restoring the
file. Format 3 ends with an end line, so a copy that lacks it was cut; format 2 (pytest-citecheck 0.1)
has none and is still read, its misses saying that a cut cannot be ruled out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import Offline, failures_section

from pytest_citecheck._recording.cassette_file import read_checked
from pytest_citecheck._recording.damage import CassetteCutShortError, CassetteDigestError
from pytest_citecheck._recording.layout import END, END_KEY

POLICY = """
from cookbook import SOURCE, pick
from pytest_citecheck import check_citations

def test_policy():
    check_citations(pick("aud_reject", "clock_skew", "epoch_seconds"), SOURCE)
"""
CASSETTE = Path("cassettes") / "test_app" / "test_policy.yaml"
# One test per cut, each replaying a cassette of its own (a shared cassette's name), in one inner run.
CUTS = """
import pytest
from cookbook import SOURCE, pick
from pytest_citecheck import check_citations

CUTS = {cuts!r}

@pytest.mark.parametrize("cut", [pytest.param(n, marks=pytest.mark.citecheck(cassette=f"cut-{{n}}")) for n in CUTS])
def test_cut(cut):
    check_citations(pick("aud_reject", "clock_skew", "epoch_seconds"), SOURCE)
"""


@pytest.fixture
def recorded(suite: pytest.Pytester, jev_server: Any) -> str:
    """The text of a real recording of three citations (three interactions), made through the SDK."""
    suite.makepyfile(test_app=POLICY)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    return (suite.path / CASSETTE).read_text(encoding="utf-8")


def _replay_cuts(suite: pytest.Pytester, cuts: dict[str, str]) -> dict[str, str]:
    """Each cut replayed by a test of its own (record mode none, offline): what its failure says, by cut."""
    folder = suite.path / "cassettes" / "test_cuts"
    folder.mkdir(parents=True)
    for name, text in cuts.items():
        (folder / f"cut-{name}.yaml").write_text(text, encoding="utf-8")
    suite.makepyfile(test_cuts=CUTS.format(cuts=list(cuts)))
    result = suite.runpytest("test_cuts.py", "--citecheck-record-mode=none", "-p", "no:cacheprovider")
    output = result.stdout.str()
    assert "INTERNALERROR" not in output and result.ret == 1
    result.assert_outcomes(failed=len(cuts))
    reports = failures_section(output).split("_ test_cut[")[1:]
    return {report.split("]", 1)[0]: report for report in reports}


def test_a_cassette_cut_at_every_line_end_fails_its_replay_as_cut_short(
    suite: pytest.Pytester, recorded: str, offline: Offline
) -> None:
    # On main: a cut just after interaction 1's or 2's digest line failed as "no recorded answer matches
    # this citation's request ... -> record it", and one just before interaction 1's digest as "has no digest".
    lines = recorded.splitlines(keepends=True)
    cuts = {str(n): "".join(lines[:n]) for n in range(1, len(lines))}
    offline()
    said = _replay_cuts(suite, cuts)
    assert sorted(said) == sorted(cuts)
    for name, report in said.items():
        assert "the file ends early" in report and "git checkout -- '" in report, (name, report)
        assert "no recorded answer" not in report and "by hand" not in report, (name, report)
    digest_lines = [n for n, line in enumerate(lines, 1) if line.startswith("  digest: ")]
    assert len(digest_lines) == 3
    for n in digest_lines[:2]:  # cut just after an interaction, where the rest would read as misses
        assert (
            f"ends early, after interaction {digest_lines.index(n) + 1}, where its end line should be" in said[str(n)]
        )
    assert "ends early, inside interaction 1, before its digest" in said[str(digest_lines[0] - 1)]


def test_a_whole_cassette_replays_and_every_byte_cut_is_cut_short(
    suite: pytest.Pytester, recorded: str, offline: Offline
) -> None:
    assert recorded.endswith("\n  digest: " + recorded.rsplit("\n  digest: ", 1)[1]) and recorded.endswith(END)
    offline()
    suite.runpytest("test_app.py", "--citecheck-record-mode=none").assert_outcomes(passed=1)
    not_cut_short = {}
    for end in range(1, len(recorded)):
        try:
            read_checked(recorded[:end])
        except CassetteCutShortError:
            continue
        except Exception as error:
            not_cut_short[end] = repr(error)
        else:
            not_cut_short[end] = "read"
    assert not_cut_short == {}


def _format_2(text: str) -> str:
    """The file as pytest-citecheck 0.1 wrote it: format 2, the same interactions, no end line."""
    assert text.startswith("citecheck_format: 3\n") and text.endswith(END)
    return "citecheck_format: 2\n" + text[len("citecheck_format: 3\n") : -len(END)]


def test_a_format_2_cassette_replays_and_a_miss_in_it_says_a_cut_cannot_be_ruled_out(
    suite: pytest.Pytester, recorded: str, offline: Offline
) -> None:
    cassette = suite.path / CASSETTE
    old = _format_2(recorded)
    cassette.write_text(old, encoding="utf-8")
    offline()
    suite.runpytest("test_app.py", "--citecheck-record-mode=none").assert_outcomes(passed=1)
    # Cut after interaction 2: a whole file of format 2 to the reader; its miss says what may have happened.
    cassette.write_text(old[: old.rindex("- request:")], encoding="utf-8")
    result = suite.runpytest("test_app.py", "--citecheck-record-mode=none")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*CassetteMissError: citation 'epoch_seconds': no recorded answer matches this citation's request (the "
            "cassette is missing, *); the cassette *test_policy.yaml is of format 2 (pytest-citecheck 0.1), which "
            "does not mark its end, so a copy of it cut short after an interaction cannot be told from a whole one",
            "*-> if the file may have been cut short, restore it (git checkout -- '*test_policy.yaml'); else record "
            "it with a TypeSafe API key: TYPESAFE_API_KEY=... pytest 'test_app.py::test_policy' "
            "--citecheck-record-mode=rewrite (a recording writes the current format, which marks its end)",
        ]
    )


def test_re_recording_a_format_2_cassette_writes_its_end(
    suite: pytest.Pytester, recorded: str, jev_server: Any
) -> None:
    cassette = suite.path / CASSETTE
    cassette.write_text(_format_2(recorded), encoding="utf-8")
    suite.runpytest("test_app.py", "--citecheck-record-mode=rewrite").assert_outcomes(passed=1)
    assert cassette.read_text(encoding="utf-8") == recorded


def test_a_format_2_cassette_of_one_interaction_without_its_digest_may_be_cut(recorded: str) -> None:
    """Format 2 cannot tell a copy cut before its one digest from a digest line deleted: both are named."""
    old = _format_2(recorded)
    cut = old[: old.index("\n  digest: ") + 1]
    with pytest.raises(CassetteCutShortError) as raised:
        read_checked(cut)
    assert str(raised.value).startswith(
        "the file ends early, inside interaction 1, before its digest, or its digest line was deleted, which a "
        "cassette of format 2 cannot tell apart: it has no end line ("
    )


def test_a_digest_line_deleted_from_a_whole_cassette_is_still_a_hand_edit(recorded: str) -> None:
    """The end line is there, so the file was not cut: a digest line missing from it was deleted."""
    first, second = recorded.index("\n  digest: "), recorded.index("\n  digest: ", recorded.index("\n  digest: ") + 1)
    for start in (first, second):
        edited = recorded[:start] + recorded[recorded.index("\n", start + 1) :]
        with pytest.raises(CassetteDigestError, match=r"has no digest: edited by hand\?$"):
            read_checked(edited)


def test_a_checkout_with_crlf_line_ends_reads_whole_and_its_cuts_are_cut_short(recorded: str) -> None:
    """git's autocrlf turns every line end into CRLF: the end line is still the end line."""
    crlf = recorded.replace("\n", "\r\n")
    assert len(read_checked(crlf)[1]) == 3
    for end in (crlf.rindex(END_KEY), crlf.rindex("- request:")):
        with pytest.raises(CassetteCutShortError, match=r"^the file ends early, after interaction [23], where"):
            read_checked(crlf[:end])


@pytest.mark.parametrize("sort_keys", [False, True])
def test_a_cassette_a_yaml_tool_wrote_again_is_not_a_cut(recorded: str, sort_keys: bool) -> None:
    """The end is a key, so a tool that loads and dumps the YAML keeps it (sorted, it stays last)."""
    import yaml

    again = yaml.safe_dump(yaml.safe_load(recorded), sort_keys=sort_keys, width=80)
    assert again.endswith(END) and len(read_checked(again)[1]) == 3
    # Where it ends is told in the layout this plugin writes; sorted, each interaction starts "- digest:".
    where = "where its end line should be" if sort_keys else "after interaction 3, where its end line should be"
    with pytest.raises(CassetteCutShortError, match=f"^the file ends early, {where} "):
        read_checked(again[: again.rindex(END_KEY)])


@pytest.mark.parametrize("mode", ["once", "new_episodes", "all"])
def test_a_record_run_refuses_a_cut_cassette_rather_than_pay_for_what_it_lost(
    suite: pytest.Pytester, recorded: str, jev_server: Any, mode: str
) -> None:
    cassette = suite.path / CASSETTE
    cut = recorded[: recorded.rindex("- request:")]  # just after interaction 2's digest line
    cassette.write_text(cut, encoding="utf-8")
    asked = len(jev_server.systemone_requests)
    result = suite.runpytest("test_app.py", f"--citecheck-record-mode={mode}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*cannot read cassette *test_policy.yaml: the file ends early, after interaction 2, where its end line*"]
    )
    assert len(jev_server.systemone_requests) == asked and cassette.read_text(encoding="utf-8") == cut


def test_re_recording_a_cut_cassette_as_its_error_says_writes_it_whole(
    suite: pytest.Pytester, recorded: str, jev_server: Any
) -> None:
    cassette = suite.path / CASSETTE
    cassette.write_text(recorded[: recorded.rindex("- request:")], encoding="utf-8")
    suite.runpytest("test_app.py", "--citecheck-record-mode=rewrite").assert_outcomes(passed=1)
    assert cassette.read_text(encoding="utf-8") == recorded
