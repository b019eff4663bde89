"""Issue 29: DeltaChannel keys: values, histories, and stored versions as a program reads them.

A chat graph whose ``messages`` is a DeltaChannel (snapshot every 3 updates)
beside a plain reducer key: turns, parallel writers, a Send fan-out, an
Overwrite, an interrupt and its resume, update_state, a fork from an old
version and a Command from it. Each stored version is read back with the
saver's ``get_tuple``: which keys it stores (a delta channel only as a
snapshot), its counters metadata, and the pending writes it holds.
"""

import operator
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import _messages_delta_reducer
from langgraph.types import Command, Overwrite, Send, interrupt

from observe import call, record


def concat(state: list, writes: list) -> list:
    out = list(state)
    for w in writes:
        out.extend(w if isinstance(w, list) else [w])
    return out


class State(TypedDict, total=False):
    messages: Annotated[list, DeltaChannel(_messages_delta_reducer, snapshot_frequency=3)]
    log: Annotated[list, DeltaChannel(concat, snapshot_frequency=2)]
    plain: Annotated[list, operator.add]
    n: int


def model(state: State) -> dict:
    k = len(state["messages"])
    return {"messages": [AIMessage(f"answer {k}", id=f"ai-{k}")], "log": ["model"], "plain": ["model"]}


def left(state: State) -> dict:
    return {"log": ["left"], "plain": ["left"]}


def right(state: State) -> dict:
    return {"log": ["right"], "plain": ["right"]}


def fan(state: State) -> list:
    return [Send("worker", {"n": i}) for i in range(3)]


def worker(state: State) -> dict:
    return {"log": [f"w{state['n']}"], "plain": [f"w{state['n']}"]}


def ask(state: State) -> dict:
    answer = interrupt("ok?")
    return {"messages": [HumanMessage(f"said {answer}", id=f"said-{answer}")], "log": ["ask"], "plain": ["ask"]}


builder = StateGraph(State)
builder.add_node("model", model)
builder.add_node("left", left)
builder.add_node("right", right)
builder.add_node("worker", worker)
builder.add_node("ask", ask)
builder.add_edge(START, "model")
builder.add_edge("model", "left")
builder.add_edge("model", "right")
builder.add_conditional_edges("left", fan, ["worker"])
builder.add_edge("worker", "ask")
builder.add_edge("right", "ask")
builder.add_edge("ask", END)
saver = InMemorySaver()
graph = builder.compile(checkpointer=saver)


def stored(config: dict, pending: bool = True) -> dict:
    t = saver.get_tuple(config)
    values = t.checkpoint["channel_values"]
    return {
        "keys": sorted(k for k in values if k in State.__annotations__),
        "snapshots": sorted(k for k, v in values.items() if isinstance(v, _DeltaSnapshot)),
        "counters": t.metadata.get("counters_since_delta_snapshot"),
        "pending": sorted((w[1], _shown(w[2])) for w in t.pending_writes if w[1] in ("messages", "log")) if pending else None,
    }


def _shown(value: object) -> str:
    items = value if isinstance(value, list) else [value]
    return repr([getattr(i, "content", i) for i in items])


def history(config: dict, pending: bool = True) -> list:
    return [
        (s.metadata["step"], s.metadata["source"], [m.content for m in s.values.get("messages", [])],
         s.values.get("log"), s.values.get("plain"), stored(s.config, pending))
        for s in graph.get_state_history(config)
    ]


config = {"configurable": {"thread_id": "chat"}}
call("turn 1", graph.invoke, {"messages": [HumanMessage("hi", id="h1")]}, config)
call("resume 1", graph.invoke, Command(resume="yes"), config)
call("turn 2", graph.invoke, {"messages": [("user", "again")], "log": Overwrite(["reset"])}, config)
record("state", graph.get_state(config).values)
call("resume 2", graph.invoke, Command(resume="sure"), config)
record("history", history(config))
old = [s for s in graph.get_state_history(config) if s.metadata["step"] == 2][0]
call("update", lambda: stored(graph.update_state(config, {"messages": [HumanMessage("edit", id="e1")], "log": ["edit"]}, as_node="ask")))
record("after update", graph.get_state(config).values)
call("fork", lambda: stored(graph.update_state(old.config, {"log": ["forked"]}, as_node="right")))
record("fork state", graph.get_state(config).values)
call("command from old", graph.invoke, Command(update={"log": ["cmd"]}, goto="ask"), old.config)
call("resume old", graph.invoke, Command(resume="later"), config)
# The engine stores a Command's writes on the fork it runs on, LangGraph keeps them in the run
# (docs/porting.md): the versions' pending writes differ there, not their values.
record("history again", history(config, pending=False))
record("ids stable", [m.id for m in graph.get_state(config).values["messages"]] == [m.id for m in graph.get_state(config).values["messages"]])
