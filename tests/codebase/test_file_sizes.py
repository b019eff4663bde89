"""Files stay small enough to read in one sitting (issue 16): no Python file in
engine/ or server/ over 500 lines, and the superstep loop under 350."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 500
LOOP_LIMIT = 350


def _lines(path: Path) -> int:
    with path.open(encoding="utf-8") as f:
        return sum(1 for _ in f)


def test_no_python_file_in_engine_or_server_is_over_500_lines() -> None:
    files = [p for d in ("engine", "server") for p in (ROOT / d).rglob("*.py")]
    assert len(files) > 50  # the walk found the packages
    too_long = {str(p.relative_to(ROOT)): n for p in files if (n := _lines(p)) > LIMIT}
    assert too_long == {}, f"over {LIMIT} lines: split them along their jobs"


def test_the_loop_stays_under_350_lines() -> None:
    n = _lines(ROOT / "engine" / "pregel" / "_loop.py")
    assert n < LOOP_LIMIT, f"engine/pregel/_loop.py has {n} lines: move a job out (see its module docstring)"
