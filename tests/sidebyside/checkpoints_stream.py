"""Issue 14 item 7: stream_mode="checkpoints" (and debug's checkpoint events) carry tasks.

Each task has id, name, interrupts and state, plus result/error once known.
Without a checkpointer the checkpoints mode yields nothing.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from observe import call, record


class State(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def ask(state: State) -> dict:
    return {"log": ["ask:" + interrupt("q")]}


def build(checkpointer):
    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"x": s["x"] + 1})
    builder.add_node("p", lambda s: {"log": ["p"]})
    builder.add_node("ask", ask)
    builder.add_edge(START, "a")
    builder.add_edge("a", "p")
    builder.add_edge("a", "ask")
    return builder.compile(checkpointer=checkpointer)


def ids_shown(chunks):
    """Interrupt ids inside payload dicts are hashes of (differing) task ids: keep that one is there."""
    for c in chunks:
        for t in c.get("tasks", ()):
            t["interrupts"] = [{**i, "id": bool(i["id"])} for i in t.get("interrupts", ())]
    return chunks


graph = build(InMemorySaver())
config = {"configurable": {"thread_id": "ckpts"}}
record("checkpoints", list(graph.stream({"x": 1, "log": []}, config, stream_mode="checkpoints")))
record("resumed", ids_shown(list(graph.stream(Command(resume="y"), config, stream_mode="checkpoints"))))
debug = list(graph.stream({"x": 1, "log": []}, {"configurable": {"thread_id": "dbg"}}, stream_mode="debug"))
record("debug checkpoints", [d["payload"] for d in debug if d["type"] == "checkpoint"])
record("debug kinds", [(d["type"], d["step"]) for d in debug])
call("no checkpointer", lambda: list(build(None).stream({"x": 1, "log": []}, stream_mode="checkpoints")))

exit_config = {"configurable": {"thread_id": "exit"}}
graph.invoke({"x": 1, "log": []}, exit_config)
graph.invoke(Command(resume="y"), exit_config)
chunks = list(graph.stream({"x": 5, "log": []}, exit_config, stream_mode="checkpoints", durability="exit"))
record("exit chunks", chunks)
record("exit history", [s.config for s in graph.get_state_history(exit_config)])
