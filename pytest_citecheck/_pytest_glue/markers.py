"""A test's ``citecheck`` marker settings and where its ``auto_accept`` is set, from its chain of nodes;
and, for the error of a refused keyword, which marker gave it (``marker_origin``: the node and line).

Every test of a module (or class) shares what the nodes above it say, so that part is worked out
once per parent node (``MarkerCache``) and the test's own markers are laid over it each time: a
test's decorator, its parametrized case's marks and a marker a fixture added while it ran reach
that test alone, the case's marks over the function's decorators. A marker added to a parent node later (``node.add_marker``) changes the number of
markers above the test, and that parent's part is worked out again.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import attrgetter
from pathlib import Path
from typing import Any

import pytest

from pytest_citecheck._options import POSITIONAL

MARKER = "citecheck"


class _Above:
    """What the nodes above a test say: worked out for one parent node, with this many markers above."""

    __slots__ = ("chain", "markers", "options", "scope")

    def __init__(
        self,
        chain: tuple[pytest.Item | pytest.Collector, ...],
        markers: int,
        options: dict[str, Any],
        scope: str | None,
    ) -> None:
        # The parent node and the nodes above it, closest first: a node's parent never changes.
        self.chain = chain
        self.markers = markers
        self.options = options
        # The closest node above whose own ``citecheck`` marker names ``auto_accept``, or None.
        self.scope = scope


_own_markers = attrgetter("own_markers")


def _marker_count(chain: Iterable[pytest.Item | pytest.Collector]) -> int:
    """How many markers the nodes of ``chain`` carry: a marker added to one of them changes it."""
    return sum(map(len, map(_own_markers, chain)))


def _apply(options: dict[str, Any], markers: Iterable[pytest.Mark]) -> None:
    """Lay ``markers`` (one node's own, in their order) over ``options``: the first listed wins, as the closest."""
    for marker in reversed([marker for marker in markers if marker.name == MARKER]):
        if marker.args:
            options[POSITIONAL] = marker.args
        options.update(marker.kwargs)


def _names_auto_accept(markers: Iterable[pytest.Mark]) -> bool:
    return any(marker.name == MARKER and "auto_accept" in marker.kwargs for marker in markers)


def _chain(node: pytest.Item | pytest.Collector | None) -> list[pytest.Item | pytest.Collector]:
    """``node`` and the nodes above it, closest first."""
    chain = []
    while node is not None:
        chain.append(node)
        node = node.parent
    return chain


def _scope_name(node: pytest.Item | pytest.Collector) -> str:
    # A function's marker covers all its parametrized cases: name the function, not one case.
    return node.nodeid.split("[", 1)[0] if isinstance(node, pytest.Function) else node.nodeid


def _names(marker: pytest.Mark, name: str) -> bool:
    """Whether ``marker`` is a ``citecheck`` marker that gives keyword ``name`` (``<positional>``: any positional)."""
    return marker.name == MARKER and (name in marker.kwargs or (name == POSITIONAL and bool(marker.args)))


def _line(node: pytest.Item | pytest.Collector) -> str:
    """``test_app.py:12``: where pytest says the node is defined, 1-based, the file relative to the rootdir.

    That file, not the module collected: a test class or function imported from a helper module is
    defined (and its markers written) there."""
    reportinfo = getattr(node, "reportinfo", None)  # a function's, a class's (a plain collector has none)
    path, line = reportinfo()[:2] if reportinfo is not None else (None, None)
    if path is None or not isinstance(line, int):
        return node.nodeid.split("::", 1)[0]
    shown = Path(path)
    if shown.is_relative_to(node.config.rootpath):
        shown = shown.relative_to(node.config.rootpath)
    return f"{shown.as_posix()}:{line + 1}"


def _node_words(node: pytest.Item | pytest.Collector) -> str:
    if isinstance(node, pytest.Function):  # its decorators cover every parametrized case: name the function
        return f"on function {node.originalname} ({_line(node)})"
    if isinstance(node, pytest.Class):
        return f"on class {node.name} ({_line(node)})"
    if isinstance(node, pytest.Module):
        return f"on module {node.nodeid} (its pytestmark)"
    return f"on {type(node).__name__.lower()} {node.nodeid or '(the session)'}"


def marker_origin(item: pytest.Item, name: str) -> str:
    """Where the ``citecheck`` marker whose keyword ``name`` this test takes is (the closest one, as
    ``MarkerCache.settings_of`` lays them): named in a bad keyword's error, so the reader finds that
    marker among a module's ``pytestmark``, a class's and the function's. Worked out on the error's
    path only."""
    shown = "@pytest.mark.citecheck(...)"
    case = getattr(getattr(item, "callspec", None), "marks", None) or ()
    if any(_names(marker, name) for marker in case):
        return f"{shown} in the marks of case {item.name} ({_line(item)})"
    for node in _chain(item):
        if any(_names(marker, name) for marker in node.own_markers if not any(marker is mark for mark in case)):
            return f"{shown} {_node_words(node)}"
    return shown


class MarkerCache:
    """Per parent node (a module, a class): the marker options and ``auto_accept`` scope its tests inherit."""

    def __init__(self) -> None:
        self._above: dict[Any, _Above] = {}

    def _above_of(self, parent: pytest.Collector | None) -> _Above:
        found = self._above.get(parent)
        if found is not None and found.markers == _marker_count(found.chain):
            return found
        chain = tuple(_chain(parent))
        options: dict[str, Any] = {}
        for node in reversed(chain):  # the furthest first: the closest wins
            _apply(options, node.own_markers)
        scope = next((_scope_name(node) for node in chain if _names_auto_accept(node.own_markers)), None)
        found = self._above[parent] = _Above(chain, _marker_count(chain), options, scope)
        return found

    def settings_of(self, item: pytest.Item) -> tuple[dict[str, Any], str | None]:
        """The test's ``citecheck`` marker keywords (the closest marker wins; a new dict, the caller's to
        change), and where its ``auto_accept`` is set: the closest module, class or function whose own
        marker names it (``citecheck calibrate --by marker`` groups decisions by it), or None when it
        comes from the ini file, the command line or the default."""
        above = self._above_of(item.parent)
        options = dict(above.options)
        own = item.own_markers
        if not own:
            return options, above.scope
        # A parametrized case's marks (``pytest.param(..., marks=...)``) are closer to it than its
        # function's decorators: pytest lists them after, and the first listed would win.
        case = getattr(getattr(item, "callspec", None), "marks", None)
        if case:
            _apply(options, [marker for marker in own if not any(marker is mark for mark in case)])
            _apply(options, case)
        else:
            _apply(options, own)
        return options, _scope_name(item) if _names_auto_accept(own) else above.scope
