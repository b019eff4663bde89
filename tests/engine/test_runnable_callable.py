"""LangGraph's private names that LangChain 1.x's agents and langgraph-supervisor/-swarm import (issue 29
item 2): ``_internal._runnable.RunnableCallable`` as a node, a router and a Runnable; ``add_node(trace_policy=)``
honoured in the node's callback run; ``compile(transformers=)``; the v3 stream's names refused when made;
``patch_configurable``; ``RemoteGraph``; the builder's ``schemas``."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tracers.base import BaseTracer
from langchain_core.runnables import RunnableConfig

from engine._internal._config import patch_configurable
from engine._internal._runnable import RunnableCallable
from engine.checkpoint import InMemorySaver
from engine.graph import START, StateGraph
from engine.prebuilt import ToolCallTransformer
from engine.pregel.remote import RemoteGraph
from engine.runtime import Runtime
from engine.stream import StreamChannel, StreamTransformer
from engine.types import TracePolicy, omit_payload


class S(TypedDict):
    log: Annotated[list[str], operator.add]


class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.starts: dict[UUID, tuple[str, Any]] = {}
        self.ends: dict[str, Any] = {}

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.starts[run_id] = (kwargs.get("name") or "", inputs)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.ends[self.starts[run_id][0]] = outputs


def test_a_runnable_callable_node_runs_its_sync_function_under_a_sync_call_with_what_it_asks_for() -> None:
    seen: list[Any] = []

    def sync(state: S, config: RunnableConfig, runtime: Runtime) -> dict[str, Any]:
        seen.append((config["configurable"]["thread_id"], runtime.context))
        return {"log": ["sync"]}

    async def asynchronous(state: S) -> dict[str, Any]:
        return {"log": ["async"]}

    g = StateGraph(S)
    g.add_node("n", RunnableCallable(sync, asynchronous, trace=False))
    g.add_conditional_edges("n", RunnableCallable(lambda s: "end" if s["log"] else "n", trace=False), {"end": "__end__", "n": "n"})
    g.add_edge(START, "n")
    app = g.compile()
    assert app.invoke({"log": []}, {"configurable": {"thread_id": "t"}}, context={"k": 1}) == {"log": ["sync"]}
    assert seen == [("t", {"k": 1})]


def test_a_runnable_callable_node_runs_its_async_function_under_an_async_call() -> None:
    """As LangGraph: ``afunc`` under ``ainvoke``/``astream`` (LangChain's create_agent model node with
    async-only middleware has no working sync face), ``func`` under ``invoke``, a subgraph's alike."""

    def sync(state: S) -> dict[str, Any]:
        return {"log": ["sync"]}

    async def asynchronous(state: S) -> dict[str, Any]:
        return {"log": ["async"]}

    inner = StateGraph(S)
    inner.add_node("n", RunnableCallable(sync, asynchronous, trace=False))
    inner.add_edge(START, "n")
    sub = inner.compile()
    g = StateGraph(S)
    g.add_node("n", RunnableCallable(sync, asynchronous, trace=False))
    g.add_node("sub", sub)
    g.add_edge(START, "n")
    g.add_edge("n", "sub")
    app = g.compile(checkpointer=InMemorySaver())

    async def async_calls() -> tuple[Any, list[Any]]:
        out = await app.ainvoke({"log": []}, {"configurable": {"thread_id": "a"}})
        chunks = [c async for c in app.astream({"log": []}, {"configurable": {"thread_id": "b"}}, stream_mode="updates")]
        return out, chunks

    out, chunks = asyncio.run(async_calls())
    assert out == {"log": ["async"] * 3}  # the subgraph hands back its whole log, added to the parent's
    assert chunks[0] == {"n": {"log": ["async"]}}
    assert app.invoke({"log": []}, {"configurable": {"thread_id": "c"}}) == {"log": ["sync"] * 3}
    assert app.nodes["n"].bound.func is sync and app.nodes["n"].bound.afunc is asynchronous  # as added


