"""Real LangGraph compiled with graphwire's savers as its checkpointer (issue 31 item 2).

LangGraph 1.2.22 itself (the test extra installs it; it is the reference)
runs a graph with a ``Send`` fan-out, an interrupt and its resume, on each
of our savers and on LangGraph's own ``InMemorySaver``: the values, the
interrupts and the history must be the same. Storage stays linear under
LangGraph (a message list that grows by a turn stores the turn), and on
PostgreSQL a run's lease, carried in the config as the engine carries it,
fences every write LangGraph makes.

Real LangGraph is imported in this process only (the import swap's tests
run in fresh interpreters; ``engine.swap.install`` refuses a process where
LangGraph itself is loaded).
"""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

import pytest

pytest.importorskip("langgraph.graph", reason="the test extra installs langgraph==1.2.22")

from langchain_core.messages import AIMessage, HumanMessage  # noqa: E402
from langgraph.channels.delta import DeltaChannel  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver as LangGraphMemory  # noqa: E402
from langgraph.checkpoint.serde.types import _DeltaSnapshot  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.graph.message import add_messages  # noqa: E402
from langgraph.types import Command, Send, interrupt  # noqa: E402

from engine.checkpoint import BaseCheckpointSaver  # noqa: E402
from engine.checkpoint.base import LEASE_KEY  # noqa: E402
from engine.errors import LeaseLostError  # noqa: E402


class State(TypedDict):
    messages: Annotated[list, add_messages]
    items: Annotated[list, operator.add]


def _graph() -> StateGraph:
    def chat(s: State) -> dict[str, Any]:
        return {"messages": [AIMessage(f"turn {len(s['messages'])}", id=f"ai-{len(s['messages'])}")]}

    def fan(s: State) -> list[Send]:
        return [Send("work", i) for i in range(3)]

    def work(i: int) -> dict[str, Any]:
        return {"items": [i * 10]}

    def ask(s: State) -> dict[str, Any]:
        return {"items": [interrupt({"question": "ok?", "seen": len(s["items"])})]}

    g = StateGraph(State)
    g.add_node("chat", chat)
    g.add_node("work", work)
    g.add_node("ask", ask)
    g.add_edge(START, "chat")
    g.add_conditional_edges("chat", fan)
    g.add_edge("work", "ask")
    g.add_edge("ask", END)
    return g


def _turns(app: Any, *, run: Callable[..., Any]) -> list[Any]:
    """Two turns with an interrupt and its resume each; what the program sees (the call's metadata and
    plain configurable keys land in each version's metadata, as LangGraph's savers put them)."""
    cfg = {"configurable": {"thread_id": "t", "user": "u1", "__private": 1}, "metadata": {"mine": 1, "__hidden": 2}}
    seen = []
    for turn in range(2):
        out = run(app.invoke, {"messages": [HumanMessage(f"hi {turn}", id=f"h{turn}")]}, cfg)
        seen.append((out["items"], [i.value for i in out["__interrupt__"]]))
        seen.append(run(app.invoke, Command(resume=f"yes {turn}"), cfg))
    state = app.get_state(cfg)
    history = [(s.metadata, s.next, s.values) for s in app.get_state_history(cfg)]
    return [*seen, state.values, state.next, history]


def _sync(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*args)


def _async(fn: Callable[..., Any], *args: Any) -> Any:
    return asyncio.run(getattr(fn.__self__, "a" + fn.__name__)(*args))


@pytest.mark.parametrize("run", [_sync, _async], ids=["sync", "async"])
def test_langgraph_runs_on_our_saver_as_on_its_own(saver: BaseCheckpointSaver, run: Callable[..., Any]) -> None:
    ours = _turns(_graph().compile(checkpointer=saver), run=run)
    theirs = _turns(_graph().compile(checkpointer=LangGraphMemory()), run=run)
    assert ours == theirs
    assert ours[-1][0][0]["source"] == "loop" and len(ours[-1]) == len(theirs[-1]) == 10
    assert {k: ours[-1][0][0][k] for k in ("mine", "user")} == {"mine": 1, "user": "u1"} and "__hidden" not in ours[-1][0][0]


