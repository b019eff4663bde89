"""A subgraph running under its parent's checkpointer, then the parent forked and resumed.

The subgraph (compiled without a checkpointer) keeps a growing message list
and asks a question; the parent is resumed, then forked from a version before
the subgraph ran and from one while it waited, and resumed again; then a
second turn on the thread. Issue 17 stores the subgraph's lists by reference
to the parent's: what every version reads back must not change.
"""

import operator
import os
import sqlite3
import tempfile
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from observe import history as observed_history
from observe import record as observed


class State(TypedDict):
    messages: Annotated[list, operator.add]
    turn: int


def think(state: State) -> dict:
    return {"messages": [f"think {len(state['messages'])}"]}


def approve(state: State) -> dict:
    answer = interrupt({"question": "ok?", "seen": len(state["messages"])})
    return {"messages": [f"approved {answer}"]}


def reply(state: State) -> dict:
    return {"messages": [f"reply to {state['messages'][0]}"]}


sub = StateGraph(State)
sub.add_node("think", think)
sub.add_node("approve", approve)
sub.add_node("reply", reply)
sub.add_edge(START, "think")
sub.add_edge("think", "approve")
sub.add_edge("approve", "reply")
sub.add_edge("reply", END)
agent = sub.compile()

parent = StateGraph(State)
parent.add_node("prepare", lambda s: {"messages": ["prepared"], "turn": s.get("turn", 0) + 1})
parent.add_node("agent", agent)
parent.add_node("wrap", lambda s: {"messages": [f"wrapped {len(s['messages'])}"]})
parent.add_edge(START, "prepare")
parent.add_edge("prepare", "agent")
parent.add_edge("agent", "wrap")
parent.add_edge("wrap", END)


def scenario(graph, tag: str) -> None:
    def record(name, value):
        observed(f"{tag}: {name}", value)

    def history(graph, config, name):
        observed_history(graph, config, f"{tag}: {name}")

    config = {"configurable": {"thread_id": "sub-fork"}}
    record("asks", graph.invoke({"messages": ["hello"], "turn": 0}, config))
    waiting = graph.get_state(config, subgraphs=True)
    record("waiting", waiting)
    record("resumed", graph.invoke(Command(resume="yes"), config))

    versions = list(graph.get_state_history(config))
    before_agent = next(s for s in versions if s.next == ("agent",))
    record("fork before the agent", graph.invoke(None, before_agent.config))
    record("fork resumed", graph.invoke(Command(resume="fork"), config))
    history(graph, config, "history after fork")

    record("second turn", graph.invoke({"messages": ["again"]}, config))
    record("second resumed", graph.invoke(Command(resume="twice"), config))
    record("state", graph.get_state(config))

    versions = list(graph.get_state_history(config))
    record("versions", [(s.metadata["step"], s.next, len(s.values.get("messages", []))) for s in versions])
    waiting_versions = [s for s in versions if s.tasks and s.tasks[0].interrupts]
    record("waiting versions", len(waiting_versions))
    oldest_wait = waiting_versions[-1]
    record("update on the waiting version", graph.update_state(oldest_wait.config, {"messages": ["edited"]}) is not None)
    record("after edit", graph.invoke(None, config))
    record("after edit, resumed", graph.invoke(Command(resume="edited"), config))
    history(graph, config, "history at the end")
    for s in graph.get_state_history(config):
        if s.tasks and s.tasks[0].state is not None:
            sub_state = graph.get_state(s.tasks[0].state)
            record(f"sub state at {s.metadata['step']}", {"values": sub_state.values, "next": sub_state.next})


scenario(parent.compile(checkpointer=InMemorySaver()), "memory")
with tempfile.TemporaryDirectory() as tmp:
    conn = sqlite3.connect(os.path.join(tmp, "sub.db"), check_same_thread=False)
    scenario(parent.compile(checkpointer=SqliteSaver(conn)), "sqlite")
    conn.close()
