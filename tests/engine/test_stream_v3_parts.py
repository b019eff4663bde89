"""``stream``/``invoke(version="v2")``: LangGraph's typed parts and GraphOutput, which the v3 stream reads."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Any

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

from engine.checkpoint import InMemorySaver
from engine.graph import START, StateGraph
from engine.types import GraphOutput, Interrupt, interrupt


class Steps(TypedDict):
    log: Annotated[list[str], operator.add]


class Model(BaseModel):
    value: str
    items: Annotated[list[str], operator.add]


@dataclass
class Data:
    value: str
    items: Annotated[list[str], operator.add]


def _plain() -> Any:
    g = StateGraph(Steps).add_node("a", lambda s: {"log": ["a"]}).add_node("b", lambda s: {"log": ["b"]})
    return g.add_edge(START, "a").add_edge("a", "b").compile()


def test_parts_whatever_the_modes() -> None:
    parts = list(_plain().stream({"log": []}, stream_mode=["values", "updates"], version="v2"))
    assert [(p["type"], p["ns"], p["data"], p.get("interrupts")) for p in parts] == [
        ("values", (), {"log": []}, ()),
        ("updates", (), {"a": {"log": ["a"]}}, None),
        ("values", (), {"log": ["a"]}, ()),
        ("updates", (), {"b": {"log": ["b"]}}, None),
        ("values", (), {"log": ["a", "b"]}, ()),
    ]
    assert list(_plain().stream({"log": []}, stream_mode="updates", version="v2")) == [
        {"type": "updates", "ns": (), "data": {"a": {"log": ["a"]}}},
        {"type": "updates", "ns": (), "data": {"b": {"log": ["b"]}}},
    ]
    assert [p["data"] for p in _plain().invoke({"log": []}, stream_mode="updates", version="v2")] == [{"a": {"log": ["a"]}}, {"b": {"log": ["b"]}}]


@pytest.mark.parametrize("schema", [Model, Data])
def test_values_are_the_schema_s_instances(schema: Any) -> None:
    g = StateGraph(schema).add_node("a", lambda s: {"value": s.value + "_a", "items": ["a"]}).add_edge(START, "a")
    app = g.compile(checkpointer=InMemorySaver())
    parts = list(app.stream({"value": "x", "items": []}, {"configurable": {"thread_id": "1"}}, stream_mode=["values", "checkpoints"], version="v2"))
    assert all(isinstance(p["data"], schema) for p in parts if p["type"] == "values")
    assert [isinstance(p["data"]["values"], schema) for p in parts if p["type"] == "checkpoints"] == [False, True, True]
    out = app.invoke({"value": "x", "items": []}, {"configurable": {"thread_id": "2"}}, version="v2")
    assert isinstance(out, GraphOutput) and out.value == schema(value="x_a", items=["a"]) and out.interrupts == ()


def test_an_interrupt_apart_from_the_values() -> None:
    def ask(state: Steps) -> dict[str, Any]:
        return {"log": [interrupt("name?")]}

    app = StateGraph(Steps).add_node("ask", ask).add_edge(START, "ask").compile(checkpointer=InMemorySaver())
    parts = list(app.stream({"log": []}, {"configurable": {"thread_id": "t"}}, stream_mode="values", version="v2"))
    last = parts[-1]
    assert last["data"] == {"log": []} and [i.value for i in last["interrupts"]] == ["name?"]
    assert isinstance(last["interrupts"][0], Interrupt)
    out = app.invoke({"log": []}, {"configurable": {"thread_id": "u"}}, version="v2")
    assert out.value == {"log": []} and [i.value for i in out.interrupts] == ["name?"]
    with pytest.warns(DeprecationWarning):
        assert out["__interrupt__"] == out.interrupts
