"""The engine reaches LangChain through one door, ``engine/_langchain`` (issue 30 item 4).

Outside it, only the parts that are LangChain by nature import ``langchain``
or ``langchain_core`` themselves: ``engine/prebuilt`` (made of LangChain's tools
and models, as LangGraph's prebuilt) and the two modules at the paths
LangGraph's ecosystem imports by name. Imports under ``if TYPE_CHECKING:``
name types only and are let be. The server takes LangChain's messages from
:mod:`engine.host`. Read from the source with ``ast``; nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: where LangChain may be imported, besides the door
BY_NATURE = ("engine/prebuilt/", "engine/callbacks.py", "engine/_internal/_runnable.py")


def langchain_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of each import of ``langchain``/``langchain_core`` run when ``source`` runs."""
    tree = ast.parse(source)
    typing_only = {
        id(n)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for stmt in block.body
        for n in ast.walk(stmt)
    }
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        else:
            continue
        found += [(node.lineno, n) for n in names if n.split(".")[0] in ("langchain", "langchain_core")]
    return sorted(found)


def test_only_the_door_imports_langchain() -> None:
    files = sorted(p for d in ("engine", "server") for p in (ROOT / d).rglob("*.py"))
    assert len(files) > 150  # the walk found the packages
    outside = [
        f"{rel}:{line}: {name}"
        for path in files
        if not (rel := path.relative_to(ROOT).as_posix()).startswith(("engine/_langchain/", *BY_NATURE))
        for line, name in langchain_imports(path.read_text("utf-8"))
    ]
    assert outside == [], "import LangChain through engine/_langchain (its docstring says what it offers)"


def test_the_rule_sees_an_import_in_a_function_and_lets_a_typing_one_be() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from langchain_core.messages import BaseMessage\n"
        "def f():\n    import langchain_core.runnables\n"
        "from langchain.embeddings import init_embeddings\n"
    )
    assert langchain_imports(source) == [(5, "langchain_core.runnables"), (6, "langchain.embeddings")]
