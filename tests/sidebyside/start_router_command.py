"""START with conditional edges (a router, a path map, Sends), and Command input.

Today's fast path runs START's task without the node machinery only when it
has no routers; this program takes the other path: a router from START on
fresh input, a Command(update=, goto=) on a thread with state, a Command
resume, Sends from START, and input that is not the graph's.
"""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt

from observe import call, history, record


class State(TypedDict):
    topic: str
    log: Annotated[list, operator.add]


def route(state: State) -> str:
    return "ask" if state["topic"] == "ask" else ("short" if len(state["topic"]) < 5 else "long")


def ask(state: State) -> dict:
    return {"log": ["ask:" + interrupt(f"about {state['topic']}?")]}


b = StateGraph(State)
b.add_node("short", lambda s: {"log": [f"short {s['topic']}"]})
b.add_node("long", lambda s: {"log": [f"long {s['topic']}"]})
b.add_node("ask", ask)
b.add_conditional_edges(START, route, {"short": "short", "long": "long", "ask": "ask"})
for n in ["short", "long", "ask"]:
    b.add_edge(n, END)
graph = b.compile(checkpointer=InMemorySaver())

config = {"configurable": {"thread_id": "start-router"}}
record("short", graph.invoke({"topic": "cat", "log": []}, config))
record("long", graph.invoke({"topic": "elephant"}, config))
record("updates", list(graph.stream({"topic": "dog"}, config, stream_mode="updates")))
record("command update goto", graph.invoke(Command(update={"topic": "zebra"}, goto="long"), config))
record("command update only", graph.invoke(Command(update={"log": ["u"]}), config))
record("ask", graph.invoke({"topic": "ask"}, config))
record("resume", graph.invoke(Command(resume="yes"), config))
record("resume with update", graph.invoke({"topic": "ask"}, config))
record("resumed", graph.invoke(Command(resume="no", update={"topic": "later"}), config))
history(graph, config)
call("not the graph's input", graph.invoke, {"nope": 1}, {"configurable": {"thread_id": "bad"}})

def fan(state: State) -> list:
    return [Send("each", {"topic": t, "log": []}) for t in state["topic"].split()]


s = StateGraph(State)
s.add_node("each", lambda st: {"log": [st["topic"].upper()]})
s.add_conditional_edges(START, fan, ["each"])
s.add_edge("each", END)
sends = s.compile(checkpointer=InMemorySaver())
sconfig = {"configurable": {"thread_id": "start-sends"}}
record("sends", sends.invoke({"topic": "a b c", "log": []}, sconfig))
record("sends again", sends.invoke({"topic": "d e"}, sconfig))
history(sends, sconfig, "sends history")
record("sends no saver", s.compile().invoke({"topic": "x y", "log": []}))
record("sends stream", list(s.compile().stream({"topic": "p q", "log": []}, stream_mode=["updates", "tasks"])))
