"""Types are checked (issue 30 item 5): mypy runs on engine/ and server/ with every test run.

Its settings are in pyproject.toml ([tool.mypy]): mypy's default checks
everywhere, strict ones on the run path (the engine's loop and its
collaborators, the server's service and the parts it is composed of), and a
list of modules that had errors when the checker came, which only shrinks.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: How many modules the list of those still to type held when the checker came.
KNOWN_UNTYPED = 34
RUN_PATH = {
    "engine.pregel._loop", "engine.pregel._run", "engine.pregel._versions", "engine.pregel._input", "engine.pregel._runner",
    "engine.pregel._writer", "server.service", "server._durable", "server._records", "server._stream",
}  # fmt: skip


def _overrides() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    return list(config["tool"]["mypy"]["overrides"])


def test_mypy_passes() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--no-error-summary"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_run_path_is_checked_strictly_and_never_skipped() -> None:
    strict = next(o for o in _overrides() if o.get("disallow_untyped_defs"))
    skipped = next(o for o in _overrides() if o.get("ignore_errors"))
    assert RUN_PATH <= set(strict["module"])  # type: ignore[arg-type]
    assert not set(strict["module"]) & set(skipped["module"])  # type: ignore[arg-type]
    for flag in ("disallow_any_generics", "warn_return_any", "warn_unused_ignores", "disallow_untyped_calls", "strict_equality"):
        assert strict.get(flag) is True, flag
    for module in strict["module"]:  # type: ignore[attr-defined]
        path = ROOT / module.replace(".", "/")
        assert path.with_suffix(".py").exists() or (path / "__init__.py").exists(), module


def test_the_modules_left_untyped_only_get_fewer() -> None:
    skipped = next(o for o in _overrides() if o.get("ignore_errors"))
    assert len(skipped["module"]) <= KNOWN_UNTYPED  # type: ignore[arg-type]
    assert not any(m.startswith("server.") and m != "server.config" for m in skipped["module"])  # type: ignore[attr-defined]
