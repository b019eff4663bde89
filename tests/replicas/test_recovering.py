"""A run being taken over reads RECOVERING until its new replica claims it (issue 20), on PostgreSQL.

Replica ``a`` (a server process) runs a background run and is SIGKILLed
mid-step. The other replica, here a server in the test's event loop
(:func:`tests.hardening.conftest.in_process`, on the cluster's schema), holds
the thread first, as a call of its own that took the freed lease would: the
test takes the thread's slot and, once ``a`` is dead, its lease. Its sweeper
then finds the orphan, says so in the record (RECOVERING: ``a``'s replica,
attempt 1) and waits for the thread; the test looks at the record once that
wait is seen (:meth:`server._runs.RunManager.waiting`). With the thread let
go, the run is claimed (RUNNING, attempt 2, this replica) and finishes.
No sleeps: every wait polls a condition with a deadline.
"""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

from server._reads import key_of
from tests.hardening.conftest import in_process, until
from tests.replicas.conftest import LEASE_SECONDS, Cluster, wait_until

DEADLINE = 60.0


def test_a_run_reads_recovering_while_its_taker_waits_for_the_thread(
    cluster: Cluster, thread_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.checkpoint.postgres import PostgresSaver

    monkeypatch.setenv("GRAPHWIRE_TEST_GATES", str(cluster.gates))
    a = cluster.replica()
    gate, key = f"{thread_id}-gate", key_of(None, "gated", thread_id)
    with grpc.insecure_channel(a.address) as channel:
        stub_a = pb_grpc.GraphServiceStub(channel)
        (started,) = list(stub_a.Invoke(pb.InvokeRequest(
            graph="gated", thread_id=thread_id, input_json=json.dumps({"gate": gate, "label": "reply", "log": ["hi"]}), background=True,
        ), timeout=DEADLINE))  # fmt: skip
        run_id = started.run_id
        a_replica = stub_a.GetRun(pb.GetRunRequest(run_id=run_id), timeout=DEADLINE).replica
    wait_until(lambda: len(cluster.query("SELECT 1 FROM {checkpoints} WHERE thread_id = %s", (key,))) == 2,
               "the run's input version and step 0 to be stored (its node waits at its gate)")  # fmt: skip

    async def body() -> None:
        saver = PostgresSaver.from_dsn(cluster.dsn, schema=cluster.schema)
        async with in_process(saver, lease_seconds=LEASE_SECONDS) as srv, grpc.aio.insecure_channel(f"127.0.0.1:{srv.port}") as ch:
            stub, runs = pb_grpc.GraphServiceStub(ch), srv.service.runs

            async def info() -> pb.RunInfo:
                return await stub.GetRun(pb.GetRunRequest(run_id=run_id), timeout=DEADLINE)

            held, let_go = asyncio.Event(), asyncio.Event()

            async def hold() -> None:  # the thread's slot here, then its lease once a's is gone
                async with runs.slot(key, thread_id, "held-by-the-test", enqueue=True):
                    held.set()
                    await let_go.wait()

            holder = asyncio.get_running_loop().create_task(hold())
            try:
                await until(lambda: runs.waiting(key) == 1, "the test's hold to wait for a's lease")
                assert a.kill() == -signal.SIGKILL
                await until(held.is_set, "the test to hold the thread")
                await until(lambda: runs.waiting(key) == 1, "the sweep's continuation to wait for the thread")
                seen = await info()
                assert (seen.status, seen.attempts, seen.replica) == (pb.RUN_STATUS_RECOVERING, 1, a_replica)
                assert not seen.HasField("ended_at")
            finally:
                let_go.set()
                await holder
            claimed = await until(lambda: _status(info, pb.RUN_STATUS_RUNNING), "the claim")
            assert (claimed.attempts, claimed.replica) == (2, srv.service.records.replica)
            cluster.open_gate(gate)
            done = await until(lambda: _status(info, pb.RUN_STATUS_SUCCESS), "the run to end")
            assert (done.attempts, done.reason) == (2, pb.FINISH_REASON_END)
            state = await stub.GetState(pb.GetStateRequest(graph="gated", thread_id=thread_id), timeout=DEADLINE)
            assert json.loads(state.values_json)["log"] == ["hi", "reply"]  # its input applied once

    asyncio.run(body())


async def _status(info: Callable[[], Any], status: int) -> pb.RunInfo | None:
    got = await info()
    return got if got.status == status else None
