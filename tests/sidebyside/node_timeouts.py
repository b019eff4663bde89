"""Node timeouts (issue 29): TimeoutPolicy, NodeTimeoutError, retried then failing or succeeding, a Send's own
timeout, @task / @entrypoint timeouts, an error handler taking a timeout over, sync nodes refused.

A node that must time out waits on an event nobody sets; one that must not returns at once under a
generous limit: no outcome depends on how fast the machine is."""

import asyncio
import re
from datetime import timedelta
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import NodeError, NodeTimeoutError
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import RetryPolicy, Send, TimeoutPolicy

from observe import call, record


class S(TypedDict):
    x: int


def timeout_fields(e):
    return {"node": e.node, "kind": e.kind, "timeout": e.timeout, "run_timeout": e.run_timeout,
            "idle_timeout": e.idle_timeout, "retryable": isinstance(e, TimeoutError) is False}


async def forever():
    await asyncio.Event().wait()


record("policy", [repr(TimeoutPolicy.coerce(0.5)), repr(TimeoutPolicy.coerce(timedelta(milliseconds=250))),
                  repr(TimeoutPolicy.coerce(TimeoutPolicy(idle_timeout=2, refresh_on="heartbeat"))),
                  repr(Send("n", 1, timeout=1)), repr(Send("n", 1))])
for bad in (0, -1, TimeoutPolicy(idle_timeout=0), TimeoutPolicy(run_timeout=1, refresh_on="never")):
    call(f"coerce {bad!r}", TimeoutPolicy.coerce, bad)
call("send 0", Send, "n", 1, timeout=0)
call("add_node 0", lambda: StateGraph(S).add_node("n", lambda s: s, timeout=0))

# 1. A timeout retried, then failing: every attempt runs, the last one's NodeTimeoutError is raised.
attempts = []


async def stuck(state: S):
    attempts.append(1)
    await forever()


policy = RetryPolicy(max_attempts=3, initial_interval=0, jitter=False, retry_on=NodeTimeoutError)
graph = (
    StateGraph(S).add_node("stuck", stuck, timeout=TimeoutPolicy(run_timeout=0.05, idle_timeout=5), retry_policy=policy)
    .add_edge(START, "stuck").compile(checkpointer=InMemorySaver())
)
config = {"configurable": {"thread_id": "fails"}}
try:
    asyncio.run(graph.ainvoke({"x": 1}, config))
except NodeTimeoutError as e:
    record("retried then failed", timeout_fields(e))
record("attempts", len(attempts))
record("failed history", [  # the elapsed time in the stored error's text left out
    (s.metadata["step"], s.next, [(t.name, re.sub(r"elapsed: [0-9.]+s", "elapsed", str(t.error))) for t in s.tasks])
    for s in graph.get_state_history(config)
])

# 2. The first attempt times out, the second returns.
attempts.clear()


async def second_time(state: S):
    attempts.append(1)
    if len(attempts) == 1:
        await forever()
    return {"x": state["x"] + 1}


graph = (
    StateGraph(S).add_node("n", second_time, timeout=TimeoutPolicy(idle_timeout=0.05), retry_policy=policy)
    .add_edge(START, "n").compile()
)
record("retried then succeeded", asyncio.run(graph.ainvoke({"x": 1})))
record("attempts then", len(attempts))

# 3. Under a generous limit a node that heartbeats and streams runs to its end.


async def busy(state: S, runtime):
    for i in range(3):
        runtime.heartbeat()
        runtime.stream_writer({"i": i})
    return {"x": 7}


graph = StateGraph(S).add_node("busy", busy, timeout=5).add_edge(START, "busy").compile()


async def chunks():
    return [c async for c in graph.astream({"x": 0}, stream_mode=["custom", "updates"])]


record("within the limit", asyncio.run(chunks()))

# 4. A Send's own timeout replaces its node's.


async def slow(state: S):
    await forever()


graph = (
    StateGraph(S).add_node("slow", slow, timeout=TimeoutPolicy(idle_timeout=60))
    .add_conditional_edges(START, lambda s: [Send("slow", s, timeout=TimeoutPolicy(idle_timeout=0.05))]).compile()
)
try:
    asyncio.run(graph.ainvoke({"x": 1}))
except NodeTimeoutError as e:
    record("send timeout", timeout_fields(e))

# 5. An error handler takes a timeout over.


def handler(state: S, error: NodeError):
    return {"x": -1 if isinstance(error.error, NodeTimeoutError) else -2}


graph = StateGraph(S).add_node("slow", slow, timeout=0.05, error_handler=handler).add_edge(START, "slow").compile()
record("handled timeout", asyncio.run(graph.ainvoke({"x": 1})))

# 6. set_node_defaults(timeout=), a node's own winning.


async def quick(state: S):
    return {"x": 2}


graph = (
    StateGraph(S).set_node_defaults(timeout=TimeoutPolicy(run_timeout=0.05)).add_node("slow", slow)
    .add_node("quick", quick, timeout=60).add_edge(START, "quick").add_edge("quick", "slow").compile()
)
try:
    asyncio.run(graph.ainvoke({"x": 1}))
except NodeTimeoutError as e:
    record("default timeout", timeout_fields(e))

# 7. @task and @entrypoint.


@task(timeout=TimeoutPolicy(idle_timeout=0.05))
async def slow_task(x: int) -> int:
    await forever()


@task(timeout=60)
async def echo(*, timeout: int) -> int:
    return timeout


@entrypoint()
async def workflow(x: int) -> int:
    got = await echo(timeout=x)
    return await slow_task(got)


try:
    asyncio.run(workflow.ainvoke(3))
