"""Issue 18 item 8: the functional API. @entrypoint and @task: task results checkpointed (a
resumed entrypoint does not run finished tasks again), interrupt() in a task and in the
entrypoint, entrypoint.final and previous, futures, retry policies, stream modes, history."""

import asyncio

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command, RetryPolicy, interrupt

from observe import call, history, record

calls: list = []


@task
def add_one(x: int) -> int:
    calls.append(("add_one", x))
    return x + 1


@task
def ask(x):
    calls.append(("ask", x))
    answer = interrupt({"question": x})
    return f"{x}:{answer}"


@entrypoint(checkpointer=InMemorySaver())
def wf(inp: dict) -> dict:
    calls.append(("wf", inp))
    a = add_one(inp["n"]).result()
    futures = [add_one(i) for i in range(3)]
    b = [f.result() for f in futures]
    c = ask(a).result()
    d = interrupt("direct")
    e = ask(10).result()
    return {"a": a, "b": b, "c": c, "d": d, "e": e}


cfg = {"configurable": {"thread_id": "1"}}
call("first", wf.invoke, {"n": 1}, cfg)
record("calls 1", sorted(calls, key=repr))
calls.clear()
record("state 1", wf.get_state(cfg))
call("resume 1", lambda: list(wf.stream(Command(resume="r1"), cfg)))  # default mode: updates
record("calls 2", calls)
calls.clear()
record("state 2", wf.get_state(cfg))
call("resume 2", lambda: list(wf.stream(Command(resume="r2"), cfg, stream_mode="updates")))
record("calls 3", calls)
calls.clear()
call("resume 3", lambda: list(wf.stream(Command(resume="r3"), cfg, stream_mode=["updates", "values"])))
record("calls 4", calls)
record("final state", wf.get_state(cfg))
history(wf, cfg)
call("nothing pending", wf.invoke, {"n": 5}, {"configurable": {"thread_id": "2"}}, stream_mode="values")


# previous and entrypoint.final
@entrypoint(checkpointer=InMemorySaver())
def counter(n: int, *, previous=None) -> entrypoint.final[int, int]:
    total = (previous or 0) + n
    return entrypoint.final(value=previous, save=total)


cfg2 = {"configurable": {"thread_id": "c"}}
call("counter 1", counter.invoke, 3, cfg2)
call("counter 2", counter.invoke, 4, cfg2)
call("counter 3", counter.invoke, 5, cfg2)
record("counter state", counter.get_state(cfg2))
history(counter, cfg2)
call("counter values", lambda: list(counter.stream(1, cfg2, stream_mode="values")))


# retries, an error, and invoke(None) after it
attempts = {"flaky": 0, "broken": 0}


@task(retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.0, jitter=False, retry_on=ValueError))
def flaky(x):
    attempts["flaky"] += 1
    if attempts["flaky"] < 3:
        raise ValueError("not yet")
    return x * 2


@task
def broken(x):
    attempts["broken"] += 1
    if attempts["broken"] == 1:
        raise KeyError("first time")
    return x * 3


@entrypoint(checkpointer=InMemorySaver())
def retrying(x: int) -> list:
    return [flaky(x).result(), broken(x).result()]


cfg3 = {"configurable": {"thread_id": "r"}}
call("retrying", retrying.invoke, 2, cfg3)
record("attempts 1", dict(attempts))
record("after error", retrying.get_state(cfg3))
call("continue after error", retrying.invoke, None, cfg3)
record("attempts 2", dict(attempts))
history(retrying, cfg3)


# async: awaiting futures, gather, and the store parameter
@task
async def slow_double(x):
    await asyncio.sleep(0)
    return x * 2


@entrypoint(checkpointer=InMemorySaver(), store=InMemoryStore())
async def async_wf(xs: list, *, store) -> dict:
    store.put(("ns",), "k", {"xs": xs})
    first = await slow_double(xs[0])
    rest = await asyncio.gather(*[slow_double(x) for x in xs[1:]])
    return {"first": first, "rest": list(rest), "stored": store.get(("ns",), "k").value}


cfg4 = {"configurable": {"thread_id": "a"}}
call("async", lambda: asyncio.run(async_wf.ainvoke([1, 2, 3], cfg4)))
record("async state", async_wf.get_state(cfg4))
record("edges", sorted((e.source, e.target, e.conditional) for e in wf.get_graph().edges))
record("nodes", sorted(wf.get_graph().nodes))


# without a checkpointer
@entrypoint()
def plain(x: int) -> int:
    return add_one(x).result() * 10


call("no checkpointer", plain.invoke, 1)
call("no checkpointer, updates", lambda: list(plain.stream(1)))


# writer, config, the checkpoints stream, the entrypoint's own retry policy; a task outside a run
@entrypoint(checkpointer=InMemorySaver())
def talky(x, *, writer, config):
    writer({"custom": x, "thread": config["configurable"]["thread_id"]})
    return add_one(x).result()


cfg5 = {"configurable": {"thread_id": "w"}}
call("custom and updates", lambda: list(talky.stream(1, cfg5, stream_mode=["custom", "updates"])))
call("checkpoints", lambda: [(c["values"], c["next"], c["metadata"]["source"], [t["name"] for t in c["tasks"]])
                             for c in talky.stream(2, cfg5, stream_mode="checkpoints")])
runs = {"n": 0}


@entrypoint(checkpointer=InMemorySaver(),
            retry_policy=RetryPolicy(max_attempts=2, initial_interval=0.0, jitter=False, retry_on=ValueError))
def retried(x):
    runs["n"] += 1
    y = add_one(x).result()
    if runs["n"] == 1:
        raise ValueError("once")
    return y


calls.clear()
call("entrypoint retried", retried.invoke, 3, cfg5)
record("entrypoint runs", dict(runs))
record("entrypoint retry calls", calls)
call("task outside a run", lambda: add_one(1))


# a task calling a task, the inner one asking
@task
def outer(x):
    calls.append(("outer", x))
    return ask(x).result() + "!"


@entrypoint(checkpointer=InMemorySaver())
def nested(x):
    return [outer(x).result(), add_one(x).result()]


calls.clear()
cfg6 = {"configurable": {"thread_id": "n"}}
call("nested", lambda: list(nested.stream(7, cfg6)))
record("nested state", nested.get_state(cfg6))
call("nested resume", lambda: list(nested.stream(Command(resume="yes"), cfg6)))
record("nested calls", calls)


# durability="exit": the calls' results are stored when the run stops
calls.clear()
cfg7 = {"configurable": {"thread_id": "exit"}}
call("exit 1", wf.invoke, {"n": 1}, cfg7, durability="exit")
for answer in ("e1", "e2", "e3"):
    call(f"exit {answer}", wf.invoke, Command(resume=answer), cfg7, durability="exit")
record("exit calls", sorted(calls, key=repr))
record("exit versions", len(list(wf.get_state_history(cfg7))))
