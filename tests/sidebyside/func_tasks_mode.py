"""The functional API in the tasks and debug stream modes: a call's result, the entrypoint's, an interrupt, an error, None results."""
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt
from typing import TypedDict

from observe import record


@task
def double(x: int) -> int:
    return x * 2


@task
def nothing(x: int) -> None:
    return None


@task
def ask(x: int) -> str:
    return interrupt("q?")


@entrypoint(checkpointer=InMemorySaver())
def wf(x: int) -> dict:
    nothing(x).result()
    return {"d": double(x).result(), "a": ask(x).result()}


def strip(c):
    out = {k: v for k, v in c.items() if k != "id"}
    if "interrupts" in out:
        out["interrupts"] = [i["value"] for i in out["interrupts"]]
    return out


cfg = {"configurable": {"thread_id": "1"}}
record("tasks", [strip(c) for c in wf.stream(1, cfg, stream_mode="tasks")])
record("tasks resume", [strip(c) for c in wf.stream(Command(resume="yes"), cfg, stream_mode="tasks")])
record("debug", [(c["type"], strip(c["payload"]) if c["type"] != "checkpoint" else None) for c in wf.stream(2, {"configurable": {"thread_id": "2"}}, stream_mode="debug")])


@entrypoint()
def returns_none(x: int) -> None:
    double(x).result()


record("none entrypoint", [strip(c) for c in returns_none.stream(1, stream_mode="tasks")])


class S(TypedDict, total=False):
    x: int


def node(s):
    return {"x": double(s["x"]).result()}


g = StateGraph(S).add_node("node", node).add_node("sent", lambda a: {"x": a["x"]})
g.add_edge(START, "node").add_conditional_edges("node", lambda s: [Send("sent", {"x": 5})], ["sent"])
record("graph tasks", [strip(c) for c in g.compile().stream({"x": 1}, stream_mode="tasks")])
