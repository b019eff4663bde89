"""The sync face starts a call in place (engine._internal._sync._drive) and hands it to
the loop at its first real wait: what a caller sees must be what a task of the loop gives."""

from __future__ import annotations

import asyncio
import contextvars
import gc

import pytest

from engine._internal._sync import run_sync

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
