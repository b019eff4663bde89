"""``graphwire serve --workers 2`` on PostgreSQL: two processes on one address (issue 36 item 2).

Each test starts the real command (a parent and its two worker processes).
Which worker a connection reaches is the kernel's choice (SO_REUSEPORT hashes
the connection's addresses), so a test that needs both opens fresh
connections until it has seen both, within a bound far past what chance
needs (2^-63 to miss one in 64 tries). The worker behind a call is read from
its run record: a replica id is ``host:pid:random``, and the pids are the
ones the parent printed. No sleeps: every wait polls a condition with a deadline.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import grpc
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

from tests.conftest import ROOT, SETTINGS_VARS, ServerProcess
from tests.replicas.conftest import Cluster, wait_until

DEADLINE = 60.0
TRIES = 64
FRESH = [("grpc.use_local_subchannel_pool", 1)]  # a connection of its own, not one another channel opened


def _workers(cluster: Cluster) -> tuple[ServerProcess, set[int]]:
    srv = cluster.replica(args=["--workers", "2"])
    children = {int(pid) for pid in open(f"/proc/{srv.proc.pid}/task/{srv.proc.pid}/children").read().split()}
    assert len(children) == 2, f"the parent runs {children}"
    return srv, children


def _pid(replica: str) -> int:
    return int(replica.split(":")[-2])


def _calls(address: str) -> Iterator[pb_grpc.GraphServiceStub]:
    """Stubs on fresh connections, one after another, at most TRIES."""
    for _ in range(TRIES):
        with grpc.insecure_channel(address, options=FRESH) as channel:
            yield pb_grpc.GraphServiceStub(channel)


def _gated(thread_id: str, gate: str | None, label: str) -> str:
    return json.dumps({"gate": gate, "label": label, "log": []})


def test_two_workers_on_one_address_serve_one_thread_in_turn(cluster: Cluster, thread_id: str) -> None:
    srv, pids = _workers(cluster)
    seen: list[int] = []
    for i, stub in enumerate(_calls(srv.address)):
        events = list(stub.Invoke(pb.InvokeRequest(graph="gated", thread_id=thread_id, input_json=_gated(thread_id, None, f"t{i}")), timeout=DEADLINE))
        assert events[-1].WhichOneof("event") == "run_finished", events[-1]
        seen.append(_pid(stub.GetRun(pb.GetRunRequest(run_id=events[0].run_id), timeout=DEADLINE).replica))
        if set(seen) == pids:
            break
    assert set(seen) == pids, f"calls reached {set(seen)} of the workers {pids}"
    with grpc.insecure_channel(srv.address) as channel:
        state = pb_grpc.GraphServiceStub(channel).GetState(pb.GetStateRequest(graph="gated", thread_id=thread_id), timeout=DEADLINE)
    assert json.loads(state.values_json)["log"] == [f"t{i}" for i in range(len(seen))]  # each turn once, in order
    assert srv.terminate() == 0


def _background_on_each(srv: ServerProcess, pids: set[int], thread_id: str) -> dict[int, str]:
    """A background run held at its gate on each worker: worker pid -> run id."""
    runs: dict[int, str] = {}
    for i, stub in enumerate(_calls(srv.address)):
        (started,) = list(stub.Invoke(pb.InvokeRequest(
            graph="gated", thread_id=f"{thread_id}-{i}", input_json=_gated(thread_id, f"{thread_id}-gate", "x"), background=True,
        ), timeout=DEADLINE))  # fmt: skip
        runs.setdefault(_pid(stub.GetRun(pb.GetRunRequest(run_id=started.run_id), timeout=DEADLINE).replica), started.run_id)
        if set(runs) == pids:
            return runs
    raise AssertionError(f"background runs reached {set(runs)} of the workers {pids}")


def _run(address: str, run_id: str) -> pb.RunInfo:
    with grpc.insecure_channel(address) as channel:
        return pb_grpc.GraphServiceStub(channel).GetRun(pb.GetRunRequest(run_id=run_id), timeout=DEADLINE)


def test_sigterm_to_the_parent_drains_both_workers_and_leaves_their_runs_to_recover(cluster: Cluster, thread_id: str) -> None:
    srv, pids = _workers(cluster)
    runs = _background_on_each(srv, pids, thread_id)
    srv.proc.send_signal(signal.SIGTERM)
    assert srv.proc.wait(timeout=DEADLINE) == 0, srv.log()
    assert all(not os.path.exists(f"/proc/{pid}") or _zombie(pid) for pid in pids), "a worker outlived its parent"
    log = srv.log()
    assert log.count("stopping: draining runs") == 2, log  # each worker drained
    after = cluster.replica()  # a fresh server on the database continues what the workers left
    cluster.open_gate(f"{thread_id}-gate")
    for run_id in runs.values():
        done = wait_until(lambda r=run_id: (i := _run(after.address, r)).status == pb.RUN_STATUS_SUCCESS and i, f"run {run_id} to end")
        assert _pid(done.replica) == after.proc.pid and done.attempts == 2


def _zombie(pid: int) -> bool:
    try:
        return open(f"/proc/{pid}/stat").read().split(")")[-1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_killed_workers_runs_are_recovered_by_the_other(cluster: Cluster, thread_id: str) -> None:
    srv, pids = _workers(cluster)
    runs = _background_on_each(srv, pids, thread_id)
    victim = min(pids)
    (survivor,) = pids - {victim}
    os.kill(victim, signal.SIGKILL)
    wait_until(lambda: "not restarted: its runs are recovered" in srv.log(), "the parent to say the worker is gone")
    assert srv.alive()
    cluster.open_gate(f"{thread_id}-gate")
    for run_id in runs.values():
        done = wait_until(lambda r=run_id: (i := _run(srv.address, r)).status == pb.RUN_STATUS_SUCCESS and i, f"run {run_id} to end")
        assert _pid(done.replica) == survivor
    assert (_run(srv.address, runs[victim]).attempts, _run(srv.address, runs[survivor]).attempts) == (2, 1)
    assert srv.terminate() == 128 + signal.SIGKILL  # the parent's status says a worker died


def _one_per_channel(thread_id: str, channels: int) -> list[str]:
    """A thread id for each of a client's ``channels`` connections (a thread's calls take the one its
    id's CRC-32 names, modulo the connections: the clients' documented rule)."""
    ids: dict[int, str] = {}
    for i in range(100 * channels):
        ids.setdefault(zlib.crc32(f"{thread_id}-{i}".encode()) % channels, f"{thread_id}-{i}")
    assert len(ids) == channels
    return list(ids.values())


def test_a_python_client_s_channels_reach_both_workers(cluster: Cluster, thread_id: str) -> None:
    srv, pids = _workers(cluster)
    with srv.client(channels=TRIES) as client:  # a thread on each of its connections
        results = [client.invoke("gated", t, {"gate": None, "label": "x", "log": []}) for t in _one_per_channel(thread_id, TRIES)]
        seen = {_pid(client.get_run(r.run_id).replica) for r in results}
    assert seen == pids, f"the client's {TRIES} connections reached {seen} of the workers {pids}"
    assert srv.terminate() == 0


def test_a_python_client_s_turns_on_one_thread_stay_with_one_worker(cluster: Cluster, thread_id: str) -> None:
    """Its calls take the connection the thread's id names, and a connection is one worker's: each turn
    finds that worker's caches warm (round-robin, 6 turns over 8 connections would reach both)."""
    srv, pids = _workers(cluster)
    with srv.client(channels=8) as client:
        results = [client.invoke("gated", thread_id, {"gate": None, "label": f"t{i}", "log": []}) for i in range(6)]
        seen = {_pid(client.get_run(r.run_id).replica) for r in results}
    assert len(seen) == 1 and seen <= pids, f"one thread's turns were served by {seen} of the workers {pids}"
    assert srv.terminate() == 0


