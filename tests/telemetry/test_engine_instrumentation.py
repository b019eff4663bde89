"""The engine's spans and metrics, in process (the SDK is the test's)."""

from __future__ import annotations

import uuid
from typing import Any, TypedDict

import pytest

from engine import START, RetryPolicy, StateGraph, interrupt
from engine.checkpoint import InMemorySaver
from engine.testing import thread


class X(TypedDict):
    x: int


def _metrics(otel: Any) -> dict[str, list[Any]]:
    data = otel.metric_reader.get_metrics_data()
    out: dict[str, list[Any]] = {}
    for rm in data.resource_metrics:
        for sm in rm.scope_metrics:
            for m in sm.metrics:
                out.setdefault(m.name, []).extend(m.data.data_points)
    return out


def test_spans_nest_node_spans_the_node_makes_and_record_retries(otel: Any) -> None:
    from opentelemetry import trace

    tracer = trace.get_tracer("user-code")
    calls = []

    def flaky(s: X) -> dict[str, int]:
        calls.append(1)
        with tracer.start_as_current_span("llm.call"):
            if len(calls) < 2:
                raise ConnectionError("try again")
        return {"x": s["x"] + 1}

    g = StateGraph(X)
    g.add_node("flaky", flaky, retry_policy=RetryPolicy(initial_interval=0, jitter=False))
    g.add_edge(START, "flaky")
    name = f"g-{uuid.uuid4().hex[:6]}"
    g.compile(name=name).invoke({"x": 1})
    spans = otel.exporter.get_finished_spans()
    [run] = [s for s in spans if s.name == "graphwire.run" and s.attributes["graphwire.graph"] == name]
    mine = [s for s in spans if s.context.trace_id == run.context.trace_id]
    [node] = [s for s in mine if s.name == "node flaky"]
    llm = [s for s in mine if s.name == "llm.call"]
    assert len(llm) == 2 and all(s.parent.span_id == node.context.span_id for s in llm)
    assert [e.name for e in node.events] == ["retry"]
    assert node.events[0].attributes["exception.type"] == "ConnectionError"


def test_metrics_count_runs_by_outcome_and_time_nodes_and_writes(otel: Any) -> None:
    name = f"m-{uuid.uuid4().hex[:6]}"
    g = StateGraph(X)
    g.add_node("ask", lambda s: {"x": len(interrupt("?"))})
    g.add_edge(START, "ask")
    app = g.compile(checkpointer=InMemorySaver(), name=name)
    app.invoke({"x": 0}, thread("m1"), durability="sync")  # a write per version (async would batch them)
    bad = StateGraph(X)
    bad.add_node("boom", lambda s: 1 / 0)
    bad.add_edge(START, "boom")
    with pytest.raises(ZeroDivisionError):
        bad.compile(name=name).invoke({"x": 0})
    m = _metrics(otel)
    outcomes = {
        p.attributes["graphwire.finish_reason"]: p.value
        for p in m["graphwire.runs"]
        if p.attributes.get("graphwire.graph") == name
    }
    assert outcomes == {"INTERRUPT": 1, "ERROR": 1}
    assert any(p.attributes.get("graphwire.graph") == name and p.value >= 2 for p in m["graphwire.supersteps"])
    nodes = {p.attributes["graphwire.node"] for p in m["graphwire.node.duration"] if p.attributes.get("graphwire.graph") == name}
    assert {"ask", "boom"} <= nodes
    writes = [p for p in m["graphwire.checkpoint.write.duration"] if p.attributes.get("graphwire.graph") == name]
    assert writes and writes[0].count == 2  # the input version and step 0
    active = [p for p in m["graphwire.runs.active"] if p.attributes.get("graphwire.graph") == name]
    assert active and active[0].value == 0
    assert sum(p.sum for p in m["graphwire.checkpoint.write.size"]) > 0


