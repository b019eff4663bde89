"""RetryPolicy's default retry_on: a programming error (ValueError, KeyError, OSError...) fails at
once, a ConnectionError or another exception is retried; retry_on as a list of classes."""

from typing import TypedDict

from langgraph.graph import START, StateGraph
from langgraph.types import RetryPolicy

from observe import call


class S(TypedDict):
    x: int


class Flaky(Exception):
    pass


def run(error, **policy):
    attempts = []

    def node(state: S):
        attempts.append(1)
        if len(attempts) == 1:
            raise error
        return {"x": len(attempts)}

    g = StateGraph(S)
    g.add_node("n", node, retry_policy=RetryPolicy(initial_interval=0, jitter=False, **policy))
    g.add_edge(START, "n")
    try:
        return {"result": g.compile().invoke({"x": 0}), "attempts": len(attempts)}
    except Exception as e:
        return {"raised": type(e).__name__, "attempts": len(attempts)}


for error in (ValueError("v"), KeyError("k"), TypeError("t"), OSError("o"), TimeoutError("slow"), RuntimeError("r"),
              ConnectionError("c"), Flaky("f"), ZeroDivisionError("z")):
    call(f"default {type(error).__name__}", run, error)
call("list of classes", run, KeyError("k"), retry_on=[ValueError, KeyError])
call("predicate", run, ValueError("v"), retry_on=lambda e: "v" in str(e))
call("one class", run, Flaky("f"), retry_on=ValueError)
