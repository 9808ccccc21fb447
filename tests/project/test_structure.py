"""The limits CI holds ``pytest_citecheck/`` to (issue 21): size, complexity, and the floors of its rooms.

- no function over 50 lines (decorators and docstring included);
- no cyclomatic complexity over 15 (radon's ``cc_visit``; ruff's C901 is configured to match);
- no module over 450 lines;
- no import cycle, imports inside functions included (``if TYPE_CHECKING:`` blocks aside);
- no import from a lower floor up to a higher one (the floor table in ``FLOORS``).

The allowlists below hold today's offenders, each with its current figure, so the suite is green
now. They only shrink: an offender that grows past its figure fails, an entry that no longer
offends fails until it is removed, and a new offender fails. Never add an entry; moving an
offender to another module renames its entry. ``test_a_planted_offender_is_caught`` shows each
check fails on a package built to break it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from radon.complexity import cc_visit
from radon.visitors import Class
from support import REPO

PACKAGE = REPO / "pytest_citecheck"
MAX_FUNCTION_LINES = 50
MAX_COMPLEXITY = 15
MAX_MODULE_LINES = 450

# The floors of the rooms (PROTOCOL.md, issue 21), by the first name under ``pytest_citecheck``
# (a module ``_x.py`` or a package ``_x/``): a module imports only from its own floor or below.
FLOORS = {
    **dict.fromkeys(
        [
            "_errors",
            "_verdicts",
            "_status",
            "_dependencies",
            "_hooks",
            "_files",
            "_secrets",
            "_text",
            "_limits",
            "_in_flight",
            "_rehearsal",
            "_gc_paused",
            "_late_imports",
        ],
        0,
    ),
    # hookspecs.py declares the plugin's hooks and imports nothing of ours: any floor may name them.
    "hookspecs": 0,
    "_options": 1,
    **dict.fromkeys(["_sources", "_citations"], 2),
    "_locate": 3,
    **dict.fromkeys(["_judge", "_recording"], 4),
    **dict.fromkeys(["_results", "_gate", "_estimate"], 5),
    "_check": 6,
    "_report": 7,
    "_review": 8,
    # The top: the pytest glue and the other ways in. __init__.py gathers the public names from every
    # floor, so only these may import it (the CLI reads __version__); __main__.py runs the CLI;
    # testing.py is the rehearsal server a user's tests start, outside the pipeline, so no stage
    # may import it.
    **dict.fromkeys(["_pytest_glue", "_cli", "plugin", "__init__", "__main__", "testing"], 9),
}

# Today's offenders (the only ones allowed): name -> current figure. Only ever remove entries.
LONG_FUNCTIONS: dict[str, int] = {}
COMPLEX_FUNCTIONS: dict[str, int] = {}
LONG_MODULES: dict[str, int] = {}
# An import cycle: its modules -> how many. A smaller cycle among the same modules still counts as it.
CYCLES: dict[str, int] = {}
# "importer -> imported": (the importer's floor, the imported module's floor).
UPWARD_IMPORTS: dict[str, tuple[int, int]] = {}


def modules(package: Path) -> dict[str, Path]:
    """The package's modules by dotted name (a package by its ``__init__.py``)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield prefix + node.name, node
            yield from _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        else:
            yield from _functions(node, prefix)


def function_lines(package: Path) -> dict[str, int]:
    """Every function's length, from its first decorator to its last line: ``path::Qual.name`` -> lines."""
    lengths = {}
    for path in modules(package).values():
        for name, node in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            lengths[f"{_short(package, path)}::{name}"] = node.end_lineno - first + 1  # type: ignore[operator]
    return lengths


def _blocks(blocks: list[Any], prefix: str) -> Iterator[tuple[str, int]]:
    """radon's functions, methods and closures, by qualified name (a closure's figure is its own)."""
    for block in blocks:
        if isinstance(block, Class):
            yield from _blocks([*block.methods, *block.inner_classes], f"{prefix}{block.name}.")
        else:
            yield prefix + block.name, block.complexity
            yield from _blocks(block.closures, f"{prefix}{block.name}.")


def complexities(package: Path) -> dict[str, int]:
    """radon's cyclomatic complexity of every function, method and closure: ``path::Qual.name`` -> complexity."""
    found = {}
    for path in modules(package).values():
        # cc_visit lists each method twice: alone, and in its class (where it gets its qualified name).
        blocks = [
            block for block in cc_visit(path.read_text(encoding="utf-8")) if not getattr(block, "is_method", False)
        ]
        for name, complexity in _blocks(blocks, ""):
            found[f"{_short(package, path)}::{name}"] = complexity
    return found


