"""``graphwire threads``, driven as a subprocess against a real server (issue 33): list (with its
filters and pages), count, get, copy, prune and delete, each shown on what the server then holds."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from tests.e2e.test_cli import graphwire


def test_threads_commands(server: Any, tmp_path: Path) -> None:
    tag = uuid.uuid4().hex[:8]
    with server.client() as client:
        made = client.threads.create("chain3", f"cli-{tag}", metadata={"tag": tag})
        client.invoke("chain3", made.thread_id, {"n": 1})
        client.threads.create("chain3", f"cli2-{tag}", metadata={"tag": tag})

    def run(*args: str) -> str:
        done = graphwire(server, "threads", *args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return done.stdout

    meta = json.dumps({"tag": tag})
    first = run("list", "--graph", "chain3", "--metadata", meta, "--limit", "1").splitlines()
    assert first[0].startswith(f"cli2-{tag}  chain3  idle") and first[1].startswith("more: --page-token ")
    second = run("list", "--graph", "chain3", "--metadata", meta, "--limit", "1", "--page-token", first[1].split()[-1])
    assert second.splitlines()[0].startswith(f"cli-{tag}  chain3  idle")
    assert run("count", "--metadata", meta).strip() == "2"
    got = json.loads(run("get", made.thread_id, "--graph", "chain3", "--values"))
    assert got["metadata"] == {"tag": tag} and got["values"]["n"] == 4 and got["status"] == "idle"
    assert run("copy", made.thread_id, "--graph", "chain3", "--to", f"cli3-{tag}").strip() == f"copied 'cli-{tag}' to 'cli3-{tag}'"
    assert run("count", "--metadata", meta).strip() == "3"
    assert "version(s) deleted" in run("prune", made.thread_id, "--graph", "chain3")
    with server.client() as client:
        assert len(client.history("chain3", made.thread_id)) == 1
    assert run("delete", f"cli3-{tag}", "--graph", "chain3").strip() == f"deleted 'cli3-{tag}'"
    missing = graphwire(server, "threads", "get", f"cli3-{tag}", "--graph", "chain3", cwd=tmp_path)
    assert missing.returncode == 1 and "NOT_FOUND" in missing.stderr
    assert graphwire(server, "threads", "get", cwd=tmp_path).returncode == 2
