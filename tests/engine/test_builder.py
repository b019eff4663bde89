"""StateGraph building, schemas and compile-time validation."""

from __future__ import annotations

import dataclasses
import operator
from typing import Annotated, TypedDict

import pytest

from engine import END, START, Command, GraphwireError, StateGraph
from engine.checkpoint import InMemorySaver
from engine.errors import EmptyInputError, GraphDefinitionError


class X(TypedDict):
    x: int


def test_dataclass_schema_gets_instances_and_defaults():
    @dataclasses.dataclass
    class S:
        x: int = 0
        log: Annotated[list, operator.add] = dataclasses.field(default_factory=list)

    seen = []

    def a(s: S):
        seen.append(type(s).__name__)
        return {"x": s.x + 1, "log": ["a"]}

    g = StateGraph(S)
    g.add_node("a", a)
    g.add_edge(START, "a")
    assert g.compile().invoke({"x": 1}) == {"x": 2, "log": ["a"]}
    assert seen == ["S"]


def test_pydantic_schema_when_installed():
    pydantic = pytest.importorskip("pydantic")

    class S(pydantic.BaseModel):
        x: int = 0
        log: Annotated[list, operator.add] = []

    g = StateGraph(S)
    g.add_node("a", lambda s: {"x": s.x + 1, "log": [type(s).__name__]})
    g.add_edge(START, "a")
    assert g.compile().invoke({"x": 1}) == {"x": 2, "log": ["S"]}


def test_input_and_output_schemas():
    class In(TypedDict):
        question: str

    class Out(TypedDict):
        answer: str

    class Full(In, Out):
        scratch: int

    g = StateGraph(Full, input_schema=In, output_schema=Out)
    g.add_node("a", lambda s: {"answer": s["question"].upper(), "scratch": 1})
    g.add_edge(START, "a")
    assert g.compile().invoke({"question": "hi", "scratch": 99}) == {"answer": "HI"}


def test_async_nodes_and_config_argument():
    async def a(s, config):
        return {"x": s["x"] + config["configurable"]["inc"]}

    g = StateGraph(X)
    g.add_node(a)
    g.set_entry_point("a")
    g.set_finish_point("a")
    assert g.compile().invoke({"x": 1}, {"configurable": {"inc": 5}}) == {"x": 6}


@pytest.mark.parametrize(
    "build,match",
    [
        # LangGraph's messages
        (lambda g: g.add_edge(START, "missing"), "Found edge ending at unknown node `missing`"),
        (lambda g: (g.add_node("a", lambda s: s), g.add_edge("a", END)), "Graph must have an entrypoint"),
        (lambda g: (g.add_node("a", lambda s: s), g.add_edge(START, "a"), g.add_conditional_edges("a", lambda s: "x", ["zzz"])),
         "At 'a' node, 'condition' branch found unknown target 'zzz'"),  # as LangGraph names a lambda router
        # LangGraph's order: sources, then the entry point, then targets (a node's Command destinations too)
        (lambda g: (g.add_node("a", lambda s: s), g.add_edge("a", "zz")), "Graph must have an entrypoint"),
        (lambda g: (g.add_node("a", lambda s: s, destinations=("zz",)), g.add_edge(START, "a")), "Found edge ending at unknown node `zz`"),
        (lambda g: (g.add_node("a", lambda s: s, destinations={"zz": "to zz"}), g.add_edge(START, "a")),
         "Found edge ending at unknown node `zz`"),
    ],
)
def test_validation_errors_are_clear(build, match):
    g = StateGraph(X)
    build(g)
    with pytest.raises(GraphDefinitionError, match=match):
        g.compile()


def test_compile_name():
    g = StateGraph(X)
    g.add_node("last_node", lambda s: s)
    g.add_edge(START, "last_node")
    assert g.compile(name="my-graph").name == "my-graph"
    assert g.compile().name == "LangGraph"


def test_duplicate_and_reserved_names():
    g = StateGraph(X)
    g.add_node("a", lambda s: s)
    with pytest.raises(GraphDefinitionError, match="already present"):
        g.add_node("a", lambda s: s)
    with pytest.raises(GraphDefinitionError, match="reserved"):
        g.add_node(END, lambda s: s)
    with pytest.raises(GraphDefinitionError):
        StateGraph(None)


def test_a_schema_with_no_keys_is_a_root_state():
    """As LangGraph: ``StateGraph(int)`` or ``StateGraph(Annotated[list, add])`` has one channel, the value itself."""
    g = StateGraph(int)
    g.add_node("inc", lambda n: n + 1)
    g.add_edge(START, "inc")
    assert g.compile().invoke(1) == 2
    logs = StateGraph(Annotated[list, operator.add])
    logs.add_node("a", lambda log: ["a"])
    logs.add_node("b", lambda log: [Command(update=["b"]), ["c"]])
    logs.add_edge(START, "a")
    logs.add_edge("a", "b")
    app = logs.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "root"}}
    assert list(app.stream(["in"], config, stream_mode="updates")) == [{"a": ["a"]}, {"b": [["b"], ["c"]]}]
    assert app.get_state(config).values == ["in", "a", "b", "c"]
    # history shows the task's several writes to the root as LangGraph does
    assert [t.result for s in app.get_state_history(config) for t in s.tasks if t.name == "b"] == [{"$writes": [["b"], ["c"]]}]


