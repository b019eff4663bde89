"""Issue 18 item 1: ``context_schema``, a call's ``context=``, and the Runtime nodes receive.

Pinned against LangGraph 1.2.22 (tests/sidebyside/runtime_context.py runs
the same program on both): a dict context is coerced into a dataclass or
Pydantic schema (a missing field raises TypeError), a TypedDict context stays
the dict it was; ``runtime`` is injected by name whatever its annotation;
``get_runtime()`` is the same object; its store is the graph's.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict
import operator

import pytest

from engine.graph import START, StateGraph
from engine.pregel._run_context import ContextError, context_from_json
from engine.runtime import Runtime, get_runtime
from engine.store.memory import InMemoryStore
from engine.types import RetryPolicy


@dataclass
class Ctx:
    user_id: str
    locale: str = "en"


class TDCtx(TypedDict):
    user_id: str
    n: int


class S(TypedDict, total=False):
    seen: Annotated[list, operator.add]


def _thread(t: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": t}}


def _graph(node: Any, schema: Any = Ctx, **kw: Any) -> Any:
    return StateGraph(S, context_schema=schema).add_node("n", node).add_edge(START, "n").compile(**kw)


def test_nodes_read_the_context_the_call_passed(checkpointer):
    def node(state: S, runtime: Runtime[Ctx]):
        return {"seen": [runtime.context.user_id, runtime.context.locale, get_runtime() is runtime]}

    app = _graph(node, checkpointer=checkpointer)
    assert app.invoke({}, _thread("a"), context=Ctx("u1")) == {"seen": ["u1", "en", True]}
    # Per call: the next turn on the same thread sees its own context, and the context is not state.
    assert app.invoke({}, _thread("a"), context={"user_id": "u2", "locale": "fr"}) == {"seen": ["u1", "en", True, "u2", "fr", True]}
    assert "context" not in app.get_state(_thread("a")).values
    assert asyncio.run(app.ainvoke({}, _thread("b"), context=Ctx("u3")))["seen"][0] == "u3"
    chunks = list(app.stream({}, _thread("c"), context=Ctx("u4"), stream_mode="updates"))
    assert chunks == [{"n": {"seen": ["u4", "en", True]}}]


def test_a_dict_is_coerced_as_langgraph_does():
    def node(state: S, runtime):  # untyped: injected by name all the same
        return {"seen": [type(runtime.context).__name__]}

    assert _graph(node).invoke({}, context={"user_id": "x"}) == {"seen": ["Ctx"]}
    assert _graph(node, TDCtx).invoke({}, context={"user_id": "x"}) == {"seen": ["dict"]}
    assert _graph(node).invoke({}) == {"seen": ["NoneType"]}
    with pytest.raises(TypeError):
        _graph(node).invoke({}, context={"locale": "fr"})  # user_id missing: the dataclass refuses


def test_the_runtime_has_the_store_writer_and_execution_info():
    store = InMemoryStore()
    store.put(("users",), "u1", {"name": "Alice"})

    def node(state: S, runtime: Runtime[Ctx]):
        runtime.stream_writer({"hello": runtime.context.user_id})
        info = runtime.execution_info
        return {"seen": [runtime.store.get(("users",), runtime.context.user_id).value["name"], info.node_attempt, info.task_id != ""]}

    app = _graph(node, store=store)
    out = list(app.stream({}, context=Ctx("u1"), stream_mode=["custom", "values"]))
    assert ("custom", {"hello": "u1"}) in out
    assert out[-1] == ("values", {"seen": ["Alice", 1, True]})


def test_a_retried_node_sees_its_attempt():
    attempts: list[int] = []

    def flaky(state: S, runtime: Runtime[Ctx]):
        attempts.append(runtime.execution_info.node_attempt)
        if len(attempts) < 3:
            raise ValueError("again")
        return {"seen": [runtime.context.user_id]}

    app = StateGraph(S, context_schema=Ctx).add_node("n", flaky, retry_policy=RetryPolicy(initial_interval=0, jitter=False, retry_on=ValueError))
    assert app.add_edge(START, "n").compile().invoke({}, context=Ctx("r")) == {"seen": ["r"]}
    assert attempts == [1, 2, 3]


def test_get_runtime_outside_a_node_raises():
    with pytest.raises(RuntimeError):
        get_runtime()


def test_context_from_json_names_the_bad_field():
    assert context_from_json(Ctx, {"user_id": "u"}) == Ctx("u")
    assert context_from_json(TDCtx, {"user_id": "u", "n": 2}) == {"user_id": "u", "n": 2}
    assert context_from_json(None, {"any": 1}) == {"any": 1}
    cases = [
        (Ctx, {"locale": "fr"}, "user_id", "required"),
        (Ctx, {"user_id": "u", "nope": 1}, "nope", "not a field"),
        (Ctx, {"user_id": 5}, "user_id", "must be a string"),
        (TDCtx, {"user_id": "u"}, "n", "required"),
        (TDCtx, {"user_id": "u", "n": True}, "n", "must be an integer"),
        (Ctx, ["u"], "", "must be a JSON object"),
    ]
    for schema, data, field, words in cases:
        with pytest.raises(ContextError) as raised:
            context_from_json(schema, data)
        assert raised.value.field == field and words in str(raised.value), (data, str(raised.value))


def test_context_from_json_with_pydantic():
    pydantic = pytest.importorskip("pydantic")

    class P(pydantic.BaseModel):
        user_id: str
        n: int = 0

    assert context_from_json(P, {"user_id": "u", "n": "3"}) == P(user_id="u", n=3)
    with pytest.raises(ContextError) as raised:
        context_from_json(P, {"n": 1})
    assert raised.value.field == "user_id"


def test_runtime_helpers_as_langgraphs():
    from engine.runtime import ExecutionInfo, ServerInfo

    info = ExecutionInfo(checkpoint_id="c", checkpoint_ns="", task_id="t")
    a = Runtime(context=Ctx("a"), execution_info=info)
    b = Runtime(store="s", previous=1)
    merged = a.merge(b)
    assert (merged.context, merged.store, merged.previous, merged.execution_info) == (Ctx("a"), "s", 1, info)
    assert a.override(context=None).context is None
    patched = a.patch_execution_info(node_attempt=2)
    assert patched.execution_info.node_attempt == 2 and patched.execution_info.node_first_attempt_time is None
    with pytest.raises(RuntimeError):
        b.patch_execution_info(node_attempt=2)
    assert (a.drain_requested, a.drain_reason, a.server_info) == (False, None, None)
    server = ServerInfo(assistant_id="x", graph_id="g")
    assert (server.assistant_id, server.graph_id, server.user) == ("x", "g", None)


def test_a_previous_parameter_is_none_in_a_state_graph():
    """As LangGraph: ``previous`` (the functional API's last return value) is injected by name, None here."""

    def node(state: S, previous):
        return {"seen": [previous]}

    assert _graph(node).invoke({}) == {"seen": [None]}


def test_a_drain_requested_stops_the_run_before_its_next_step_and_it_goes_on_later():
    from engine.checkpoint import InMemorySaver
    from engine.errors import GraphDrained
    from engine.runtime import RunControl

    class Steps(TypedDict, total=False):
        first: str
        second: str

    control = RunControl()
    seen: list[object] = []

    def first(state: Steps, runtime: Runtime) -> dict:
        seen.append(runtime.control)
        control.request_drain("sigterm")
        return {"first": "done"}

    g = StateGraph(Steps)
    g.add_node("first", first)
    g.add_node("second", lambda s: {"second": "done"})
    g.add_edge(START, "first")
    g.add_edge("first", "second")
    app = g.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "drain", "assistant_id": "a1"}}
    with pytest.raises(GraphDrained, match="sigterm"):
        app.invoke({}, config, control=control, durability="exit")
    assert seen == [control]
    assert app.get_state(config).values == {"first": "done"} and app.get_state(config).next == ("second",)
    assert app.invoke(None, config) == {"first": "done", "second": "done"}


def test_server_info_comes_from_the_calls_configurable():
    class M(TypedDict):
        message: str

    got: list[object] = []
    g = StateGraph(M)
    g.add_node("n", lambda s, runtime: got.append(runtime.server_info) or {})
    g.add_edge(START, "n")
    app = g.compile()
    app.invoke({"message": "hi"}, {"configurable": {"assistant_id": "a1", "graph_id": "g1"}})
    app.invoke({"message": "hi"})
    assert got[0].assistant_id == "a1" and got[0].graph_id == "g1" and got[0].user is None
    assert got[1] is None
