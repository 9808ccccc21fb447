"""docs/hooks.md and the hook specifications name the formats that never reach the split hook."""

from __future__ import annotations

import re

import pytest
from support import REPO

from pytest_citecheck import hookspecs
from pytest_citecheck._sources.formats import FORMATS

HOOKS_PAGE = (REPO / "docs" / "hooks.md").read_text(encoding="utf-8")


def built_in_formats_named(text: str) -> set[str]:
    """The names in the parenthesis after 'a format that is not built in' (Markdown or reST literals)."""
    found = re.search(r"format that is not built in\s*\(([^)]*)\)", text)
    assert found, "the text no longer says which formats are built in"
    return set(re.findall(r"`+([a-z]+)`+", found.group(1)))


@pytest.mark.parametrize(
    "text",
    [HOOKS_PAGE, hookspecs.pytest_citecheck_split_sections.__doc__ or ""],
    ids=["docs/hooks.md", "the hookspec's docstring"],
)
def test_the_split_hook_lists_every_built_in_format(text):
    # A format of one's own named like a built-in one (man, info, rst, docbook) never reaches the
    # hook: the built-in splitter takes it. The page listed five of the nine.
    assert built_in_formats_named(text) == set(FORMATS)