def module_lines(package: Path) -> dict[str, int]:
    return {
        _short(package, path): len(path.read_text(encoding="utf-8").splitlines()) for path in modules(package).values()
    }


def _short(package: Path, path: Path) -> str:
    return path.relative_to(package).as_posix()


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import, at module level or inside a function, except in an ``if TYPE_CHECKING:`` body."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            children: list[ast.AST] = node.orelse
        elif isinstance(node, ast.Import | ast.ImportFrom):
            yield node
            continue
        else:
            children = [node]
        for child in children:
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child
            else:
                yield from _import_nodes(child)


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The most specific known module that ``name`` names (its longest known prefix)."""
    parts = name.split(".")
    while parts and ".".join(parts) not in known:
        parts.pop()
    return ".".join(parts) or None


def imports(package: Path) -> dict[str, set[str]]:
    """Which of the package's modules each module imports (module -> imported modules)."""
    known = modules(package)
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _import_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = here.rsplit(".", node.level - 1)[0] if node.level else ""
                source = ".".join(part for part in (base, node.module) if part)
                targets = [f"{source}.{alias.name}" for alias in node.names]
            graph[name].update(filter(None, (_resolve(target, known) for target in targets)))
        graph[name].discard(name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(graph[root])))]
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = _pop_component(stack, on_stack, node)
                    if len(component) > 1:
                        found.append(component)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def _pop_component(stack: list[str], on_stack: set[str], root: str) -> set[str]:
    component = set()
    while True:
        member = stack.pop()
        on_stack.discard(member)
        component.add(member)
        if member == root:
            return component


def floor_of(module: str) -> int | None:
    parts = module.split(".")
    return FLOORS.get(parts[1] if len(parts) > 1 else "__init__")


def _short_module(module: str) -> str:
    """A module's name inside its package (the package's own ``__init__`` keeps its name)."""
    return module.partition(".")[2] or module


def over_limit(figures: dict[str, int], limit: int) -> dict[str, int]:
    return {name: figure for name, figure in figures.items() if figure > limit}


def limit_failures(offenders: dict[str, int], allowed: dict[str, int], what: str, limit: int) -> list[str]:
    """What breaks the allowlist: a new offender, an allowed one grown past its figure, a stale entry."""
    failures = []
    for name, figure in sorted(offenders.items()):
        if name not in allowed:
            failures.append(f"{name}: {what} {figure}, over the limit of {limit}")
        elif figure > allowed[name]:
            failures.append(f"{name}: {what} {figure}, grown from its allowlisted {allowed[name]} (limit {limit})")
    for name in sorted(set(allowed) - set(offenders)):
        failures.append(f"{name}: allowlisted at {allowed[name]} but no longer over {limit}: remove its entry")
    return failures


def cycle_failures(found: list[set[str]], allowed: dict[str, int]) -> list[str]:
    entries = {key: set(key.split(" <-> ")) for key in allowed}
    failures = []
    matched = set()
    for component in found:
        names = {_short_module(module) for module in component}
        key = " <-> ".join(sorted(names))
        owners = [entry for entry, members in entries.items() if names <= members]
        if not owners:
            failures.append(f"import cycle of {len(names)} modules (limit: none): {key}")
        matched.update(owners)
    for entry in sorted(set(allowed) - matched):
        failures.append(f"{entry}: allowlisted cycle of {allowed[entry]} modules is gone: remove its entry")
    return failures


def floor_failures(graph: dict[str, set[str]], allowed: dict[str, tuple[int, int]]) -> list[str]:
    failures = []
    seen = set()
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            here, there = floor_of(module), floor_of(target)
            if here is None or there is None or there <= here:
                continue
            key = f"{_short_module(module)} -> {_short_module(target)}"
            seen.add(key)
            if key not in allowed:
                failures.append(
                    f"{key}: imports from floor {there} into floor {here} (a module imports from its floor or below)"
                )
    for key in sorted(set(allowed) - seen):
        failures.append(f"{key}: allowlisted upward import is gone: remove its entry")
    return failures


def unplaced(graph: dict[str, set[str]]) -> list[str]:
    return [
        f"{module}: on no floor; add its room to FLOORS in tests/project/test_structure.py"
        for module in graph
        if floor_of(module) is None
    ]


def test_no_function_is_over_50_lines() -> None:
    failures = limit_failures(
        over_limit(function_lines(PACKAGE), MAX_FUNCTION_LINES), LONG_FUNCTIONS, "lines", MAX_FUNCTION_LINES
    )
    assert not failures, "\n".join(failures)


