"""Corners found by probing LangGraph 1.2.22 beside the engine (tests/engine/test_langgraph_corners.py pins them):
a one-step value in the version a new input makes; ls_integration of a whole message in the messages stream;
NotRequired inside Annotated on a reducer key; empty breakpoint lists at call time; a reducer refusing an
update_state; stream() with output_keys; a history filter on None; the checkpoints stream's metadata; a graph
invoked inside a @task; an update as __input__ on a thread stopped before a node; invoke's chunks of an output schema's keys
(a subgraph node's too); updates as a Send target answering its Sends."""
import operator
import sqlite3
from typing import Annotated

from langchain_core.messages import AIMessage
from typing_extensions import NotRequired, TypedDict

from langgraph.channels import EphemeralValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import StateUpdate
from observe import call, history, record


class Flagged(TypedDict):
    n: int
    flag: NotRequired[Annotated[str, EphemeralValue]]


g = StateGraph(Flagged).add_node("a", lambda s: {"n": s["n"] + 1, "flag": "set"}).add_edge(START, "a").compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "t"}}
record("ephemeral run1", g.invoke({"n": 1}, cfg))
record("ephemeral run2", g.invoke({"n": 10}, cfg))
history(g, cfg)

m = StateGraph(MessagesState).add_node("n", lambda s: {"messages": [AIMessage("hand made", id="m1")]}).add_edge(START, "n").compile()
for c in ({}, {"metadata": {"ls_integration": "mine"}}):
    record(f"ls_integration {c}", [md.get("ls_integration") for _, md in m.stream({"messages": []}, c, stream_mode="messages")])
record("ls_integration with_config", [md.get("ls_integration") for _, md in m.with_config(metadata={"ls_integration": "graph's"}).stream({"messages": []}, stream_mode="messages")])


class Tally(TypedDict):
    n: int
    inner: Annotated[NotRequired[list], operator.add]
    outer: NotRequired[Annotated[list, operator.add]]


record("not required inside annotated", StateGraph(Tally).add_node("a", lambda s: {"n": 2}).add_edge(START, "a").compile().invoke({"n": 1}))


class X(TypedDict):
    x: int


def build(**kw):
    return (StateGraph(X).add_node("a", lambda s: {"x": s["x"] + 1}).add_node("b", lambda s: {"x": s["x"] * 10})
            .add_edge(START, "a").add_edge("a", "b").compile(checkpointer=InMemorySaver(), **kw))


record("after=[]", build(interrupt_after=["a"]).invoke({"x": 1}, {"configurable": {"thread_id": "1"}}, interrupt_after=[]))
record("before=[]", build(interrupt_before=["b"]).invoke({"x": 1}, {"configurable": {"thread_id": "2"}}, interrupt_before=[]))


def picky(a, b):
    if b == "bad":
        raise ValueError("reducer refuses")
    return a + b


class Picky(TypedDict):
    s: Annotated[str, picky]


p = StateGraph(Picky).add_node("a", lambda st: {"s": "A"}).add_edge(START, "a").compile(checkpointer=InMemorySaver())
p.invoke({"s": ""}, cfg)
call("update_state refused", p.update_state, cfg, {"s": "bad"})
call("update_state as_node refused", p.update_state, cfg, {"s": "bad"}, "a")
call("bulk_update_state refused", p.bulk_update_state, cfg, [[StateUpdate({"s": "bad"}, "a")]])


class Logged(TypedDict):
    log: Annotated[list, operator.add]
    x: int


o = StateGraph(Logged).add_node("a", lambda s: {"log": ["a"], "x": 1}).add_edge(START, "a").compile()
call("values, one key", lambda: list(o.stream({"log": []}, output_keys="log", stream_mode="values")))
call("values, key list", lambda: list(o.stream({"log": []}, output_keys=["log"], stream_mode="values")))
call("updates, key list", lambda: list(o.stream({"log": []}, output_keys=["x"], stream_mode="updates")))
call("updates, one key", lambda: list(o.stream({"log": []}, output_keys="log", stream_mode="updates")))

for name, saver in (("memory", InMemorySaver()), ("sqlite", SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False)))):
    f = StateGraph(X).add_node("a", lambda s: {"x": 1}).add_edge(START, "a").compile(checkpointer=saver)
    f.invoke({"x": 0}, {**cfg, "metadata": {"tag": None}})
    record(name + " filter: missing key None", len(list(f.get_state_history(cfg, filter={"nope": None}))))
    record(name + " filter: key set to None", len(list(f.get_state_history(cfg, filter={"tag": None}))))