def test_empty_input_on_a_new_thread():
    from engine.checkpoint import InMemorySaver

    g = StateGraph(X)
    g.add_node("a", lambda s: s)
    g.add_edge(START, "a")
    app = g.compile(checkpointer=InMemorySaver())
    with pytest.raises(EmptyInputError):
        app.invoke(None, {"configurable": {"thread_id": "new"}})
    assert issubclass(EmptyInputError, GraphwireError)
    with pytest.raises(ValueError, match="thread_id"):
        app.invoke({"x": 1})


def test_get_graph_lists_nodes_and_marks_conditional_edges():
    g = StateGraph(X)
    g.add_node("a", lambda s: s)
    g.add_node("b", lambda s: s)
    g.add_edge(START, "a")
    g.add_conditional_edges("a", lambda s: END, {"again": "a", "next": "b", "stop": END})
    g.add_edge("b", END)
    drawn = g.compile().get_graph()
    assert list(drawn.nodes) == [START, "a", "b", END]
    conditional = {(e.source, e.target) for e in drawn.edges if e.conditional}
    assert conditional == {("a", "a"), ("a", "b"), ("a", END)}
    assert ("__start__", "a") in {(e.source, e.target) for e in drawn.edges if not e.conditional}


def test_a_builder_changed_after_compile_leaves_the_compiled_graph_as_it_was(caplog: pytest.LogCaptureFixture):
    """compile() freezes the graph's shape (its Topology): later edges, routes and
    nodes neither route nor draw in it, and the builder warns, as LangGraph 1.2 does."""
    g = StateGraph(X)
    g.add_node("a", lambda s: {"x": s["x"] + 1})
    g.add_node("b", lambda s: {"x": s["x"] * 10})
    g.add_edge(START, "a")
    g.add_conditional_edges("a", lambda s: END, [END])
    app = g.compile()
    drawn = app.get_graph()
    with caplog.at_level("WARNING", logger="engine.graph._state"):
        g.add_conditional_edges("a", lambda s: "b")
        g.add_edge("a", "b")
        g.add_node("c", lambda s: s)
    assert [r.getMessage() for r in caplog.records] == [
        "Adding an edge to a graph that has already been compiled. This will not be reflected in the compiled graph.",
        "Adding an edge to a graph that has already been compiled. This will not be reflected in the compiled graph.",
        "Adding a node to a graph that has already been compiled. This will not be reflected in the compiled graph.",
    ]
    assert app.invoke({"x": 1}) == {"x": 2}
    assert app.get_graph() == drawn
    assert g.compile().invoke({"x": 1}) == {"x": 20}  # the builder itself did change


def test_compile_refuses_a_checkpointer_that_is_no_saver_and_a_command_shows_its_set_fields():
    g = StateGraph(X)
    g.add_node("a", lambda s: s)
    g.add_edge(START, "a")
    with pytest.raises(TypeError, match="Invalid checkpointer provided"):
        g.compile(checkpointer=object())
    assert repr(Command(goto="a")) == "Command(goto='a')"


def test_a_node_returning_several_commands_writes_each_update_in_order():
    class Foo(TypedDict):
        foo: Annotated[str, operator.add]

    g = StateGraph(Foo)
    g.add_node("a", lambda s: [Command(update={"foo": "a1"}), Command(update=[("foo", "a2"), ("foo", "a3")], goto="b")])
    g.add_node("b", lambda s: {"foo": "b"})
    g.add_edge(START, "a")
    app = g.compile()
    assert app.invoke({"foo": ""}) == {"foo": "a1a2a3b"}
    assert list(app.stream({"foo": ""}, stream_mode="updates")) == [
        {"a": [{"foo": "a1"}, {"foo": "a2"}, {"foo": "a3"}]},
        {"b": {"foo": "b"}},
    ]


def test_a_builders_node_shows_what_it_runs_as_langgraphs_node_spec():
    import asyncio

    class Counter:
        def __init__(self) -> None:
            self.ticks = 0

        def __call__(self, s: X) -> dict:
            self.ticks += 1
            return {"x": s["x"] + 1}

    counter = Counter()
    g = StateGraph(X)
    g.add_node("count", counter)
    g.add_edge(START, "count")
    g.compile().invoke({"x": 1})
    runnable = g.nodes["count"].runnable
    assert runnable.func is counter and counter.ticks == 1
    assert runnable.invoke({"x": 1}) == {"x": 2} and asyncio.run(runnable.ainvoke({"x": 2})) == {"x": 3}


def test_a_join_and_node_names_are_checked_as_langgraph_checks_them():
    g = StateGraph(X)
    g.add_node("a", lambda s: s)
    with pytest.raises(GraphDefinitionError, match="^Need to add_node `qq` first$"):
        g.add_edge(["a", "qq"], "a")
    with pytest.raises(GraphDefinitionError, match="^Need to add_node `qq` first$"):
        g.add_edge(["a"], "qq")
    with pytest.raises(GraphDefinitionError, match="^END cannot be a start node$"):
        g.add_edge(["a", END], "a")
    with pytest.raises(GraphDefinitionError, match=r"^'\|' is a reserved character and is not allowed in the node names\.$"):
        g.add_node("b|c:d", lambda s: s)
