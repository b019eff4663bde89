"""Issue 29: the callback runs of @task calls: their names and inputs (the call's arguments by
parameter name), sync and async, with one and several arguments."""

import asyncio

from langchain_core.callbacks import BaseCallbackHandler
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task

from observe import record


class Runs(BaseCallbackHandler):
    def __init__(self) -> None:
        self.seen = []

    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kwargs) -> None:
        self.seen.append((kwargs.get("name"), inputs))


@task
def one(x: int) -> int:
    return x + 1


@task
def two(a: int, b: str = "b") -> str:
    return f"{a}{b}"


@task()
async def amapper(input: int) -> str:
    await asyncio.sleep(0)
    return str(input) * 2


@entrypoint(checkpointer=InMemorySaver())
def sync_graph(x: int) -> list:
    return [one(x).result(), two(x, b="z").result(), two(x + 1).result()]


@entrypoint(checkpointer=InMemorySaver())
async def async_graph(xs: list) -> list:
    return await asyncio.gather(*[amapper(i) for i in xs])


runs = Runs()
record("sync", sync_graph.invoke(1, {"configurable": {"thread_id": "s"}, "callbacks": [runs]}))
record("sync runs", sorted(runs.seen, key=str))
runs = Runs()
record("async", asyncio.run(async_graph.ainvoke([0, 1], {"configurable": {"thread_id": "a"}, "callbacks": [runs]})))
record("async runs", sorted(runs.seen, key=str))