cp = StateGraph(X).add_node("a", lambda s: {"x": 1}).add_edge(START, "a").compile(checkpointer=InMemorySaver())
meta_cfg = {"configurable": {"thread_id": "m", "plain": "p"}, "metadata": {"mine": 2}}
record("checkpoints chunk metadata", [c["metadata"] for c in cp.stream({"x": 0}, meta_cfg, stream_mode="checkpoints")])
record("debug chunk metadata", [c["payload"]["metadata"] for c in cp.stream({"x": 0}, meta_cfg, stream_mode="debug") if c["type"] == "checkpoint"])
record("saved metadata", cp.get_state(meta_cfg).metadata)

from langgraph.func import entrypoint, task  # noqa: E402
from langgraph.types import Command, interrupt  # noqa: E402


class Asked(TypedDict):
    x: str


inner = StateGraph(Asked).add_node("ask", lambda s: {"x": interrupt("q")}).add_edge(START, "ask").compile()


@task
def run_graph(x):
    return inner.invoke({"x": x})


@entrypoint(checkpointer=InMemorySaver())
def in_task(x):
    return run_graph(x).result()


tasked = StateGraph(Asked).add_node("n", lambda s: {"x": run_graph(s["x"]).result()["x"]}).add_edge(START, "n").compile(checkpointer=InMemorySaver())
for name, outer, inp in (("graph in a task", in_task, "a"), ("graph in a task in a node", tasked, {"x": "a"})):
    c = {"configurable": {"thread_id": name}}
    call(name, outer.invoke, inp, c)
    call(name + " resumed", outer.invoke, Command(resume="yes"), c)

paused = (StateGraph(Logged).add_node("a", lambda s: {"log": ["a"]}).add_node("b", lambda s: {"log": ["b"]})
          .add_edge(START, "a").add_edge("a", "b").compile(checkpointer=InMemorySaver(), interrupt_before=["b"]))
paused.invoke({"log": []}, cfg)
paused.update_state(cfg, {"log": ["in"]}, as_node="__input__")
record("next after an update as __input__", list(paused.get_state(cfg).next))
record("run after it", paused.invoke(None, cfg))


class Full(TypedDict, total=False):
    a: str
    secret: str


class Out(TypedDict, total=False):
    a: str


narrow = StateGraph(Full, output_schema=Out).add_node("s", lambda st: {"a": st["a"] + "!", "secret": "x"}).add_edge(START, "s").compile()
record("invoke updates, an output schema", narrow.invoke({"a": "hi"}, stream_mode="updates"))
record("invoke updates and values", narrow.invoke({"a": "hi"}, stream_mode=["updates", "values"]))
record("stream updates, an output schema", list(narrow.stream({"a": "hi"}, stream_mode="updates")))
holder = StateGraph(Full).add_node("sub", narrow).add_edge(START, "sub").compile(checkpointer=InMemorySaver())
shown = {  # what each mode's chunk holds of the state (ids and namespaces aside)
    "updates": lambda c: c, "values": lambda c: c, "tasks": lambda c: c.get("result"), "checkpoints": lambda c: c["values"],
    "debug": lambda c: (c["type"], c["payload"].get("values", c["payload"].get("result"))),
}
for i, (mode, part) in enumerate(shown.items()):
    record(f"a subgraph node with an output schema, {mode}",
           [part(c) for ns, c in holder.stream({"a": "hi"}, {"configurable": {"thread_id": f"o{i}"}}, stream_mode=mode, subgraphs=True) if ns])

mapped = (StateGraph(Logged).add_node("map", lambda s: {"x": 1}).add_node("task", lambda s: {"log": [s["index"]]})
          .add_edge(START, "map").compile(checkpointer=InMemorySaver()))
from langgraph.types import Send  # noqa: E402

mapped.bulk_update_state({"configurable": {"thread_id": "bulk"}}, [
    [StateUpdate({"x": 0}, "__input__")], [StateUpdate({"x": 0}, "__start__")],
    [StateUpdate(Command(goto=[Send("task", {"index": i}) for i in range(3)], update={"x": 1}), "map")],
    [StateUpdate({"log": [i]}, "task") for i in range(3)],
])
history(mapped, {"configurable": {"thread_id": "bulk"}})
