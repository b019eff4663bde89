"""Dead code stays dead: ruff and vulture run with every test run (so CI runs them too).

Their settings are in pyproject.toml ([tool.ruff], [tool.vulture]); both skip
the generated stubs and the generated sync client. vulture reads the whole
repository, so a name only tests use counts as used, but reports only what is
unused in the shipped code (engine/, server/, the Python client, scripts/);
its false positives are listed, with who uses them, in vulture_whitelist.py.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ("engine/", "server/", "clients/python/graphwire/", "scripts/", "setup.py")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_passes() -> None:
    done = _run("ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_vulture_finds_nothing_unused_in_the_shipped_code() -> None:
    done = _run("vulture")
    assert done.returncode in (0, 3), done.stderr  # 3: something unused was found
    unused = [line for line in done.stdout.splitlines() if line.startswith(SHIPPED)]
    assert not unused, "unused (delete it, or list a true false positive in tests/codebase/vulture_whitelist.py):\n" + "\n".join(unused)


def test_no_name_is_kept_alive_by_an_underscore_assignment() -> None:
    """``_ = name`` only silences an unused import; delete the import instead."""
    found = []
    for path in sorted(p for top in ("engine", "server", "clients/python/graphwire", "scripts") for p in (ROOT / top).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if (
                isinstance(node, ast.Assign)
                and [getattr(t, "id", None) for t in node.targets] == ["_"]
                and isinstance(node.value, (ast.Name, ast.Attribute))
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: _ = {ast.unparse(node.value)}")
    assert not found, "\n".join(found)


def test_the_documents_name_no_path_of_one_machine() -> None:
    """A reader's checkout is not ours: no document names an absolute path of the machine it was written on."""
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "tests").rglob("README.md"))]
    found = [f"{p.relative_to(ROOT)}: {line.strip()}" for p in documents for line in p.read_text("utf-8").splitlines() if "/work/" in line]
    assert not found, "\n".join(found)
