"""What the plugin keeps on pytest's config and items (``pytest.StashKey``s).

The floor of the pytest glue: it imports nothing else of the glue, so every other glue module
(the package's trigger, ``session``, ``fixtures``) and ``plugin`` may import it.
"""

from __future__ import annotations

from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_citecheck._check.checker import Checker
    from pytest_citecheck._judge.sharing import SharedAnswers
    from pytest_citecheck._options import Settings
    from pytest_citecheck._pytest_glue.bookkeeping import CassetteBookkeeping
    from pytest_citecheck._pytest_glue.fixtures import SessionClient, _SessionParts
    from pytest_citecheck._pytest_glue.session import CitecheckRun

# Typed by annotation, not ``pytest.StashKey[T]()``: subscribing a generic class builds a typing alias at
# import, and pytest imports this module in every run (ten times what the keys themselves cost).
SETTINGS: pytest.StashKey[Settings] = pytest.StashKey()
PENDING_ROWS: pytest.StashKey[list[dict[str, Any]]] = pytest.StashKey()
CHECKER: pytest.StashKey[Checker] = pytest.StashKey()
RAN_TO_END: pytest.StashKey[bool] = pytest.StashKey()
# Every collected test, deselected ones included (``-k``, ``-m``): their cassettes are not orphans.
COLLECTED: pytest.StashKey[list[pytest.Item]] = pytest.StashKey()
SESSION_PLUGINS: pytest.StashKey[tuple[CitecheckRun, CassetteBookkeeping]] = pytest.StashKey()
# The session's answers to identical requests, each sent once (``_judge.sharing``); made with the first checker.
SHARED_ANSWERS: pytest.StashKey[SharedAnswers] = pytest.StashKey()
# The ``_citecheck_session_client`` fixture's value while it is set up: what ``citecheck_client`` returns.
SESSION_CLIENT: pytest.StashKey[SessionClient] = pytest.StashKey()
# What every test's checker shares (``fixtures._SessionParts``): made with the first checker.
SESSION_PARTS: pytest.StashKey[_SessionParts] = pytest.StashKey()


def collected_modules(items: list[pytest.Item]) -> dict[int, Path]:
    """The collected tests' module paths, by identity: a module's tests share its path object, so
    grouping costs a dict entry per test, not a path built or compared per test (and no Python
    code per test: ``map`` and ``zip`` loop in C, which matters at the end of every collection)."""
    paths: list[Path] = list(map(attrgetter("path"), items))
    return dict(zip(map(id, paths), paths))
