"""Node timeouts (issue 29), as LangGraph 1.2.22's: TimeoutPolicy, NodeTimeoutError, retries, Sends, @task, @entrypoint.

The twin of tests/sidebyside/node_timeouts.py. A node that must time out waits on an event nobody
sets; one that must not returns at once under a generous limit: no outcome depends on timing.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any, TypedDict

import pytest

from engine import START, StateGraph
from engine.channels import EphemeralValue, LastValue
from engine.checkpoint.serde.jsonplus import JsonPlusSerializer
from engine.errors import NodeCancelledError, NodeError, NodeTimeoutError
from engine.func import entrypoint, task
from engine.pregel import NodeBuilder, Pregel
from engine.runtime import DEFAULT_RUNTIME
from engine.types import RetryPolicy, Send, TimeoutPolicy


class S(TypedDict):
    x: int


async def forever(*_: Any) -> Any:
    await asyncio.Event().wait()


RETRY = RetryPolicy(max_attempts=3, initial_interval=0, jitter=False, retry_on=NodeTimeoutError)


def test_policies_are_coerced_to_seconds_and_checked_when_given() -> None:
    assert TimeoutPolicy.coerce(None) is None
    assert TimeoutPolicy.coerce(timedelta(milliseconds=250)) == TimeoutPolicy(run_timeout=0.25)
    p = TimeoutPolicy.coerce(TimeoutPolicy(run_timeout=1.0, idle_timeout=2.0))
    assert TimeoutPolicy.coerce(p) is p
    assert Send("n", 1, timeout=0.5).timeout == TimeoutPolicy(run_timeout=0.5)
    assert repr(Send("n", 1)) == "Send(node='n', arg=1)"
    for make in (lambda: Send("n", 1, timeout=0), lambda: task(timeout=0), lambda: entrypoint(timeout=0),
                 lambda: NodeBuilder().set_timeout(0), lambda: StateGraph(S).add_node("n", lambda s: s, timeout=0)):
        with pytest.raises(ValueError, match="greater than 0"):
            make()
    with pytest.raises(ValueError, match="refresh_on"):
        TimeoutPolicy.coerce(TimeoutPolicy(idle_timeout=1, refresh_on="never"))  # type: ignore[arg-type]
    serde = JsonPlusSerializer()
    packet = Send("w", {"x": 1}, timeout=TimeoutPolicy(run_timeout=1, idle_timeout=2))
    assert serde.loads_typed(serde.dumps_typed(packet)) == packet
    DEFAULT_RUNTIME.heartbeat()  # outside a timed attempt: nothing


def test_a_timeout_is_retried_then_fails_with_the_policys_values() -> None:
    attempts: list[int] = []

    async def stuck(state: S) -> S:
        attempts.append(1)
        return await forever()

    graph = (
        StateGraph(S).add_node("stuck", stuck, timeout=TimeoutPolicy(run_timeout=0.05, idle_timeout=5), retry_policy=RETRY)
        .add_edge(START, "stuck").compile()
    )
    with pytest.raises(NodeTimeoutError) as raised:
        asyncio.run(graph.ainvoke({"x": 1}))
    e = raised.value
    assert (e.node, e.kind, e.timeout, e.run_timeout, e.idle_timeout) == ("stuck", "run", 0.05, 0.05, 5.0)
    assert not isinstance(e, TimeoutError)  # so the default RetryPolicy retries it
    assert len(attempts) == 3


def test_a_timed_out_attempt_is_retried_and_the_next_one_returns() -> None:
    attempts: list[int] = []

    async def second_time(state: S) -> S:
        attempts.append(1)
        if len(attempts) == 1:
            await forever()
        return {"x": state["x"] + 1}

    graph = (
        StateGraph(S).add_node("n", second_time, timeout=TimeoutPolicy(idle_timeout=0.05), retry_policy=RETRY)
        .add_edge(START, "n").compile()
    )
    assert asyncio.run(graph.ainvoke({"x": 1})) == {"x": 2}
    assert len(attempts) == 2


def test_a_send_timeout_replaces_its_nodes_and_a_handler_takes_a_timeout_over() -> None:
    graph = (
        StateGraph(S).add_node("slow", forever, timeout=TimeoutPolicy(idle_timeout=60))
        .add_conditional_edges(START, lambda s: [Send("slow", s, timeout=TimeoutPolicy(idle_timeout=0.05))]).compile()
    )
    with pytest.raises(NodeTimeoutError) as raised:
        asyncio.run(graph.ainvoke({"x": 1}))
    assert (raised.value.kind, raised.value.idle_timeout) == ("idle", 0.05)

    def handler(state: S, error: NodeError) -> S:
        return {"x": -1 if isinstance(error.error, NodeTimeoutError) else -2}

    graph = StateGraph(S).add_node("slow", forever, timeout=0.05, error_handler=handler).add_edge(START, "slow").compile()
    assert asyncio.run(graph.ainvoke({"x": 1})) == {"x": -1}


def test_node_defaults_give_a_timeout_and_a_nodes_own_wins() -> None:
    async def quick(state: S) -> S:
        return {"x": 2}

    graph = (
        StateGraph(S).set_node_defaults(timeout=TimeoutPolicy(run_timeout=0.05)).add_node("slow", forever)
        .add_node("quick", quick, timeout=60).add_edge(START, "quick").add_edge("quick", "slow").compile()
    )
    with pytest.raises(NodeTimeoutError) as raised:
        asyncio.run(graph.ainvoke({"x": 1}))
    assert raised.value.node == "slow"


def test_heartbeats_and_custom_events_within_the_limit() -> None:
    async def busy(state: S, runtime: Any) -> S:
        for i in range(3):
            runtime.heartbeat()
            runtime.stream_writer({"i": i})
        return {"x": 7}

    graph = StateGraph(S).add_node("busy", busy, timeout=TimeoutPolicy(idle_timeout=30, run_timeout=60)).add_edge(START, "busy").compile()

    async def chunks() -> list[Any]:
        return [c async for c in graph.astream({"x": 0}, stream_mode=["custom", "updates"])]

    assert asyncio.run(chunks()) == [("custom", {"i": 0}), ("custom", {"i": 1}), ("custom", {"i": 2}), ("updates", {"busy": {"x": 7}})]


def test_task_and_entrypoint_timeouts() -> None:
    @task(timeout=TimeoutPolicy(idle_timeout=0.05))
    async def slow_task(x: int) -> int:
        return await forever()

    @task(timeout=60)
    async def echo(*, timeout: int) -> int:  # the function's own ``timeout`` keyword is its own
        return timeout

    @entrypoint()
    async def workflow(x: int) -> int:
        return await slow_task(await echo(timeout=x))

    with pytest.raises(NodeTimeoutError) as raised:
        asyncio.run(workflow.ainvoke(3))
    assert raised.value.node == "slow_task"

    @entrypoint(timeout=TimeoutPolicy(idle_timeout=0.05))
    async def slow_workflow(x: int) -> int:
        return await forever()

    with pytest.raises(NodeTimeoutError) as raised:
        asyncio.run(slow_workflow.ainvoke(1))
    assert raised.value.node == "slow_workflow"


def test_sync_nodes_with_a_timeout_are_refused() -> None:
    def sync_node(state: S) -> S:
        return state

    message = "only supported for async nodes"
    with pytest.raises(ValueError, match=message):
        StateGraph(S).add_node("n", sync_node, timeout=1).add_edge(START, "n").compile()
    with pytest.raises(ValueError, match=message):
        task(timeout=1)(sync_node)
    with pytest.raises(ValueError, match=message):
        entrypoint(timeout=1)(sync_node)
    with pytest.raises(ValueError, match=message):
        Pregel(
            nodes={"n": NodeBuilder().subscribe_only("a").do(lambda v: v).set_timeout(1).write_to("b")},
            channels={"a": EphemeralValue(int), "b": LastValue(int)}, input_channels="a", output_channels="b",
        )  # fmt: skip


def test_a_low_level_node_times_out() -> None:
    graph = Pregel(
        nodes={"n": NodeBuilder().subscribe_only("a").do(forever).set_timeout(TimeoutPolicy(idle_timeout=0.05)).write_to("b")},
        channels={"a": EphemeralValue(int), "b": LastValue(int)}, input_channels="a", output_channels="b",
    )  # fmt: skip
    with pytest.raises(NodeTimeoutError):
        asyncio.run(graph.ainvoke(1))


def test_a_node_raising_cancelled_error_fails_the_run() -> None:
    async def ok(state: S) -> S:
        return {"x": 1}

    async def cancels(state: S) -> S:
        raise asyncio.CancelledError("raised by the node")

    graph = StateGraph(S).add_node("ok", ok).add_node("boom", cancels).add_edge(START, "ok").add_edge(START, "boom").compile()
    with pytest.raises(NodeCancelledError) as raised:
        asyncio.run(graph.ainvoke({"x": 0}))
    assert raised.value.node == "boom"


def test_a_call_its_entrypoint_cancelled_is_not_waited_for() -> None:
    from engine.checkpoint import InMemorySaver
    from engine.types import Command, interrupt

    runs = {"calls": 0, "cancelled": 0}
    started: list[asyncio.Event] = []

    @task()
    async def mapper(i: int) -> str:
        runs["calls"] += 1
        try:
            if i:
                started[-1].set()
                await forever()
        except asyncio.CancelledError:
            runs["cancelled"] += 1
            raise
        return str(i) * 2

    @entrypoint(checkpointer=InMemorySaver())
    async def cancelling(inp: list[int]) -> list[str]:
        started.append(asyncio.Event())
        futures = [mapper(i) for i in inp]
        await started[-1].wait()
        futures.pop().cancel()
        mapped = await asyncio.gather(*futures)
        return [m + interrupt("question") for m in mapped]

    async def run() -> Any:
        config = {"configurable": {"thread_id": "c"}}
        first = [list(c) for c in [c async for c in cancelling.astream([0, 1], config)]]
        assert runs == {"calls": 2, "cancelled": 1}
        return first, await cancelling.ainvoke(Command(resume="!"), config)

    assert asyncio.run(run()) == ([["mapper"], ["__interrupt__"]], ["00!"])
    assert runs == {"calls": 3, "cancelled": 2}


def test_what_an_attempt_sends_after_its_timeout_is_dropped() -> None:
    """A node that swallows its cancellation and goes on: its custom events, pushed messages and return
    value after the timeout are not the task's (the next attempt's are), as LangGraph closes its writers."""
    from langchain_core.messages import AIMessage

    from engine.config import get_stream_writer
    from engine.graph import MessagesState
    from engine.graph.message import push_message

    done = asyncio.Event()
    attempts: list[int] = []

    async def stubborn(state: Any) -> Any:
        attempts.append(1)
        if len(attempts) == 1:
            try:
                await forever()
            except asyncio.CancelledError:
                get_stream_writer()("stale")
                push_message(AIMessage("stale", id="stale"))
                done.set()
                return {"messages": [AIMessage("stale return", id="late")]}
        await done.wait()  # the stale attempt has sent what it sends
        get_stream_writer()("fresh")
        return {"messages": [AIMessage("fresh", id="fresh")]}

    graph = (
        StateGraph(MessagesState).add_node("n", stubborn, timeout=TimeoutPolicy(idle_timeout=0.05), retry_policy=RETRY)
        .add_edge(START, "n").compile()
    )

    async def run() -> list[Any]:
        return [c async for c in graph.astream({"messages": []}, stream_mode=["custom", "values"])]

    chunks = asyncio.run(run())
    assert [c for mode, c in chunks if mode == "custom"] == ["fresh"]
    assert [m.id for m in chunks[-1][1]["messages"]] == ["fresh"]
    assert len(attempts) == 2


@pytest.mark.parametrize("refresh_on", ["auto", "heartbeat"])
def test_a_models_callback_events_are_progress_only_under_auto(refresh_on: str) -> None:
    """With refresh_on="auto" every callback event of the node's LangChain calls (a model's start, its
    tokens) moves the idle clock on, though the caller streams none of them; with "heartbeat" none does."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage

    from engine._internal._task import CURRENT
    from engine.graph import MessagesState

    model = GenericFakeChatModel(messages=iter([AIMessage("a b c")]))
    moved: list[bool] = []

    async def call_model(state: Any) -> Any:
        beat = CURRENT.get().beat  # type: ignore[union-attr]
        before = beat.last
        text = "".join([str(c.content) async for c in model.astream(state["messages"])])
        moved.append(beat.last > before)
        return {"messages": [AIMessage(text)]}

    policy = TimeoutPolicy(idle_timeout=60, refresh_on=refresh_on)  # type: ignore[arg-type]
    graph = StateGraph(MessagesState).add_node("m", call_model, timeout=policy).add_edge(START, "m").compile()
    assert asyncio.run(graph.ainvoke({"messages": [HumanMessage("hi")]}))["messages"][-1].content == "a b c"
    assert moved == [refresh_on == "auto"]
