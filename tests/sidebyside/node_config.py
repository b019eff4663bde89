"""Issue 18 item 7: the config a node receives (parameter and get_config()), key by key, and versions' metadata."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.graph import START, StateGraph
from langgraph.types import Send

from observe import record


class S(TypedDict, total=False):
    seen: Annotated[list, operator.add]
    items: list


def ns(value):
    return value.split(":")[0] + ":<task id>"  # task ids differ (LangGraph's are hashes of its own inputs)


def shape(config):
    conf = {k: v for k, v in config["configurable"].items() if not k.startswith("__")}
    conf["checkpoint_ns"] = ns(conf["checkpoint_ns"])
    meta = dict(config["metadata"], langgraph_checkpoint_ns=ns(config["metadata"]["langgraph_checkpoint_ns"]))
    return {
        "keys": sorted(config),
        "configurable": conf,
        "metadata": meta,
        "tags": config.get("tags"),
        "recursion_limit": config.get("recursion_limit"),
        "callbacks": type(config.get("callbacks")).__name__,
        "same": config is get_config(),
    }


def first(state: S, config):
    return {"seen": [shape(config)]}


def second(state: S):
    return {"seen": [shape(get_config())]}


def fan(state: S):
    return [Send("each", {"i": i}) for i in range(2)]


def each(arg):
    return {"seen": [shape(get_config())]}


def build():
    b = StateGraph(S).add_node(first).add_node(second).add_node(each)
    b.add_edge(START, "first").add_edge("first", "second").add_conditional_edges("second", fan, ["each"])
    return b.compile(checkpointer=InMemorySaver())


graph = build()
cfg = {
    "configurable": {"thread_id": "t1", "user": "bob", "n": 3, "flag": True, "f": 1.5, "obj": {"a": 1}, "__hidden": "x"},
    "tags": ["a", "b"],
    "metadata": {"m": 1},
    "recursion_limit": 30,
    "run_name": "mine",
}
record("seen", graph.invoke({}, cfg)["seen"])
history = list(graph.get_state_history({"configurable": {"thread_id": "t1"}}))
record("metadata", [{k: v for k, v in s.metadata.items() if k != "run_id"} for s in history])

# A call naming a version: its checkpoint_id reaches the node's metadata, as in LangGraph.
older = history[-2].config
record("forked", graph.invoke(None, older)["seen"][-3:])
graph.update_state({"configurable": {"thread_id": "t1", "who": "me"}}, {"seen": []})
record("update metadata", {k: v for k, v in graph.get_state({"configurable": {"thread_id": "t1"}}).metadata.items() if k != "run_id"})
record("no checkpointer", StateGraph(S).add_node(first).add_edge(START, "first").compile().invoke({})["seen"])
