"""Input/output schemas, private state and node input schemas, as LangGraph 1.2 (issue 18 item 6).

Observed on LangGraph 1.2.22 by ``tests/sidebyside/private_state.py``: input is
filtered by the input schema and ``invoke``'s output by the output schema,
while snapshots, history and the values/checkpoints streams show the whole
state, private keys included. A node's first parameter annotated with a schema
is its input schema, and that schema's keys become channels; a router
annotated with a schema reads that, one without reads its node's schema plus
what its node returned.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from engine.graph import END, START, StateGraph


class In(TypedDict):
    question: str


class Out(TypedDict):
    answer: str


class Full(In, Out):
    scratch: int


class Private(TypedDict):
    secret: str
    question: str
    notes: Annotated[list, operator.add]


class RouterView(TypedDict):
    secret: str


def _graph(checkpointer: Any, seen: list) -> Any:
    def a(state: In) -> dict:
        seen.append(("a", dict(state)))
        return {"secret": "s-" + state["question"], "scratch": 1, "notes": ["a"], "not_a_key": 1}

    def b(state: Private) -> dict:
        seen.append(("b", dict(state)))
        return {"answer": state["secret"].upper(), "notes": ["b"]}

    def c(state):  # unannotated: the state schema's keys, not the private ones
        seen.append(("c", dict(state)))
        return {"secret": "again", "extra": 3}

    def route_b(state):
        seen.append(("route_b", dict(state)))
        return "c"

    def route_c(state: RouterView):
        seen.append(("route_c", dict(state)))
        return END if state["secret"] == "again" else "c"

    g = StateGraph(Full, input_schema=In, output_schema=Out)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_node("c", c)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_conditional_edges("b", route_b, ["c"])
    g.add_conditional_edges("c", route_c, ["c", END])
    return g.compile(checkpointer=checkpointer)


CFG = {"configurable": {"thread_id": "t"}}
WHOLE = {"question": "hi", "answer": "S-HI", "scratch": 1, "secret": "again", "notes": ["a", "b"]}


def test_input_and_output_are_filtered_and_the_snapshot_is_whole(checkpointer: Any) -> None:
    seen: list = []
    app = _graph(checkpointer, seen)
    assert app.invoke({"question": "hi", "scratch": 99, "bogus": 1}, CFG) == {"answer": "S-HI"}
    snap = app.get_state(CFG)
    assert snap.values == WHOLE and list(snap.values) == list(WHOLE)  # channel order, as LangGraph
    history = list(app.get_state_history(CFG))
    assert [h.values for h in reversed(history)] == [
        {"notes": []},  # a reducer key reads as empty from the start
        {"question": "hi", "notes": []},  # scratch=99 was not in the input schema
        {"question": "hi", "scratch": 1, "secret": "s-hi", "notes": ["a"]},
        {"question": "hi", "answer": "S-HI", "scratch": 1, "secret": "s-hi", "notes": ["a", "b"]},
        WHOLE,
    ]
    assert history[1].tasks[0].result == {"secret": "again"}  # c's task result: its known keys


def test_nodes_and_routers_read_their_own_schemas(checkpointer: Any) -> None:
    seen: list = []
    _graph(checkpointer, seen).invoke({"question": "hi"}, CFG)
    assert seen == [
        ("a", {"question": "hi"}),
        ("b", {"secret": "s-hi", "question": "hi", "notes": ["a"]}),
        # b's schema, fresh, over what b returned
        ("route_b", {"answer": "S-HI", "notes": ["a", "b"], "secret": "s-hi", "question": "hi"}),
        ("c", {"question": "hi", "answer": "S-HI", "scratch": 1}),
        ("route_c", {"secret": "again"}),
    ]


def test_streams_show_the_whole_state_and_invoke_the_output(checkpointer: Any) -> None:
    app = _graph(checkpointer, [])
    values = list(app.stream({"question": "hi"}, CFG, stream_mode="values"))
    assert values[0] == {"question": "hi", "notes": []} and values[-1] == WHOLE and len(values) == 4
    assert [c["values"] for c in app.stream({"question": "hi"}, {"configurable": {"thread_id": "u"}}, stream_mode="checkpoints")][-1] == WHOLE
    updates = list(app.stream({"question": "yo"}, CFG, stream_mode="updates"))
    assert updates == [
        {"a": {"secret": "s-yo", "scratch": 1, "notes": ["a"]}},  # not_a_key: in no schema, dropped
        {"b": {"answer": "S-YO", "notes": ["b"]}},
        {"c": {"secret": "again"}},
    ]
    assert app.invoke({"question": "v"}, CFG, stream_mode="values") == {"answer": "S-V"}


def test_update_state_writes_private_keys_and_drops_unknown_ones(checkpointer: Any) -> None:
    app = _graph(checkpointer, [])
    app.invoke({"question": "hi"}, CFG)
    app.update_state(CFG, {"secret": "upd", "bogus": 2})
    assert app.get_state(CFG).values == {**WHOLE, "secret": "upd"}


@dataclasses.dataclass
class DState:
    x: int = 0


class Side(TypedDict):
    x: int
    side: int


@pytest.mark.parametrize("how", ["input_schema", "input", "annotation"])
def test_a_node_input_schema_adds_its_keys(checkpointer: Any, how: str) -> None:
    seen: list = []

    def first(state):
        seen.append(("first", dict(state)))
        return {"side": state["x"] * 10}

    def annotated(state: Side):
        return first(state)

    def second(state: DState):
        seen.append(("second", state))
        return {"x": state.x + 1}

    g = StateGraph(DState)
    if how == "annotation":
        g.add_node("first", annotated)
    else:
        g.add_node("first", first, **{how: Side})
    g.add_node("second", second)
    g.add_edge(START, "first")
    g.add_edge("first", "second")
    app = g.compile(checkpointer=checkpointer)
    assert app.invoke({"x": 2}, CFG) == {"x": 3}  # the output schema is the state's
    assert seen == [("first", {"x": 2}), ("second", DState(x=2))]
    assert app.get_state(CFG).values == {"x": 3, "side": 20}


def test_annotations_that_are_not_schemas_infer_nothing() -> None:
    class S(TypedDict):
        x: int

    def plain(state: dict) -> dict:  # dict has no keys: the state's schema
        return {"x": len(state) + state["x"]}

    def text(state: "NotDefinedAnywhere") -> dict:  # noqa: F821 - unresolvable, as LangGraph: ignored
        return {"x": state["x"] + 1}

    g = StateGraph(S).add_sequence([plain, text])
    g.add_edge(START, "plain")
    assert g.compile().invoke({"x": 1}) == {"x": 3}


class _JSt(TypedDict, total=False):
    x: int
    log: Annotated[list[str], operator.add]


class _JIn(TypedDict):
    x: int


@dataclasses.dataclass
class _JD:
    name: str
    n: int = 3
    note: str | None = None


def test_json_schemas_of_input_and_output_as_langgraph():
    """tests/sidebyside/json_schemas.py: a TypedDict's schema through pydantic (titled after it), a
    dataclass's as a model named after the graph's input/output with its defaults, a model's own."""
    from pydantic import BaseModel

    g = StateGraph(_JSt, input_schema=_JIn).add_node("n", lambda s: {"log": ["n"]}).add_edge(START, "n").compile()
    assert g.get_input_jsonschema() == {"properties": {"x": {"title": "X", "type": "integer"}}, "required": ["x"],
                                        "title": "_JIn", "type": "object"}
    assert g.get_output_jsonschema()["properties"]["log"] == {"items": {"type": "string"}, "title": "Log", "type": "array"}

    d = StateGraph(_JD).add_node("n", lambda s: {}).add_edge(START, "n").compile().get_input_jsonschema()
    assert (d["title"], d["required"], d["properties"]["n"]["default"]) == ("LangGraphInput", ["name"], 3)

    class P(BaseModel):
        a: int

    assert StateGraph(P).add_node("n", lambda s: {}).add_edge(START, "n").compile().get_output_jsonschema() == P.model_json_schema()


def test_a_node_may_return_any_object_with_annotated_keys_as_its_update() -> None:
    """As LangGraph: an object of another class (a Pydantic model here) updates the keys it has; of a
    Pydantic model, those set, not None, or whose default is not None."""
    import pydantic

    class State(TypedDict, total=False):
        query: str
        answer: str
        docs: list

    class Update(pydantic.BaseModel):
        query: str | None = None
        answer: str | None = None
        docs: list = []

    g = StateGraph(State)
    g.add_node("n", lambda s: Update(query="q2"))
    g.add_edge(START, "n")
    assert g.compile().invoke({"query": "q", "answer": "a", "docs": [1]}) == {"query": "q2", "answer": "a", "docs": []}
