"""The hooks pytest-citecheck calls; implement them in a ``conftest.py`` or a plugin.

Each docstring here is the hook's reference documentation (``docs/hooks.md`` points to it).
"""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_citecheck_split_sections(text: str, format: str) -> dict[str, str] | None:
    """Split a document of a format pytest-citecheck does not know into sections.

    Called when ``Source.from_text(text, format=...)``, ``Source.from_file(path, format=...)`` or
    ``assert_citations_supported(..., format=...)`` names a format that is not built in (``auto``,
    ``docbook``, ``html``, ``info``, ``man``, ``markdown``, ``numbered``, ``rfc``, ``rst``), during a pytest session (a test module's
    import time included). Return an ordered mapping of section id to the section's full text, or
    None to decline (another implementation may answer; if none does, the format is reported as
    unknown). See ``docs/hooks.md``.
    """


@pytest.hookspec(firstresult=True)
def pytest_citecheck_adapt_citation(citation: Any, position: int) -> Any | None:
    """Turn one citation of a shape pytest-citecheck does not know into a dict.

    Called for every citation before the built-in adapters. Return a dict with ``id``, ``claim``,
    ``quote`` (or None) and ``section`` (or None), or None to leave the citation to the built-in
    adapters (dicts, dataclasses, pydantic models, objects with those attributes).
    """