def test_a_runnable_callable_with_only_an_async_function_runs_it() -> None:
    async def asynchronous(state: S) -> dict[str, Any]:
        return {"log": ["async"]}

    g = StateGraph(S)
    g.add_node("n", RunnableCallable(None, asynchronous))
    g.add_edge(START, "n")
    assert asyncio.run(g.compile().ainvoke({"log": []})) == {"log": ["async"]}
    assert g.compile().invoke({"log": []}) == {"log": ["async"]}


def test_a_runnable_callable_invoked_directly() -> None:
    def f(x: int, runtime: Runtime) -> Any:
        return (x, runtime.context)

    rc = RunnableCallable(f, name="f")
    with pytest.raises(ValueError, match="Missing required config key 'N/A' for 'f'"):
        rc.invoke(1)  # outside a graph, a Runtime only from the config (as LangGraph 1.2.22)
    given = {"configurable": {"__pregel_runtime": Runtime(context="ctx")}}
    assert rc.invoke(1, given) == (1, "ctx")
    assert asyncio.run(rc.ainvoke(2, given)) == (2, "ctx")  # no async function: the sync one, in a thread
    rec = Recorder()
    rc.invoke(3, {**given, "callbacks": [rec]})
    assert [name for name, _ in rec.starts.values()] == ["f"]  # trace=True: a run of its own
    rec = Recorder()
    RunnableCallable(f, trace=False).invoke(3, {**given, "callbacks": [rec]})
    assert rec.starts == {}
    assert RunnableCallable(lambda x, y: x + y, explode_args=True).invoke(((1,), {"y": 2})) == 3
    with pytest.raises(ValueError, match="At least one of func or afunc"):
        RunnableCallable(None)
    with pytest.raises(TypeError, match="No synchronous function"):
        RunnableCallable(None, f).invoke(1)  # type: ignore[arg-type]


class TracerRecorder(BaseTracer):
    """A tracer: what a trace policy's recorded payloads are for."""

    def __init__(self) -> None:
        super().__init__()
        self.inputs: dict[str, Any] = {}
        self.outputs: dict[str, Any] = {}

    def _persist_run(self, run: Any) -> None:
        pass

    def _on_chain_start(self, run: Any) -> None:
        self.inputs[run.name] = run.inputs

    def _on_chain_end(self, run: Any) -> None:
        self.outputs[run.name] = run.outputs


def test_a_trace_policy_shapes_what_the_nodes_run_records_for_tracers_not_what_it_gets() -> None:
    """As LangGraph 1.2.22: tracers record the processed payloads; other handlers, and the node, get the real ones;
    a processor that raises records the payload as it is."""
    got: list[Any] = []

    def node(state: S) -> dict[str, Any]:
        got.append(state)
        return {"log": ["out"]}

    def boom(_: Any) -> Any:
        raise RuntimeError("processor failed")

    g = StateGraph(S)
    g.add_node("hidden", node, trace_policy=TracePolicy(process_inputs=omit_payload, process_outputs=lambda o: {"n": len(o["log"])}))
    g.add_node("shown", node)
    g.add_node("failing", node, trace_policy=TracePolicy(process_inputs=boom))
    g.add_edge(START, "hidden").add_edge("hidden", "shown").add_edge("shown", "failing")
    rec, tracer = Recorder(), TracerRecorder()
    out = g.compile().invoke({"log": ["in"]}, {"callbacks": [rec, tracer]})
    assert out == {"log": ["in", "out", "out", "out"]}
    assert tracer.inputs["hidden"] == {} and tracer.outputs["hidden"] == {"n": 1}
    assert tracer.inputs["shown"] == {"log": ["in", "out"]} and tracer.outputs["shown"] == {"log": ["out"]}
    assert tracer.inputs["failing"] == {"log": ["in", "out", "out"]}
    inputs = {name: i for name, i in rec.starts.values()}
    assert inputs["hidden"] == {"log": ["in"]} and rec.ends["hidden"] == {"log": ["out"]}
    assert got == [{"log": ["in"]}, {"log": ["in", "out"]}, {"log": ["in", "out", "out"]}]


