"""Issue 29: running the graph from one of a subgraph's versions (time travel into a subgraph).

A parent with a subgraph (checkpointer=True, one namespace across calls, and
a per-invocation one) that asks two questions, answered, then the graph
run from the subgraph's version at its first question, the config
``get_state(subgraphs=True)`` gives (``checkpoint_ns`` and ``checkpoint_id``,
``checkpoint_map``): the parent forks the version that subgraph version
belongs to, the subgraph goes back to the version named and asks its first
question again (nothing before it runs again); both questions answered anew.
Then a resume given with the subgraph's config itself, an ``update_state`` of
that version (its config names the parents' versions) run from, the stream
of a run from it (values, updates, subgraphs), new input with its config
(the subgraph takes its task's input at that version) and both histories.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

from observe import history, record, token


class State(TypedDict):
    value: Annotated[list, operator.add]


called = []


def node(name, question=None):
    def run(state):
        called.append(name)
        if question is None:
            return {"value": [name]}
        return {"value": [f"{name}:{interrupt(question)}"]}

    return run


def build(mode):
    sub = StateGraph(State)
    sub.add_node("step_a", node("step_a"))
    sub.add_node("ask_1", node("ask_1", "Question 1?"))
    sub.add_node("ask_2", node("ask_2", "Question 2?"))
    sub.add_edge(START, "step_a").add_edge("step_a", "ask_1").add_edge("ask_1", "ask_2")
    parent = StateGraph(State)
    parent.add_node("before", node("before"))
    parent.add_node("executor", sub.compile(checkpointer=mode))
    parent.add_node("after", node("after"))
    parent.add_edge(START, "before").add_edge("before", "executor").add_edge("executor", "after")
    return parent.compile(checkpointer=InMemorySaver())


def out(result):
    """A result: its values, and its questions' values."""
    return {k: v for k, v in result.items() if k != "__interrupt__"}, [i.value for i in result.get("__interrupt__", ())]


def ran(fn, *args, **kwargs):
    called.clear()
    result = fn(*args, **kwargs)
    return out(result) if isinstance(result, dict) else result, list(called)


def bare(ns):
    """A namespace without its task ids (those are ids, compared by identity elsewhere)."""
    return "|".join(part.split(":")[0] for part in ns.split("|"))


def sub_config(config):
    conf = config["configurable"]
    return {
        "checkpoint_ns": bare(conf["checkpoint_ns"]),
        "checkpoint_id": token("checkpoint", conf["checkpoint_id"]),
        "checkpoint_map": {bare(n): token("checkpoint", i) for n, i in conf["checkpoint_map"].items()},
    }


for mode in (True, None):
    g = build(mode)
    cfg = {"configurable": {"thread_id": f"t-{mode}"}}
    record(f"{mode}: first", ran(g.invoke, {"value": []}, cfg))
    at_first = g.get_state(cfg, subgraphs=True).tasks[0].state
    record(f"{mode}: the subgraph at its first question", at_first)
    record(f"{mode}: its config", sub_config(at_first.config))
    record(f"{mode}: answer 1", ran(g.invoke, Command(resume="answer_1"), cfg))
    record(f"{mode}: answer 2", ran(g.invoke, Command(resume="answer_2"), cfg))
    # back to the subgraph's first question
    record(f"{mode}: from its version", ran(g.invoke, None, at_first.config))
    record(f"{mode}: state", g.get_state(cfg, subgraphs=True))
    record(f"{mode}: new answer 1", ran(g.invoke, Command(resume="new_1"), cfg))
    record(f"{mode}: new answer 2", ran(g.invoke, Command(resume="new_2"), cfg))
    history(g, cfg, f"{mode}: history")
    # a resume given with the subgraph version's config itself
    record(f"{mode}: resume at its version", ran(g.invoke, Command(resume="again_1"), at_first.config))
    record(f"{mode}: then", ran(g.invoke, Command(resume="again_2"), cfg))
    # an update of that version, run from
    fork = g.update_state(at_first.config, {"value": ["forked"]})
    record(f"{mode}: the update's config", sub_config(fork))
    record(f"{mode}: from the update", ran(g.invoke, None, fork))
    record(f"{mode}: answered", ran(g.invoke, Command(resume="forked_1"), cfg))
    # the stream of a run from the subgraph's version
    called.clear()
    chunks = list(g.stream(None, at_first.config, stream_mode=["values", "updates"], subgraphs=True))
    record(f"{mode}: stream", [(len(ns), ns[0].split(":")[0] if ns else "", mode_, chunk) for ns, mode_, chunk in chunks])
    record(f"{mode}: stream ran", list(called))
    # new input with that config: the subgraph takes its task's input at the version named
    record(f"{mode}: new input at its version", ran(g.invoke, {"value": ["new"]}, at_first.config))
    history(g, cfg, f"{mode}: final history")
    if mode is True:
        history(g, {"configurable": {"thread_id": f"t-{mode}", "checkpoint_ns": "executor"}}, "True: the subgraph's history")
