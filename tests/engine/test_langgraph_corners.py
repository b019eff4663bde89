"""Corners of LangGraph's behaviour found by running the same programs on LangGraph 1.2.22 and on the engine
(their side-by-side programs: tests/sidebyside/corners.py). Each test fails without its fix."""

from __future__ import annotations

import operator
from typing import Annotated, Any

import pytest
from typing_extensions import NotRequired, TypedDict

from engine.channels import EphemeralValue
from engine.graph import START, StateGraph


class Flagged(TypedDict):
    n: int
    flag: NotRequired[Annotated[str, EphemeralValue]]


def test_a_one_step_value_is_still_in_the_version_a_new_input_makes(checkpointer: Any) -> None:
    """Time moves on at a step whose tasks were triggered: the input's version (step -1 of the next call)
    still shows the last run's one-step value, START's step clears it (create_agent's jump_to is one)."""
    g = StateGraph(Flagged).add_node("a", lambda s: {"n": s["n"] + 1, "flag": "set"}).add_edge(START, "a").compile(checkpointer=checkpointer)
    cfg = {"configurable": {"thread_id": "t"}}
    assert g.invoke({"n": 1}, cfg) == {"n": 2, "flag": "set"}
    assert g.invoke({"n": 10}, cfg) == {"n": 11, "flag": "set"}
    by_step = {s.metadata["step"]: s.values for s in g.get_state_history(cfg)}
    assert by_step[2] == {"n": 2, "flag": "set"}  # the second call's input version: still there
    assert by_step[3] == {"n": 10}  # its START step: cleared
    assert by_step[-1] == {} and by_step[0] == {"n": 1}


class Tally(TypedDict):
    tally: Annotated[NotRequired[list], operator.add]
    x: int


def test_a_reducer_key_marked_not_required_inside_annotated_starts_empty() -> None:
    g = StateGraph(Tally).add_node("a", lambda s: {"x": len(s["tally"])}).add_edge(START, "a").compile()
    assert g.invoke({"x": 0}) == {"tally": [], "x": 0}


def test_empty_breakpoint_lists_at_call_time_are_the_compiled_ones() -> None:
    """As LangGraph's `interrupt_before or self.interrupt_before_nodes`."""
    from engine.checkpoint import InMemorySaver

    class S(TypedDict):
        x: int

    g = (StateGraph(S).add_node("a", lambda s: {"x": 2}).add_node("b", lambda s: {"x": 20}).add_edge(START, "a").add_edge("a", "b")
         .compile(checkpointer=InMemorySaver(), interrupt_after=["a"]))  # fmt: skip
    assert g.invoke({"x": 0}, {"configurable": {"thread_id": "1"}}, interrupt_after=[]) == {"x": 2}
    assert g.invoke({"x": 0}, {"configurable": {"thread_id": "2"}}, interrupt_before=[]) == {"x": 2}


def picky(a: str, b: str) -> str:
    if b == "bad":
        raise ValueError("reducer refuses")
    return a + b


class Picky(TypedDict):
    s: Annotated[str, picky]


def test_a_reducer_refusing_an_update_state_raises_its_own_error(checkpointer: Any) -> None:
    """As LangGraph: the reducer's ValueError itself (so `except ValueError` catches it), with a note."""
    g = StateGraph(Picky).add_node("a", lambda st: {"s": "A"}).add_edge(START, "a").compile(checkpointer=checkpointer)
    cfg = {"configurable": {"thread_id": "t"}}
    g.invoke({"s": ""}, cfg)
    head = g.get_state(cfg).config
    with pytest.raises(ValueError, match="reducer refuses") as refused:
        g.update_state(cfg, {"s": "bad"})
    assert refused.value.__notes__ == ["update_state: the state's reducers rejected {'s': 'bad'}"]
    assert g.get_state(cfg).config == head  # nothing written


def test_stream_with_output_keys_shows_those_keys() -> None:
    class S(TypedDict):
        log: Annotated[list, operator.add]
        x: int

    g = StateGraph(S).add_node("a", lambda s: {"log": ["a"], "x": 1}).add_edge(START, "a").compile()
    assert list(g.stream({"log": []}, output_keys="log", stream_mode="values")) == [[], ["a"]]
    assert list(g.stream({"log": []}, output_keys=["x"], stream_mode="updates")) == [{"a": {"x": 1}}]
    assert list(g.stream({"log": []}, output_keys="log", stream_mode="updates")) == [{"a": ["a"]}]


def test_a_messages_chunk_keeps_the_runs_own_ls_integration() -> None:
    """LangGraph adds ls_integration "langgraph" only where the run's metadata has none (create_agent's says
    "langchain_create_agent"); a message a node returns whole is sent with the run's metadata."""
    from langchain_core.messages import AIMessage

    from engine.graph import MessagesState

    g = StateGraph(MessagesState).add_node("n", lambda s: {"messages": [AIMessage("made", id="m1")]}).add_edge(START, "n").compile()
    seen = [md["ls_integration"] for _, md in g.stream({"messages": []}, {"metadata": {"ls_integration": "mine"}}, stream_mode="messages")]
    assert seen == ["mine"]
    assert [md["ls_integration"] for _, md in g.stream({"messages": []}, stream_mode="messages")] == ["langgraph"]


