"""The map-reduce how-to: Send fan-out, a reducer fan-in, streams and history of it."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from observe import history, record


class Overall(TypedDict):
    topic: str
    subjects: list
    jokes: Annotated[list, operator.add]
    best: str


class JokeState(TypedDict):
    subject: str


def generate_topics(state: Overall):
    return {"subjects": [f"{state['topic']}-{i}" for i in range(3)]}


def generate_joke(state: JokeState):
    return {"jokes": [f"joke about {state['subject']}"]}


def continue_to_jokes(state: Overall):
    return [Send("generate_joke", {"subject": s}) for s in state["subjects"]]


def best_joke(state: Overall):
    return {"best": sorted(state["jokes"])[-1]}


g = StateGraph(Overall)
g.add_node("generate_topics", generate_topics)
g.add_node("generate_joke", generate_joke)
g.add_node("best_joke", best_joke)
g.add_edge(START, "generate_topics")
g.add_conditional_edges("generate_topics", continue_to_jokes, ["generate_joke"])
g.add_edge("generate_joke", "best_joke")
g.add_edge("best_joke", END)
app = g.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "mr"}}
chunks = list(app.stream({"topic": "cats"}, cfg, stream_mode="updates"))
record("updates", [chunks[0], sorted(map(repr, chunks[1:4])), chunks[4:]])
record("final", app.get_state(cfg).values)
history(app, cfg)
record("graph", sorted((e.source, e.target, e.conditional) for e in app.get_graph().edges))
record("debug kinds", [c["type"] for c in app.stream({"topic": "dogs"}, {"configurable": {"thread_id": "mr2"}}, stream_mode="debug")])
record("values", [sorted(v) for v in app.stream({"topic": "owls"}, {"configurable": {"thread_id": "mr3"}}, stream_mode="values")])
past = list(app.get_state_history(cfg))
fork_from = [s for s in past if s.next == ("best_joke",)][0]
record("fork from", [fork_from.next, len(fork_from.values["jokes"])])
new = app.update_state(fork_from.config, {"jokes": ["extra joke"]})
record("forked run", app.invoke(None, new))
history(app, cfg, "history after fork")
