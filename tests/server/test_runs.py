"""Runs are owned by the server: one per thread (ABORTED, or queued with
enqueue), cancelled by the client leaving, by its deadline or by CancelRun,
and the thread is usable afterwards; DeleteThread; static breakpoints and the
recursion limit over the wire.

The ``gated`` graph (tests/graphs.py) holds its run until the test opens a
gate, so "while a run is active" is a fact the test controls, not a race.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from graphwire import (
    Aborted,
    CheckpointSaved,
    DeadlineExceeded,
    FinishReason,
    NotFound,
    RunFinished,
    RunStarted,
    TaskStarted,
    _decode,
)
from graphwire_proto.v1 import graphwire_pb2 as pb
from graphwire_proto.v1 import graphwire_pb2_grpc as pb_grpc

NEVER = "never-opened"  # a gate no test opens: the run waits until it is cancelled


def gated_input(gate: str | None, label: str) -> dict[str, Any]:
    return {"gate": gate, "label": label}


def _invoke_request(thread_id: str, gate: str | None, label: str, *, enqueue: bool = False) -> pb.InvokeRequest:
    data = json.dumps(gated_input(gate, label))
    return pb.InvokeRequest(graph="gated", thread_id=thread_id, input_json=data, enqueue=enqueue)


async def _until_working(events: AsyncIterator[Any]) -> list[Any]:
    """Read a gated run's events until its node is running."""
    seen = []
    async for e in events:
        seen.append(e)
        if isinstance(e, TaskStarted) and e.node == "work":
            return seen
    raise AssertionError(f"the run ended before its node started: {seen}")


def test_second_invoke_on_busy_thread_is_aborted(server: Any, thread_id: str) -> None:
    gate = f"{thread_id}-gate"

    async def body() -> None:
        async with server.async_client() as first, server.async_client() as other:
            stream = first.stream("gated", thread_id, gated_input(gate, "first"), timeout=30)
            started = await _until_working(stream)

            with pytest.raises(Aborted) as busy:
                await other.invoke("gated", thread_id, gated_input(None, "second"), timeout=10)
            assert repr(thread_id) in busy.value.message
            assert started[0].run_id in busy.value.message
            # Writes that would race the run are refused too.
            with pytest.raises(Aborted, match=thread_id):
                await other.update_state("gated", thread_id, {"label": "x"}, as_node="work", timeout=10)
            with pytest.raises(Aborted, match=thread_id):
                await other.delete_thread("gated", thread_id, timeout=10)
            # Another thread of the same graph is not busy.
            free = await other.invoke("gated", f"{thread_id}-other", gated_input(None, "free"), timeout=10)
            assert free.reason is FinishReason.END

            server.open_gate(gate)
            rest = [e async for e in stream]
        assert isinstance(rest[-1], RunFinished) and rest[-1].reason is FinishReason.END
        assert rest[-1].values["log"] == ["first"]

    asyncio.run(asyncio.wait_for(body(), 60))


