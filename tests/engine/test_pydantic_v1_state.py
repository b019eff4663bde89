"""A ``pydantic.v1`` model as a StateGraph's state (issue 29, prebuilt's
test_tool_node_send_tool_call_gets_same_state_as_edge[_InjectedStatePydanticSchema]), as LangGraph 1.2.22 reads it:
its annotated keys are the channels, nodes get dicts, values are not validated, a node may return an instance.
Observed on LangGraph by tests/sidebyside/pydantic_v1_state.py."""

from __future__ import annotations

import operator
import warnings
from typing import Annotated, Any

from langchain_core.messages import AIMessage, ToolCall

from engine.checkpoint.memory import InMemorySaver
from engine.graph import START, StateGraph
from engine.prebuilt import InjectedState, ToolNode, ToolRuntime
from engine.types import Send

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from pydantic.v1 import BaseModel as BaseModelV1


class State(BaseModelV1):
    foo: str
    items: Annotated[list, operator.add] = []


def test_nodes_read_dicts_and_keys_fold() -> None:
    seen: list[Any] = []

    def first(state: Any) -> dict[str, Any]:
        seen.append((type(state).__name__, state["foo"]))
        return {"foo": f"{state['foo']}!", "items": [1]}

    def second(state: Any) -> State:
        seen.append(sorted(state))
        return State(foo="from a model", items=[2])

    graph = (
        StateGraph(State).add_node("first", first).add_node("second", second)
        .add_edge(START, "first").add_edge("first", "second").compile(checkpointer=InMemorySaver())
    )  # fmt: skip
    cfg: Any = {"configurable": {"thread_id": "1"}}
    assert graph.invoke({"foo": "a", "items": []}, cfg) == {"foo": "from a model", "items": [1, 2]}
    assert sorted(k for k in graph.channels if not k.startswith("branch:")) == ["__pregel_tasks", "__start__", "foo", "items"]
    assert [s.values for s in graph.get_state_history(cfg)] == [
        {"foo": "from a model", "items": [1, 2]}, {"foo": "a!", "items": [1]}, {"foo": "a", "items": []}, {"items": []},
    ]  # fmt: skip
    graph.invoke({"foo": 1}, {"configurable": {"thread_id": "2"}})  # not validated: the node gets the int
    assert seen == [("dict", "a"), ["foo", "items"], ("dict", 1), ["foo", "items"]]


def test_a_tool_node_sees_dicts_by_edge_and_by_send() -> None:
    class ToolState(BaseModelV1):
        messages: list
        foo: str

    call = ToolCall(name="record_types", args={}, id="call_1", type="tool_call")
    types: list[tuple[str, str]] = []

    def record_types(runtime: ToolRuntime, state: Annotated[Any, InjectedState]) -> str:
        """Records the state types the tool gets."""
        types.append((type(runtime.state).__name__, type(state).__name__))
        return "ok"

    def agent(state: Any) -> dict[str, Any]:
        return {"messages": [AIMessage("", tool_calls=[call])]}

    for route in (lambda _: [Send("tools", [call])], lambda _: "tools"):
        graph = (
            StateGraph(ToolState).add_node("agent", agent).add_node("tools", ToolNode([record_types]))
            .add_edge(START, "agent").add_conditional_edges("agent", route, ["tools"]).compile()
        )  # fmt: skip
        out = graph.invoke({"messages": [], "foo": "bar"})
        assert out["foo"] == "bar" and out["messages"][-1].content == "ok"
    assert types == [("dict", "dict"), ("dict", "dict")]