def test_transformers_are_kept_for_the_v3_stream() -> None:
    g = StateGraph(S)
    g.add_node("n", lambda s: {"log": ["x"]})
    g.add_edge(START, "n")
    app = g.compile(transformers=[ToolCallTransformer])
    assert app.stream_transformers == (ToolCallTransformer,)
    assert app.invoke({"log": []}) == {"log": ["x"]}
    run = app.stream_events({"log": []}, version="v3")
    assert list(run.tool_calls) == [] and run.output == {"log": ["x"]}

    class Mine(StreamTransformer):
        def init(self) -> dict[str, Any]:
            return {"mine": StreamChannel("mine")}

    assert Mine(("a",)).scope == ("a",)
    with pytest.raises(NotImplementedError, match="must override process"):  # as LangGraph's base
        Mine().process({"type": "event", "method": "values", "params": {"namespace": [], "timestamp": 0, "data": {}}})


def test_patch_configurable_remote_graph_and_the_builders_schemas() -> None:
    config = {"tags": ["t"], "configurable": {"thread_id": "1", "x": 1}}
    assert patch_configurable(config, {"thread_id": "2"}) == {"tags": ["t"], "configurable": {"thread_id": "2", "x": 1}}
    assert config["configurable"]["thread_id"] == "1"
    assert patch_configurable(None, {"a": 1}) == {"configurable": {"a": 1}}
    # made without a client (a supervisor's isinstance checks, a node's name); running one needs a client
    agent = RemoteGraph("agent")
    assert isinstance(agent, RemoteGraph) and agent.get_name() == "agent"
    with pytest.raises(ValueError, match="no sync client"):
        agent.invoke({})
    g = StateGraph(S)
    assert g.state_schema is S and list(g.schemas[g.state_schema]) == ["log"]


def test_a_tool_nodes_sync_wrapper_runs_under_a_sync_call_and_its_async_twin_under_an_async_one() -> None:
    """As LangGraph's sync run calls ToolNode.invoke: create_agent gives both wrappers, and a middleware
    with only a sync ``wrap_tool_call`` raises from the async one."""
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool

    from engine.graph import MessagesState
    from engine.prebuilt import ToolNode

    @tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    used: list[str] = []

    def wrap(request: Any, execute: Any) -> Any:
        used.append("sync")
        return execute(request)

    async def awrap(request: Any, execute: Any) -> Any:
        used.append("async")
        return await execute(request)

    g = StateGraph(MessagesState)
    g.add_node("agent", lambda s: {"messages": [AIMessage("", tool_calls=[{"name": "echo", "args": {"text": "hi"}, "id": "1"}])]})
    g.add_node("tools", ToolNode([echo], wrap_tool_call=wrap, awrap_tool_call=awrap))
    g.add_edge(START, "agent").add_edge("agent", "tools")
    app = g.compile()
    assert app.invoke({"messages": []})["messages"][-1].content == "hi"
    assert asyncio.run(app.ainvoke({"messages": []}))["messages"][-1].content == "hi"
    assert used == ["sync", "async"]


def test_a_runnable_callable_node_returning_a_runnable_has_it_invoked_unless_recurse_is_off() -> None:
    from langchain_core.runnables import RunnableLambda

    def pick(state: S, config: RunnableConfig) -> Any:
        return RunnableLambda(lambda s: {"log": [f"picked {len(s['log'])}"]})

    g = StateGraph(S)
    g.add_node("n", RunnableCallable(pick))
    g.add_edge(START, "n")
    assert g.compile().invoke({"log": ["a"]}) == {"log": ["a", "picked 1"]}
    off = StateGraph(S)
    off.add_node("n", RunnableCallable(pick, recurse=False))
    off.add_edge(START, "n")
    assert off.compile().invoke({"log": ["a"]}) == {"log": ["a"]}  # as LangGraph: the Runnable is no update
