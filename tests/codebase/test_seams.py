"""The server reaches the engine through its public doors only (issue 30 item 3).

``server/`` imports the engine's public packages and modules (``engine.graph``,
``engine.checkpoint.base``, ...) and :mod:`engine.host`, the one door for what
a host needs beyond the graph API (run records, leases, messages, limits).
It imports no private module (a path part starting with ``_``), nor a private
name out of a public one: the engine may move its rooms without the server
noticing. Read from the source with ``ast``; nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def private_engine_imports(source: str) -> list[tuple[int, str]]:
    """(line, what) of each import of a private part of the engine in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "engine" and any(p.startswith("_") for p in parts[1:]):
                found.append((node.lineno, name))
    return found


def test_the_server_imports_no_private_engine_module() -> None:
    files = sorted((ROOT / "server").rglob("*.py"))
    assert len(files) > 30  # the walk found the package
    found = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in files
        for line, name in private_engine_imports(path.read_text("utf-8"))
    ]
    assert not found, "private engine imports in server/ (use engine.host or a public package):\n" + "\n".join(found)


def test_the_rule_sees_every_form() -> None:
    source = (
        "import engine.checkpoint._runs\n"
        "from engine.checkpoint._runs import RunRecord\n"
        "from engine.checkpoint import _helpers\n"
        "def f():\n    from engine.pregel._run_context import ContextError\n"
        "from engine.host import RunRecord\nfrom engine.checkpoint.base import Lease\nfrom . import _records\n"
    )
    assert [line for line, _ in private_engine_imports(source)] == [1, 2, 3, 5]