except NodeTimeoutError as e:
    record("task timeout", timeout_fields(e))


@entrypoint(timeout=TimeoutPolicy(idle_timeout=0.05))
async def slow_workflow(x: int) -> int:
    await forever()


try:
    asyncio.run(slow_workflow.ainvoke(1))
except NodeTimeoutError as e:
    record("entrypoint timeout", timeout_fields(e))

# 8. Sync nodes cannot be stopped: refused as they are declared or compiled.


def sync_node(state: S):
    return state


def refused(fn):
    try:
        fn()
    except ValueError as e:
        return str(e)


record("sync node", refused(lambda: StateGraph(S).add_node("n", sync_node, timeout=1).add_edge(START, "n").compile()))
record("sync task", refused(lambda: task(timeout=1)(lambda x: x)))
record("sync entrypoint", refused(lambda: entrypoint(timeout=1)(sync_node)))

# 9. Cancellation: a node raising CancelledError itself fails the run with NodeCancelledError; a @task call
# its entrypoint cancels is not waited for (the entrypoint goes on to its interrupt, and its resume).
from langgraph.checkpoint.memory import InMemorySaver as Saver  # noqa: E402
from langgraph.errors import NodeCancelledError  # noqa: E402
from langgraph.types import Command, interrupt  # noqa: E402


async def cancels(state: S):
    raise asyncio.CancelledError("raised by the node")


async def fine(state: S):
    return {"x": 1}


graph = StateGraph(S).add_node("ok", fine).add_node("boom", cancels).add_edge(START, "ok").add_edge(START, "boom").compile()
try:
    asyncio.run(graph.ainvoke({"x": 0}))
except NodeCancelledError as e:
    record("node cancelled", {"node": e.node, "message": str(e)})

mapper_runs = {"calls": 0, "cancelled": 0}
started: list[asyncio.Event] = []


@task()
async def mapper(i: int) -> str:
    mapper_runs["calls"] += 1
    try:
        if i:
            started[-1].set()
            await forever()
    except asyncio.CancelledError:
        mapper_runs["cancelled"] += 1
        raise
    return str(i) * 2


@entrypoint(checkpointer=Saver())
async def cancelling(inp: list[int]) -> list[str]:
    started.append(asyncio.Event())
    futures = [mapper(i) for i in inp]
    await started[-1].wait()  # the call to be cancelled has started
    futures.pop().cancel()
    mapped = await asyncio.gather(*futures)
    return [m + interrupt("question") for m in mapped]


async def cancelled_call():
    config = {"configurable": {"thread_id": "c"}}
    first = [list(c) for c in [c async for c in cancelling.astream([0, 1], config)]]
    record("mapper runs", dict(mapper_runs))
    return first, await cancelling.ainvoke(Command(resume="!"), config)


record("cancelled call", asyncio.run(cancelled_call()))
record("mapper runs after the resume", mapper_runs)

# 10. An attempt that swallows its cancellation and goes on: what it sends after its timeout is dropped.
from langchain_core.messages import AIMessage  # noqa: E402
from langgraph.graph import MessagesState  # noqa: E402
from langgraph.graph.message import push_message  # noqa: E402
from langgraph.config import get_stream_writer  # noqa: E402

stubborn_done: list[asyncio.Event] = []
stubborn_attempts = []


async def stubborn(state: MessagesState):
    stubborn_attempts.append(1)
    if len(stubborn_attempts) == 1:
        try:
            await forever()
        except asyncio.CancelledError:
            get_stream_writer()("stale")
            push_message(AIMessage("stale", id="stale"))
            stubborn_done[-1].set()
            return {"messages": [AIMessage("stale return", id="late")]}
    await stubborn_done[-1].wait()
    get_stream_writer()("fresh")
    return {"messages": [AIMessage("fresh", id="fresh")]}


graph = (
    StateGraph(MessagesState).add_node("n", stubborn, timeout=TimeoutPolicy(idle_timeout=0.05), retry_policy=policy)
    .add_edge(START, "n").compile()
)


async def stubborn_run():
    stubborn_done.append(asyncio.Event())
    return [c async for c in graph.astream({"messages": []}, stream_mode=["custom", "updates", "values"])]


record("stubborn", asyncio.run(stubborn_run()))
record("stubborn attempts", len(stubborn_attempts))


# 11. refresh_on="auto": a model's callback events (its tokens) reset the idle clock, though nobody streams
# them; with "heartbeat" only runtime.heartbeat() does. (Gaps of 0.1s under an idle timeout of 0.25s.)
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessageChunk, HumanMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult  # noqa: E402


class SlowModel(GenericFakeChatModel):
    async def _astream(self, messages, stop=None, run_manager=None, **kwargs):
        for i in range(4):
            await asyncio.sleep(0.1)
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=str(i), chunk_position="last" if i == 3 else None))
            if run_manager:
                await run_manager.on_llm_new_token(str(i), chunk=chunk)
            yield chunk

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=""))])


slow_model = SlowModel(messages=iter([]))


async def call_model(state: MessagesState):
    return {"messages": [AIMessage("".join([c.content async for c in slow_model.astream(state["messages"])]))]}


for refresh in ("auto", "heartbeat"):
    graph = (
        StateGraph(MessagesState).add_node("m", call_model, timeout=TimeoutPolicy(idle_timeout=0.25, refresh_on=refresh))
        .add_edge(START, "m").compile()
    )
    call(f"model tokens refresh {refresh}",
         lambda: asyncio.run(graph.ainvoke({"messages": [HumanMessage("hi")]}))["messages"][-1].content)
