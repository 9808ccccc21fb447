"""Reading a cassette without a YAML parser (``_recording.layout``): what PyYAML's safe loader gives, or nothing.

The fast path must never read a file differently from ``yaml.safe_load``: for a file this plugin
wrote it gives the same data, and for anything else (an edit, a damaged file, a character YAML
treats specially) it gives None and the safe YAML reader decides.
"""

from __future__ import annotations

import random

import pytest
import yaml
from support import recorded_interaction

from pytest_citecheck._recording.cassette_file import CassetteSerializer, read_cassette_text, read_checked
from pytest_citecheck._recording.layout import read_layout


def _cassette(*pairs: tuple[str, str]) -> str:
    interactions = [recorded_interaction(claim, section) for claim, section in pairs]
    return CassetteSerializer.serialize({"version": 1, "interactions": interactions})


def _pyyaml(text: str) -> tuple[str, str]:
    try:
        return "value", repr(yaml.load(text, Loader=yaml.CSafeLoader))
    except yaml.YAMLError as error:
        return "error", type(error).__name__


def _agrees(text: str) -> bool:
    """The fast path gave what PyYAML gives, or nothing; True when it gave something."""
    fast = read_layout(text)
    if fast is not None:
        assert ("value", repr(fast)) == _pyyaml(text)
    return fast is not None


def test_a_recorded_cassette_is_read_as_pyyaml_reads_it() -> None:
    text = _cassette(("The fee is 5%.", "1. Fees\n\n  The fee is 5% of the total."), ("Ça coûte 5 €", "第1条 料金"))
    assert _agrees(text)
    data, checked = read_checked(text)
    assert sorted(entry.request["state"]["claim"] for entry in checked) == ["The fee is 5%.", "Ça coûte 5 €"]


def test_the_cassettes_in_the_repository_are_read_as_pyyaml_reads_them(pytestconfig: pytest.Config) -> None:
    paths = sorted(pytestconfig.rootpath.glob("examples/**/*.yaml"))
    assert paths
    for path in paths:
        text = read_cassette_text(path)
        assert text is not None and _agrees(text), path


def test_any_claim_and_section_is_read_as_pyyaml_reads_it() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.tuples(st.text(max_size=40), st.text(max_size=200)), min_size=1, max_size=3, unique=True))
    def agrees(pairs: list[tuple[str, str]]) -> None:
        read = _agrees(_cassette(*pairs))
        # JSON escapes the control characters; what it leaves as it is, YAML reads as plain text.
        if all(character.isprintable() or character < " " for pair in pairs for character in "".join(pair)):
            assert read

    agrees()


@pytest.mark.parametrize(
    "character",
    ["\t", "\r", "\x00", "\x1b", "\x7f", "\x85", "\u2028", "\u2029", "\ufeff", "\ufffe"],
    ids=repr,
)
def test_a_character_yaml_reads_specially_is_left_to_yaml(character: str) -> None:
    text = _cassette(("The fee is 5%.", "Fees"))
    for edited in (text.replace("Fees", f"Fe{character}es"), text.replace("Fees", f"Fé{character}es")):
        assert read_layout(edited) is None


@pytest.mark.parametrize(
    "edit",
    [
        ("    method: POST\n", "    method: 'POST'\n"),
        ("      code: 200\n", "      code: 0200\n"),
        ("      message: OK\n", "      message: OK # fine\n"),
        ("  digest: sha256:", "  recorded_at: 2020-01-01\n  digest: sha256:"),
        ("    body: |\n      {\n", "    body: |2\n      {\n"),
        ('      {\n        "model"', '      {\n\n        "model"'),
        ("interactions:\n", "interactions:\n- &a request:\n"),
    ],
)
def test_any_other_layout_is_left_to_yaml(edit: tuple[str, str]) -> None:
    text = _cassette(("The fee is 5%.", "Fees"))
    assert edit[0] in text
    assert read_layout(text.replace(edit[0], edit[1], 1)) is None


def test_a_damaged_cassette_is_read_as_pyyaml_reads_it_or_left_to_it() -> None:
    """Characters dropped, doubled or replaced anywhere: the fast path agrees with PyYAML or declines."""
    text = _cassette(("The fee is 5%.", "1. Fees\n  The fee is 5%."), ("Fees apply.", "Fees"))
    rng = random.Random(27)
    replacements = [" ", "\n", "x", "-", ":", "|", "'", "é", "\t", "#", "&", "*", "!", "{"]
    read = 0
    for _ in range(1500):
        at = rng.randrange(len(text))
        kind = rng.randrange(3)
        if kind == 0:
            edited = text[:at] + text[at + 1 :]
        elif kind == 1:
            edited = text[:at] + text[at] + text[at:]
        else:
            edited = text[:at] + rng.choice(replacements) + text[at + 1 :]
        read += _agrees(edited)
    assert read > 0  # edits inside a body still read fast (their digest is checked afterwards)
