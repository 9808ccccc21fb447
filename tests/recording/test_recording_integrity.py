"""What a cassette holds can be trusted: only accepted answers, each with a digest of itself.

- A 2xx answer the checker refused (an unknown label, an answer that contradicts itself) fails the
  test and is never written: the next recording asks Jev again instead of replaying it forever.
- Every recorded interaction carries a digest of its canonical request and response; an
  interaction edited by hand (or by a merge-conflict resolution) fails the replay and says so.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import Offline

from pytest_citecheck.testing import choice_answer

TWO_CITATIONS = """
from cookbook import SOURCE
from pytest_citecheck import assert_citations_supported

def test_claims(citecheck):
    citecheck.check(
        [
            {"id": "exp", "claim": "A JWT can carry an expiration time.", "quote": None, "section": "4.1.4"},
            {"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"},
        ],
        SOURCE, model="jev-1.12", concurrency=1,
    )
"""
CASSETTE = Path("cassettes") / "test_app" / "test_claims.yaml"


def recorded_claims(path: Path) -> list[str]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [re.search(r'"claim": "([^"]*)"', i["request"]["body"]).group(1) for i in data["interactions"]]  # type: ignore[union-attr]


# --- item 6: a malformed 2xx answer is never saved ------------------------------------------------


def test_a_refused_2xx_answer_is_not_recorded_and_is_asked_again(suite: pytest.Pytester, jev_server: Any) -> None:
    def answer(claim: str, section: str) -> dict[str, Any]:
        if "audience" in claim:
            return {**choice_answer("supports", 0.97), "choice": "maybe"}
        return choice_answer("supports", 0.97)

    jev_server.answer = answer
    suite.makepyfile(test_app=TWO_CITATIONS)
    first = suite.runpytest("--citecheck-record-mode=once")
    first.assert_outcomes(failed=1)
    first.stdout.fnmatch_lines(["*citation 'aud': Jev answered with an unknown label 'maybe'*"])
    # The answer that was accepted is kept; the refused one is not.
    assert recorded_claims(suite.path / CASSETTE) == ["A JWT can carry an expiration time."]
    assert "maybe" not in (suite.path / CASSETTE).read_text()

    # The next recording run asks Jev again for the refused one (and only for it), and then passes.
    jev_server.answer = lambda claim, section: ("supports", 0.97)
    asked_before = len(jev_server.systemone_requests)
    second = suite.runpytest("--citecheck-record-mode=new_episodes")
    second.assert_outcomes(passed=1)
    asked = [r.body["state"]["claim"] for r in jev_server.systemone_requests[asked_before:]]
    assert asked == ["A JWT can name its audience."]
    assert sorted(recorded_claims(suite.path / CASSETTE)) == [
        "A JWT can carry an expiration time.",
        "A JWT can name its audience.",
    ]


def test_a_refused_answer_alone_writes_no_cassette_and_ci_cannot_replay_it(
    suite: pytest.Pytester, jev_server: Any, offline: Offline
) -> None:
    jev_server.answer = lambda claim, section: {**choice_answer("supports", 0.97), "choice": "maybe"}
    suite.makepyfile(test_app=TWO_CITATIONS.replace("concurrency=1", "concurrency=2"))
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(failed=1)
    assert not (suite.path / CASSETTE).exists()
    offline()
    replay = suite.runpytest()
    replay.assert_outcomes(failed=1)
    replay.stdout.fnmatch_lines(["*no recorded answer matches this citation's request*"])


def test_a_refused_answer_does_not_replace_a_rewritten_recording(suite: pytest.Pytester, jev_server: Any) -> None:
    suite.makepyfile(test_app=TWO_CITATIONS)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    before = (suite.path / CASSETTE).read_bytes()
    jev_server.answer = lambda claim, section: {**choice_answer("supports", 0.97), "choice": "maybe"}
    suite.runpytest("--citecheck-record-mode=rewrite").assert_outcomes(failed=1)
    assert (suite.path / CASSETTE).read_bytes() == before


# --- item 2: every interaction carries a digest ---------------------------------------------------

ONE_CITATION = """
from cookbook import SOURCE
from pytest_citecheck import assert_citations_supported

def test_claims():
    assert_citations_supported(
        [{"id": "aud", "claim": "A JWT can name its audience.", "quote": None, "section": "4.1.3"}],
        SOURCE, model="jev-1.12",
    )
