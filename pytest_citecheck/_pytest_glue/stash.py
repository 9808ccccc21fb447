"""What the plugin keeps on pytest's config and items (``pytest.StashKey``s).

The floor of the pytest glue: it imports nothing else of the glue, so every other glue module
(``trigger``, ``session``, ``fixtures``) and ``plugin`` may import it.
"""

from __future__ import annotations

from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_citecheck._check.checker import Checker  # noqa: F401  (named in CHECKER's type)
    from pytest_citecheck._judge.sharing import SharedAnswers  # noqa: F401  (named in SHARED_ANSWERS' type)
    from pytest_citecheck._options import Settings  # noqa: F401  (named in SETTINGS' type)
    from pytest_citecheck._pytest_glue.bookkeeping import CassetteBookkeeping  # noqa: F401  (named in SESSION_PLUGINS' type)
    from pytest_citecheck._pytest_glue.session import CitecheckRun  # noqa: F401  (named in SESSION_PLUGINS' type)

SETTINGS = pytest.StashKey["Settings"]()
PENDING_ROWS = pytest.StashKey[list[dict[str, Any]]]()
CHECKER = pytest.StashKey["Checker"]()
RAN_TO_END = pytest.StashKey[bool]()
# Every collected test, deselected ones included (``-k``, ``-m``): their cassettes are not orphans.
COLLECTED = pytest.StashKey[list[pytest.Item]]()
SESSION_PLUGINS = pytest.StashKey["tuple[CitecheckRun, CassetteBookkeeping]"]()
# The session's answers to identical requests, each sent once (``_judge.sharing``); made with the first checker.
SHARED_ANSWERS = pytest.StashKey["SharedAnswers"]()


def collected_modules(items: list[pytest.Item]) -> dict[int, Path]:
    """The collected tests' module paths, by identity: a module's tests share its path object, so
    grouping costs a dict entry per test, not a path built or compared per test (and no Python
    code per test: ``map`` and ``zip`` loop in C, which matters at the end of every collection)."""
    paths: list[Path] = list(map(attrgetter("path"), items))
    return dict(zip(map(id, paths), paths))
