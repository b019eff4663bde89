"""The TypeScript client and the chat-server example pass their own tests.

Those tests run under Node's test runner: ``clients/typescript/test.sh``
installs both packages (``npm ci``, skipped when already installed), builds
them, and runs every test against real graphwire server processes started
with this interpreter. This wrapper makes ``pytest`` cover them. Without
Node.js it skips, except in CI (``CI=true``), where a missing Node is a
failure rather than a silent gap.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "clients" / "typescript" / "test.sh"
TIMEOUT = 20 * 60  # seconds; a cold npm ci plus the suite takes well under a minute


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def test_typescript_client_and_chat_server_example() -> None:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        reason = f"Node.js is not installed ({' and '.join(missing)} not on PATH): the TypeScript tests cannot run"
        if _in_ci():
            pytest.fail(f"CI=true but {reason}")
        pytest.skip(reason)

    proc = subprocess.run(
        ["bash", str(SCRIPT)],
        cwd=REPO,
        env={**os.environ, "GRAPHWIRE_PYTHON": sys.executable},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    summary = "\n".join(line for line in proc.stdout.splitlines() if line.startswith("ℹ "))
    print(summary)
    assert proc.returncode == 0, (
        f"clients/typescript/test.sh exited {proc.returncode}\n"
        f"--- stdout (tail) ---\n{proc.stdout[-20000:]}\n--- stderr (tail) ---\n{proc.stderr[-5000:]}"
    )
    assert "ℹ fail 0" in summary, summary
