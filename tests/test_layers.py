"""The package's import graph: no cycles, and imports only go down the layers.

Every module of nanstats is parsed with ``ast``; every import counts,
including those inside functions and under ``if TYPE_CHECKING:`` (a cycle
hidden in a function is still a cycle).  The layers, top to bottom, are those
of DESIGN.md::

    faces     nanstats (the root registers the faces), cli, __main__, spark, pandas, arrow
    files     parquet
    prune     prune            (testing, the public slow oracles, sits beside it)
    metadata  metadata
    lake      lake
    core      core
    bottom    _kernels, _simd, threads        (errors: importable by all)
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "nanstats"

#: Each unit (a sub-package, or a top-level module) and its layer: a unit may
#: import units of its own layer or below.
LAYERS: dict[str, int] = {
    "nanstats": 6, "cli": 6, "cli_output": 6, "__main__": 6, "spark": 6, "pandas": 6, "arrow": 6,
    "parquet": 5,
    "prune": 4, "testing": 4,
    "metadata": 3,
    "lake": 2,
    "core": 1,
    "_kernels": 0, "_pagewalk": 0, "_simd": 0, "threads": 0, "errors": 0,
}
#: Importable by every unit, whatever its layer.
EVERYWHERE = frozenset({"errors"})
#: Units that may import these (and nothing else may).
ONLY_FROM = {"testing": frozenset()}
#: What the core must not import when it is imported.
OPTIONAL = ("pyarrow", "pandas", "pyspark", "polars", "duckdb", "rich")
FACES = ("nanstats.cli", "nanstats.cli_output", "nanstats.__main__", "nanstats.spark",
         "nanstats.pandas",
         "nanstats.arrow")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    """Every Python module of the package by its dotted name."""
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def module_names() -> set[str]:
    """The names of every module, compiled (``.pyx``) and stub-only (``.pyi``) ones too."""
    return {module_name(p) for pattern in ("*.py", "*.pyx", "*.pyi")
            for p in PACKAGE.rglob(pattern)}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(node: ast.Import | ast.ImportFrom, name: str, is_package: bool,
              mods: set[str]) -> Iterator[str]:
    """The dotted names an import statement in module ``name`` brings in.

    ``from a.b import c`` names the module ``a.b.c`` if there is one, else ``a.b``.
    """
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:  # relative: resolved against the importing module's package
        anchor = name.split(".") if is_package else name.split(".")[:-1]
        anchor = anchor[:len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, base] if base else anchor)
    for alias in node.names:
        yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in mods else base


def imports(path: Path, name: str, *, top_level_only: bool = False) -> set[str]:
    """Dotted names imported by a module; ``top_level_only``: only those run at import."""
    mods = module_names()
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def visit(nodes: Iterable[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.Import | ast.ImportFrom):
                found.update(_imported(node, name, is_package, mods))
            elif isinstance(node, ast.If):
                if not _is_type_checking(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                for block in (node.body, *(h.body for h in node.handlers), node.orelse,
                              node.finalbody):
                    visit(block)
            elif isinstance(node, ast.With):
                visit(node.body)

    if top_level_only:
        visit(tree.body)
    else:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                found.update(_imported(node, name, is_package, mods))
    return found


def module_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports."""
    names = module_names()
    return {name: {d for d in imports(path, name) if d in names and d != name}
            for name, path in modules().items()}


def unit(module: str) -> str:
    """The sub-package (or top-level module) a module belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def unit_graph(graph: Mapping[str, set[str]]) -> dict[str, set[str]]:
    units: dict[str, set[str]] = {}
    for src, targets in graph.items():
        units.setdefault(unit(src), set()).update(
            unit(t) for t in targets if unit(t) != unit(src))
    return units


def find_cycle(graph: Mapping[str, Iterable[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of nodes (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)) is not None:
            return cycle
    return None


def layer_violations(graph: Mapping[str, Iterable[str]]) -> list[str]:
    """Every import of a higher layer (or of a unit reserved for others)."""
    bad = []
    for src, targets in sorted(graph.items()):
        for dst in sorted(targets):
            a, b = unit(src), unit(dst)
            if a == b or b in EVERYWHERE:
                continue
            if b in ONLY_FROM and a not in ONLY_FROM[b]:
                bad.append(f"{src} imports {dst}: nothing in the package imports {b}")
            elif LAYERS[b] > LAYERS[a]:
                bad.append(f"{src} ({a}, layer {LAYERS[a]}) imports {dst} "
                           f"({b}, layer {LAYERS[b]}), a higher layer")
    return bad


# -- the package --------------------------------------------------------------


def test_the_graph_sees_the_package():
    graph = module_graph()
    assert {"nanstats.core.stats", "nanstats.cli", "nanstats.metadata.thrift"} <= set(graph)
    # function-level and TYPE_CHECKING imports count
    assert "nanstats.core.floats" in graph["nanstats.core.stats"]
    assert "nanstats.metadata.thrift" in graph["nanstats.metadata.footer"]
    assert "nanstats._kernels" in graph["nanstats.core.inputs"]  # compiled modules too
    assert set(unit_graph(graph)) <= set(LAYERS), "a new sub-package needs a layer here"


def test_no_module_cycle():
    assert find_cycle(module_graph()) is None


def test_no_sub_package_cycle():
    assert find_cycle(unit_graph(module_graph())) is None


def test_imports_go_down_the_layers():
    assert layer_violations(module_graph()) == []


@pytest.mark.parametrize("name", sorted(n for n in modules() if unit(n) == "core"))
def test_core_imports_no_face_and_no_optional_dependency_at_import(name):
    found = imports(modules()[name], name, top_level_only=True)
    assert not [d for d in found if d.split(".")[0] in OPTIONAL], name
    assert not [d for d in found if d.startswith(FACES)], name


# -- the checks themselves can fail ------------------------------------------


def test_find_cycle_sees_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "d": {"a", "c"}}) is None


def test_layer_check_sees_an_upward_import():
    graph = {"nanstats.core.stats": {"nanstats.pandas", "nanstats.errors"},
             "nanstats.prune.files": {"nanstats.testing.oracle"},
             "nanstats.parquet.reading": {"nanstats.prune.files"}}
    assert layer_violations(graph) == [
        "nanstats.core.stats (core, layer 1) imports nanstats.pandas (pandas, layer 6), "
        "a higher layer",
        "nanstats.prune.files imports nanstats.testing.oracle: nothing in the package "
        "imports testing",
    ]


def test_top_level_imports_skip_functions_and_type_checking(tmp_path):
    source = tmp_path / "mod.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "import numpy\n"
        "try:\n    import rich\nexcept ImportError:\n    pass\n"
        "if TYPE_CHECKING:\n    import pandas\n"
        "def f():\n    import pyarrow\n")
    assert imports(source, "nanstats.core.mod", top_level_only=True) >= {"numpy", "rich"}
    assert not {"pandas", "pyarrow"} & imports(source, "nanstats.core.mod", top_level_only=True)
    assert {"pandas", "pyarrow"} <= imports(source, "nanstats.core.mod")