def test_the_parent_killed_outright_takes_its_workers_with_it(cluster: Cluster) -> None:
    srv, pids = _workers(cluster)
    assert srv.kill() == -signal.SIGKILL
    wait_until(lambda: all(_zombie(pid) for pid in pids), "both workers to end with their parent")


def test_a_worker_that_fails_to_start_stops_the_others(cluster: Cluster, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        host, port = taken.getsockname()
        env = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARS}
        done = subprocess.run(
            [sys.executable, "-m", "server", "serve", "--address", "127.0.0.1:0", "--checkpointer", cluster.dsn, "--pg-schema",
             cluster.schema, "--workers", "2", "--inspector", f"{host}:{port}", "--graph", "gated=tests.graphs:gated"],
            cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=DEADLINE,
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert f"{host}:{port}" in done.stderr and "stopping the others" in done.stderr, done.stderr
    assert "graphwire listening on" not in done.stdout


def test_the_web_ports_are_served_by_worker_0_alone(cluster: Cluster, tmp_path: Path) -> None:
    with socket.socket() as probe:  # a fixed port each: a second worker binding it would fail the start
        probe.bind(("127.0.0.1", 0))
        inspector = probe.getsockname()[1]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        http = probe.getsockname()[1]
    srv = cluster.replica(args=["--workers", "2", "--inspector", f"127.0.0.1:{inspector}", "--http", f"127.0.0.1:{http}"])
    assert srv.inspector_url == f"http://127.0.0.1:{inspector}/"
    log = srv.log()
    assert log.count(f"inspector on http://127.0.0.1:{inspector}/") == 1, log
    assert log.count(f"127.0.0.1:{http}") == 1, log
    for port in (inspector, http):
        with socket.create_connection(("127.0.0.1", port), timeout=DEADLINE):
            pass
    assert srv.terminate() == 0
