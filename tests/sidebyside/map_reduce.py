"""Map-reduce with Send (the LangGraph how-to): updates streamed in Send order, debug and tasks modes, its
drawing; a fork from the version after the Sends (update_state without as_node counts as the node that
sent, and the fork sends again); node retries; the recursion limit."""
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, StateGraph
from langgraph.types import RetryPolicy, Send

from observe import call, history, record


class Overall(TypedDict):
    topic: str
    subjects: list
    jokes: Annotated[list, operator.add]
    best: str


class JokeState(TypedDict):
    subject: str


def gen_topics(state: Overall):
    return {"subjects": [f"{state['topic']}-{i}" for i in range(3)]}


def gen_joke(state: JokeState):
    return {"jokes": [f"joke about {state['subject']}"]}


def fan(state: Overall):
    return [Send("gen_joke", {"subject": s}) for s in state["subjects"]]


def best(state: Overall):
    return {"best": state["jokes"][-1]}


b = StateGraph(Overall)
b.add_node("gen_topics", gen_topics).add_node("gen_joke", gen_joke).add_node("best", best)
b.add_edge(START, "gen_topics").add_conditional_edges("gen_topics", fan, ["gen_joke"]).add_edge("gen_joke", "best").add_edge("best", END)
g = b.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
record("stream updates", list(g.stream({"topic": "cats"}, cfg, stream_mode="updates")))
history(g, cfg)
record("values+updates", list(g.stream({"topic": "dogs"}, {"configurable": {"thread_id": "2"}}, stream_mode=["values", "updates"])))
record("debug types", [(c["type"], c["step"]) for c in g.stream({"topic": "x"}, {"configurable": {"thread_id": "3"}}, stream_mode="debug")])
record("tasks", [sorted(c) for c in g.stream({"topic": "y"}, {"configurable": {"thread_id": "4"}}, stream_mode="tasks")])
record("graph", sorted((e.source, e.target, e.conditional) for e in g.get_graph().edges))
fork_from = [s for s in g.get_state_history(cfg) if s.next == ("best",)][0]
record("fork from", [fork_from.next, len(fork_from.values["jokes"])])
record("forked run", g.invoke(None, g.update_state(fork_from.config, {"jokes": ["extra joke"]})))
history(g, cfg, "history after fork")

# retries
attempts = []


def flaky(state):
    attempts.append(1)
    if len(attempts) < 3:
        raise ConnectionError("flaky")
    return {"best": "ok"}


r = StateGraph(Overall).add_node("flaky", flaky, retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.01, jitter=False))
r.add_edge(START, "flaky")
record("retry", r.compile().invoke({"topic": "t"}))
record("attempts", len(attempts))
attempts.clear()
r2 = StateGraph(Overall).add_node("flaky", flaky, retry_policy=RetryPolicy(max_attempts=2, initial_interval=0.01, retry_on=ValueError))
r2.add_edge(START, "flaky")
call("not retried", r2.compile().invoke, {"topic": "t"})
record("attempts 2", len(attempts))


# recursion
def loop(state):
    return {"jokes": ["x"]}


lb = StateGraph(Overall).add_node("loop", loop).add_edge(START, "loop").add_conditional_edges("loop", lambda s: "loop" if len(s["jokes"]) < 100 else END)
lg = lb.compile(checkpointer=InMemorySaver())
call("recursion", lg.invoke, {"topic": "t", "jokes": []}, {"configurable": {"thread_id": "r"}, "recursion_limit": 5})
record("after recursion", lg.get_state({"configurable": {"thread_id": "r"}}))
try:
    lg.invoke({"topic": "t", "jokes": []}, {"configurable": {"thread_id": "r2"}, "recursion_limit": 4})
except GraphRecursionError as e:
    record("is RecursionError", isinstance(e, RecursionError))
record("stream recursion", call("stream rec", lambda: list(lg.stream({"topic": "t", "jokes": []}, {"configurable": {"thread_id": "r3"}, "recursion_limit": 3}))))
