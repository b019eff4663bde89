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
import subprocess
import sys
from pathlib import Path

from tests._needs import repo_lock, require_node

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "clients" / "typescript" / "test.sh"
TIMEOUT = 20 * 60  # seconds; a cold npm ci plus the suite takes well under a minute


def test_typescript_client_and_chat_server_example() -> None:
    require_node("the TypeScript client's tests")

    with repo_lock("typescript-client"):  # test.sh builds dist/ again, which README tests' projects link
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
