"""The v3 stream of a graph whose subgraph has a subgraph: the main log with transformers=[UpdatesTransformer]
(every level's values and updates, lifecycle of both depths, in order), the handles walked with interleave
(a handle's values and its own child handles), their statuses, and the tasks projection."""

import operator
from typing import Annotated

from langgraph.graph import START, StateGraph
from langgraph.stream.transformers import TasksTransformer, UpdatesTransformer
from typing_extensions import TypedDict

from observe import record


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def leaf(name):
    return lambda s: {"log": [name]}


def ns(n):
    return [seg.split(":")[0] for seg in n]


g3 = StateGraph(S).add_node("deep", leaf("deep")).add_edge(START, "deep").compile()
g2 = StateGraph(S).add_node("mid", leaf("mid")).add_node("g3", g3).add_edge(START, "mid").add_edge("mid", "g3").compile()
g1 = StateGraph(S).add_node("start", leaf("start")).add_node("g2", g2).add_edge(START, "start").add_edge("start", "g2").compile()


def data(e):
    d = e["params"]["data"]
    return (d["event"], ns(d["namespace"])) if e["method"] == "lifecycle" else d


run = g1.stream_events({"log": []}, version="v3", transformers=[UpdatesTransformer])
record("log", [(e["seq"], e["method"], ns(e["params"]["namespace"]), data(e)) for e in run])


def walk(h, depth):
    out = [(depth, ns(h.path), h.graph_name, h.status)]
    for name, item in h.interleave("values", "subgraphs"):
        out.extend(walk(item, depth + 1) if name == "subgraphs" else [sorted(item["log"])])
    return [*out, h.status]


run = g1.stream_events({"log": []}, version="v3")
record("tree", [x for h in run.subgraphs for x in walk(h, 1)])
record("output", run.output)
run = g1.stream_events({"log": []}, version="v3", transformers=[TasksTransformer])
record("tasks", [(d["name"], "result" in d) for d in run.tasks])
