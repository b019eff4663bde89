"""No import cycles among the modules of engine/, server/ and the Python client (``graphwire``).

The graph is read from the source with ``ast``, nothing is imported. An edge
``a -> b`` is any import statement in ``a`` that names module ``b`` of these
packages: ``import b``, ``from b import x``, or ``from pkg import b`` when
``b`` is a submodule (relative imports resolved). What counts:

- imports at module level;
- imports inside functions and methods: an import moved into a function to
  dodge a cycle is the same dependency, only later;
- imports under ``if TYPE_CHECKING:``: a module that names another's type in
  its signatures depends on it as a reader's understanding goes, whether or
  not the interpreter runs the import. (This is what makes a cycle through
  annotations, such as a builder and the writers it hands itself to, show.)

Importing a submodule runs its package's ``__init__`` first; that implicit
edge is not drawn, or every package re-exporting its modules would be a
cycle with them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: (the directory a package is in, the package): its modules are named from there.
PACKAGES = ((ROOT, "engine"), (ROOT, "server"), (ROOT / "clients" / "python", "graphwire"))

#: Cycles known and scheduled, each one set of modules, with what removes it (none now).
KNOWN: set[frozenset[str]] = set()


def _modules() -> dict[str, Path]:
    found = {}
    for base, package in PACKAGES:
        for path in sorted((base / package).rglob("*.py")):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _targets(module: str, node: ast.Import | ast.ImportFrom, modules: dict[str, Path]) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            parts = alias.name.split(".")
            for end in range(len(parts), 0, -1):  # import a.b.c names a.b.c, or its deepest module we have
                if ".".join(parts[:end]) in modules:
                    yield ".".join(parts[:end])
                    break
        return
    base = node.module or ""
    if node.level:
        package = module.split(".") if modules[module].name == "__init__.py" else module.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, *([node.module] if node.module else [])])
    for alias in node.names:
        if f"{base}.{alias.name}" in modules:
            yield f"{base}.{alias.name}"
        elif base in modules:
            yield base


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        edges = graph.setdefault(module, set())
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges.update(t for t in _targets(module, node, modules) if t != module)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _describe(component: list[str], graph: dict[str, set[str]]) -> str:
    inside = set(component)
    return "\n".join(f"  {a} -> {b}" for a in component for b in sorted(graph[a] & inside))


def test_engine_server_and_the_python_client_have_no_import_cycles() -> None:
    graph = import_graph()
    unexpected = [c for c in cycles(graph) if frozenset(c) not in KNOWN]
    assert not unexpected, "import cycles:\n" + "\n\n".join(_describe(c, graph) for c in unexpected)


def test_the_known_cycles_are_still_there() -> None:
    """Once one is gone, take it off KNOWN, so it cannot come back unnoticed."""
    present = {frozenset(c) for c in cycles(import_graph())}
    assert KNOWN <= present, f"no longer cycles, remove from KNOWN: {[sorted(c) for c in KNOWN - present]}"


def test_the_graph_sees_every_kind_of_import() -> None:
    """The three kinds the docstring counts are edges (so the test above can fail)."""
    graph = import_graph()
    assert "engine.graph._topology" in graph["engine.graph._branch"]  # module level
    assert "engine.channels.base" in graph["engine.pregel._spec"]  # under TYPE_CHECKING
    assert "server.app" in graph["server.cli"]  # inside a function
    assert "graphwire._async_store" in graph["graphwire._async_client"]  # the Python client's modules are read
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
