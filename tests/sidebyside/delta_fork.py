"""Issue 29: a thread with a DeltaChannel forked from an earlier version, resumed, and run with durability "exit".

A ``log`` DeltaChannel beside a plain reducer key fed the same values (the
plain key is the oracle: it needs no replay). Each case records the values,
the history (each version's values, and what it stores of the delta channel:
a snapshot or nothing, its counters), and, for ``durability="exit"``, the
versions a run stores (a stub version under a new thread's first run).
"""

import operator
from typing import Annotated, TypedDict

from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt

from observe import call, record


def concat(state: list, writes: list) -> list:
    out = list(state)
    for w in writes:
        out.extend(w if isinstance(w, list) else [w])
    return out


class State(TypedDict, total=False):
    log: Annotated[list, DeltaChannel(concat, snapshot_frequency=4)]
    plain: Annotated[list, operator.add]
    other: Annotated[list, operator.add]


def both(item: str) -> dict:
    return {"log": [item], "plain": [item]}


def chain(saver: InMemorySaver, *, defer: bool = False):
    b = StateGraph(State)
    b.add_node("a", lambda s: both("a"))
    b.add_node("b", lambda s: both("b"), defer=defer)
    b.add_node("c", lambda s: {})
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    if defer:
        b.add_edge("a", "c")
    b.add_edge("b", END)
    return b.compile(checkpointer=saver, interrupt_after=["a"] if defer else None)


def fan_out(saver: InMemorySaver):
    def q(state: State) -> dict:
        interrupt("continue?")
        return both("q")

    b = StateGraph(State)
    b.add_node("p", lambda s: both("p"))
    b.add_node("q", q)
    b.add_conditional_edges(START, lambda s: [Send("p", s), Send("q", s)], ["p", "q"])
    return b.compile(checkpointer=saver)


def history(graph, saver: InMemorySaver, config: dict) -> list:
    out = []
    for s in graph.get_state_history(config):
        t = saver.get_tuple(s.config)
        stored = t.checkpoint["channel_values"].get("log")
        out.append((
            s.metadata.get("step"), s.metadata.get("source"), s.values.get("log"), s.values.get("plain"),
            s.values.get("other"), list(s.next), isinstance(stored, _DeltaSnapshot),
            t.metadata.get("counters_since_delta_snapshot"),
        ))
    return out


def values(graph, config: dict) -> dict:
    return graph.get_state(config).values


# 1. A fork from an old version with an edit, then clearing that old version: the edit stays on its branch.
for edit in (both("edit"), {"other": ["edit"]}):
    saver = InMemorySaver()
    graph, config = chain(saver), {"configurable": {"thread_id": "clear"}}
    graph.invoke(both("in"), config, interrupt_before=["b"])
    base = graph.get_state(config)
    graph.update_state(config, both("later"), as_node="a")
    call("edit old", lambda: values(graph, graph.update_state(base.config, edit, as_node="b")))
    cleared = graph.update_state(base.config, None, as_node=END)
    record("cleared", values(graph, cleared))
    record("clear history", history(graph, saver, config))

# 2. A resume whose goto replaces the pending Sends: the finished one's writes are not read back.
saver = InMemorySaver()
graph, config = fan_out(saver), {"configurable": {"thread_id": "sends"}}
graph.invoke(both("in"), config)
call("resume replacing sends", graph.invoke, Command(resume="yes", goto=[Send("q", both("unused"))]), config)
record("after sends", values(graph, config))
record("sends history", history(graph, saver, config))

# 3. An update that triggers no node leaves a deferred node due.
saver = InMemorySaver()
graph, config = chain(saver, defer=True), {"configurable": {"thread_id": "defer"}}
graph.invoke(both("in"), config)
graph.update_state(graph.get_state(config).config, both("u"), as_node="c")
record("deferred next", list(graph.get_state(config).next))
call("deferred run", graph.invoke, None, config)
record("defer history", history(graph, saver, config))

# 4. durability="exit": a stub version under a new thread, counters kept, a fork and a resume from an old version.
saver = InMemorySaver()
graph, config = chain(saver), {"configurable": {"thread_id": "exit"}}
call("exit 1", graph.invoke, both("in-1"), config, durability="exit")
record("exit versions", [(t.metadata.get("step"), t.metadata.get("source"), len(t.pending_writes)) for t in saver.list(config)])
edit = graph.update_state(config, both("edit"), as_node="a")
call("exit 2", graph.invoke, both("in-2"), config, durability="exit")
branch = graph.get_state(config)
call("exit replay", graph.invoke, Command(update=both("cmd")), edit, durability="exit")
record("branch after replay", values(graph, branch.config))
record("exit history", history(graph, saver, config))
for i in range(3):
    call(f"exit turn {i}", graph.invoke, both(f"t{i}"), config, durability="exit")
record("exit turns history", history(graph, saver, config)[:4])

# 5. durability="exit" on an interrupted fan-out: a new input, then a resume.
saver = InMemorySaver()
graph, config = fan_out(saver), {"configurable": {"thread_id": "exit-sends"}}
graph.invoke(both("in"), config, durability="exit")
call("exit new input", graph.invoke, both("in-2"), config, durability="exit")
call("exit resume", graph.invoke, Command(resume="yes"), config, durability="exit")
record("exit sends history", history(graph, saver, config))