def test_a_run_its_sampler_leaves_out_makes_no_step_or_node_spans(otel: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Runs a sampler leaves out cost what no tracing costs: the engine asks for the
    # run's span and, seeing it records nothing, makes none for its steps and nodes.
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ParentBased, Sampler, SamplingResult

    from engine.pregel import _telemetry

    class Asked(Sampler):
        """ParentBased(ALWAYS_OFF), remembering which spans it was asked about."""

        def __init__(self) -> None:
            self.names: list[str] = []
            self.inner = ParentBased(ALWAYS_OFF)

        def should_sample(self, parent_context: Any, trace_id: int, name: str, *args: Any, **kwargs: Any) -> SamplingResult:
            self.names.append(name)
            return self.inner.should_sample(parent_context, trace_id, name, *args, **kwargs)

        def get_description(self) -> str:
            return "asked"

    sampler = Asked()
    monkeypatch.setattr(_telemetry, "tracer", TracerProvider(sampler=sampler).get_tracer("graphwire.engine"))
    seen: list[bool] = []

    def step(s: X) -> dict[str, int]:
        with trace.get_tracer("user-code").start_as_current_span("llm.call") as span:
            seen.append(span.is_recording())  # the node's own span follows the run: left out
        return {"x": s["x"] + 1}

    g = StateGraph(X)
    g.add_node("a", step)
    g.add_node("b", step)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    assert g.compile(checkpointer=InMemorySaver()).invoke({"x": 0}, thread()) == {"x": 2}
    assert sampler.names == ["graphwire.run"]
    assert seen == [False, False]


def test_each_step_and_task_span_carries_its_step_and_task_id(otel: Any) -> None:
    # The step's number and the task's id are set on the started spans (not given to
    # start_span): each node span sits under its step's, START's too, with the id the
    # run's "tasks" events give its task; each version stored is an event on the run span.
    g = StateGraph(X)
    g.add_node("a", lambda s: {"x": s["x"] + 1})
    g.add_node("b", lambda s: {"x": s["x"] * 10})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    name = f"t-{uuid.uuid4().hex[:6]}"
    app = g.compile(checkpointer=InMemorySaver(), name=name)
    started = [p for p in app.stream({"x": 1}, thread(), stream_mode="tasks") if "input" in p]
    spans = otel.exporter.get_finished_spans()
    [run] = [s for s in spans if s.name == "graphwire.run" and s.attributes["graphwire.graph"] == name]
    mine = [s for s in spans if s.context.trace_id == run.context.trace_id]
    steps = {s.context.span_id: s for s in mine if s.name == "graphwire.step"}
    assert all(s.parent.span_id == run.context.span_id for s in steps.values())
    nodes = sorted((s for s in mine if s.name.startswith("node ")), key=lambda s: s.start_time)
    assert [(s.name, steps[s.parent.span_id].attributes["graphwire.step"]) for s in nodes] == [
        ("node __start__", 0),
        ("node a", 1),
        ("node b", 2),
    ]
    assert [s.attributes["graphwire.task_id"] for s in nodes[1:]] == [p["id"] for p in started]
    assert all(dict(s.attributes) == {"graphwire.task_id": s.attributes["graphwire.task_id"]} for s in nodes)
    assert run.attributes["graphwire.finish_reason"] == "END" and run.attributes["graphwire.steps"] == 3
    writes = [e.attributes for e in run.events if e.name == "graphwire.checkpoint.write"]
    assert [(w["graphwire.source"], w["graphwire.step"]) for w in writes] == [("input", -1), ("loop", 0), ("loop", 1), ("loop", 2)]
    assert len({w["graphwire.checkpoint_id"] for w in writes}) == 4 and all(w["graphwire.duration_ms"] >= 0 for w in writes)


@pytest.mark.parametrize(
    ("limits", "task_id_kept", "step_kept"),
    [({}, 36, True), ({"max_attribute_length": 8}, 8, True), ({"max_span_attributes": 0}, None, False)],
    ids=["no-limits", "text-limit", "no-attributes"],
)
def test_step_and_task_attributes_honour_the_sdks_span_limits(
    monkeypatch: pytest.MonkeyPatch, limits: dict[str, int], task_id_kept: int | None, step_kept: bool
) -> None:
    # The step's and the task's attributes skip the SDK's checks when these change nothing
    # (engine.pregel._telemetry.set_plain); a provider's limits still apply as the SDK applies them.
    from opentelemetry.sdk.trace import SpanLimits, TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from engine.pregel import _telemetry

    exporter = InMemorySpanExporter()
    provider = TracerProvider(span_limits=SpanLimits(**limits))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(_telemetry, "tracer", provider.get_tracer("graphwire.engine"))
    g = StateGraph(X)
    g.add_node("a", lambda s: {"x": s["x"] + 1})
    g.add_edge(START, "a")
    assert g.compile(checkpointer=InMemorySaver()).invoke({"x": 0}, thread()) == {"x": 1}
    spans = exporter.get_finished_spans()
    [node] = [s for s in spans if s.name == "node a"]
    steps = [s for s in spans if s.name == "graphwire.step"]
    [run] = [s for s in spans if s.name == "graphwire.run"]
    if task_id_kept is None:
        assert dict(node.attributes) == {} and node.dropped_attributes == 1
        assert all(dict(s.attributes) == {} for s in steps) and "graphwire.finish_reason" not in run.attributes
    else:
        assert len(node.attributes["graphwire.task_id"]) == task_id_kept and node.dropped_attributes == 0
        assert sorted(s.attributes["graphwire.step"] for s in steps) == [0, 1]
        assert run.attributes["graphwire.finish_reason"] == "END"
        assert len(run.attributes["graphwire.checkpoint_id"]) == min(36, task_id_kept)
