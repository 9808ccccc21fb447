"""Offsets into the text the user has (issue 22 item 5): every ``Source`` keeps the text as given and maps
offsets in it to (section, offset in the section's text) and back, through whatever cleaning its
layout does (RFC page footers, boxes of asterisks, HTML markup)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from pytest_citecheck import Source
from pytest_citecheck._sources.source import Placed

DATA = Path(__file__).parent.parent / "data"

# (file, a passage as it stands in the file (a regex, whitespace as in the file), the section it is in)
PASSAGES = [
    ("rfc6749.txt", r"The authorization server MUST ignore\s+unrecognized request parameters", "3.1"),
    ("rfc6749.txt", r"MUST first verify the identity of the resource owner", "3.1"),
    ("mpl-2.0.txt", r"Covered Software is provided under this License on an \"as is\"", "6"),  # in a box
    ("gpl-3.0.txt", r"You may convey a work based on the Program", "5"),
    ("debian-policy-excerpt.txt", r"initially written in 1996 by Ian Jackson", "1.3.1"),
    ("debian-policy-excerpt.txt", r"They should have the locations \(relative to the root", "A.2.1"),
    ("maint-guide-excerpt.txt", r"Here are some observations of Debian's social dynamics", "1.1"),
    ("maint-guide-excerpt.txt", r"Before packaging shared libraries", "A.1"),
    ("msgconv.1.txt", r"encoding for output", "DESCRIPTION > Conversion target"),
    (
        "systemd-translators.md",
        r"You can recompile the `\*\.po` files",
        "Notes for Translators > Recompiling Translations",
    ),
    ("node-string-decoder.md", r"Returns any remaining input stored in the internal buffer", None),
    ("rustdoc-what-is-rustdoc.html", r"Create a new project with Cargo", "What is rustdoc? > Basic usage"),
]


def load(name: str) -> Source:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Warning)
        return Source.from_file(DATA / name)


@pytest.mark.parametrize(("name", "pattern", "expected"), PASSAGES)
def test_offsets_into_the_file_land_in_the_section_that_holds_the_passage(
    name: str, pattern: str, expected: str | None
) -> None:
    source = load(name)
    given = (DATA / name).read_text()
    assert source.original == given  # the file's characters as read
    found = re.search(pattern, given)
    assert found is not None
    placed = source.place(found.start(), found.end())
    assert placed is not None
    if expected is None:
        expected = "String decoder > Class: StringDecoder > stringDecoder.end([buffer])"
    assert placed.section == expected
    words = re.findall(r"\w+", found.group())
    assert re.findall(r"\w+", source.sections[placed.section][placed.start : placed.end]) == words
    # And back: the section's offset is the file's.
    assert source.original_offset(placed.section, placed.start) == found.start()


@pytest.mark.parametrize("name", sorted({name for name, _, _ in PASSAGES}))
def test_every_section_maps_to_the_file_and_back(name: str) -> None:
    source = load(name)
    for section, text in source.sections.items():
        for offset in {0, len(text) // 2, len(text) - 1}:
            if text[offset].isspace():
                continue
            given = source.original_offset(section, offset)
            if source.offsets is not None and source.format != "html":  # cleaning that only cuts: exact
                assert source.original[given] == text[offset], (section, offset)
            placed = source.place(given)
            assert placed is not None and (placed.section, placed.start) == (section, offset)


def test_a_page_footer_is_in_no_section() -> None:
    source = load("rfc6749.txt")
    footer = source.original.index("Hardt                        Standards Track                    [Page 5]")
    assert source.place(footer) is None
    assert source.place(len(source.original) + 10) is None


def test_a_sentence_in_two_sections_is_placed_where_the_offsets_point() -> None:
    sentence = "Refunds are granted within 30 days."
    text = f"# Refunds\n\n{sentence}\n\n# Returns\n\nShipping is free. {sentence}\n"
    source = Source.from_text(text)
    second = text.rindex(sentence)
    placed = source.place(second, second + len(sentence))
    assert placed is not None and placed.section == "Returns"
    assert source.sections["Returns"][placed.start : placed.end] == sentence
    first = text.index(sentence)
    assert source.place(first, first + len(sentence)).section == "Refunds"  # type: ignore[union-attr]


def test_sections_given_directly_join_with_a_blank_line_unless_the_original_text_is_passed() -> None:
    sections = {"1": "1. Scope\nThis policy covers refunds.", "2": "2. Time\nRefunds take 30 days."}
    joined = Source(sections=sections)
    assert joined.original == joined.text == "1. Scope\nThis policy covers refunds.\n\n2. Time\nRefunds take 30 days."
    original = "POLICY\n\n" + sections["1"] + "\n\n\n" + sections["2"] + "\n"
    passed = Source(sections=sections, text=original)
    at = original.index("Refunds take")
    assert passed.original == original and passed.place(at).section == "2"  # type: ignore[union-attr]
    assert joined.place(at) is not None and joined.place(at).section == "2"  # type: ignore[union-attr]
    assert passed.place(original.index("POLICY")) is None


def test_every_character_of_sections_given_directly_is_placed_in_its_own_section_at_its_own_offset() -> None:
    """A section that is only a line break, or starts with blank lines, is where the join put it, not in
    the blank line before it (which looks the same)."""
    sections = {"1": "    Preface", "2": "\n", "3": "\n\nTerms.", "4": "", "5": "  \n", "6": "End."}
    source = Source(sections=sections)
    offset = 0
    for key, text in sections.items():
        assert source.text[offset : offset + len(text)] == text
        for at in range(len(text)):
            assert source.place(offset + at) == Placed(key, at, at + 1), (key, at)
            assert source.original_offset(key, at) == offset + at
        offset += len(text) + 2


def test_step_1_prefers_the_section_a_char_location_points_at_in_a_cleaned_document() -> None:
    """An RFC loses its page footers when split, so raw offsets are not offsets into the cleaned text."""
    from pytest_citecheck._locate.finders import SourceFinder

    source = load("rfc6749.txt")
    quote = "If the client type is confidential or the client was issued client"
    first, second = (found.start() for found in re.finditer(re.escape(quote), source.original))
    finder = SourceFinder(source)
    for start, expected in ((first, "4.1.3"), (second, "4.3.2")):
        found = finder.find(quote, document=None, section=None, location=(start, start + len(quote)), casefold=False)
        assert found is not None and found.match.section == expected
