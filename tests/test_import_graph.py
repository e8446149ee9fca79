"""No import circles anywhere in svmlab or its benchmarks (issues 30, 43).

Every ``import`` and ``from ... import`` in the package, at module level, inside
functions and under ``TYPE_CHECKING`` alike, is an edge from its module to the
module it names (``from package import name`` names the submodule when there is
one, else the package's ``__init__``). A cycle is a strongly connected set of
more than one module; two had appeared (``solver_comparison`` <-> ``solver_race``,
``ui.presets`` <-> ``ui.settings``), and the solvers' registry with two solvers.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "svmlab"
BENCHMARKS = ROOT / "benchmarks"


def _modules() -> dict[str, Path]:
    out = {}
    for path in [*PACKAGE.rglob("*.py"), *BENCHMARKS.rglob("*.py")]:
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, *([node.module] if node.module else [])])
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                    for a in node.names
                ]
            else:
                continue
            graph[name] |= {t for t in targets if t in modules and t != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_checker_finds_a_planted_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_import_circles_in_svmlab() -> None:
    modules = _modules()
    assert "svmlab.ui.frame.router" in modules and "svmlab.solvers.base" in modules
    cycles = _cycles(_graph(modules))
    assert not cycles, cycles


def test_the_top_of_svmlab_holds_only_what_every_layer_uses() -> None:
    """The layout (issue 43): at the top of svmlab/ only the public face and the
    few modules every layer uses; everything else sits in its layer's package."""
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == [
        "__init__.py",
        "__main__.py",  # python -m svmlab: the svmlab command (issue 47)
        "array_types.py",
        "errors.py",
        "losses.py",
        "parameter_checks.py",
        "user_text.py",
    ]
    packages = sorted(
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()
    )
    assert packages == [
        "compiled",
        "datasets",
        "experiments",
        "figures",
        "kernels",
        "snippets",
        "solvers",
        "svm",
        "ui",
    ]


def test_the_layers_import_downwards_only() -> None:
    """data -> kernels -> solvers -> models -> experiments -> figures ->
    snippets -> ui: a layer imports nothing from a layer after it (the top-level
    modules and compiled/ serve every layer)."""
    order = [
        "datasets",
        "kernels",
        "solvers",
        "svm",
        "experiments",
        "figures",
        "snippets",
        "ui",
    ]
    modules = _modules()
    graph = _graph(modules)

    def layer(name: str) -> int | None:
        parts = name.split(".")
        if parts[0] != "svmlab" or len(parts) < 2 or parts[1] not in order:
            return None
        return order.index(parts[1])

    upward = [
        (a, b)
        for a, targets in graph.items()
        for b in targets
        if layer(a) is not None and layer(b) is not None and layer(b) > layer(a)
    ]
    assert not upward, upward
