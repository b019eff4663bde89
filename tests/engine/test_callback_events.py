"""engine.host.with_callback_events around a run (LangGraph's server's "events" mode): the run's own events keep
their order and their reader's pace, its start stays first and its end last, and a cancelled caller ends the
run as a cancelled run ends (its RunFinished, then the CancelledError). The callback events' shapes against
LangGraph's are tests/http/test_sse_events.py's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from engine import events as ev  # noqa: E402
from engine.host import with_callback_events  # noqa: E402

RUN = "6f1c8a52-3f6b-4c55-9a8e-2f0d5f7e9b10"


def test_the_run_keeps_its_order_and_its_readers_pace() -> None:
    made: list[int] = []

    async def run(config: dict[str, Any]) -> AsyncIterator[ev.Event]:
        assert str(config["run_id"]) == RUN and config["callbacks"]  # the handler, and the root run named by the run
        yield ev.RunStarted(RUN, "t", "g", None)
        for i in range(100):
            made.append(i)
            yield ev.CustomEvent(0, "k", "n", i)
        yield ev.RunFinished("END", None)

    async def body() -> None:
        got: list[ev.Event] = []
        async for e in with_callback_events(run, {"x": 1}, {}, RUN):
            got.append(e)
            taken = sum(isinstance(g, ev.CustomEvent) for g in got)
            assert len(made) <= taken + 20  # never far ahead of its reader
            await asyncio.sleep(0)
        assert isinstance(got[0], ev.RunStarted) and isinstance(got[-1], ev.RunFinished)
        assert [e.payload for e in got if isinstance(e, ev.CustomEvent)] == list(range(100))

    asyncio.run(body())


def test_a_cancelled_caller_gets_the_runs_cancelled_end() -> None:
    async def run(config: dict[str, Any]) -> AsyncIterator[ev.Event]:
        yield ev.RunStarted(RUN, "t", "g", None)
        yield ev.CustomEvent(0, "k", "n", "working")
        try:
            await asyncio.Event().wait()  # a node that runs until cancelled
        except asyncio.CancelledError:
            yield ev.RunFinished("CANCELLED", None)
            raise

    async def body() -> None:
        got: list[ev.Event] = []
        working = asyncio.Event()

        async def read() -> None:
            async for e in with_callback_events(run, None, {}, RUN):
                got.append(e)
                if isinstance(e, ev.CustomEvent):
                    working.set()

        reader = asyncio.create_task(read())
        await working.wait()
        reader.cancel()  # the reader waits in the wrapper for the run's next event
        with pytest.raises(asyncio.CancelledError):
            await reader
        assert [type(e).__name__ for e in got] == ["RunStarted", "CustomEvent", "RunFinished"]
        assert isinstance(got[-1], ev.RunFinished) and got[-1].reason == "CANCELLED"

    asyncio.run(body())


def test_a_reader_that_stops_early_closes_the_run() -> None:
    closed = asyncio.Event()

    async def run(config: dict[str, Any]) -> AsyncIterator[ev.Event]:
        try:
            yield ev.RunStarted(RUN, "t", "g", None)
            for i in range(100):  # more than the reader takes: the run waits for room
                yield ev.CustomEvent(0, "k", "n", i)
        finally:
            closed.set()

    async def body() -> None:
        events = with_callback_events(run, None, {}, RUN)
        assert isinstance(await anext(events), ev.RunStarted)
        for _ in range(3):
            await asyncio.sleep(0)  # the run fills its room
        await events.aclose()  # type: ignore[attr-defined]
        assert closed.is_set()

    asyncio.run(body())


def test_callbacks_through_a_sync_manager_run_in_place_not_on_a_loop_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """A node's run and the run's own chain run report through LangChain's sync callback manager; LangChain
    runs an async handler's callback there on a new event loop (on a pooled thread when a loop is running).
    The events stream's handler runs each in place, on the loop's thread and on a node's thread alike."""
    import threading
    import uuid

    from langchain_core.callbacks import CallbackManager
    from langchain_core.callbacks import manager as lc_manager

    def refused(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a callback went to a loop of its own")

    monkeypatch.setattr(lc_manager, "_run_coros", refused)
    run_ids = [uuid.uuid4(), uuid.uuid4()]

    def report(run_id: uuid.UUID, config: dict[str, Any]) -> None:
        run = CallbackManager.configure(config["callbacks"]).on_chain_start({"name": "node"}, {"x": 1}, run_id=run_id)
        run.on_chain_end({"y": 2})

    async def run(config: dict[str, Any]) -> AsyncIterator[ev.Event]:
        yield ev.RunStarted(RUN, "t", "g", None)
        report(run_ids[0], config)  # on the loop's thread
        worker = threading.Thread(target=report, args=(run_ids[1], config))
        worker.start()
        worker.join()
        yield ev.RunFinished("END", None)

    async def body() -> list[ev.Event]:
        return [e async for e in with_callback_events(run, {"x": 1}, {}, RUN)]

    got = asyncio.run(body())
    callbacks = [(e.payload["event"], e.payload["run_id"]) for e in got if isinstance(e, ev.CallbackEvent)]
    for run_id in run_ids:
        assert ("on_chain_start", str(run_id)) in callbacks and ("on_chain_end", str(run_id)) in callbacks
