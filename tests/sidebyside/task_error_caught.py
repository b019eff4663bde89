"""Issue 29: a @task call's error goes to its caller: caught there, the run goes on.

An entrypoint that catches a call's exception returns normally, sync and
async; a call whose error the entrypoint never looks at does not fail the
run either; an uncaught one fails it.
"""

import asyncio

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task

from observe import call, record


@task
def double(n: int) -> int:
    return n * 2


@task
def boom(n: int) -> int:
    raise ValueError(f"boom {n}")


@entrypoint(checkpointer=InMemorySaver())
def caught(n: int) -> str:
    double(n).result()
    try:
        boom(n).result()
    except ValueError as e:
        return f"caught {e}"
    return "not raised"


@entrypoint(checkpointer=InMemorySaver())
def ignored(n: int) -> int:
    boom(n)
    return double(n).result()


@entrypoint(checkpointer=InMemorySaver())
def uncaught(n: int) -> int:
    return boom(n).result()


@task
async def aboom(n: int) -> int:
    raise ValueError(f"aboom {n}")


@entrypoint(checkpointer=InMemorySaver())
async def acaught(n: int) -> str:
    try:
        await aboom(n)
    except ValueError as e:
        return f"caught {e}"
    return "not raised"


record("caught", caught.invoke(1, {"configurable": {"thread_id": "1"}}))
record("caught stream", list(caught.stream(2, {"configurable": {"thread_id": "1"}})))
call("ignored", ignored.invoke, 3, {"configurable": {"thread_id": "2"}})
call("uncaught", uncaught.invoke, 4, {"configurable": {"thread_id": "3"}})
record("async caught", asyncio.run(acaught.ainvoke(5, {"configurable": {"thread_id": "4"}})))
