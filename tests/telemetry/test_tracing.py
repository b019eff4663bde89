"""Traces reach a real OTLP/gRPC receiver, with the run joined to the caller's trace.

The receiver implements the collector's TraceService (from the
``opentelemetry-proto`` package) on 127.0.0.1; a real graphwire server process
exports to it through the OTLP exporter configured by ``OTEL_*`` variables.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.trace.v1 import trace_pb2

from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

WAIT = 30.0


class Receiver(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self) -> None:
        self.spans: list[trace_pb2.Span] = []
        self.cond = threading.Condition()

    def Export(self, request: Any, context: Any) -> Any:
        with self.cond:
            for rs in request.resource_spans:
                for ss in rs.scope_spans:
                    self.spans.extend(ss.spans)
            self.cond.notify_all()
        return trace_service_pb2.ExportTraceServiceResponse()

    def wait_for(self, what: str, pred: Callable[[list[trace_pb2.Span]], bool]) -> list[trace_pb2.Span]:
        with self.cond:
            ok = self.cond.wait_for(lambda: pred(self.spans), timeout=WAIT)
            assert ok, f"no {what} after {WAIT}s; got {[s.name for s in self.spans]}"
            return list(self.spans)


@pytest.fixture
def receiver() -> Iterator[tuple[Receiver, int]]:
    rec = Receiver()
    srv = grpc.server(futures.ThreadPoolExecutor(4))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(rec, srv)
    port = srv.add_insecure_port("127.0.0.1:0")
    srv.start()
    yield rec, port
    srv.stop(None)


@pytest.fixture
def traced_server(start_server: Any, receiver: tuple[Receiver, int]) -> Any:
    _, port = receiver
    return start_server(
        env={
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
            "OTEL_METRICS_EXPORTER": "none",
            "OTEL_BSP_SCHEDULE_DELAY": "20",
            "OTEL_SERVICE_NAME": "graphwire-test",
        }
    )


def _attrs(span: trace_pb2.Span) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in span.attributes:
        v = kv.value
        kind = v.WhichOneof("value")
        out[kv.key] = list(x.string_value for x in v.array_value.values) if kind == "array_value" else getattr(v, kind)
    return out


def _traceparent() -> tuple[str, bytes, bytes]:
    trace_id, span_id = os.urandom(16), os.urandom(8)
    return f"00-{trace_id.hex()}-{span_id.hex()}-01", trace_id, span_id


def _payload(value: str) -> str:
    return value


def _run(stub: Any, method: str, request: Any, traceparent: str) -> tuple[list[Any], dict[str, str]]:
    call = getattr(stub, method)(request, metadata=(("traceparent", traceparent),), timeout=30)
    events = list(call)
    return events, dict(call.initial_metadata())


def test_reminders_conversation_is_one_trace_tree(traced_server: Any, receiver: tuple[Receiver, int]) -> None:
    rec, _ = receiver
    stub = pb_grpc.GraphServiceStub(traced_server.channel())
    tp, trace_id, caller_span = _traceparent()
    user = '{"messages":[{"role":"user","content":"remind me to call mom at 5pm"}]}'
    events, initial = _run(stub, "Invoke", pb.InvokeRequest(graph="reminders", thread_id="tr-1", input_json=_payload(user)), tp)
    assert events[-1].run_finished.reason == pb.FINISH_REASON_INTERRUPT
    assert initial.get("graphwire-trace-id") == trace_id.hex()
    tp2, trace_id2, caller_span2 = _traceparent()
    events2, _ = _run(stub, "Resume", pb.ResumeRequest(graph="reminders", thread_id="tr-1", resume_json=_payload('"yes"')), tp2)
    assert events2[-1].run_finished.reason == pb.FINISH_REASON_END

    def runs_done(spans: list[trace_pb2.Span]) -> bool:
        ends = [s for s in spans if s.name == "graphwire.run" and s.trace_id in (trace_id, trace_id2)]
        return len(ends) == 2 and sum(s.name == "node tools" for s in spans) >= 1

    spans = rec.wait_for("two run spans", runs_done)
    first = [s for s in spans if s.trace_id == trace_id]
    [run] = [s for s in first if s.name == "graphwire.run"]
    assert run.parent_span_id == caller_span
    attrs = _attrs(run)
    assert attrs["graphwire.graph"] == "reminders" and attrs["graphwire.finish_reason"] == "INTERRUPT"
    assert attrs["graphwire.interrupt_ids"] and attrs["graphwire.thread_id"] == "tr-1"  # the caller's id, not the storage key
    assert run.status.code != trace_pb2.Status.STATUS_CODE_ERROR  # an interrupt is not an error

    steps = sorted((s for s in first if s.name == "graphwire.step"), key=lambda s: s.start_time_unix_nano)
    assert all(s.parent_span_id == run.span_id for s in steps)
    assert [_attrs(s)["graphwire.step"] for s in steps] == [0, 1, 2]
    nodes = {s.parent_span_id: s.name for s in first if s.name.startswith("node ")}
    assert [nodes[s.span_id] for s in steps] == ["node __start__", "node model", "node ask_user"]
    ask = next(s for s in first if s.name == "node ask_user")
    assert _attrs(ask)["graphwire.interrupt_ids"] == attrs["graphwire.interrupt_ids"]
    writes = [e for e in run.events if e.name == "graphwire.checkpoint.write"]
    assert [_attrs(w)["graphwire.source"] for w in writes] == ["input", "loop", "loop"]
    assert all(_attrs(w)["graphwire.checkpoint_id"] for w in writes)
    # a write of its own has its duration; the run's last versions (with the linger, a short run's: all of
    # them) go with its end's write, after the span ended (docs/tracing.md)
    assert all(_attrs(w).get("graphwire.with_run_end") is True or _attrs(w)["graphwire.duration_ms"] >= 0 for w in writes)

    second = [s for s in spans if s.trace_id == trace_id2]
    [run2] = [s for s in second if s.name == "graphwire.run"]
    assert run2.parent_span_id == caller_span2
    assert [s.name for s in sorted(second, key=lambda s: s.start_time_unix_nano) if s.name.startswith("node ")] == [
        "node ask_user",
        "node tools",
        "node model",
    ]


def test_a_failing_node_marks_its_span_and_the_run_as_errors(traced_server: Any, receiver: tuple[Receiver, int]) -> None:
    rec, _ = receiver
    stub = pb_grpc.GraphServiceStub(traced_server.channel())
    tp, trace_id, caller_span = _traceparent()
    events, _ = _run(stub, "Invoke", pb.InvokeRequest(graph="failing", thread_id="tr-2", input_json=_payload('{"fail": true}')), tp)
    assert events[-1].run_finished.reason == pb.FINISH_REASON_ERROR
    spans = rec.wait_for(
        "the failed run", lambda ss: any(s.name == "graphwire.run" and s.trace_id == trace_id for s in ss)
    )
    mine = [s for s in spans if s.trace_id == trace_id]
    [run] = [s for s in mine if s.name == "graphwire.run"]
    [node] = [s for s in mine if s.name == "node explode"]
    assert run.parent_span_id == caller_span
    assert run.status.code == trace_pb2.Status.STATUS_CODE_ERROR
    assert node.status.code == trace_pb2.Status.STATUS_CODE_ERROR
    assert _attrs(node)["graphwire.error.type"] == "ValueError"
    assert any(e.name == "exception" for e in node.events)


def test_a_sampler_from_the_environment_traces_only_the_runs_it_samples(
    start_server: Any, receiver: tuple[Receiver, int]
) -> None:
    # Ratio 0 for runs that start a trace; a caller's sampled traceparent is followed.
    rec, port = receiver
    server = start_server(
        env={
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
            "OTEL_METRICS_EXPORTER": "none",
            "OTEL_BSP_SCHEDULE_DELAY": "20",
            "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
            "OTEL_TRACES_SAMPLER_ARG": "0",
        }
    )
    stub = pb_grpc.GraphServiceStub(server.channel())
    user = _payload('{"messages":[{"role":"user","content":"hello"}]}')
    unsampled = list(stub.Invoke(pb.InvokeRequest(graph="reminders", thread_id="sm-1", input_json=user), timeout=30))
    assert unsampled[-1].HasField("run_finished")
    tp, trace_id, caller_span = _traceparent()
    events, _ = _run(stub, "Invoke", pb.InvokeRequest(graph="reminders", thread_id="sm-2", input_json=user), tp)
    assert events[-1].HasField("run_finished")
    spans = rec.wait_for(
        "the sampled run", lambda ss: any(s.name == "graphwire.run" and s.trace_id == trace_id for s in ss)
    )
    # The batch processor exports spans in the order they ended, and the first
    # run ended before the second began: had it been recorded, it would be here.
    assert {s.trace_id for s in spans} == {trace_id}
    [run] = [s for s in spans if s.name == "graphwire.run"]
    assert run.parent_span_id == caller_span and _attrs(run)["graphwire.thread_id"] == "sm-2"
    assert any(s.name.startswith("node ") for s in spans)
