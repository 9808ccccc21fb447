"""The code, the CHANGELOG and the fragments agree on the release."""

from __future__ import annotations

import re

from support import REPO

import pytest_citecheck

CHANGELOG = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
RELEASES = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", CHANGELOG, flags=re.MULTILINE)


def test_the_newest_release_in_the_changelog_is_the_code_s_version():
    assert RELEASES, "CHANGELOG.md has a release section: ## [X.Y.Z] - YYYY-MM-DD"
    assert RELEASES[0][0] == pytest_citecheck.__version__
    assert CHANGELOG.index("## [Unreleased]") < CHANGELOG.index(f"## [{RELEASES[0][0]}]")


def test_each_release_is_listed_once_with_its_link():
    versions = [version for version, _ in RELEASES]
    assert len(versions) == len(set(versions))
    for version in versions:
        assert re.search(
            rf"^\[{re.escape(version)}\]: https://\S+v{re.escape(version)}$", CHANGELOG, flags=re.MULTILINE
        )


def test_a_release_section_uses_only_keep_a_changelog_groups():
    groups = set(re.findall(r"^### (.+)$", CHANGELOG, flags=re.MULTILINE))
    assert groups <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_unreleased_changes_are_fragments_not_changelog_entries():
    """Between releases a change is a file in changelog.d/ (its README says how); CHANGELOG.md's
    [Unreleased] stays empty until the fragments are folded into the next release's section."""
    unreleased = CHANGELOG[
        CHANGELOG.index("## [Unreleased]") + len("## [Unreleased]") : CHANGELOG.index(
            "\n## [", CHANGELOG.index("## [Unreleased]")
        )
    ]
    assert unreleased.strip() == ""
