"""The proto passes buf's lint and breaks nothing of v1.

``buf lint`` checks ``proto/`` with the rules of ``buf.yaml`` (STANDARD and
COMMENTS: every message, field, enum value and RPC documented). ``buf
breaking`` compares it with ``proto/baseline.txtpb``, the v1 contract as
committed: a field renamed, renumbered, retyped or removed, an RPC gone, a
message moved, all fail. A compatible change (a new field, message, RPC or
enum value) passes; once it has landed, refresh the baseline so that it is
protected too:

    tests/proto/node_modules/.bin/buf build --exclude-source-info -o proto/baseline.txtpb

buf is the npm package ``@bufbuild/buf`` (``tests/proto/package.json``;
``npm ci`` there once, no install scripts); without Node.js these tests skip,
and fail under CI=true.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests._needs import npm_ci, require_node

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
BUF = HERE / "node_modules" / ".bin" / "buf"
BASELINE = REPO / "proto" / "baseline.txtpb"
PROTO = REPO / "proto" / "graphwire" / "v1" / "graphwire.proto"


@pytest.fixture(scope="module")
def buf() -> Path:
    require_node("buf (npm @bufbuild/buf)")
    npm_ci(HERE)
    return BUF


def run(buf: Path, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(buf), *args], cwd=cwd, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=False
    )


def test_lint(buf: Path) -> None:
    result = run(buf, "lint")
    assert result.returncode == 0, f"buf lint:\n{result.stdout}{result.stderr}"


def test_no_breaking_change_against_the_committed_baseline(buf: Path) -> None:
    result = run(buf, "breaking", "--against", str(BASELINE))
    assert result.returncode == 0, f"buf breaking against {BASELINE.name}:\n{result.stdout}{result.stderr}"


def test_a_breaking_change_is_caught(buf: Path, tmp_path: Path) -> None:
    """The check has teeth: renaming a field of the committed proto fails it."""
    shutil.copy(REPO / "buf.yaml", tmp_path / "buf.yaml")
    changed = tmp_path / "proto" / "graphwire" / "v1" / "graphwire.proto"
    changed.parent.mkdir(parents=True)
    text = PROTO.read_text("utf-8")
    assert "string thread_id = 2;" in text
    changed.write_text(text.replace("string thread_id = 2;", "string thread = 2;", 1), "utf-8")
    result = run(buf, "breaking", "--against", str(BASELINE), cwd=tmp_path)
    assert result.returncode != 0
    assert "thread_id" in result.stdout + result.stderr
