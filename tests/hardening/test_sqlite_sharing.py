"""One SQLite file, several processes (issue 13 items 9 and 10), with real server processes.

* Item 9: a writer outside the server holding the file (``graphwire prune``,
  an ``sqlite3`` shell in a transaction) never blocks the server's event
  loop. SQL runs on the saver's worker thread, so health checks answer
  meanwhile; a write waits at most the busy timeout (5 s), then fails with
  UNAVAILABLE ("database is locked"), and the thread is as it was.
* Item 10: a second ``graphwire serve`` on a file one already serves refuses
  to start, naming the first (two would both run one thread and fork its
  chain). The lock dies with its process, ``kill -9`` included, and the
  CLI's other commands (``prune``) keep working beside a running server.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from graphwire import FinishReason, Unavailable
from grpc_health.v1 import health_pb2

from tests.conftest import ROOT, ServerProcess

SERVING = health_pb2.HealthCheckResponse.SERVING
HOLD = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()  # until the test closes our stdin
conn.execute("ROLLBACK")
"""


@pytest.fixture
def holder() -> Iterator[Any]:
    """Start a process holding a SQLite file's write lock (BEGIN EXCLUSIVE) until released."""
    procs: list[subprocess.Popen[str]] = []

    def hold(db: Path) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        procs.append(proc)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        return proc

    yield hold
    for proc in procs:
        release(proc)


def release(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0


def test_a_file_locked_by_another_process_never_blocks_the_event_loop(
    start_server: Any, holder: Any, thread_id: str
) -> None:
    srv: ServerProcess = start_server()
    assert srv.db is not None
    with srv.client() as client:
        assert client.invoke("chain3", f"{thread_id}-before", {"n": 0}, timeout=30).reason is FinishReason.END
    lock = holder(srv.db)

    outcome: list[Any] = []

    def call() -> None:
        with srv.client(retry=False) as client:  # one wait for the lock (the client's retries would wait five)
            try:
                outcome.append(client.invoke("chain3", thread_id, {"n": 0}, timeout=60))
            except Exception as exc:  # noqa: BLE001 - the outcome is asserted below
                outcome.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    # Health checks while the run waits on the lock: each must answer within its own deadline,
    # shorter than the wait (5 s). A server whose loop blocked on SQLite would miss one.
    checks = 0
    while caller.is_alive() or checks == 0:
        try:
            assert srv.health(timeout=2.0) == SERVING
        except grpc.RpcError as exc:
            pytest.fail(f"health check {checks + 1} failed while another process held the file: {exc.code()}")
        checks += 1
    caller.join()

    (result,) = outcome
    assert isinstance(result, Unavailable), result
    assert "locked" in result.message, result.message
    release(lock)
    with srv.client() as client:
        # Nothing of the refused run landed half; the thread runs now that the file is free.
        assert client.invoke("chain3", thread_id, {"n": 0}, timeout=30).reason is FinishReason.END
        assert client.get_state("chain3", f"{thread_id}-before", timeout=10).values["n"] == 3


def _serve_cmd(db: Path) -> list[str]:
    return [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", str(db),
            "--graph", "chain3=tests.graphs:chain3"]  # fmt: skip


def test_a_second_server_on_one_sqlite_file_refuses_to_start(start_server: Any, thread_id: str, tmp_path: Path) -> None:
    first: ServerProcess = start_server()
    assert first.db is not None
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    second = subprocess.run(_serve_cmd(first.db), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert second.returncode == 2, second
    assert "already served by another graphwire server" in second.stderr, second.stderr
    assert f"pid {first.pid}" in second.stderr, second.stderr
    assert "listening" not in second.stdout

    with first.client() as client:
        assert client.invoke("chain3", thread_id, {"n": 0}, timeout=30).reason is FinishReason.END
        assert client.invoke("chain3", thread_id, {"n": 0}, timeout=30).reason is FinishReason.END
    # The CLI's other commands share the file with the running server.
    prune = subprocess.run(
        [sys.executable, "-m", "server", "prune", "--checkpointer", str(first.db), "--graph", "chain3", "--all-threads",
         "--keep-last", "1"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert prune.returncode == 0, prune
    with first.client() as client:
        assert len(client.history("chain3", thread_id, timeout=10)) == 1

    # The lock dies with its holder, even by SIGKILL: the next server starts on the file.
    assert first.kill() == -signal.SIGKILL
    third: ServerProcess = start_server(db=first.db, graphs={"chain3": "tests.graphs:chain3"})
    with third.client() as client:
        assert client.get_state("chain3", thread_id, timeout=10).values["n"] == 3
