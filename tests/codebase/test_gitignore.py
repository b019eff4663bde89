"""What a server leaves beside its SQLite file is never committed by accident."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_files_a_server_makes_are_ignored() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    made = ["graphwire.db", "graphwire.db-wal", "graphwire.db-shm", "graphwire.db.lock"]  # the lock: one server per file
    done = subprocess.run(["git", "check-ignore", *made], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.stdout.split() == made, done.stderr
