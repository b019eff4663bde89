"""LangGraph's JavaScript SDK (``@langchain/langgraph-sdk``, unchanged) against a ``graphwire serve --http`` process.

tests/http/node/sdk.test.mjs runs under Node's test runner with the server's
URL: assistants searched, a thread created, a chat turn streamed in
``messages-tuple`` and ``values`` whose interrupt is answered with
``command: {resume}``, the thread's history, the ``events`` mode with run tags, a delayed run
(``afterSeconds``) answered pending and joined, store items put and got. The
package is installed from its lock file (``npm ci``, skipped when already
installed). Without Node.js it skips, except in CI.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests._needs import npm_ci, require_node
from tests.conftest import ServerProcess
from tests.http.conftest import sdk_url

NODE = Path(__file__).resolve().parent / "node"


def test_the_node_sdk_drives_the_http_api(served: ServerProcess) -> None:
    require_node("LangGraph's JavaScript SDK test")
    npm_ci(NODE)
    proc = subprocess.run(
        ["node", "--test", "--test-reporter=spec", "--test-timeout=60000", "sdk.test.mjs"],
        cwd=NODE,
        env={**os.environ, "GRAPHWIRE_HTTP_URL": sdk_url(served)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    summary = "\n".join(line for line in proc.stdout.splitlines() if line.startswith("ℹ "))
    assert proc.returncode == 0, f"node --test exited {proc.returncode}\n{proc.stdout[-8000:]}\n{proc.stderr[-3000:]}"
    assert "ℹ pass 5" in summary and "ℹ fail 0" in summary, summary
