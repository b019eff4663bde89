"""LangGraph's channel kinds and names: UntrackedValue, AnyValue, channels named in a schema, ValueType/UpdateType."""

from __future__ import annotations

import operator
import threading
from collections.abc import Sequence
from typing import Annotated, Any, TypedDict

import pytest

from engine import START, Send, StateGraph
from engine.channels import AnyValue, EphemeralValue, LastValue, NamedBarrierValue, Topic, UntrackedValue
from engine.channels.base import MISSING
from engine.errors import EmptyChannelError, InvalidUpdateError


def test_value_and_update_types_are_langgraphs():
    assert LastValue(int).ValueType is int and LastValue(int).UpdateType is int
    assert Topic(str).ValueType == Sequence[str]
    assert Topic(str).UpdateType == (str | list[str])
    assert NamedBarrierValue(str, {"a"}).ValueType is str


def test_untracked_value_holds_a_value_and_stores_none():
    ch = UntrackedValue(dict).from_checkpoint(MISSING)
    with pytest.raises(EmptyChannelError):
        ch.get()
    ch.update([{"a": 1}])
    assert ch.get() == {"a": 1}
    assert ch.checkpoint() is MISSING
    with pytest.raises(InvalidUpdateError, match="one value per step"):
        ch.update([1, 2])
    assert UntrackedValue(int, guard=False).update([1, 2])
    with pytest.raises(EmptyChannelError):
        ch.from_checkpoint(ch.checkpoint()).get()


def test_any_value_takes_several_writes_and_clears_on_none():
    ch = AnyValue(int)
    assert ch.update([1, 1]) and ch.get() == 1
    assert ch.update([]) and not ch.is_available()
    assert not ch.update([])


class _Resource:
    """Something no saver could store (it holds a lock)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.lock = threading.Lock()


class _State(TypedDict):
    log: Annotated[list[str], operator.add]
    resource: Annotated[_Resource, UntrackedValue]
    seen: Annotated[int, EphemeralValue]


def test_an_untracked_key_lives_in_the_run_and_no_version_stores_it(checkpointer: Any):
    """Nodes (a Send's task too) see the key; the call returns it; the thread's state never holds it."""

    def setup(state: _State) -> dict[str, Any]:
        return {"log": ["setup"], "resource": _Resource("first"), "seen": 1}

    def fan_out(state: _State) -> list[Send]:
        return [Send("tool", state)]

    def tool(state: _State) -> dict[str, Any]:
        assert isinstance(state["resource"], _Resource)
        return {"log": [f"used {state['resource'].name}"], "resource": _Resource("second")}

    builder = StateGraph(_State)
    builder.add_node("setup", setup)
    builder.add_node("tool", tool)
    builder.add_edge(START, "setup")
    builder.add_conditional_edges("setup", fan_out)
    graph = builder.compile(checkpointer=checkpointer)
    config = {"configurable": {"thread_id": "untracked"}}
    out = graph.invoke({"log": []}, config)
    assert out["log"] == ["setup", "used first"]
    assert out["resource"].name == "second"
    state = graph.get_state(config)
    assert "resource" not in state.values
    assert state.values["log"] == ["setup", "used first"]
    for snapshot in graph.get_state_history(config):
        assert "resource" not in snapshot.values


def test_a_channel_named_in_the_schema_is_that_channel():
    """``Annotated[int, EphemeralValue]``: the key lives one step, as in LangGraph."""
    builder = StateGraph(_State)
    builder.add_node("a", lambda s: {"seen": 5})
    builder.add_node("b", lambda s: {"log": [f"seen={s.get('seen')}"]})
    builder.add_node("c", lambda s: {"log": [f"seen={s.get('seen')}"]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", "c")
    graph = builder.compile()
    assert isinstance(graph.channels["seen"], EphemeralValue)
    assert graph.invoke({"log": []})["log"] == ["seen=5", "seen=None"]
