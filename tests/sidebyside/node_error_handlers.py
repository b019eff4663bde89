"""Node error handlers (issue 29): add_node(error_handler=) and set_node_defaults(); what runs, what is
streamed, what the thread stores (pending writes, history), a handler that fails and its resume."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import NodeError
from langgraph.graph import START, StateGraph
from langgraph.types import Command, RetryPolicy

from observe import call, history, record


class S(TypedDict):
    foo: str


class L(TypedDict):
    log: Annotated[list, operator.add]


def default_handler(state: L, error: NodeError) -> L:
    return {"log": [f"default:{error.node}"]}


def sub_handler(state: S, error: NodeError) -> S:
    return {"foo": f"{error.node}:{error.error}"}


def boom(state):
    raise ValueError("boom")


# 1. The handler recovers: it gets the failure and the state, and routes on with a Command.
seen = []


def handler(state: S, error: NodeError) -> Command:
    seen.append({"node": error.node, "error": repr(error.error), "state": dict(state)})
    return Command(update={"foo": "handled"}, goto="after")


graph = (
    StateGraph(S)
    .add_node("bad", boom, error_handler=handler, retry_policy=RetryPolicy(max_attempts=2, initial_interval=0, jitter=False, retry_on=ValueError))
    .add_node("after", lambda s: {"foo": s["foo"] + "_after"})
    .add_edge(START, "bad")
    .compile(checkpointer=InMemorySaver())
)
config = {"configurable": {"thread_id": "recover"}}
call("recover stream", lambda: [  # debug events' timestamps left out
    (mode, {k: v for k, v in c.items() if k != "timestamp"} if mode == "debug" else c)
    for mode, c in graph.stream({"foo": ""}, config, stream_mode=["updates", "tasks", "values", "debug", "checkpoints"])
])
record("recover handler saw", seen)
history(graph, config, "recover history")
step0 = list(graph.get_state_history(config))[-2]
saved = graph.checkpointer.get_tuple(step0.config)
record("recover pending writes", sorted((c, repr(v)) for _, c, v in saved.pending_writes))

# 2. A handler that fails fails the run; a resume runs the handler again, not the node.
calls = {"node": 0, "handler": 0}
crash = [True]


def counted(state):
    calls["node"] += 1
    raise RuntimeError("node failed")


def fragile(state: S, error: NodeError):
    calls["handler"] += 1
    seen.append({"resume error": str(error.error), "node": error.node})
    if crash[0]:
        raise RuntimeError("handler crash")
    return {"foo": "recovered"}


for durability in ("sync", "async", "exit"):
    calls.update(node=0, handler=0)
    crash[0] = True
    graph = StateGraph(S).add_node("n", counted, error_handler=fragile).add_edge(START, "n").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "crash"}}
    call(f"crash run {durability}", graph.invoke, {"foo": ""}, config, durability=durability)
    record(f"crash calls {durability}", dict(calls))
    history(graph, config, f"crash history {durability}")
    crash[0] = False
    call(f"crash resume {durability}", lambda: [
        (mode, {k: v for k, v in c.items() if k != "timestamp"} if mode == "debug" else c)
        # (debug left out under "exit": a resumed run's last checkpoint event names no parent on LangGraph, its
        # parent here, with or without error handlers)
        for mode, c in graph.stream(None, config, stream_mode=["updates", "tasks", "values", *(["debug"] if durability != "exit" else [])],
                                    durability=durability)
    ])
    record(f"crash calls after resume {durability}", dict(calls))
    record(f"crash resume saw {durability}", seen[-1])
    history(graph, config, f"crash history after resume {durability}")

# 3. set_node_defaults: a default handler for every node, overridden per node; retries first.
attempts = []


def flaky(state):
    attempts.append(1)
    raise ValueError("flaky")


graph = (
    StateGraph(L)
    .set_node_defaults(
        retry_policy=RetryPolicy(max_attempts=2, initial_interval=0, jitter=False, retry_on=ValueError),
        error_handler=default_handler,
    )
    .add_node("a", flaky)
    .add_node("b", boom, error_handler=lambda s: {"log": ["own handler"]})
    .add_node("ok", lambda s: {"log": ["ok"]})
    .add_edge(START, "a")
    .add_edge(START, "b")
    .add_edge(START, "ok")
    .compile(checkpointer=InMemorySaver())
)
config = {"configurable": {"thread_id": "defaults"}}
call("defaults run", graph.invoke, {"log": []}, config)
record("defaults attempts", len(attempts))
history(graph, config, "defaults history")


def no_default(state: S, error: NodeError):
    return {"foo": "x"}


def compile_taken():
    try:
        StateGraph(S).set_node_defaults(error_handler=no_default).add_node("__default_error_handler__", lambda s: s).add_edge(
            START, "__default_error_handler__"
        ).compile()
    except ValueError as e:  # the engine's is a GraphDefinitionError, a ValueError
        return {"ValueError": str(e)}


call("default handler name taken", compile_taken)

# 4. A subgraph's failure is its node's, in the parent.
sub = StateGraph(S).add_node("inner", boom).add_edge(START, "inner").compile()
graph = (
    StateGraph(S)
    .add_node("sub", sub, error_handler=sub_handler)
    .add_edge(START, "sub")
    .compile()
)
call("subgraph", graph.invoke, {"foo": ""})

# 5. Async, with a sibling in the step.
graph = (
    StateGraph(L)
    .add_node("bad", boom, error_handler=lambda s: {"log": ["handled"]})
    .add_node("sibling", lambda s: {"log": ["sibling"]})
    .add_edge(START, "bad")
    .add_edge(START, "sibling")
    .compile(checkpointer=InMemorySaver())
)
config = {"configurable": {"thread_id": "async"}}


async def astream():
    return [c async for c in graph.astream({"log": []}, config, stream_mode="updates")]


import asyncio  # noqa: E402

call("async updates", lambda: sorted(map(repr, asyncio.run(astream()))))
history(graph, config, "async history")
