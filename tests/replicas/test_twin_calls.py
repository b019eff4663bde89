"""Two copies of one call (the same request_id) sent at once to two replicas on one PostgreSQL
(issue 28 item 5a): the copy that finds the thread held by its twin joins it, whether or not the
twin has recorded its run yet, and the input is applied once.

The race is made to happen each time: the replicas run ``tests.replicas._serve_records``, which
holds the first copy's record insert (the run holds its thread and lease, with no record yet)
until the second replica has looked for that record. That window is where the second copy used
to fail with ABORTED "already has a run in progress" (about a third of the cases, unforced).
"""

from __future__ import annotations

import json
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

from tests.replicas.conftest import Cluster, wait_until

TIMEOUT = 60.0


def invoke(server: Any, request: pb.InvokeRequest) -> list[pb.RunEvent]:
    with grpc.insecure_channel(server.address) as channel:
        return list(pb_grpc.GraphServiceStub(channel).Invoke(request, timeout=TIMEOUT))


def test_a_copy_on_another_replica_joins_its_twin_that_is_starting(cluster: Cluster, thread_id: str) -> None:
    a = cluster.replica(module="tests.replicas._serve_records")
    b = cluster.replica(module="tests.replicas._serve_records")
    with ThreadPoolExecutor(max_workers=2) as pool:
        for round_ in range(3):
            thread, label, rid = f"{thread_id}-{round_}", uuid.uuid4().hex, f"held-{uuid.uuid4().hex[:8]}"
            request = pb.InvokeRequest(graph="parallel", thread_id=thread, request_id=rid, input_json=json.dumps({"label": label}))
            first = pool.submit(invoke, a, request)
            wait_until(lambda: (cluster.gates / f"start-reached-{rid}").exists(), "a to hold the thread, before it runs")
            second = pool.submit(invoke, b, request)
            wait_until(lambda: any(cluster.gates.glob(f"looked-{rid}-{b.pid}")) or second.done(), "b to look for its twin's record")
            cluster.open_gate(f"start-go-{rid}")
            events = first.result(timeout=TIMEOUT)
            assert events[-1].run_finished.reason == pb.FINISH_REASON_END
            assert second.result(timeout=TIMEOUT) == events, f"round {round_}"  # joined: the same events, RunFinished included
            assert cluster.runs(label) == 1  # the input applied once
