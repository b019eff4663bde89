"""A task's LangGraph state reader and writer in its config (``__pregel_read``, ``__pregel_send``).

deepagents' default ``StateBackend`` keeps an agent's files in state through
them: a tool sends a file's write, then reads the files back fresh in the same
step (tests/sidebyside/deep_agent.py runs such an agent on LangGraph and on
the engine). As LangGraph's ``local_read``: a channel's value as the task was
planned (None when it has none), a list's as a dict of those with one, and
with ``fresh`` the task's sent writes applied through the channels' reducers;
sent writes are the task's, committed with its result (before it), dropped
with a failed attempt.
"""

from __future__ import annotations

import asyncio
import contextvars
import operator
import threading
from typing import Annotated, Any, TypedDict

import pytest

from engine._internal._constants import CONFIG_KEY_READ, CONFIG_KEY_SEND
from engine.checkpoint import InMemorySaver
from engine.config import get_config
from engine.graph import START, StateGraph
from engine.types import RetryPolicy


def _merge(a: dict[str, str] | None, b: dict[str, str]) -> dict[str, str]:
    return {**(a or {}), **b}


class S(TypedDict, total=False):
    files: Annotated[dict[str, str], _merge]
    log: Annotated[list[str], operator.add]
    note: str


def _read(select: Any, fresh: bool = False) -> Any:
    return get_config()["configurable"][CONFIG_KEY_READ](select, fresh)


def _send(writes: list[tuple[str, Any]]) -> None:
    get_config()["configurable"][CONFIG_KEY_SEND](writes)


def _graph(node: Any, **kw: Any) -> Any:
    g = StateGraph(S)
    g.add_node("n", node, **kw)
    g.add_edge(START, "n")
    return g.compile(checkpointer=InMemorySaver())


def test_a_node_sends_writes_and_reads_them_back_fresh_in_its_step() -> None:
    seen: list[Any] = []

    def node(state: S) -> dict[str, Any]:
        _send([("files", {"/b.md": "bee"})])
        seen.append(_read("files"))  # as planned: the send is not in it
        seen.append(_read("files", True))  # fresh: through the reducer
        seen.append(_read(["files", "note", "log"], True))  # a list: those with a value
        seen.append(_read("note"))  # no value: None
        return {"log": ["n"]}

    app = _graph(node)
    out = app.invoke({"files": {"/a.md": "ay"}, "log": []}, {"configurable": {"thread_id": "t"}})
    assert seen == [
        {"/a.md": "ay"},
        {"/a.md": "ay", "/b.md": "bee"},
        {"files": {"/a.md": "ay", "/b.md": "bee"}, "log": []},
        None,
    ]
    assert out == {"files": {"/a.md": "ay", "/b.md": "bee"}, "log": ["n"]}
    last = list(app.get_state_history({"configurable": {"thread_id": "t"}}))[0]
    assert last.values == out and last.metadata["source"] == "loop"


def test_sends_from_a_nodes_threads_are_all_kept_and_a_failed_attempts_are_dropped() -> None:
    attempts: list[int] = []

    def node(state: S) -> dict[str, Any]:
        attempts.append(1)
        # (each in a copy of the node's context, as a ToolNode runs its tools: a plain thread sees no node)
        threads = [threading.Thread(target=contextvars.copy_context().run, args=(_send, [("files", {f"/{i}": str(i)})])) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if len(attempts) == 1:
            _send([("files", {"/lost": "x"})])
            raise ValueError("first attempt fails")
        return {}

    app = _graph(node, retry_policy=RetryPolicy(max_attempts=2, initial_interval=0, jitter=False, retry_on=ValueError))
    out = app.invoke({"files": {}}, {"configurable": {"thread_id": "t"}})
    assert out["files"] == {f"/{i}": str(i) for i in range(8)}


def test_an_async_node_reads_and_sends_alike() -> None:
    async def node(state: S) -> dict[str, Any]:
        _send([("log", ["sent"])])
        return {"note": str(_read("log", True))}

    app = _graph(node)
    out = asyncio.run(app.ainvoke({"log": ["in"]}, {"configurable": {"thread_id": "t"}}))
    assert out == {"files": {}, "log": ["in", "sent"], "note": "['in', 'sent']"}


def test_outside_a_running_node_they_say_so() -> None:
    seen: dict[str, Any] = {}

    def node(state: S) -> dict[str, Any]:
        seen.update(get_config()["configurable"])
        return {}

    _graph(node).invoke({"log": []}, {"configurable": {"thread_id": "t"}})
    with pytest.raises(RuntimeError, match="inside a running node"):
        seen[CONFIG_KEY_SEND]([("log", ["x"])])
    with pytest.raises(RuntimeError, match="inside a running node"):
        seen[CONFIG_KEY_READ]("log")
