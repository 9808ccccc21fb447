"""The API reference (docs/api.md) covers the public API: every name in ``pytest_citecheck.__all__``."""

from __future__ import annotations

import re

import pytest
from support import REPO

import pytest_citecheck

API = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
DOCUMENTED = set(re.findall(r"^::: pytest_citecheck\.(\w+)$", API, flags=re.MULTILINE))


@pytest.mark.parametrize("name", sorted(pytest_citecheck.__all__))
def test_every_public_name_has_an_entry_in_the_api_reference(name):
    if name == "__version__":  # a string: named in the page's introduction, there is no docstring to render
        assert "`pytest_citecheck.__version__`" in API
    else:
        assert name in DOCUMENTED, f"docs/api.md has no `::: pytest_citecheck.{name}` entry"


def test_the_api_reference_documents_only_public_names():
    assert DOCUMENTED <= set(pytest_citecheck.__all__)


@pytest.mark.parametrize("name", sorted(pytest_citecheck.__all__))
def test_every_public_name_is_importable_from_the_package(name):
    namespace: dict[str, object] = {}
    exec(f"from pytest_citecheck import {name}", namespace)
    assert namespace[name] is getattr(pytest_citecheck, name)


def test_checker_unavailable_error_is_public():
    from pytest_citecheck import CheckerUnavailableError, CitecheckError

    assert issubclass(CheckerUnavailableError, CitecheckError)
    assert "CheckerUnavailableError" in pytest_citecheck.__all__


def _entries_by_heading() -> dict[str, str]:
    """Each documented name and the ``## `` heading it is listed under."""
    heading, under = "", {}
    for line in API.splitlines():
        if line.startswith("## "):
            heading = line[3:].strip()
        elif found := re.fullmatch(r"::: pytest_citecheck\.(\w+)", line):
            under[found.group(1)] = heading
    return under


@pytest.mark.parametrize(
    ("kind", "heading"), [(Warning, "Warnings"), (BaseException, "Exceptions")], ids=["warnings", "exceptions"]
)
def test_each_warning_and_exception_is_listed_under_its_heading(kind, heading):
    # SourceWarning was listed under "Testing the record path", after JevServer.
    misplaced = {
        name: under
        for name, under in _entries_by_heading().items()
        if isinstance(getattr(pytest_citecheck, name), type) and issubclass(getattr(pytest_citecheck, name), kind)
        if not (kind is BaseException and issubclass(getattr(pytest_citecheck, name), Warning))
        if under != heading
    }
    assert not misplaced, f"listed under another heading than {heading!r}: {misplaced}"


def test_the_api_reference_names_each_exception_that_is_not_a_citecheck_error():
    # The page said every error raised on purpose derives from CitecheckError; CitationsNotSupported
    # (an AssertionError: a test's failure) does not, so `except CitecheckError` does not catch it.
    rule = re.search(r"Every error pytest-citecheck raises on purpose[^.]*\.", API)
    assert rule, "docs/api.md no longer states which errors derive from CitecheckError"
    outside = [
        name
        for name in pytest_citecheck.__all__
        if isinstance(getattr(pytest_citecheck, name), type)
        and issubclass(getattr(pytest_citecheck, name), Exception)
        and not issubclass(getattr(pytest_citecheck, name), (Warning, pytest_citecheck.CitecheckError))
    ]
    assert outside, "every exception derives from CitecheckError: the page's exception to the rule can go"
    assert all(f"`{name}`" in rule.group(0) for name in outside), (rule.group(0), outside)
    assert pytest_citecheck.CitecheckError.__doc__
    assert all(name in pytest_citecheck.CitecheckError.__doc__ for name in outside)
