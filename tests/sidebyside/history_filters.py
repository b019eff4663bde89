"""get_state_history's filter, before and limit; Command(goto=[Send...]) from a node; a retry
policy; the recursion limit; input and output schemas."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, RetryPolicy, Send

from observe import call, record


class S(TypedDict):
    items: Annotated[list, operator.add]
    n: int


def plan(s: S):
    return Command(goto=[Send("work", {"items": [i], "n": i}) for i in range(3)], update={"n": 0})


def work(s: S):
    return {"items": [s["n"] * 10]}


g = StateGraph(S)
g.add_node("plan", plan)
g.add_node("work", work)
g.add_edge(START, "plan")
g.add_edge("work", END)
app = g.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "h"}}
record("run", app.invoke({"items": [], "n": 0}, cfg))
app.invoke({"items": ["again"], "n": 5}, {"configurable": {"thread_id": "h"}, "metadata": {"who": "bob"}})
full = list(app.get_state_history(cfg))
record("steps", [(s.metadata["step"], s.metadata["source"], s.next) for s in full])
record("filter source", [s.metadata["step"] for s in app.get_state_history(cfg, filter={"source": "input"})])
record("filter who", [s.metadata["step"] for s in app.get_state_history(cfg, filter={"who": "bob"})])
record("limit 2", [s.metadata["step"] for s in app.get_state_history(cfg, limit=2)])
record("before", [s.metadata["step"] for s in app.get_state_history(cfg, before=full[2].config, limit=3)])

attempts = []


def flaky(s: S):
    attempts.append(1)
    if len(attempts) < 3:
        raise ConnectionError("blip")
    return {"n": len(attempts)}


r = StateGraph(S)
r.add_node("flaky", flaky, retry_policy=RetryPolicy(max_attempts=5, initial_interval=0.0, jitter=False, retry_on=ConnectionError))
r.add_edge(START, "flaky")
record("retried", [r.compile().invoke({"items": [], "n": 0}), len(attempts)])

loop = StateGraph(S)
loop.add_node("again", lambda s: {"n": s["n"] + 1})
loop.add_edge(START, "again")
loop.add_conditional_edges("again", lambda s: "again")
call("recursion", loop.compile().invoke, {"items": [], "n": 0}, {"recursion_limit": 5})
try:
    loop.compile().invoke({"items": [], "n": 0}, {"recursion_limit": 3})
except GraphRecursionError as e:
    record("recursion is caught", type(e).__name__)


class In(TypedDict):
    question: str


class Out(TypedDict):
    answer: str


class All(In, Out):
    scratch: str


io = StateGraph(All, input_schema=In, output_schema=Out)
io.add_node("think", lambda s: {"scratch": s["question"] + "?"})
io.add_node("say", lambda s: {"answer": s["scratch"] + "!"})
io.add_edge(START, "think")
io.add_edge("think", "say")
io.add_edge("say", END)
ioapp = io.compile(checkpointer=InMemorySaver())
icfg = {"configurable": {"thread_id": "io"}}
record("io out", ioapp.invoke({"question": "why", "scratch": "ignored"}, icfg))
record("io state", ioapp.get_state(icfg).values)
record("io stream", list(ioapp.stream({"question": "how"}, {"configurable": {"thread_id": "io2"}}, stream_mode="values")))