def test_a_failing_node_is_recorded_as_langgraph_records_it(saver: BaseCheckpointSaver) -> None:
    """LangGraph hands the saver the exception itself as the task's error write; it is stored as
    LangGraph's savers store it (its repr), so the run fails with the node's error, not a storage one."""

    def boom(s: State) -> dict[str, Any]:
        raise ValueError("no luck")

    def build() -> Any:
        g = StateGraph(State)
        g.add_node("boom", boom)
        g.add_edge(START, "boom")
        return g

    for checkpointer in (saver, LangGraphMemory()):
        app = build().compile(checkpointer=checkpointer)
        cfg = {"configurable": {"thread_id": "t"}}
        with pytest.raises(ValueError, match="no luck"):
            app.invoke({"messages": []}, cfg)
        (task,) = app.get_state(cfg).tasks
        assert task.name == "boom" and task.error == "ValueError('no luck')"


def test_a_growing_conversation_stores_each_turn_once(saver: BaseCheckpointSaver, blob_bytes: Any) -> None:
    """Under LangGraph the ``messages`` list is handed over whole at every version; the saver
    stores what was appended. Doubling the turns doubles the bytes (a quadratic store would
    quadruple them)."""

    def reply(s: State) -> dict[str, Any]:
        return {"messages": [AIMessage("a reply of some length " * 4, id=f"ai-{len(s['messages'])}")]}

    g = StateGraph(State)
    g.add_node("reply", reply)
    g.add_edge(START, "reply")
    app = g.compile(checkpointer=saver)
    sizes = {}
    for thread, turns in (("short", 40), ("long", 80)):
        for turn in range(turns):
            app.invoke({"messages": [HumanMessage(f"question {turn} " * 4, id=f"h{turn}")]}, {"configurable": {"thread_id": thread}})
        sizes[thread] = blob_bytes(saver, thread)
    assert len(app.get_state({"configurable": {"thread_id": "long"}}).values["messages"]) == 160
    assert sizes["long"] < 2.3 * sizes["short"], sizes


def test_a_lost_lease_refuses_langgraphs_writes(pg: Any) -> None:
    """A run's lease in the config fences every write LangGraph makes: once another owner took
    the thread, the stale run's next put raises and stores nothing (PostgreSQL: the saver with leases)."""
    app = _graph().compile(checkpointer=pg)
    lease = asyncio.run(pg.leases.aacquire_lease("t", "replica-a", ttl=30))
    assert lease is not None
    cfg = {"configurable": {"thread_id": "t", LEASE_KEY: lease}}
    app.invoke({"messages": [HumanMessage("hi", id="h")]}, cfg)
    written = len(list(app.get_state_history({"configurable": {"thread_id": "t"}})))
    asyncio.run(pg.leases.arelease_lease(lease))
    assert asyncio.run(pg.leases.aacquire_lease("t", "replica-b", ttl=30)) is not None
    with pytest.raises(LeaseLostError):
        app.invoke(Command(resume="yes"), cfg)
    assert len(list(app.get_state_history({"configurable": {"thread_id": "t"}}))) == written


def test_a_delta_channel_runs_on_our_saver_as_on_its_own(saver: BaseCheckpointSaver) -> None:
    """LangGraph's DeltaChannel (issue 29): its snapshots (a named tuple of LangGraph's) are
    stored and read back as that class, so values, history and stored versions match."""
    def concat(state: list, writes: list) -> list:
        return [*state, *(i for w in writes for i in (w if isinstance(w, list) else [w]))]

    D = TypedDict("D", {"log": Annotated[list, DeltaChannel(concat, snapshot_frequency=2)]})  # type: ignore[misc]

    def seen(checkpointer: Any) -> list[Any]:
        app = StateGraph(D).add_node("a", lambda s: {"log": ["a"]}).add_edge(START, "a").compile(checkpointer=checkpointer)
        cfg = {"configurable": {"thread_id": "d"}}
        for i in range(3):
            app.invoke({"log": [f"in{i}"]}, cfg)
        return [
            (s.values, type(checkpointer.get_tuple(s.config).checkpoint["channel_values"].get("log")).__name__)
            for s in app.get_state_history(cfg)
        ]

    ours, theirs = seen(saver), seen(LangGraphMemory())
    assert ours == theirs
    assert ours[0] == ({"log": ["in0", "a", "in1", "a", "in2", "a"]}, _DeltaSnapshot.__name__)