"""


def _edit_consistently_to_supports(path: Path) -> None:
    """What a hand edit (or a careless merge) that means it would do: choice, probabilities and confidence agree."""
    text = path.read_text(encoding="utf-8")
    response = text.index("\n  response:")
    head, tail = text[:response], text[response:]
    edited = (
        tail.replace('"choice": "contradicts"', '"choice": "supports"')
        .replace('"contradicts": 0.96', '"contradicts": @')
        .replace('"supports": 0.02', '"supports": 0.96')
        .replace('"contradicts": @', '"contradicts": 0.02')
    )
    assert edited.count('"supports": 0.96') == 1 and '"choice": "supports"' in edited, edited
    path.write_text(head + edited, encoding="utf-8")


def test_a_consistent_hand_edit_of_an_answer_fails_the_replay_instead_of_passing(
    suite: pytest.Pytester, jev_server: Any, offline: Offline
) -> None:
    jev_server.answer = lambda claim, section: ("contradicts", 0.97)
    suite.makepyfile(test_app=ONE_CITATION)
    recorded = suite.runpytest("--citecheck-record-mode=once")
    recorded.assert_outcomes(failed=1)  # the recorded verdict: contradicted
    cassette = suite.path / CASSETTE
    assert re.search(r"\n  digest: sha256:[0-9a-f]{64}\n", cassette.read_text())
    _edit_consistently_to_supports(cassette)

    offline()
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*CassetteError: citation 'aud': cassette *test_claims.yaml: the recording of interaction 1 "
            "(claim 'A JWT can name its audience.') does not match its digest: edited by hand?",
            "*-> re-record with TYPESAFE_API_KEY=... pytest 'test_app.py::test_claims' --citecheck-record-mode=rewrite*",
        ]
    )


def test_the_digest_ignores_layout_and_a_re_save_keeps_it(
    suite: pytest.Pytester, jev_server: Any, offline: Offline
) -> None:
    """Re-indenting a body is not an edit of what replay depends on; removing the digest is."""
    suite.makepyfile(test_app=ONE_CITATION)
    jev_server.answer = lambda claim, section: ("supports", 0.97)
    suite.runpytest("--citecheck-record-mode=once").assert_outcomes(passed=1)
    cassette = suite.path / CASSETTE
    text = cassette.read_text()
    cassette.write_text(text.replace('"confidence": 0.94', '"confidence":     0.94'))
    offline()
    suite.runpytest().assert_outcomes(passed=1)
    cassette.write_text(re.sub(r"\n  digest: .*\n", "\n", text))
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*has no digest: edited by hand?*"])


def test_the_committed_example_cassettes_carry_digests() -> None:
    from support import EXAMPLE

    from pytest_citecheck._recording.cassette_file import read_interactions

    files = sorted((EXAMPLE / "cassettes" / "test_rfc7519").glob("*.yaml"))
    assert len(files) == 7
    for path in files:
        assert path.read_text(encoding="utf-8").startswith("citecheck_format: 3\n"), path
        [interaction] = read_interactions(path)  # verifies the digest
        assert interaction["digest"].startswith("sha256:")


# --- reading a cassette: PyYAML's safe loader, result for result and error for error --------------

# Plain-data YAML of every kind a person or a tool might leave in a cassette: each scalar type the
# safe resolver knows, block and flow styles, quoting, and what the fast path must hand back to
# PyYAML (anchors, aliases, merge keys, tags, several documents, syntax errors).
YAML_TEXTS = [
    "",
    "null",
    "a: 2\nb: |\n  x\n  y\n",
    "a: [1, 2.5, yes, no, ~, 2001-12-14, 2001-12-14t21:59:43.10-05:00, 0x1f, 0o17, 1_000, 190:20:30, .inf, .nan]",
    "a: ['3', \"4\", '<<', '', \"\\u00e9\"]",
    "- a\n- {b: c, 1: d, null: e, 2.5: f, true: g}\n- [d, [e, {}]]\n- []\n",
    "a: b\na: c\n",
    "a: &x 1\nb: 2\n",  # an anchor no alias uses
    "<<: {a: 1}\nb: 2\n",
    "a: !!binary aGVsbG8=",
    "a: !!str 2",
    "a: !!int '7'",
    "a: !!python/name:os.system x",
    "a: !custom 3",
    "!!map {a: 1}",
    "--- 1\n--- 2\n",
    "--- 1\n...\n",
    "? [1]\n: 2",
    "a: [",
    "a: b: c",
    "\t- tab",
]


def _outcome(load: Any, text: str) -> tuple[str, Any]:
    try:
        return "value", repr(load(text))  # repr: nan == nan, and int 1 is not float 1.0 or True
    except Exception as error:
        return "error", (type(error).__name__, str(error))


@pytest.mark.parametrize("text", YAML_TEXTS)
def test_reading_yaml_gives_what_pyyamls_safe_loader_gives(text: str) -> None:
    from pytest_citecheck._recording.yaml_reader import safe_load

    assert _outcome(safe_load, text) == _outcome(lambda t: yaml.load(t, Loader=yaml.CSafeLoader), text)


@pytest.mark.parametrize(
    "text", ["a: &x 1\nb: *x\n", "base: &b {k: 1}\nderived:\n  <<: *b\n  j: 2\n", "a: !!str &x 2\nb: *x\n"]
)
def test_reading_yaml_refuses_an_alias(text: str) -> None:
    """Where PyYAML builds an alias's tree again (a billion laughs: ``test_hostile_cassette_files``), we refuse."""
    from pytest_citecheck._recording.yaml_reader import YamlAliasError, safe_load

    with pytest.raises(YamlAliasError, match=r"uses a YAML alias \(\*name\)"):
        safe_load(text)


def test_reading_yaml_agrees_with_pyyaml_on_any_plain_data() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from pytest_citecheck._recording.yaml_reader import safe_load

    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30)
    keys = st.none() | st.booleans() | st.integers() | st.text(max_size=10)
    data = st.recursive(
        scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4), max_leaves=25
    )

    @settings(max_examples=300, deadline=None)
    @given(data, st.sampled_from([None, False, True]), st.sampled_from([None, "|", "'", '"']))
    def agrees(value: Any, flow: bool | None, style: str | None) -> None:
        text = yaml.safe_dump(value, default_flow_style=flow, default_style=style, allow_unicode=True)
        expected = _outcome(lambda t: yaml.load(t, Loader=yaml.CSafeLoader), text)
        assert expected[0] == "value"
        assert _outcome(safe_load, text) == expected

    agrees()
