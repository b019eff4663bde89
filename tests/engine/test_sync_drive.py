"""The sync face starts a call in place (engine._internal._sync._drive) and hands it to
the loop at its first real wait: what a caller sees must be what a task of the loop gives."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import operator
from typing import Annotated, TypedDict

import pytest

from engine._internal._sync import run_sync
from engine.graph import END, START, StateGraph

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("VAR", default="caller's")


async def _no_wait() -> tuple[str, bool]:
    seen = VAR.get()
    VAR.set("inside")  # a task's own copy of the context: the caller's value stays
    return seen, asyncio.get_running_loop() is not None


def test_a_call_that_never_waits_runs_in_a_copy_of_the_callers_context() -> None:
    token = VAR.set("set by the caller")
    try:
        assert run_sync(_no_wait()) == ("set by the caller", True)
        assert VAR.get() == "set by the caller"
    finally:
        VAR.reset(token)


async def _waits() -> tuple[str, bool]:
    VAR.set("before the wait")
    loop = asyncio.get_running_loop()
    fut = loop.create_future()
    loop.call_later(0.001, fut.set_result, None)
    await fut
    await asyncio.sleep(0)
    return VAR.get(), asyncio.current_task() is not None


def test_a_call_that_waits_goes_on_as_a_task_in_the_same_context() -> None:
    before = VAR.get()
    assert run_sync(_waits()) == ("before the wait", True)
    assert VAR.get() == before


async def _cancelled_while_waiting() -> str:
    await asyncio.sleep(0)
    task = asyncio.current_task()
    assert task is not None
    asyncio.get_running_loop().call_soon(task.cancel)
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        return "the cancellation reached the coroutine"
    return "not cancelled"


def test_a_cancellation_of_the_task_is_thrown_into_the_coroutine() -> None:
    assert run_sync(_cancelled_while_waiting()) == "the cancellation reached the coroutine"


async def _raises_before_and_after(wait: bool) -> None:
    if wait:
        await asyncio.sleep(0)
    raise KeyError("the call's own error")


@pytest.mark.parametrize("wait", [False, True])
def test_an_exception_reaches_the_caller(wait: bool) -> None:
    with pytest.raises(KeyError, match="the call's own error"):
        run_sync(_raises_before_and_after(wait))


def test_an_async_generator_left_unfinished_is_closed_by_the_loop() -> None:
    """As under a running loop: the loop's hooks see a generator first iterated before
    any wait, so its ``finally`` (which awaits) runs when it is collected."""
    closed: list[str] = []

    async def gen():
        try:
            yield 1
            yield 2
        finally:
            await asyncio.sleep(0)
            closed.append("closed")

    async def take_one() -> int:
        agen = gen()
        return await agen.__anext__()  # the generator is left at its first item

    assert run_sync(take_one()) == 1
    gc.collect()
    run_sync(asyncio.sleep(0.001))  # the loop runs again: the finalizer's aclose is done there
    assert closed == ["closed"]


# A graph's async code under the sync face (tests/sidebyside/sync_async_nodes.py runs the same
# nodes under ainvoke on LangGraph and the engine; here the sync call must give what ainvoke gives).


class _S(TypedDict):
    n: int
    log: Annotated[list, operator.add]


async def _first_lines_need_a_task(state: _S) -> dict:
    seen = asyncio.current_task() is not None  # before any wait: the call was started in place
    async with asyncio.timeout(5):  # raises "Timeout should be used inside a task" without one
        async with asyncio.TaskGroup() as group:
            doubled = group.create_task(asyncio.sleep(0, result=state["n"] * 2))
    return {"n": doubled.result(), "log": [f"task={seen}"]}


async def _route(state: _S) -> str:
    async with asyncio.timeout(5):
        return "expires" if state["n"] > 2 else END


async def _expires(state: _S) -> dict:
    try:
        async with asyncio.timeout(0.001):
            await asyncio.Event().wait()
    except TimeoutError:
        return {"log": ["timed out"]}
    return {"log": ["not timed out"]}


def _graph(checkpointer=None):
    b = StateGraph(_S)
    b.add_node("first", _first_lines_need_a_task)
    b.add_node("expires", _expires)
    b.add_edge(START, "first")
    b.add_conditional_edges("first", _route, ["expires", END])
    b.add_edge("expires", END)
    return b.compile(checkpointer=checkpointer)


def test_async_nodes_and_routers_see_a_task_under_the_sync_face(checkpointer) -> None:
    expected = {"n": 4, "log": ["task=True", "timed out"]}
    assert asyncio.run(_graph().ainvoke({"n": 2, "log": []})) == expected
    assert _graph().invoke({"n": 2, "log": []}) == expected
    assert _graph(checkpointer).invoke({"n": 2, "log": []}, {"configurable": {"thread_id": "t"}}) == expected
    updates = list(_graph().stream({"n": 1, "log": []}, stream_mode="updates"))
    assert updates == [{"first": {"n": 2, "log": ["task=True"]}}]


async def _times_out(state: _S) -> dict:
    async with asyncio.timeout(0.001):
        await asyncio.Event().wait()
    return {}


def test_an_expired_timeout_in_a_lone_async_node_is_the_nodes_error() -> None:
    b = StateGraph(_S)
    b.add_node("times_out", _times_out)
    b.add_edge(START, "times_out")
    with pytest.raises(TimeoutError):
        b.compile().invoke({"n": 0, "log": []})


# Sync nodes that call async code themselves (tests/sidebyside/sync_nodes_asyncio.py: as LangGraph).


async def _fetch(n: int) -> int:
    async with asyncio.timeout(5):
        await asyncio.sleep(0)
        return n * 10


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _calls_async(state: _S) -> dict:
    return {"log": [f"fetched {asyncio.run(_fetch(state['n']))} loop={_loop_running()}"]}


def _calls_a_graph(state: _S) -> dict:
    b = StateGraph(_S)
    b.add_node("double", lambda s: {"n": s["n"] * 2, "log": ["inner"]})
    b.add_edge(START, "double")
    out = b.compile().invoke({"n": state["n"], "log": []})
    return {"log": [f"inner gave {out['n']} loop={_loop_running()}"]}


@pytest.mark.parametrize("parallel", [False, True])
def test_a_sync_node_sees_no_running_loop_and_may_call_asyncio_run(checkpointer, parallel: bool) -> None:
    """A lone sync node runs inline on the sync face's loop thread, but as on LangGraph no loop
    runs for it: ``asyncio.run()`` works there, and so does another graph's ``invoke``."""
    b = StateGraph(_S)
    b.add_node("calls_async", _calls_async)
    b.add_node("calls_a_graph", _calls_a_graph)
    b.add_edge(START, "calls_async")
    b.add_edge(START if parallel else "calls_async", "calls_a_graph")
    app = b.compile(checkpointer=checkpointer)
    out = app.invoke({"n": 4, "log": []}, {"configurable": {"thread_id": "t"}})
    assert sorted(out["log"]) == ["fetched 40 loop=False", "inner gave 8 loop=False"]
    assert not _loop_running()  # the caller's thread as it was
    chunks = list(b.compile().stream({"n": 1, "log": []}, stream_mode="updates"))
    assert sorted(next(iter(c.values()))["log"][0] for c in chunks) == ["fetched 10 loop=False", "inner gave 2 loop=False"]