def test_no_function_is_over_complexity_15() -> None:
    failures = limit_failures(
        over_limit(complexities(PACKAGE), MAX_COMPLEXITY), COMPLEX_FUNCTIONS, "complexity", MAX_COMPLEXITY
    )
    assert not failures, "\n".join(failures)


def test_no_module_is_over_450_lines() -> None:
    failures = limit_failures(
        over_limit(module_lines(PACKAGE), MAX_MODULE_LINES), LONG_MODULES, "lines", MAX_MODULE_LINES
    )
    assert not failures, "\n".join(failures)


def test_no_import_cycles() -> None:
    failures = cycle_failures(cycles(imports(PACKAGE)), CYCLES)
    assert not failures, "\n".join(failures)


def test_every_module_is_on_a_floor_and_imports_from_its_floor_or_below() -> None:
    graph = imports(PACKAGE)
    failures = unplaced(graph) + floor_failures(graph, UPWARD_IMPORTS)
    assert not failures, "\n".join(failures)


def _plant(root: Path) -> Path:
    """A package with one offender of each kind, and near misses that keep within the limits."""
    package = root / "planted"
    (package / "_check").mkdir(parents=True)
    body = "".join(f"    x{i} = {i}\n" for i in range(47))
    ladder = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(15))
    files = {
        "__init__.py": "",
        # 1 decorator + def + docstring + 47 lines + return = 51 lines; the same without the decorator is 50.
        "_errors.py": f'@staticmethod\ndef long():\n    """Doc."""\n{body}    return 0\n\n\n'
        f'def fits():\n    """Doc."""\n{body}    return 0\n\n\n'
        f"def complex(x):\n{ladder}    return -1\n\n\n"
        f"def fine(x):\n{ladder[: ladder.index('    if x == 14')]}    return -1\n\n\n"
        "def upward():\n    from planted._check import a\n",
        "_options.py": "\n" * 451,
        "_verdicts.py": "\n" * 450,
        "_check/__init__.py": "",
        "_check/a.py": "from planted._check import b\n",
        # A lazy import closes the cycle; the TYPE_CHECKING import of a higher floor is no arrow.
        "_check/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from planted import _review\n"
        "def later():\n    from . import a\n",
        "_review.py": "from planted import _options\n",
        "_nowhere.py": "",
    }
    for name, text in files.items():
        (package / name).write_text(text, encoding="utf-8")
    return package


def test_a_planted_offender_is_caught(tmp_path: Path) -> None:
    package = _plant(tmp_path)
    lengths = function_lines(package)
    assert (lengths["_errors.py::long"], lengths["_errors.py::fits"]) == (51, 50)
    assert limit_failures(over_limit(lengths, MAX_FUNCTION_LINES), {}, "lines", MAX_FUNCTION_LINES) == [
        "_errors.py::long: lines 51, over the limit of 50"
    ]
    assert limit_failures(over_limit(complexities(package), MAX_COMPLEXITY), {}, "complexity", MAX_COMPLEXITY) == [
        "_errors.py::complex: complexity 16, over the limit of 15"
    ]
    assert limit_failures(over_limit(module_lines(package), MAX_MODULE_LINES), {}, "lines", MAX_MODULE_LINES) == [
        "_options.py: lines 451, over the limit of 450"
    ]
    graph = imports(package)
    assert cycle_failures(cycles(graph), {}) == ["import cycle of 2 modules (limit: none): _check.a <-> _check.b"]
    assert floor_failures(graph, {}) == [
        "_errors -> _check.a: imports from floor 6 into floor 0 (a module imports from its floor or below)"
    ]
    assert [line.split(":")[0] for line in unplaced(graph)] == ["planted._nowhere"]


def test_the_allowlists_only_shrink() -> None:
    offenders = {"grown.py::f": 60, "same.py::g": 55}
    allowed = {"grown.py::f": 58, "same.py::g": 55, "fixed.py::h": 70}
    assert limit_failures(offenders, allowed, "lines", 50) == [
        "grown.py::f: lines 60, grown from its allowlisted 58 (limit 50)",
        "fixed.py::h: allowlisted at 70 but no longer over 50: remove its entry",
    ]
    assert cycle_failures([{"pkg.a", "pkg.b"}], {"a <-> b <-> c": 3, "d <-> e": 2}) == [
        "d <-> e: allowlisted cycle of 2 modules is gone: remove its entry"
    ]
