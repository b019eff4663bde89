#!/usr/bin/env python3
"""Print how much of engine/ and server/ the type checker cannot see into (issue 30's figures).

    python scripts/type_debt.py [ROOT]

Counts ``Any`` in annotations (parameters, returns, annotated assignments,
string annotations included) and ``# type: ignore`` comments, and lists the
modules still on mypy's ignore list in pyproject.toml. The figures only go
down as modules are typed: compare them before and after a change.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path


def _anys(node: ast.AST) -> int:
    return sum(
        1
        for n in ast.walk(node)
        if (isinstance(n, ast.Name) and n.id == "Any")
        or (isinstance(n, ast.Attribute) and n.attr == "Any")
        or (isinstance(n, ast.Constant) and isinstance(n.value, str) and "Any" in n.value)
    )


def count(root: Path) -> tuple[int, int]:
    """(``Any`` in annotations, ``# type: ignore`` comments) in root's engine/ and server/."""
    anys = ignores = 0
    for path in (p for d in ("engine", "server") for p in sorted((root / d).rglob("*.py"))):
        text = path.read_text("utf-8")
        ignores += text.count("# type: ignore")
        for n in ast.walk(ast.parse(text)):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = n.args
                params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x is not None)]
                anys += sum(_anys(p.annotation) for p in params if p.annotation is not None)
                anys += _anys(n.returns) if n.returns is not None else 0
            elif isinstance(n, ast.AnnAssign):
                anys += _anys(n.annotation)
    return anys, ignores


def unchecked(root: Path) -> list[str]:
    """The modules pyproject.toml tells mypy to ignore (the list that only shrinks)."""
    text = (root / "pyproject.toml").read_text("utf-8")
    block = re.search(r"module = \[\n(.*?)\n\]\nignore_errors = true", text.split("# Modules with errors when the checker came", 1)[-1], re.S)
    return re.findall(r'"([^"]+)"', block.group(1)) if block else []


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    anys, ignores = count(root)
    skipped = unchecked(root)
    print(f"Any in annotations: {anys}")
    print(f"# type: ignore: {ignores}")
    print(f"modules mypy ignores: {len(skipped)}" + (f" ({', '.join(skipped)})" if skipped else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
