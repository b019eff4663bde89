"""Issue 18 item 1: a run's context and Runtime, by parameter and through get_runtime()."""

from dataclasses import dataclass
from typing import Optional, TypedDict

from pydantic import BaseModel

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime, get_runtime
from langgraph.store.memory import InMemoryStore
from langgraph.types import RetryPolicy

from observe import call, record


@dataclass
class Ctx:
    user_id: str
    locale: str = "en"


class TDCtx(TypedDict):
    user_id: str


class PCtx(BaseModel):
    user_id: str
    n: Optional[int] = None


class S(TypedDict, total=False):
    seen: list
    x: int


def greet(state: S, runtime: Runtime[Ctx]):
    info = runtime.execution_info
    return {
        "seen": [
            repr(runtime.context),
            runtime.store is not None,
            get_runtime() is runtime,
            get_runtime(Ctx).context == runtime.context,
            runtime.previous,
            info.thread_id,
            info.node_attempt,
            info.checkpoint_ns.split(":")[0],
            runtime.server_info,
        ]
    }


def untyped(state, runtime):
    runtime.stream_writer({"custom": runtime.context})
    return {"x": 1}


store = InMemoryStore()
store.put(("users",), "u1", {"name": "Alice"})


def from_store(state: S, runtime: Runtime[Ctx]):
    item = runtime.store.get(("users",), runtime.context.user_id)
    return {"seen": [item.value["name"] if item else None]}


def build(node, schema=Ctx, **kw):
    return StateGraph(S, context_schema=schema).add_node("n", node).add_edge(START, "n").compile(**kw)


cfg = {"configurable": {"thread_id": "t"}}
call("dataclass", build(greet, store=store, checkpointer=InMemorySaver()).invoke, {}, cfg, context=Ctx("u1"))
call("dict coerced", build(greet).invoke, {}, context={"user_id": "u2", "locale": "fr"})
call("missing field", build(greet).invoke, {}, context={"locale": "fr"})
call("unknown field", build(greet).invoke, {}, context={"user_id": "u", "nope": 1})
call("no context", build(greet).invoke, {})
call("typeddict kept as dict", build(greet, TDCtx).invoke, {}, context={"user_id": "u3", "extra": 1})
call("pydantic coerced", build(greet, PCtx).invoke, {}, context={"user_id": "u4", "n": "5"})
call("pydantic bad", build(greet, PCtx).invoke, {}, context={"n": "x"})
call("no schema", StateGraph(S).add_node("n", greet).add_edge(START, "n").compile().invoke, {}, context={"any": 1})
call("store", build(from_store, store=store).invoke, {}, context=Ctx("u1"))
record("stream custom", list(build(untyped).stream({}, context=Ctx("u5"), stream_mode=["custom", "updates"])))


async def main():
    out = await build(greet).ainvoke({}, context=Ctx("a"))
    chunks = [c async for c in build(greet).astream({"x": 0}, context=Ctx("b"), stream_mode="values")]
    return out, chunks


import asyncio  # noqa: E402

record("async", asyncio.run(main()))

attempts = []


def flaky(state, runtime: Runtime):
    attempts.append(runtime.execution_info.node_attempt)
    if len(attempts) < 3:
        raise ValueError("again")
    return {"x": len(attempts)}


g = StateGraph(S, context_schema=Ctx).add_node("n", flaky, retry_policy=RetryPolicy(initial_interval=0, jitter=False, retry_on=ValueError))
record("retries", (g.add_edge(START, "n").compile().invoke({}, context=Ctx("r")), attempts))


def outside():
    return get_runtime()


call("outside a node", outside)


def takes_previous(state, previous):
    return {"seen": [previous]}


record("previous parameter", build(takes_previous).invoke({}))


def inner(state, runtime: Runtime[Ctx]):
    return {"seen": [f"inner {runtime.context.user_id}"]}


sub = StateGraph(S, context_schema=Ctx).add_node("inner", inner).add_edge(START, "inner").compile()
outer = StateGraph(S, context_schema=Ctx).add_node("sub", sub).add_edge(START, "sub").compile(checkpointer=InMemorySaver())
record("subgraph sees the context", outer.invoke({}, {"configurable": {"thread_id": "sub"}}, context=Ctx("s1")))