def test_enqueued_invoke_runs_after_the_first(server: Any, thread_id: str) -> None:
    gate = f"{thread_id}-gate"
    order: list[tuple[str, str]] = []

    async def consume(name: str, call: Any) -> list[Any]:
        events = []
        async for message in call:
            e = _decode.event(message)
            events.append(e)
            if isinstance(e, (RunStarted, RunFinished)):
                order.append((name, type(e).__name__))
        return events

    async def body() -> tuple[list[Any], list[Any]]:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = pb_grpc.GraphServiceStub(channel)
            first = stub.Invoke(_invoke_request(thread_id, gate, "first"), timeout=30)
            first_events = []
            async for message in first:
                e = _decode.event(message)
                first_events.append(e)
                if isinstance(e, RunStarted):
                    order.append(("first", "RunStarted"))
                if isinstance(e, TaskStarted):
                    break
            # The queued call, then a probe on the same connection: the probe is
            # refused while the first run holds the thread, and it was sent after
            # the queued call, so the queued call is at the server, waiting.
            queued = stub.Invoke(_invoke_request(thread_id, None, "second", enqueue=True), timeout=30)
            probe = stub.Invoke(_invoke_request(thread_id, None, "probe"), timeout=10)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                async for _ in probe:
                    pass
            assert refused.value.code() is grpc.StatusCode.ABORTED
            second_task = asyncio.ensure_future(consume("second", queued))

            server.open_gate(gate)
            first_events += await consume("first", first)
            return first_events, await second_task

    first_events, second_events = asyncio.run(asyncio.wait_for(body(), 60))

    # Each stream in order. (Which of two streams' messages the client reads
    # first says nothing about the server, so the order *between* the runs is
    # checked on what the server saved instead.)
    assert [o for o in order if o[0] == "first"] == [("first", "RunStarted"), ("first", "RunFinished")]
    assert [o for o in order if o[0] == "second"] == [("second", "RunStarted"), ("second", "RunFinished")]
    first_done, second_start, second_done = first_events[-1], second_events[0], second_events[-1]
    assert first_done.reason is FinishReason.END and second_done.reason is FinishReason.END
    # The queued run started only once the first had ended: from the version
    # the first one ended on, its input version a child of it...
    assert second_start.checkpoint_id == first_done.checkpoint.checkpoint_id
    second_saved = [e.checkpoint for e in second_events if isinstance(e, CheckpointSaved)]
    assert second_saved[0].source == "input" and second_saved[0].parent_id == first_done.checkpoint.checkpoint_id
    # ...and it saw the first run's writes.
    assert second_done.values["log"] == ["first", "second"]


def test_leaving_the_stream_cancels_the_run(server: Any, thread_id: str) -> None:
    with server.client() as client:
        stream = client.stream("gated", thread_id, gated_input(NEVER, "left"), timeout=30)
        run_id = None
        for e in stream:
            if isinstance(e, TaskStarted):
                run_id = e.run_id
                break
        stream.close()  # the client cancels the call
        assert run_id is not None

        # enqueue: waits for the cancelled run to wind down instead of racing it.
        after = client.invoke("gated", thread_id, gated_input(None, "after"), enqueue=True, timeout=30)
        assert after.reason is FinishReason.END
        assert after.values["log"] == ["after"]  # the cancelled node wrote nothing
        history = client.history("gated", thread_id)
    # The cancelled run's saved version stayed; the next run started from it.
    kept = [s for s in history if s.metadata.get("run_id") == run_id]
    assert [(s.checkpoint.source, s.next) for s in kept] == [("loop", ("work",)), ("input", ("__start__",))]
    assert after.events[0].checkpoint_id == kept[0].checkpoint.checkpoint_id


def test_deadline_cancels_the_run(server: Any, thread_id: str) -> None:
    with server.client() as client:
        seen: list[Any] = []
        with pytest.raises(DeadlineExceeded):
            for e in client.stream("gated", thread_id, gated_input(NEVER, "late"), timeout=1.5):
                seen.append(e)
        assert seen and isinstance(seen[0], RunStarted)
        after = client.invoke("gated", thread_id, gated_input(None, "after"), enqueue=True, timeout=30)
        assert after.reason is FinishReason.END and after.values["log"] == ["after"]
        kept = [s for s in client.history("gated", thread_id) if s.metadata.get("run_id") == seen[0].run_id]
    assert kept, "the deadline-cancelled run's input version should stay"


def test_cancel_run_from_another_client(server: Any, thread_id: str) -> None:
    with server.client() as runner, server.client() as other:
        assert other.cancel("gated", thread_id) is False  # nothing to cancel yet
        stream = runner.stream("gated", thread_id, gated_input(NEVER, "doomed"), timeout=30)
        run_id = None
        for e in stream:
            if isinstance(e, TaskStarted):
                run_id = e.run_id
                break
        assert run_id is not None
        assert other.cancel("gated", thread_id, run_id="not-this-run") is False
        assert other.cancel("gated", thread_id, run_id=run_id) is True
        rest = list(stream)  # the stream goes on, to its RunFinished

        finished = rest[-1]
        assert isinstance(finished, RunFinished) and finished.reason is FinishReason.CANCELLED
        assert finished.run_id == run_id
        # The version saved before the cancel is the run's final checkpoint.
        assert finished.checkpoint is not None and finished.checkpoint.next == ("work",)
        assert finished.values == {"gate": NEVER, "label": "doomed", "log": []}
        assert other.cancel("gated", thread_id) is False  # over
        again = runner.invoke("gated", thread_id, gated_input(None, "again"), timeout=30)
        assert again.reason is FinishReason.END and again.values["log"] == ["again"]


