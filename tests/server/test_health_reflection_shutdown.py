"""Standard gRPC health checking and server reflection, through the grpcio
packages' own client stubs; and SIGTERM: stop taking work, let a run in flight
finish (or cancel it once --grace is over), exit 0."""

from __future__ import annotations

import signal
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pb2
from google.protobuf.descriptor_pool import DescriptorPool
from graphwire import FinishReason, RunFinished, TaskStarted
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

SERVICE = "graphwire.v1.GraphService"
HEALTH = "grpc.health.v1.Health"
Status = health_pb2.HealthCheckResponse


def test_health_check(server: Any) -> None:
    with server.channel() as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        assert stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=10).status == Status.SERVING
        assert stub.Check(health_pb2.HealthCheckRequest(service=SERVICE), timeout=10).status == Status.SERVING
        with pytest.raises(grpc.RpcError) as unknown:
            stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=10)
        assert unknown.value.code() is grpc.StatusCode.NOT_FOUND


def test_reflection_lists_and_describes_the_service(server: Any) -> None:
    with server.channel() as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        requests = [
            reflection_pb2.ServerReflectionRequest(list_services=""),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE),
        ]
        listed, described = list(stub.ServerReflectionInfo(iter(requests), timeout=10))

        names = {s.name for s in listed.list_services_response.service}
        assert {SERVICE, HEALTH} <= names
        files = [descriptor_pb2.FileDescriptorProto.FromString(b) for b in described.file_descriptor_response.file_descriptor_proto]
        ours = next(f for f in files if f.package == "graphwire.v1")
        assert ours.name == "graphwire/v1/graphwire.proto"
        methods = {m.name for s in ours.service if s.name == "GraphService" for m in s.method}
        assert methods == {
            "Invoke", "Resume", "Fork", "GetState", "ListHistory", "UpdateState",
            "ListGraphs", "GetGraph", "CancelRun", "DeleteThread",
            "PutItem", "GetItem", "SearchItems", "DeleteItem", "ListNamespaces",
            "JoinRun", "GetRun", "ListRuns",
            "CreateThread", "GetThread", "UpdateThread", "SearchThreads", "CountThreads", "CopyThread", "PruneThread",
            "CreateAssistant", "GetAssistant", "UpdateAssistant", "SetAssistantVersion", "ListAssistantVersions",
            "SearchAssistants", "CountAssistants", "DeleteAssistant",
        }  # fmt: skip

        # What a generic tool (grpcurl, Postman) does: resolve a method by name.
        pool = DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
        invoke = pool.FindServiceByName(SERVICE).FindMethodByName("Invoke")
        assert invoke.input_type.full_name == "graphwire.v1.InvokeRequest"
        assert invoke.output_type.full_name == "graphwire.v1.RunEvent"


def _watch_until_not_serving(srv: Any, send_signal: Any) -> list[int]:
    """Watch health; call ``send_signal`` once SERVING is seen; return statuses up to NOT_SERVING."""
    seen: list[int] = []
    with srv.channel() as channel:
        watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(service=""), timeout=30)
        for response in watch:
            seen.append(response.status)
            if response.status == Status.SERVING and len(seen) == 1:
                send_signal()
            elif response.status == Status.NOT_SERVING:
                break
        watch.cancel()  # an open Watch would hold the shutdown for its whole grace period
    return seen


def test_sigterm_lets_a_run_in_flight_finish(start_server: Any, thread_id: str) -> None:
    srv = start_server(graphs={"gated": "tests.graphs:gated"}, args=["--grace", "30"])
    with srv.client() as client:
        stream = client.stream("gated", thread_id, {"gate": "drain", "label": "in flight"}, timeout=60)
        for e in stream:
            if isinstance(e, TaskStarted):
                break
        # SIGTERM while the node is running; health turns NOT_SERVING...
        seen = _watch_until_not_serving(srv, lambda: srv.proc.send_signal(signal.SIGTERM))
        assert seen == [Status.SERVING, Status.NOT_SERVING]
        assert srv.alive()  # ...but it waits for the run
        # ...and only then is the run allowed to finish: it does, normally.
        srv.open_gate("drain")
        rest = list(stream)
    assert isinstance(rest[-1], RunFinished) and rest[-1].reason is FinishReason.END
    assert rest[-1].values["log"] == ["in flight"]
    assert srv.proc.wait(timeout=30) == 0
    assert "stopping: draining runs" in srv.log()


def test_sigterm_cancels_runs_after_grace(start_server: Any, thread_id: str) -> None:
    srv = start_server(graphs={"gated": "tests.graphs:gated"}, args=["--grace", "0.5"])
    with srv.client() as client:
        stream = client.stream("gated", thread_id, {"gate": "never", "label": "too slow"}, timeout=60)
        for e in stream:
            if isinstance(e, TaskStarted):
                break
        srv.proc.send_signal(signal.SIGTERM)
        rest = list(stream)  # the gate never opens: only the grace period can end this run
    finished = rest[-1]
    assert isinstance(finished, RunFinished) and finished.reason is FinishReason.CANCELLED
    assert finished.checkpoint is not None and finished.checkpoint.next == ("work",)
    assert srv.proc.wait(timeout=30) == 0
    assert "grace period over: cancelled 1 run(s)" in srv.log()