def test_the_checkpoints_stream_shows_the_loops_metadata_only(checkpointer: Any) -> None:
    """LangGraph's checkpoints and debug chunks carry source, step and parents; the call's metadata and plain
    configurable keys are the saver's to merge into the stored version."""
    class S(TypedDict):
        x: int

    g = StateGraph(S).add_node("a", lambda s: {"x": 1}).add_edge(START, "a").compile(checkpointer=checkpointer)
    cfg = {"configurable": {"thread_id": "t", "plain": "p"}, "metadata": {"mine": 2}}
    chunks = [c["metadata"] for c in g.stream({"x": 0}, cfg, stream_mode="checkpoints")]
    assert chunks == [{"source": "input", "step": -1, "parents": {}}, {"source": "loop", "step": 0, "parents": {}},
                      {"source": "loop", "step": 1, "parents": {}}]  # fmt: skip
    debug = [c["payload"]["metadata"] for c in g.stream({"x": 0}, {**cfg, "configurable": {"thread_id": "u"}}, stream_mode="debug") if c["type"] == "checkpoint"]
    assert debug == chunks
    stored = g.get_state(cfg).metadata
    assert stored is not None and (stored["mine"], stored["plain"], stored["source"]) == (2, "p", "loop")


class Asked(TypedDict):
    x: str


def test_a_graph_invoked_inside_a_task_call_nests_under_it(checkpointer: Any) -> None:
    """As LangGraph: a compiled graph a @task invokes (no config passed) runs as a subgraph of the call (namespace
    `caller:id|task:id`): its interrupt stops the caller's run, and the resume reaches it."""
    from engine.func import entrypoint, task
    from engine.types import Command, interrupt

    inner = StateGraph(Asked).add_node("ask", lambda s: {"x": interrupt("q")}).add_edge(START, "ask").compile()

    @task
    def run_graph(x: str) -> dict[str, Any]:
        return inner.invoke({"x": x})

    @entrypoint(checkpointer=checkpointer)
    def flow(x: str) -> dict[str, Any]:
        return run_graph(x).result()

    def node(s: Asked) -> dict[str, Any]:
        return {"x": run_graph(s["x"]).result()["x"] + "!"}

    graph = StateGraph(Asked).add_node("n", node).add_edge(START, "n").compile(checkpointer=checkpointer)
    for outer, inp, done in ((flow, "a", {"x": "yes"}), (graph, {"x": "a"}, {"x": "yes!"})):
        cfg = {"configurable": {"thread_id": f"t-{id(outer)}"}}
        asked = outer.invoke(inp, cfg)
        assert [i.value for i in asked["__interrupt__"]] == ["q"]
        assert outer.invoke(Command(resume="yes"), cfg) == done


def test_an_update_as_input_keeps_the_node_a_breakpoint_stopped_before(checkpointer: Any) -> None:
    g = (StateGraph(Tally).add_node("a", lambda s: {"x": 1}).add_node("b", lambda s: {"x": 2}).add_edge(START, "a").add_edge("a", "b")
         .compile(checkpointer=checkpointer, interrupt_before=["b"]))  # fmt: skip
    cfg = {"configurable": {"thread_id": "t"}}
    g.invoke({"x": 0}, cfg)
    g.update_state(cfg, {"tally": ["in"]}, as_node="__input__")
    assert g.get_state(cfg).next == ("__start__", "b")


class Mapped(TypedDict):
    foo: str
    tasks: Annotated[list[int], operator.add]


def test_updates_as_a_send_target_answer_its_sends(checkpointer: Any) -> None:
    """An update moves time on whatever its node's triggers (LangGraph's update tasks are triggered by
    __interrupt__): updates as the node three Sends went to leave nothing due."""
    from engine.types import Send, StateUpdate

    g = (StateGraph(Mapped).add_node("map", lambda s: {"foo": "map"}).add_node("task", lambda s: {"tasks": [s["index"]]})
         .add_edge(START, "map").compile(checkpointer=checkpointer))  # fmt: skip
    cfg = {"configurable": {"thread_id": "t"}}
    from engine.types import Command

    sends = Command(goto=[Send("task", {"index": i}) for i in range(3)], update={"foo": "map"})
    g.bulk_update_state(cfg, [
        [StateUpdate({"foo": "input"}, "__input__")], [StateUpdate({"foo": "input"}, "__start__")], [StateUpdate(sends, "map")],
        [StateUpdate({"tasks": [i]}, "task") for i in range(3)],
    ])  # fmt: skip
    state = g.get_state(cfg)
    assert state.values == {"foo": "map", "tasks": [0, 1, 2]} and state.next == () and state.tasks == ()


class Full(TypedDict, total=False):
    a: str
    secret: str


class Out(TypedDict, total=False):
    a: str


def test_invoke_streams_its_output_schemas_keys_and_the_versions_whole() -> None:
    """As LangGraph's invoke (a subgraph node's run is one): its values and updates chunks hold the output
    schema's keys; the tasks, checkpoints and debug modes every key, as stream() shows them all."""
    from engine.checkpoint import InMemorySaver

    sub = StateGraph(Full, output_schema=Out).add_node("s", lambda st: {"a": st["a"] + "!", "secret": "x"}).add_edge(START, "s").compile()
    assert sub.invoke({"a": "hi"}, stream_mode="updates") == [{"s": {"a": "hi!"}}]
    assert list(sub.stream({"a": "hi"}, stream_mode="updates")) == [{"s": {"a": "hi!", "secret": "x"}}]
    parent = StateGraph(Full).add_node("sub", sub).add_edge(START, "sub").compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    nested = [(m, c) for ns, m, c in parent.stream({"a": "hi"}, cfg, stream_mode=["updates", "values", "tasks", "checkpoints"], subgraphs=True) if ns]
    assert [c for m, c in nested if m == "updates"] == [{"s": {"a": "hi!"}}]
    assert [c for m, c in nested if m == "values"] == [{"a": "hi"}, {"a": "hi!"}]
    assert [c["result"] for m, c in nested if m == "tasks" and "result" in c] == [{"a": "hi!", "secret": "x"}]
    assert [c["values"] for m, c in nested if m == "checkpoints"][-1] == {"a": "hi!", "secret": "x"}