def test_delete_thread(server: Any, thread_id: str) -> None:
    with server.client() as client:
        client.invoke("chain3", thread_id, {"n": 0}, timeout=30)
        assert client.history("chain3", thread_id)
        client.delete_thread("chain3", thread_id)
        with pytest.raises(NotFound, match=thread_id):
            client.get_state("chain3", thread_id)
        assert client.history("chain3", thread_id) == []
        with pytest.raises(NotFound, match=thread_id):
            client.delete_thread("chain3", thread_id)
        fresh = client.invoke("chain3", thread_id, {"n": 5}, timeout=30)
    assert fresh.events[0].checkpoint_id is None  # a new thread, not the deleted one
    assert fresh.values == {"n": 8, "log": ["a", "b", "c"]}


def test_same_thread_id_in_two_graphs_is_two_threads(server: Any, thread_id: str) -> None:
    with server.client() as client:
        client.invoke("chain3", thread_id, {"n": 0}, timeout=30)
        client.invoke("gated", thread_id, gated_input(None, "g"), timeout=30)
        assert client.get_state("chain3", thread_id).values == {"n": 3, "log": ["a", "b", "c"]}
        assert client.get_state("gated", thread_id).values["log"] == ["g"]


def test_static_breakpoint_and_continue(server: Any, thread_id: str) -> None:
    with server.client() as client:
        paused = client.invoke("chain3", thread_id, {"n": 0}, interrupt_before=["b"], timeout=30)
        assert paused.reason is FinishReason.INTERRUPT and paused.interrupts == ()
        assert paused.checkpoint.next == ("b",) and paused.values["n"] == 1
        done = client.invoke("chain3", thread_id, None, timeout=30)
    assert done.reason is FinishReason.END and done.values == {"n": 3, "log": ["a", "b", "c"]}


def test_recursion_limit(server: Any, thread_id: str) -> None:
    with server.client() as client:
        result = client.invoke("chain3", thread_id, {"n": 0}, recursion_limit=2, timeout=30)
    assert result.reason is FinishReason.RECURSION_LIMIT
    assert result.error is not None and result.error.type == "GraphRecursionError"
    assert result.values["n"] == 2  # the steps that ran stay


def test_event_kinds_filter(server: Any, thread_id: str) -> None:
    with server.client() as client:
        result = client.invoke("chain3", thread_id, {"n": 0}, event_kinds=["task_finished"], timeout=30)
    # Only what was asked for, plus the first and last events.
    assert isinstance(result.events[0], RunStarted) and isinstance(result.events[-1], RunFinished)
    middle = result.events[1:-1]
    assert {type(e).__name__ for e in middle} == {"TaskFinished"}
    assert [(e.node, e.update) for e in middle if e.node != "__start__"] == [
        ("a", {"n": 1, "log": ["a"]}),
        ("b", {"n": 2, "log": ["b"]}),
        ("c", {"n": 3, "log": ["c"]}),
    ]
    assert result.checkpoint is not None and result.checkpoint.next == ()


def test_a_history_too_large_for_one_message_says_how_to_page_it(server: Any, thread_id: str) -> None:
    """A long thread's full history does not fit one message: RESOURCE_EXHAUSTED saying to page, and paging works."""
    from graphwire import ResourceExhausted

    with server.client() as client:
        big = "x" * 100_000
        for i in range(30):  # each version carries the growing log (up to 3 MB): far past 16 MiB in all
            client.invoke("chain3", thread_id, {"log": [big]}, timeout=30)
        with pytest.raises(ResourceExhausted, match="page with before"):
            client.history("chain3", thread_id, timeout=60)
        page = client.history("chain3", thread_id, limit=5, timeout=60)
        older = client.history("chain3", thread_id, limit=5, before=page[-1].checkpoint.checkpoint_id, timeout=60)
        assert len(page) == 5 and len(older) == 5
        assert older[0].checkpoint.checkpoint_id == page[-1].checkpoint.parent_id
