"""A suite that checks no citation pays nothing for the heavy dependencies (behaviour, not timing)."""

from __future__ import annotations

import pytest

HEAVY = ("typesafe_sdk", "vcr", "yaml", "httpx2", "tenacity", "rapidfuzz", "pypdf")


def test_no_heavy_module_is_imported_when_no_citation_is_checked(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(
        f"""
        import sys

        def pytest_sessionfinish(session):
            print("PLUGIN-LOADED:", "pytest_citecheck.plugin" in sys.modules)
            print("HEAVY:", ",".join(sorted(name for name in {HEAVY!r} if name in sys.modules)) or "none")
        """
    )
    pytester.makepyfile(test_plain="def test_one():\n    assert 1 + 1 == 2\n\ndef test_two():\n    assert 'a' < 'b'\n")
    # A fresh interpreter with only pytest's own plugins and ours, so nothing else imports them first.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess("-p", "pytest_citecheck.plugin", "-s")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*PLUGIN-LOADED: True*", "*HEAVY: none*"])
